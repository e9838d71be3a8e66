package cputime

import (
	"runtime"
	"testing"
	"time"
)

// Busy work advances the process CPU clock by at least most of the wall
// time it takes (one goroutine spinning on one core).
func TestProcessAdvancesWithWork(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no rusage")
	}
	c0, w0 := Process(), time.Now()
	x := 0.0
	for time.Since(w0) < 50*time.Millisecond {
		for i := range 1000 {
			x += float64(i)
		}
	}
	used := Process() - c0
	if x == 0 || used < 10*time.Millisecond {
		t.Fatalf("50 ms of spinning advanced CPU time by %v", used)
	}
}
