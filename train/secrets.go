package train

import "github.com/vlmrb/vlmrb/internal/redact"

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
