package vlmclient

import (
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// backoff draws retry delays: base·2^attempt capped at max, with "equal
// jitter" (uniform in [d/2, d]) so clients that failed together do not
// retry together.
type backoff struct {
	base, max time.Duration
	mu        sync.Mutex
	rng       *rand.Rand
}

func newBackoff(base, max time.Duration) *backoff {
	return &backoff{base: base, max: max, rng: rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x9e3779b97f4a7c15))}
}

// delay returns the wait before retry number attempt+1 (attempt ≥ 0).
func (b *backoff) delay(attempt int) time.Duration {
	d := b.base << min(attempt, 30)
	if d <= 0 || d > b.max {
		d = b.max
	}
	b.mu.Lock()
	j := b.rng.Int64N(int64(d)/2 + 1)
	b.mu.Unlock()
	return d/2 + time.Duration(j)
}

// RetryAfter parses a Retry-After header, in delay-seconds or as an
// HTTP-date (RFC 9110 §10.2.3), relative to now. ok is false when the
// header is absent or unreadable; a date in the past is a zero delay.
func RetryAfter(h http.Header, now time.Time) (d time.Duration, ok bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseFloat(v, 64); err == nil && n >= 0 && n < 1e6 {
		return time.Duration(n * float64(time.Second)), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}
