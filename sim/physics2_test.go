package sim_test

import (
	"math"
	"testing"

	"github.com/vlmrb/vlmrb/sim"
)

// TestStack checks that a stack of five 5 cm boxes stands for 10 s with the
// top box moving less than 2 mm (issue test 3).
func TestStack(t *testing.T) {
	t.Parallel()
	b := sim.NewBuilder()
	ground(b, 0.8)
	const half = 0.025
	var ids []sim.BodyID
	for i := 0; i < 5; i++ {
		id := b.AddBody(sim.BodyDesc{Mass: 0.1, Pos: sim.V3(0, 0, half+2*half*float64(i))})
		b.AddShape(id, sim.ShapeDesc{Kind: sim.Box, Size: sim.V3(half, half, half), Friction: 0.8})
		ids = append(ids, id)
	}
	m := mustBuild(t, b)
	s := m.NewState()
	top := ids[len(ids)-1]
	start := s.Bodies[top].Pos
	stepFor(m, s, 10)
	t.Logf("top box moved %.3g m in 10 s", s.Bodies[top].Pos.Sub(start).Norm())
	if d := s.Bodies[top].Pos.Sub(start).Norm(); d > 2e-3 {
		t.Errorf("top box moved %.4g m (to %v)", d, s.Bodies[top].Pos)
	}
	if s.Warnings.Total() != 0 {
		t.Errorf("warnings %+v", s.Warnings)
	}
}

// incline builds a box on a plane tilted by theta (rad) about y, both with
// friction mu, and returns the model, state and box id.
func incline(t *testing.T, theta, mu float64) (*sim.Model, *sim.State, sim.BodyID) {
	b := sim.NewBuilder()
	rot := sim.QuatFromAxisAngle(sim.V3(0, 1, 0), theta)
	b.AddShape(sim.World, sim.ShapeDesc{Kind: sim.Plane, Rot: rot, Friction: mu})
	const half = 0.025
	id := b.AddBody(sim.BodyDesc{Mass: 0.2, Pos: rot.Rotate(sim.V3(0, 0, half)), Rot: rot})
	b.AddShape(id, sim.ShapeDesc{Kind: sim.Box, Size: sim.V3(half, half, half), Friction: mu})
	m := mustBuild(t, b)
	return m, m.NewState(), id
}

// TestIncline checks static friction holds a box on a 20° incline with
// μ = 0.5 and that with μ = 0.2 it slides with a = g(sinθ − μcosθ) ± 5%
// (issue test 4).
func TestIncline(t *testing.T) {
	t.Parallel()
	theta := 20 * math.Pi / 180
	t.Run("holds", func(t *testing.T) {
		m, s, id := incline(t, theta, 0.5)
		start := s.Bodies[id].Pos
		stepFor(m, s, 2)
		t.Logf("μ=0.5 on 20°: moved %.3g m in 2 s", s.Bodies[id].Pos.Sub(start).Norm())
		if d := s.Bodies[id].Pos.Sub(start).Norm(); d > 1e-3 {
			t.Errorf("box on 20° incline with μ=0.5 moved %.4g m", d)
		}
	})
	t.Run("slides", func(t *testing.T) {
		const mu = 0.2
		m, s, id := incline(t, theta, mu)
		// settle contact for 0.1 s, then measure the acceleration over 0.5 s
		stepFor(m, s, 0.1)
		down := sim.QuatFromAxisAngle(sim.V3(0, 1, 0), theta).Rotate(sim.V3(-1, 0, 0))
		_ = down
		x0, v0, t0 := s.Bodies[id].Pos, s.Bodies[id].Vel, s.Time
		stepFor(m, s, 0.5)
		dt := s.Time - t0
		// fit a from displacement: d = v0 t + a t²/2 along the slope
		dir := s.Bodies[id].Pos.Sub(x0).Normalize()
		d := s.Bodies[id].Pos.Sub(x0).Norm()
		a := 2 * (d - v0.Dot(dir)*dt) / (dt * dt)
		want := g * (math.Sin(theta) - mu*math.Cos(theta))
		t.Logf("slide acceleration %.4f m/s², analytic %.4f", a, want)
		if math.Abs(a-want)/want > 0.05 {
			t.Errorf("slide acceleration %.4f m/s², want %.4f ± 5%%", a, want)
		}
	})
}

// TestSlideStop checks a box sliding on flat ground at v0 stops after
// v0²/(2μg) ± 5% (issue test 5).
func TestSlideStop(t *testing.T) {
	t.Parallel()
	const mu, v0 = 0.4, 1.0
	b := sim.NewBuilder()
	ground(b, mu)
	const half = 0.025
	id := b.AddBody(sim.BodyDesc{Mass: 0.3, Pos: sim.V3(0, 0, half), Vel: sim.V3(v0, 0, 0)})
	b.AddShape(id, sim.ShapeDesc{Kind: sim.Box, Size: sim.V3(half, half, half), Friction: mu})
	m := mustBuild(t, b)
	s := m.NewState()
	stepFor(m, s, 1)
	got := s.Bodies[id].Pos.X
	want := v0 * v0 / (2 * mu * g)
	t.Logf("slid %.4f m, analytic %.4f", got, want)
	if math.Abs(got-want)/want > 0.05 {
		t.Errorf("slid %.4f m, want %.4f ± 5%%", got, want)
	}
	if v := s.Bodies[id].Vel.Norm(); v > 1e-3 {
		t.Errorf("still moving at %.4g m/s", v)
	}
}

