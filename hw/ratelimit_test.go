package hw

import (
	"testing"
	"time"
)

// TestMaxFPSSchedule feeds synthetic 30 fps arrival times (with ±3 ms
// jitter) through the live rate limiter: MaxFPS f keeps f frames per
// second of stream, within one frame.
func TestMaxFPSSchedule(t *testing.T) {
	t.Parallel()
	const srcFPS, seconds = 30, 3
	for _, maxFPS := range []float64{5, 10, 20, 30, 60} {
		l := &live{opts: Options{MaxFPS: maxFPS, StallTimeout: time.Hour}.withDefaults()}
		s := &sink{l: l, stall: time.AfterFunc(time.Hour, func() {})}
		t0 := time.Unix(1000, 0)
		kept := 0
		for i := 0; i < srcFPS*seconds; i++ {
			jitter := time.Duration((i*7919)%7-3) * time.Millisecond
			if s.keep(t0.Add(time.Duration(i)*time.Second/srcFPS + jitter)) {
				kept++
			}
		}
		s.stall.Stop()
		want := int(min(maxFPS, srcFPS)) * seconds
		if kept < want-1 || kept > want+1 {
			t.Errorf("MaxFPS %v on a %d fps stream kept %d of %d frames, want %d±1", maxFPS, srcFPS, kept, srcFPS*seconds, want)
		}
		if st := l.c.snapshot(); int(st.Decimated) != srcFPS*seconds-kept || int(st.Frames) != srcFPS*seconds {
			t.Errorf("MaxFPS %v: stats %+v", maxFPS, st)
		}
	}
}
