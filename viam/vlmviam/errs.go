package vlmviam

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Errors that reach clients carry a gRPC code (the module's server passes
// a status error through; anything else arrives as Unknown):
// InvalidArgument for bad attributes and commands, NotFound for a missing
// dependency, FailedPrecondition for a call the resource's state does not
// allow, Unavailable for a dependency that does not answer.

func invalidArg(format string, a ...any) error {
	return status.Error(codes.InvalidArgument, fmt.Sprintf(format, a...))
}

func failedPrecondition(format string, a ...any) error {
	return status.Error(codes.FailedPrecondition, fmt.Sprintf(format, a...))
}

func notFound(format string, a ...any) error {
	return status.Error(codes.NotFound, fmt.Sprintf(format, a...))
}

// isStopAllCancel reports whether err is a call cancelled by viam-server
// (gRPC Canceled) rather than by the runner: StopAll cancels every
// operation in flight.
func isStopAllCancel(err error) bool {
	if err == nil {
		return false
	}
	if st, ok := status.FromError(err); ok && st.Code() == codes.Canceled {
		return true
	}
	return errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "context canceled")
}

// isTransient reports whether err says a dependency is not there yet or
// does not answer: worth retrying at an episode start.
func isTransient(err error) bool {
	if err == nil {
		return false
	}
	switch status.Code(err) {
	case codes.NotFound, codes.Unavailable:
		return true
	}
	if st, ok := status.FromError(errors.Unwrap(err)); ok && (st.Code() == codes.NotFound || st.Code() == codes.Unavailable) {
		return true
	}
	m := err.Error()
	return strings.Contains(m, "not found") || strings.Contains(m, "Unavailable") || strings.Contains(m, "connection refused") ||
		strings.Contains(m, "not ready") || strings.Contains(m, "no such file")
}

// depWaitLimit bounds how long an episode start waits for its components.
const depWaitLimit = 60 * time.Second

// awaitDeps runs f, retrying with exponential backoff (50 ms doubling to
// 1 s) while it fails with a transient error, for at most depWaitLimit.
func (r *Runner) awaitDeps(ctx context.Context, f func() error) error {
	backoff := 50 * time.Millisecond
	deadline := time.Now().Add(depWaitLimit)
	tries := 0
	for {
		err := f()
		if err == nil {
			if tries > 0 {
				r.logger.Infow("policy-runner: components reachable again", "retries", tries)
			}
			return nil
		}
		if !isTransient(err) || ctx.Err() != nil || time.Now().After(deadline) {
			if tries > 0 && isTransient(err) {
				return status.Error(codes.Unavailable, fmt.Sprintf("policy-runner: components still unreachable after %d tries over %v: %v", tries, depWaitLimit, err))
			}
			return err
		}
		tries++
		r.mu.Lock()
		r.stat.DepRetries++
		r.mu.Unlock()
		r.warn.Warnw(r.logger, "deps", "policy-runner: a component is not reachable yet; retrying", "err", err, "backoff", backoff)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Second)
	}
}

// rateLimiter lets one warning per key through every rateLimitEvery and
// counts the ones it held back; the next one that passes reports them.
type rateLimiter struct {
	mu   sync.Mutex
	last map[string]time.Time
	held map[string]int
}

const rateLimitEvery = 10 * time.Second

// Warnw logs msg at warning level unless a warning with key was logged
// within rateLimitEvery.
func (l *rateLimiter) Warnw(logger interface {
	Warnw(string, ...any)
}, key, msg string, kv ...any) {
	l.mu.Lock()
	if l.last == nil {
		l.last, l.held = map[string]time.Time{}, map[string]int{}
	}
	now := time.Now()
	if t, ok := l.last[key]; ok && now.Sub(t) < rateLimitEvery {
		l.held[key]++
		l.mu.Unlock()
		return
	}
	held := l.held[key]
	l.last[key], l.held[key] = now, 0
	l.mu.Unlock()
	if held > 0 {
		kv = append(kv, "suppressed_since_last", held)
	}
	logger.Warnw(msg, kv...)
}

// nextEpisodeNumber returns one past the highest episode-NNNNNN folder
// under root (0 when there is none or root does not exist yet).
func nextEpisodeNumber(root string) (int, error) {
	ents, err := os.ReadDir(root)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, failedPrecondition("policy-runner: record_dir %q: %v", root, err)
	}
	next := 0
	for _, e := range ents {
		name := e.Name()
		if !e.IsDir() || !strings.HasPrefix(name, "episode-") {
			continue
		}
		n, err := strconv.Atoi(strings.TrimPrefix(name, "episode-"))
		if err == nil && n >= next {
			next = n + 1
		}
	}
	return next, nil
}
