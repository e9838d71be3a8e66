package main

import (
	"io"
	"os"
	"strings"

	"github.com/vlmrb/vlmrb/internal/redact"
	"github.com/vlmrb/vlmrb/train"
)

// keyEnv are the environment variables that hold API keys.
var keyEnv = []string{"OPENAI_API_KEY", train.EmbedKeyEnv}

// redactOutput wraps the CLI's stdout and stderr so that nothing printed
// (errors, warnings, tables, --json lines) can carry a key: the keys from
// the environment, credentials inside URL arguments, Authorization values
// and key-like query parameters are masked. This is the CLI's one
// redaction point; the library clients also redact their own errors.
func redactOutput(args []string, stdout, stderr io.Writer) (io.Writer, io.Writer) {
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
