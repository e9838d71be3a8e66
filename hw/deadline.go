package hw

import (
	"context"
	"errors"
	"fmt"
)

// take waits for the next payload, at most Options.FrameTimeout when set.
// A timeout names the source and the last thing that went wrong with it.
func (l *live) take(ctx context.Context) (*payload, error) {
	if l.opts.FrameTimeout <= 0 {
		return l.slot.take(ctx)
	}
	tctx, cancel := context.WithTimeout(ctx, l.opts.FrameTimeout)
	defer cancel()
	p, err := l.slot.take(tctx)
	if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		if last := l.c.snapshot().LastError; last != "" {
			return nil, fmt.Errorf("hw: %s: no frame within %v (%w); last error: %s", l.name, l.opts.FrameTimeout, ErrFrameTimeout, last)
		}
		return nil, fmt.Errorf("hw: %s: no frame within %v (%w): connected, but no complete frame arrived", l.name, l.opts.FrameTimeout, ErrFrameTimeout)
	}
	return p, err
}

// Redact returns a source spec with any credentials (URL user-info,
// key-like query values) masked: the form in which to print a spec.
func Redact(spec string) string { return redactSpec(spec) }
