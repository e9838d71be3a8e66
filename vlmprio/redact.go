package vlmprio

import (
	"context"
	"errors"
)

// redactErr masks the API key, Authorization values and base-URL
// credentials in a scoring error (servers echo keys in 401 bodies;
// transport errors quote the URL). The kind is kept.
func (s *OpenAIScorer) redactErr(err error) error {
	var se *ScoreError
	if errors.As(err, &se) {
		se.Err = s.client.Redact(se.Err)
		return err
	}
	return s.client.Redact(err)
}

// ctxKind classifies a call that ended with its ctx: timeout when the
// caller's deadline passed (a clip deadline such as score --timeout),
// canceled when the caller stopped it.
func ctxKind(ctx context.Context) ErrorKind {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return KindTimeout
	}
	return KindCanceled
}
