package cputime

import (
	"runtime"
	"testing"
	"time"
)

// Busy work advances the process CPU clock, and the clock never runs
// backwards. The test waits on CPU time, not on wall time: however loaded
// the machine, spinning until 20 ms of CPU time have been consumed ends
// once the scheduler has given the process that much; the wall deadline
// only bounds a clock that does not advance at all.
func TestProcessAdvancesWithWork(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no rusage")
	}
	const want = 20 * time.Millisecond
	deadline := time.Now().Add(2 * time.Minute)
	c0 := Process()
	prev, x := c0, 0.0
	for prev-c0 < want {
		for i := range 10000 {
			x += float64(i)
		}
		c := Process()
		if c < prev {
			t.Fatalf("CPU time went backwards: %v after %v", c, prev)
		}
		prev = c
		if time.Now().After(deadline) {
			t.Fatalf("CPU time advanced by %v in 2 minutes of spinning (want ≥ %v)", prev-c0, want)
		}
	}
	if x == 0 {
		t.Fatal("the busy loop did not run")
	}
}
