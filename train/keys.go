package train

import (
	"net/url"
	"os"
	"strings"
)

// EmbedKeyEnv names the environment variable with the API key for VLM-RM's
// embedding server when it is not the VLM server.
const EmbedKeyEnv = "EMBED_API_KEY"

// embedKey is the key sent to the embedding server: $EMBED_API_KEY when
// set; else the VLM key ($OPENAI_API_KEY) only when the embedding server
// is the VLM server's host or no VLM server is configured, so a key meant
// for one host is never sent to another. withheld reports a VLM key that
// was not sent.
func embedKey(c *Config) (key string, withheld bool) {
	if k := os.Getenv(EmbedKeyEnv); k != "" {
		return k, false
	}
	if c.VLM.APIKey == "" || c.VLM.BaseURL == "" || sameHost(c.RM.EmbedBaseURL, c.VLM.BaseURL) {
		return c.VLM.APIKey, false
	}
	return "", true
}

// sameHost reports whether two URLs name the same scheme, host and port.
func sameHost(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && ua.Host != "" &&
		strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Host, ub.Host)
}
