package rundir

import (
	"io"
	"os"
	"strings"

	"github.com/vlmrb/vlmrb/internal/redact"
)

// withoutSecrets returns a copy of c fit for config.yaml and checkpoints:
// server URLs lose their user-info and key-like query parameters (the
// API key itself is never encoded: yaml:"-"). Credentials come from the
// environment (OPENAI_API_KEY) or the URL given again on --resume.
func (c *Config) withoutSecrets() *Config {
	d := *c
	d.VLM.BaseURL, _ = redact.StripURL(c.VLM.BaseURL)
	d.RM.EmbedBaseURL, _ = redact.StripURL(c.RM.EmbedBaseURL)
	return &d
}

// keyEnv are the environment variables that hold API keys.
var keyEnv = []string{"OPENAI_API_KEY", EmbedKeyEnv}

// RedactOutput wraps a program's stdout and stderr so that nothing printed
// through them (errors, warnings, tables, JSON lines) can carry a secret:
// the keys in the environment (OPENAI_API_KEY, EMBED_API_KEY), credentials
// inside URL arguments in args or $OPENAI_BASE_URL, Authorization values
// and key-like query parameters are masked. robot-train wraps its output
// with it; the VLM clients also redact their own errors.
func RedactOutput(args []string, stdout, stderr io.Writer) (io.Writer, io.Writer) {
	var secrets []string
	for _, k := range keyEnv {
		if v := os.Getenv(k); v != "" {
			secrets = append(secrets, v)
		}
	}
	urls := append(append([]string(nil), args...), os.Getenv("OPENAI_BASE_URL"))
	for _, a := range urls {
		if i := strings.Index(a, "://"); i >= 0 {
			start := strings.LastIndexByte(a[:i], '=') + 1 // --flag=URL
			_, c := redact.StripURL(a[start:])
			secrets = append(secrets, c.Secrets()...)
		}
	}
	return redact.NewWriter(stdout, secrets...), redact.NewWriter(stderr, secrets...)
}