// TestRestitution checks the bounce height ratio is e² ± 5% (issue test 6).
func TestRestitution(t *testing.T) {
	t.Parallel()
	for _, e := range []float64{0.5, 0.8} {
		b := sim.NewBuilder()
		b.AddShape(sim.World, sim.ShapeDesc{Kind: sim.Plane, Restitution: e})
		const r, h0 = 0.02, 0.5
		id := b.AddBody(sim.BodyDesc{Mass: 0.1, Pos: sim.V3(0, 0, r+h0)})
		b.AddShape(id, sim.ShapeDesc{Kind: sim.Sphere, Size: sim.V3(r, 0, 0), Restitution: e})
		m := mustBuild(t, b)
		s := m.NewState()
		// fall, bounce, and record the apex of the first bounce
		bounced, apex := false, 0.0
		for i := 0; i < 2000; i++ {
			sim.Step(m, s)
			vz := s.Bodies[id].Vel.Z
			if !bounced && vz > 0 {
				bounced = true
			}
			if bounced {
				apex = math.Max(apex, s.Bodies[id].Pos.Z-r)
				if vz < 0 {
					break
				}
			}
		}
		ratio := apex / h0
		t.Logf("e=%g: bounce ratio %.4f, analytic %.4f", e, ratio, e*e)
		if math.Abs(ratio-e*e)/(e*e) > 0.05 {
			t.Errorf("e=%g: bounce ratio %.4f, want %.4f ± 5%%", e, ratio, e*e)
		}
	}
}

// TestMomentum checks linear momentum is conserved to 1e-9 (relative) when
// two free boxes collide obliquely without gravity (issue test 11).
func TestMomentum(t *testing.T) {
	t.Parallel()
	b := sim.NewBuilder()
	b.Opt.Gravity = sim.Vec3{}
	a := b.AddBody(sim.BodyDesc{Mass: 0.3, Pos: sim.V3(-0.1, 0.01, 0), Vel: sim.V3(1, 0.1, 0), AngVel: sim.V3(0, 0, 2)})
	b.AddShape(a, sim.ShapeDesc{Kind: sim.Box, Size: sim.V3(0.03, 0.02, 0.025), Restitution: 0.3})
	c := b.AddBody(sim.BodyDesc{Mass: 0.7, Pos: sim.V3(0.1, -0.01, 0.005), Vel: sim.V3(-0.5, 0, 0.05),
		Rot: sim.QuatFromAxisAngle(sim.V3(1, 1, 0), 0.4)})
	b.AddShape(c, sim.ShapeDesc{Kind: sim.Box, Size: sim.V3(0.04, 0.03, 0.02)})
	m := mustBuild(t, b)
	s := m.NewState()
	p := func() sim.Vec3 { return s.Bodies[a].Vel.Scale(0.3).Add(s.Bodies[c].Vel.Scale(0.7)) }
	p0 := p()
	touched := false
	for i := 0; i < 400; i++ {
		sim.Step(m, s)
		touched = touched || len(s.Contacts()) > 0
	}
	if !touched {
		t.Fatal("the boxes never collided")
	}
	t.Logf("relative momentum change %.3g", p().Sub(p0).Norm()/p0.Norm())
	if d := p().Sub(p0).Norm() / p0.Norm(); d > 1e-9 {
		t.Errorf("momentum changed by %.3g (relative): %v -> %v", d, p0, p())
	}
}

// TestTorsionalFriction spins a ball about the contact normal: with
// torsional friction μt the spin decays at α = μt·m·g / I (I = 2/5 m r²);
// without it the single-point contact leaves the spin alone.
func TestTorsionalFriction(t *testing.T) {
	t.Parallel()
	const r, w0, mut = 0.05, 10.0, 0.002
	for _, tors := range []float64{0, mut} {
		b := sim.NewBuilder()
		b.AddShape(sim.World, sim.ShapeDesc{Kind: sim.Plane, TorsionalFriction: tors})
		id := b.AddBody(sim.BodyDesc{Mass: 0.2, Pos: sim.V3(0, 0, r), AngVel: sim.V3(0, 0, w0)})
		b.AddShape(id, sim.ShapeDesc{Kind: sim.Sphere, Size: sim.V3(r, 0, 0)})
		m := mustBuild(t, b)
		s := m.NewState()
		stepFor(m, s, 0.05) // settle the contact
		w1, t1 := s.Bodies[id].AngVel.Z, s.Time
		stepFor(m, s, 0.1)
		alpha := (w1 - s.Bodies[id].AngVel.Z) / (s.Time - t1)
		want := tors * g / (0.4 * r * r)
		t.Logf("μt=%g: spin deceleration %.3f rad/s², analytic %.3f", tors, alpha, want)
		if math.Abs(alpha-want) > 0.05*want+1e-6 {
			t.Errorf("μt=%g: spin deceleration %.4f rad/s², want %.4f ± 5%%", tors, alpha, want)
		}
	}
}

