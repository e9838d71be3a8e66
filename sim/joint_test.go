package sim_test

import (
	"math"
	"testing"

	"github.com/vlmrb/vlmrb/sim"
)

// TestDrawerLimit is issue test 9 (drawer): the gripper, turned 90° about z
// so its pads close along x, grasps the drawer's handle bar and pulls 25 cm;
// the drawer stops at its joint limit (-0.15 m).
func TestDrawerLimit(t *testing.T) {
	t.Parallel()
	b := sim.NewBuilder()
	b.AddShape(sim.World, sim.ShapeDesc{Kind: sim.Plane, Friction: 1})
	g := sim.AddGripper(b, sim.DefaultGripper())
	// drawer: bottom, front plate and a handle bar on 4 cm standoffs
	dpos := sim.V3(0.2, 0, 0.02)
	dr := b.AddBody(sim.BodyDesc{Name: "drawer", Pos: dpos, Mass: 0.5})
	b.AddShape(dr, sim.ShapeDesc{Kind: sim.Box, Size: sim.V3(0.08, 0.08, 0.004)})
	b.AddShape(dr, sim.ShapeDesc{Kind: sim.Box, Pos: sim.V3(-0.085, 0, 0.03), Size: sim.V3(0.005, 0.08, 0.03)})
	for _, y := range []float64{-0.04, 0.04} {
		b.AddShape(dr, sim.ShapeDesc{Kind: sim.Box, Pos: sim.V3(-0.125, y, 0.05), Size: sim.V3(0.035, 0.004, 0.004)})
	}
	bar := sim.V3(-0.16, 0, 0.05) // bar centre relative to the drawer
	b.AddShape(dr, sim.ShapeDesc{Name: "handle", Kind: sim.Capsule, Pos: bar,
		Rot: sim.QuatFromAxisAngle(sim.V3(1, 0, 0), math.Pi/2), Size: sim.V3(0.008, 0.04, 0), Friction: 1})
	slide := b.AddJoint(sim.JointDesc{Name: "slide", Kind: sim.Prismatic, Parent: sim.World, Child: dr,
		Anchor: dpos, Axis: sim.V3(1, 0, 0), Limited: true, Lower: -0.15, Upper: 0, Damping: 5})
	m := mustBuild(t, b)
	s := m.NewState()
	// hand above the bar, pads straddling it along x, open
	barW := dpos.Add(bar)
	turn := sim.QuatFromAxisAngle(sim.V3(0, 0, 1), math.Pi/2)
	g.ResetPose(m, s, barW.Add(sim.V3(0, 0, 0.15)), turn, 0)
	mv := func(dst sim.Vec3, seconds float64) {
		src, _ := s.Mocap(g.Mocap)
		n := int(math.Round(seconds / m.Opt.Timestep))
		for i := 1; i <= n; i++ {
			s.SetMocap(g.Mocap, src.Add(dst.Sub(src).Scale(float64(i)/float64(n))), sim.Quat{})
			sim.Step(m, s)
		}
	}
	mv(barW.Add(sim.V3(0, 0, 0.035)), 0.6)
	g.Command(s, 1)
	mv(barW.Add(sim.V3(0, 0, 0.035)), 0.4)
	if q := s.JointPos(m, slide); math.Abs(q) > 0.01 {
		t.Fatalf("drawer moved to %.4f before the pull", q)
	}
	minQ := 0.0
	n := int(math.Round(2.5 / m.Opt.Timestep))
	src, _ := s.Mocap(g.Mocap)
	for i := 1; i <= n; i++ {
		s.SetMocap(g.Mocap, src.Add(sim.V3(-0.25*float64(i)/float64(n), 0, 0)), sim.Quat{})
		sim.Step(m, s)
		minQ = min(minQ, s.JointPos(m, slide))
	}
	q := s.JointPos(m, slide)
	t.Logf("drawer q = %.4f m (min %.4f), closure %.3f", q, minQ, g.Closure(m, s))
	if minQ < -0.15-0.003 {
		t.Errorf("drawer went past its limit: min q = %.4f (limit -0.15)", minQ)
	}
	if q > -0.145 {
		t.Errorf("drawer was not pulled to its limit: q = %.4f", q)
	}
	if s.Warnings.Total() != 0 {
		t.Errorf("warnings %+v", s.Warnings)
	}
}

