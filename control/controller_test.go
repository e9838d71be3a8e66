package control

import (
	"math"
	"testing"

	"github.com/vlmrb/vlmrb/sim"
)

// handScene is a mocap-welded hand with one motorised finger slide.
func handScene(t *testing.T) (*sim.Model, sim.BodyID, sim.BodyID, int) {
	t.Helper()
	b := sim.NewBuilder()
	start := sim.V3(0, 0.6, 0.2)
	mocap := b.AddBody(sim.BodyDesc{Name: "mocap", Mocap: true, Pos: start})
	hand := b.AddBody(sim.BodyDesc{Name: "hand", Mass: 1, Pos: start, GravityOff: true})
	b.AddShape(hand, sim.ShapeDesc{Kind: sim.Box, Size: sim.V3(0.02, 0.06, 0.01)})
	b.AddJoint(sim.JointDesc{Name: "weld", Kind: sim.Weld, Parent: mocap, Child: hand, Anchor: start, WeldTimeConst: 0.02, WeldDampingRatio: 1})
	f := b.AddBody(sim.BodyDesc{Name: "finger", Mass: 0.1, Pos: start.Add(sim.V3(0, 0.05, -0.03)), GravityOff: true})
	b.AddShape(f, sim.ShapeDesc{Kind: sim.Box, Size: sim.V3(0.01, 0.005, 0.02)})
	j := b.AddJoint(sim.JointDesc{Name: "finger", Kind: sim.Prismatic, Parent: hand, Child: f, Anchor: start.Add(sim.V3(0, 0.05, -0.03)),
		Axis: sim.V3(0, -1, 0), Limited: true, Lower: 0, Upper: 0.04, Motor: true, Kp: 2000, Kd: 40, MaxForce: 40})
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m, mocap, hand, m.Joints[j].CtrlIndex
}

func TestEEDelta(t *testing.T) {
	t.Parallel()
	m, mocap, hand, fc := handScene(t)
	s := m.NewState()
	c := EEDelta{Mocap: mocap, Rot: sim.Identity(), Scale: 0.01, Low: sim.V3(-0.5, 0.4, 0.05), High: sim.V3(0.5, 1, 0.25),
		Fingers: []int{fc}, FingerOpen: []float64{-0.005}, FingerClosed: []float64{0.06}, FrameSkip: 5}
	c.Reset(s)
	// one step at full +x moves the target exactly 1 cm
	c.Step(m, s, []float64{1, 0, 0, -1})
	if got := c.Target().X; math.Abs(got-0.01) > 1e-12 {
		t.Fatalf("target x after one step = %g, want 0.01", got)
	}
	if got, want := s.Time, 5*m.Opt.Timestep; math.Abs(got-want) > 1e-12 {
		t.Fatalf("time after one control step = %g s, want %g", got, want)
	}
	if s.Ctrl[fc] != -0.005 {
		t.Fatalf("a[3] = -1 gave finger target %g, want the open target", s.Ctrl[fc])
	}
	// +z for 10 steps hits the 0.25 m ceiling
	for range 10 {
		c.Step(m, s, []float64{0, 0, 1, 1})
	}
	if got := c.Target().Z; got != 0.25 {
		t.Fatalf("target z = %g, want clamped to 0.25", got)
	}
	if s.Ctrl[fc] != 0.06 {
		t.Fatalf("a[3] = +1 gave finger target %g, want the closed target", s.Ctrl[fc])
	}
	// hold still: the welded hand settles on the target (20 ms weld time constant)
	for range 40 {
		c.Step(m, s, []float64{0, 0, 0, 0})
	}
	if d := s.Bodies[hand].Pos.Sub(c.Target()).Norm(); d > 0.002 {
		t.Fatalf("hand is %.4f m from its target after 0.5 s of holding", d)
	}
	if g := s.Ctrl[fc]; math.Abs(g-(-0.005+0.5*0.065)) > 1e-12 {
		t.Fatalf("a[3] = 0 gave finger target %g, want the midpoint", g)
	}
}

func TestEEDeltaSafety(t *testing.T) {
	t.Parallel()
	m, mocap, _, fc := handScene(t)
	s := m.NewState()
	safe := &Safety{Limits: Limits{MaxSpeed: 0.4}} // m/s: 5 mm per 12.5 ms step
	c := EEDelta{Mocap: mocap, Rot: sim.Identity(), Scale: 0.01, Low: sim.V3(-1, -1, -1), High: sim.V3(1, 1, 1),
		Fingers: []int{fc}, FingerOpen: []float64{0}, FingerClosed: []float64{0}, FrameSkip: 5, Safety: safe}
	c.Reset(s)
	start := c.Target()
	c.Step(m, s, []float64{1, 0, 0, 0})
	if d := c.Target().Sub(start).Norm(); math.Abs(d-0.4*5*m.Opt.Timestep) > 1e-12 {
		t.Fatalf("safety let the target move %g m in one step", d)
	}
	if safe.Counts.Speed != 1 {
		t.Fatalf("speed limit counted %d times", safe.Counts.Speed)
	}
}