// TestRolling checks a ball rolls down a 20° incline without slipping at
// a = 5/7·g·sinθ (solid sphere, I = 2/5 m r²) ± 2%.
func TestRolling(t *testing.T) {
	t.Parallel()
	theta := 20 * math.Pi / 180
	rot := sim.QuatFromAxisAngle(sim.V3(0, 1, 0), theta)
	b := sim.NewBuilder()
	b.AddShape(sim.World, sim.ShapeDesc{Kind: sim.Plane, Rot: rot, Friction: 0.8})
	const r = 0.03
	id := b.AddBody(sim.BodyDesc{Mass: 0.2, Pos: rot.Rotate(sim.V3(0, 0, r))})
	b.AddShape(id, sim.ShapeDesc{Kind: sim.Sphere, Size: sim.V3(r, 0, 0), Friction: 0.8})
	m := mustBuild(t, b)
	s := m.NewState()
	stepFor(m, s, 0.05)
	v0, t0 := s.Bodies[id].Vel.Norm(), s.Time
	stepFor(m, s, 0.5)
	a := (s.Bodies[id].Vel.Norm() - v0) / (s.Time - t0)
	want := 5.0 / 7 * g * math.Sin(theta)
	// rolling without slipping: the contact point is at rest
	slip := s.Bodies[id].Vel.Add(s.Bodies[id].AngVel.Cross(rot.Rotate(sim.V3(0, 0, -r)))).Norm()
	t.Logf("rolling acceleration %.4f m/s², analytic %.4f; contact point speed %.2g m/s", a, want, slip)
	if math.Abs(a-want)/want > 0.02 {
		t.Errorf("rolling acceleration %.4f, want %.4f ± 2%%", a, want)
	}
	// the solver rolls about the contact point midway into the 0.1 mm soft
	// penetration, so the geometric lowest point moves at ω·depth/2 ≈ 0.2% of v
	if v := s.Bodies[id].Vel.Norm(); slip > 0.005*v {
		t.Errorf("ball slips: contact point moves at %.4g m/s (%.2g%% of v)", slip, 100*slip/v)
	}
}

// TestNoTunnelling fires a 1 cm ball at 15 m/s (3.75 cm per step, nine times
// the wall thickness) at a 4 mm static wall: speculative contacts stop it.
func TestNoTunnelling(t *testing.T) {
	t.Parallel()
	for _, kind := range []sim.ShapeKind{sim.Sphere, sim.Box} {
		b := sim.NewBuilder()
		b.Opt.Gravity = sim.Vec3{}
		b.AddShape(sim.World, sim.ShapeDesc{Kind: sim.Box, Pos: sim.V3(0.3, 0, 0), Size: sim.V3(0.002, 0.1, 0.1)})
		id := b.AddBody(sim.BodyDesc{Mass: 0.05, Pos: sim.V3(0, 0.01, 0.02), Vel: sim.V3(15, 0, 0)})
		b.AddShape(id, sim.ShapeDesc{Kind: kind, Size: sim.V3(0.01, 0.01, 0.01)})
		m := mustBuild(t, b)
		s := m.NewState()
		maxX := 0.0
		for i := 0; i < 200; i++ {
			sim.Step(m, s)
			maxX = max(maxX, s.Bodies[id].Pos.X)
		}
		if maxX > 0.3-0.002-0.01+0.001 {
			t.Errorf("%v: reached x = %.4f, through or into the wall at 0.298", kind, maxX)
		}
	}
}

// TestGyroscopic spins a box about its intermediate axis (plus a small
// perturbation) without gravity: with Options.Gyroscopic the world angular
// momentum is conserved (1%) while the spin axis flips (Dzhanibekov).
func TestGyroscopic(t *testing.T) {
	t.Parallel()
	b := sim.NewBuilder()
	b.Opt.Gravity = sim.Vec3{}
	b.Opt.Gyroscopic = true
	inertia := sim.V3(1e-3, 2e-3, 3e-3)
	id := b.AddBody(sim.BodyDesc{Mass: 1, Inertia: inertia, AngVel: sim.V3(0.01, 10, 0)})
	m := mustBuild(t, b)
	s := m.NewState()
	mom := func() sim.Vec3 {
		bs := s.Bodies[id]
		wb := bs.Rot.InvRotate(bs.AngVel)
		return bs.Rot.Rotate(wb.Mul(inertia))
	}
	l0 := mom()
	flipped := false
	for i := 0; i < 1600; i++ {
		sim.Step(m, s)
		if bs := s.Bodies[id]; bs.Rot.InvRotate(bs.AngVel).Y < 0 {
			flipped = true
		}
	}
	if d := mom().Sub(l0).Norm() / l0.Norm(); d > 0.01 {
		t.Errorf("angular momentum changed by %.3g (relative)", d)
	}
	if !flipped {
		t.Errorf("no flip of the intermediate axis in 4 s")
	}
}