// TestDoorLimits is issue test 9 (door): a hinged door driven by a PD motor
// toward targets beyond each limit stops at that limit, and a door spun hard
// never leaves [0, π/2].
func TestDoorLimits(t *testing.T) {
	t.Parallel()
	const tol = 0.02 // rad
	hinge := sim.V3(0, 0, 0.2)
	build := func(w0, target float64) (*sim.Model, *sim.State, sim.BodyID, sim.JointID) {
		b := sim.NewBuilder()
		door := b.AddBody(sim.BodyDesc{Name: "door", Mass: 1, Pos: sim.V3(0.15, 0, 0.2),
			AngVel: sim.V3(0, 0, w0), Vel: sim.V3(0, 0.15*w0, 0)})
		b.AddShape(door, sim.ShapeDesc{Kind: sim.Box, Size: sim.V3(0.15, 0.01, 0.15)})
		jd := sim.JointDesc{Kind: sim.Revolute, Parent: sim.World, Child: door, Anchor: hinge,
			Axis: sim.V3(0, 0, 1), Limited: true, Lower: 0, Upper: math.Pi / 2, Damping: 0.05}
		if target != 0 {
			jd.Motor, jd.Kp, jd.Kd, jd.MaxForce, jd.InitialCtrl = true, 2, 0.2, 5, target
		}
		j := b.AddJoint(jd)
		m := mustBuild(t, b)
		return m, m.NewState(), door, j
	}
	for _, tc := range []struct {
		name       string
		w0, target float64
		want       float64 // final angle (rad)
		wantTol    float64 // rad
	}{
		{"motor-open", 0, 3, math.Pi / 2, tol},
		{"motor-close", 0, -1, 0, tol},
		// slammed open at 8 rad/s (1.2 m/s at the edge): it may rebound a
		// little off the limit (the soft limit keeps that under 0.06 rad)
		{"spun-open", 8, 0, math.Pi / 2, 0.06},
	} {
		m, s, door, j := build(tc.w0, tc.target)
		if tc.name == "motor-close" {
			// start half open
			q := sim.QuatFromAxisAngle(sim.V3(0, 0, 1), 0.8)
			s.Bodies[door].Rot = q
			s.Bodies[door].Pos = hinge.Add(q.Rotate(sim.V3(0.15, 0, 0)))
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := 0; i < 1200; i++ {
			sim.Step(m, s)
			q := s.JointPos(m, j)
			lo, hi = min(lo, q), max(hi, q)
		}
		q := s.JointPos(m, j)
		if lo < -tol || hi > math.Pi/2+tol {
			t.Errorf("%s: door left its limits: range [%.4f, %.4f]", tc.name, lo, hi)
		}
		if math.Abs(q-tc.want) > tc.wantTol {
			t.Errorf("%s: door ended at %.4f rad, want the limit %.4f", tc.name, q, tc.want)
		}
		// the hinge point stays put
		if d := s.Bodies[door].Pos.Sub(s.Bodies[door].Rot.Rotate(sim.V3(0.15, 0, 0))).Sub(hinge).Norm(); d > 1e-3 {
			t.Errorf("%s: hinge drifted %.4g m", tc.name, d)
		}
	}
}

// slider builds a 0.1 kg body on a horizontal prismatic joint to the world
// (no gravity along the axis) with the given joint description fields.
func slider(t *testing.T, jd sim.JointDesc) (*sim.Model, *sim.State, sim.JointID) {
	b := sim.NewBuilder()
	id := b.AddBody(sim.BodyDesc{Mass: 0.1, Pos: sim.V3(0, 0, 0.5)})
	b.AddShape(id, sim.ShapeDesc{Kind: sim.Box, Size: sim.V3(0.01, 0.01, 0.01)})
	jd.Kind, jd.Parent, jd.Child, jd.Anchor, jd.Axis = sim.Prismatic, sim.World, id, sim.V3(0, 0, 0.5), sim.V3(1, 0, 0)
	j := b.AddJoint(jd)
	m := mustBuild(t, b)
	return m, m.NewState(), j
}

// TestMotorAndSpring checks the PD motor reaches its target, its force limit
// bounds the acceleration, and a spring oscillates with period 2π√(m/k).
func TestMotorAndSpring(t *testing.T) {
	t.Parallel()
	// PD motor: target 3 cm, within 1 mm after 2 s
	m, s, j := slider(t, sim.JointDesc{Motor: true, Kp: 200, Kd: 5, InitialCtrl: 0.03})
	stepFor(m, s, 2)
	if q := s.JointPos(m, j); math.Abs(q-0.03) > 1e-3 {
		t.Errorf("PD motor at %.4f m after 2 s, target 0.03", q)
	}
	// force limit 0.1 N on 0.1 kg: at most a = 1 m/s², x = a t²/2
	m, s, j = slider(t, sim.JointDesc{Motor: true, Kp: 1e4, Kd: 0, MaxForce: 0.1, InitialCtrl: 0.5})
	stepFor(m, s, 0.2)
	if q, lim := s.JointPos(m, j), 0.5*1*0.2*0.2; q > lim*1.02 || q < lim*0.95 {
		t.Errorf("force-limited motor moved %.4f m in 0.2 s, want ≈ %.4f (a = F/m)", q, lim)
	}
	// spring k = 100 N/m from 2 cm: period 2π√(m/k)
	m, s, j = slider(t, sim.JointDesc{Stiffness: 100})
	s.SetBodyPose(sim.BodyID(1), sim.V3(0.02, 0, 0.5), sim.Identity())
	var crossings []float64
	prev := s.JointPos(m, j)
	for s.Time < 1 {
		sim.Step(m, s)
		q := s.JointPos(m, j)
		if prev > 0 && q <= 0 {
			crossings = append(crossings, s.Time-m.Opt.Timestep*q/(q-prev))
		}
		prev = q
	}
	if len(crossings) < 3 {
		t.Fatalf("spring crossed zero %d times in 1 s", len(crossings))
	}
	period := (crossings[len(crossings)-1] - crossings[0]) / float64(len(crossings)-1)
	want := 2 * math.Pi * math.Sqrt(0.1/100)
	t.Logf("spring period %.5f s, analytic %.5f", period, want)
	if math.Abs(period-want)/want > 0.02 {
		t.Errorf("spring period %.5f s, want %.5f ± 2%%", period, want)
	}
}

// TestWeldTracking checks the hand follows its mocap target through the soft
// weld: a step in position settles like a critically damped spring with the
// weld's 20 ms time constant, and a rotation of the target is followed.
func TestWeldTracking(t *testing.T) {
	t.Parallel()
	b := sim.NewBuilder()
	cfg := sim.DefaultGripper()
	g := sim.AddGripper(b, cfg)
	m := mustBuild(t, b)
	s := m.NewState()
	// no gravity sag in this test: hold the fingers' and hand's weight off
	m.Opt.Gravity = sim.Vec3{}
	target := sim.V3(0.05, 0.02, 0.2)
	rot := sim.QuatFromAxisAngle(sim.V3(0, 0, 1), 0.5)
	s.SetMocap(g.Mocap, target, rot)
	sim.Step(m, s)
	// a critically damped spring with ω = 1/τ = 50 rad/s has covered
	// 1-(1+ωt)e^{-ωt} > 99.99% of a 5.4 cm step after 0.3 s (ωt = 15)
	stepFor(m, s, 0.3)
	h := s.Bodies[g.Hand]
	if d := h.Pos.Sub(target).Norm(); d > 1e-3 {
		t.Errorf("hand at %v, target %v (off by %.4g m)", h.Pos, target, d)
	}
	q := h.Rot.Mul(rot.Conj())
	if ang := 2 * math.Asin(math.Min(1, math.Sqrt(q.X*q.X+q.Y*q.Y+q.Z*q.Z))); ang > 0.01 {
		t.Errorf("hand orientation off the target by %.4f rad", ang)
	}
	// the pads turned with the hand: their offset is the rotated build offset
	lp, _ := s.ShapePose(m, g.LeftPad)
	want := target.Add(rot.Rotate(sim.V3(0, cfg.FingerY, -cfg.FingerZ)))
	if d := lp.Sub(want).Norm(); d > 1e-3 {
		t.Errorf("left pad at %v, want %v", lp, want)
	}
}
