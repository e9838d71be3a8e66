package control

import (
	"math"
	"testing"

	"github.com/vlmrb/vlmrb/sim"
)

// TestEEDelta checks MetaWorld's set_xyz_action arithmetic: the target
// integrates Scale·a[0:3] from the previous target (not the hand), is
// clamped to [Low, High], and the finger targets interpolate linearly from
// open (a[3] = −1) to closed (+1).
func TestEEDelta(t *testing.T) {
	t.Parallel()
	c := EEDelta{Rot: sim.Identity(), Scale: 0.01, Low: sim.V3(-0.5, 0.4, 0.05), High: sim.V3(0.5, 1, 0.25),
		Fingers: []int{0}, FingerOpen: []float64{-0.005}, FingerClosed: []float64{0.06}, FrameSkip: 5}
	c.SetTarget(sim.V3(0, 0.6, 0.2))
	// one step at full +x moves the target exactly 1 cm
	if got := c.Next([]float64{1, 0, 0, -1}, 0.0025); math.Abs(got.X-0.01) > 1e-12 || got != c.Target() {
		t.Fatalf("target after one step = %v (Target %v), want x = 0.01", got, c.Target())
	}
	if g := c.FingerTarget(0, -1); g != -0.005 {
		t.Fatalf("a[3] = -1 gave finger target %g, want the open target", g)
	}
	// +z for 10 steps hits the 0.25 m ceiling
	for range 10 {
		c.Next([]float64{0, 0, 1, 1}, 0.0025)
	}
	if got := c.Target().Z; got != 0.25 {
		t.Fatalf("target z = %g, want clamped to 0.25", got)
	}
	if g := c.FingerTarget(0, 1); g != 0.06 {
		t.Fatalf("a[3] = +1 gave finger target %g, want the closed target", g)
	}
	if g := c.FingerTarget(0, 0); math.Abs(g-(-0.005+0.5*0.065)) > 1e-12 {
		t.Fatalf("a[3] = 0 gave finger target %g, want the midpoint", g)
	}
	if g := c.FingerTarget(0, 7); g != 0.06 {
		t.Fatalf("a[3] = 7 gave finger target %g, want it clamped to the closed target", g)
	}
}

func TestEEDeltaSafety(t *testing.T) {
	t.Parallel()
	const dt = 0.0025
	safe := &Safety{Limits: Limits{MaxSpeed: 0.4}} // m/s: 5 mm per 12.5 ms step
	c := EEDelta{Rot: sim.Identity(), Scale: 0.01, Low: sim.V3(-1, -1, -1), High: sim.V3(1, 1, 1),
		Fingers: []int{0}, FingerOpen: []float64{0}, FingerClosed: []float64{0}, FrameSkip: 5, Safety: safe}
	start := sim.V3(0, 0.6, 0.2)
	c.SetTarget(start)
	c.Next([]float64{1, 0, 0, 0}, dt)
	if d := c.Target().Sub(start).Norm(); math.Abs(d-0.4*5*dt) > 1e-12 {
		t.Fatalf("safety let the target move %g m in one step", d)
	}
	if safe.Counts.Speed != 1 {
		t.Fatalf("speed limit counted %d times", safe.Counts.Speed)
	}
}
