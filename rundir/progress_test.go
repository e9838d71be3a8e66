package rundir

import (
	"math"
	"testing"
	"time"
)

// The ETA follows the recent speed: 60 s of random-action steps at
// 1,000 steps/s, then updates at 10 steps/s. Half a minute into the slow
// phase the rate is the slow one, where the average since the start
// (≈ 670 steps/s) would promise the remaining 39,000 steps in a minute.
func TestProgressRateIsRecent(t *testing.T) {
	clock := time.Unix(0, 0)
	p := newProgressClock(nil, 0, 100000, func() time.Time { return clock })
	step := int64(0)
	for range 600 { // 0.1 s ticks
		clock = clock.Add(100 * time.Millisecond)
		step += 100
		p.Rate(step)
	}
	if r := p.Rate(step); math.Abs(r-1000) > 1 {
		t.Fatalf("fast phase rate %.1f, want 1000", r)
	}
	for range 400 { // 40 s at 10 steps/s
		clock = clock.Add(100 * time.Millisecond)
		step++
		p.Rate(step)
	}
	if r := p.Rate(step); math.Abs(r-10) > 0.5 {
		t.Fatalf("slow phase rate %.2f steps/s, want 10 (the last 30 s)", r)
	}
	// a young bar uses what it has
	q := newProgressClock(nil, 500, 1000, func() time.Time { return clock })
	clock = clock.Add(2 * time.Second)
	if r := q.Rate(600); math.Abs(r-50) > 1e-9 {
		t.Fatalf("young bar rate %.2f, want 50", r)
	}
}
