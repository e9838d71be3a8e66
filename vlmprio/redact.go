package vlmprio

import (
	"errors"

	"github.com/vlmrb/vlmrb/internal/redact"
)

// redactErr masks the API key, Authorization values and base-URL
// credentials in a scoring error (servers echo keys in 401 bodies;
// transport errors quote the URL). The kind is kept.
func (s *OpenAIScorer) redactErr(err error) error {
	_, creds := redact.StripURL(s.cfg.BaseURL)
	secrets := append([]string{s.cfg.APIKey}, creds.Secrets()...)
	var se *ScoreError
	if errors.As(err, &se) {
		se.Err = redact.Error(se.Err, secrets...)
		return err
	}
	return redact.Error(err, secrets...)
}
