package vlmclient

import (
	"sync"
	"time"
)

// breaker is a consecutive-failure circuit breaker: threshold failed
// calls in a row open it for cooldown; then one probe call goes through
// (half-open), and its failure opens it again.
type breaker struct {
	mu          sync.Mutex
	threshold   int
	cooldown    time.Duration
	fails       int
	openUntil   time.Time
	probing     bool
	opens, deny int64
}

func (b *breaker) allow(now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fails < b.threshold {
		return true
	}
	if now.Before(b.openUntil) || b.probing {
		b.deny++
		return false
	}
	b.probing = true
	return true
}

// done records a call's outcome; calls that say nothing about the
// server's health (canceled, bad input) are ignored.
func (b *breaker) done(now time.Time, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	probe := b.probing
	b.probing = false
	switch Kind(err) {
	case KindCanceled, KindInput, KindBreaker:
		return
	case "":
		b.fails = 0
		return
	}
	b.fails++
	if b.fails == b.threshold || (b.fails > b.threshold && probe) {
		b.openUntil = now.Add(b.cooldown)
		b.opens++
	}
}

func (b *breaker) stats() (opens, denied int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.opens, b.deny
}
