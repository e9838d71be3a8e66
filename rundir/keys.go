package rundir

import (
	"os"

	"github.com/vlmrb/vlmrb/internal/vlmclient"
)

// EmbedKeyEnv names the environment variable with the API key for VLM-RM's
// embedding server when it is not the VLM server.
const EmbedKeyEnv = "EMBED_API_KEY"

// EmbedKey is the key sent to the embedding server: $EMBED_API_KEY when
// set; else the VLM key ($OPENAI_API_KEY) only when the embedding server
// is the VLM server's host or no VLM server is configured, so a key meant
// for one host is never sent to another. withheld reports a VLM key that
// was not sent.
func EmbedKey(c *Config) (key string, withheld bool) {
	if k := os.Getenv(EmbedKeyEnv); k != "" {
		return k, false
	}
	if c.VLM.APIKey == "" || c.VLM.BaseURL == "" || vlmclient.SameHost(c.RM.EmbedBaseURL, c.VLM.BaseURL) {
		return c.VLM.APIKey, false
	}
	return "", true
}
