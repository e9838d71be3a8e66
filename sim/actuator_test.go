package sim_test

import (
	"math"
	"testing"

	"github.com/vlmrb/vlmrb/sim"
)

// wheel builds a disc of inertia iz (kg·m²) about z on a hinge through its
// centre, without gravity, with the given actuator.
func wheel(t *testing.T, iz float64, a *sim.ActuatorDesc) (*sim.Model, sim.JointID) {
	t.Helper()
	b := sim.NewBuilder()
	b.Opt.Gravity = sim.Vec3{}
	w := b.AddBody(sim.BodyDesc{Mass: 1, Inertia: sim.V3(iz, iz, iz)})
	j := b.AddJoint(sim.JointDesc{Kind: sim.Revolute, Parent: sim.World, Child: w, Axis: sim.V3(0, 0, 1)})
	if a != nil {
		a.Joint = j
		b.AddActuator(*a)
	}
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m, j
}

// TestMotor: a constant torque τ = Gear·u on a hinge accelerates it at τ/I
// (Newton's second law about the axis).
func TestMotor(t *testing.T) {
	t.Parallel()
	m, j := wheel(t, 0.01, &sim.ActuatorDesc{Gear: 2, Gain: 1})
	s := m.NewState()
	s.Ctrl[0] = 0.05 // joint torque 0.1 N·m
	n := 200
	for i := 0; i < n; i++ {
		sim.Step(m, s)
	}
	want := 0.1 / 0.01 * float64(n) * m.Opt.Timestep
	if got := s.JointVel(m, j); math.Abs(got-want) > 0.01*want {
		t.Errorf("ω = %.4f rad/s after %d steps, want τt/I = %.4f", got, n, want)
	}
}

// TestPositionServo: MuJoCo's position actuator (Gain kp, Bias (0, −kp,
// 0)) with a velocity damper settles the hinge at the control, and the
// velocity actuator drives it at the commanded speed against joint damping
// d at ω = kv·u/(kv + d).
func TestPositionServo(t *testing.T) {
	t.Parallel()
	m, j := wheel(t, 0.01, &sim.ActuatorDesc{Gain: 5, Bias: [3]float64{0, -5, -0.5}})
	s := m.NewState()
	s.Ctrl[0] = 0.7
	for i := 0; i < 2000; i++ {
		sim.Step(m, s)
	}
	if q := s.JointPos(m, j); math.Abs(q-0.7) > 1e-3 {
		t.Errorf("position servo rests at %.5f rad, want 0.7", q)
	}
	m, j = wheel(t, 0.01, &sim.ActuatorDesc{Gain: 2, Bias: [3]float64{0, 0, -2}, ForceLimited: true, ForceLow: -1, ForceHigh: 1})
	s = m.NewState()
	s.Ctrl[0] = 0.3
	for i := 0; i < 2000; i++ {
		sim.Step(m, s)
	}
	if w := s.JointVel(m, j); math.Abs(w-0.3) > 1e-3 {
		t.Errorf("velocity servo runs at %.5f rad/s, want 0.3", w)
	}
	if f := s.ActuatorForce(m, 0); math.Abs(f) > 1e-6 {
		t.Errorf("undamped velocity servo at speed still pushes %.3g N·m", f)
	}
}

// TestForceRange: a force-limited motor saturates at ForceHigh·Gear.
func TestForceRange(t *testing.T) {
	t.Parallel()
	m, j := wheel(t, 0.01, &sim.ActuatorDesc{Gear: 3, Gain: 1, ForceLimited: true, ForceLow: -0.01, ForceHigh: 0.01, CtrlLimited: true, CtrlLow: -1, CtrlHigh: 1})
	s := m.NewState()
	s.Ctrl[0] = 5
	for i := 0; i < 100; i++ {
		sim.Step(m, s)
	}
	want := 0.03 / 0.01 * 100 * m.Opt.Timestep
	if w := s.JointVel(m, j); math.Abs(w-want) > 0.01*want {
		t.Errorf("ω = %.4f, want %.4f from the 0.03 N·m limit", w, want)
	}
}

// TestContactFilter: MuJoCo's contype/conaffinity rule decides whether a
// falling ball lands on the floor.
func TestContactFilter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		ft, fa, bt, ba uint32
		lands          bool
	}{{0, 0, 0, 0, true}, {1, 1, 2, 2, false}, {1, 0, 0, 1, true}, {2, 0, 1, 1, false}} {
		b := sim.NewBuilder()
		b.AddShape(sim.World, sim.ShapeDesc{Kind: sim.Plane, ContactType: tc.ft, ContactAffinity: tc.fa})
		ball := b.AddBody(sim.BodyDesc{Mass: 1, Pos: sim.V3(0, 0, 0.2)})
		b.AddShape(ball, sim.ShapeDesc{Kind: sim.Sphere, Size: sim.V3(0.05, 0, 0), ContactType: tc.bt, ContactAffinity: tc.ba})
		m, err := b.Build()
		if err != nil {
			t.Fatal(err)
		}
		s := m.NewState()
		for i := 0; i < 400; i++ {
			sim.Step(m, s)
		}
		if landed := s.Bodies[ball].Pos.Z > 0.04; landed != tc.lands {
			t.Errorf("masks %v: ball at z %.3f, lands %v", tc, s.Bodies[ball].Pos.Z, tc.lands)
		}
	}
}

// TestHingeCoordinateIsContinuous: a Revolute coordinate counts turns, as
// MuJoCo's hinge qpos does, so that servos and limits past ±π act on the
// angle the joint has actually turned (UR5e's joints range over ±2π).
func TestHingeCoordinateIsContinuous(t *testing.T) {
	t.Parallel()
	// a velocity servo spins the wheel at ω: q grows by ≈ ω·h per step,
	// never jumping by a turn, and passes 1.5 turns
	const omega = 5.0
	m, j := wheel(t, 0.01, &sim.ActuatorDesc{Gain: 2, Bias: [3]float64{0, 0, -2}})
	s := m.NewState()
	s.Ctrl[0] = omega
	h := m.Opt.Timestep
	prev := s.JointPos(m, j)
	for i := 0; s.Time < 2; i++ {
		sim.Step(m, s)
		q := s.JointPos(m, j)
		if dq := q - prev; dq < -1e-9 || dq > 1.01*omega*h {
			t.Fatalf("step %d: q went %.5f → %.5f rad (Δ %.4f), want 0 ≤ Δ ≤ ω·h = %.4f", i, prev, q, dq, omega*h)
		}
		prev = q
	}
	if prev < 3*math.Pi {
		t.Errorf("after 2 s at ω = %g rad/s q = %.3f rad, want past 1.5 turns (%.3f)", omega, prev, 3*math.Pi)
	}
	// Reset puts the coordinate back in (−π, π]
	s.Reset(m)
	if q := s.JointPos(m, j); q != 0 {
		t.Errorf("after Reset q = %g rad, want 0", q)
	}

	// a position servo commanded beyond π settles there: with a wrapped
	// coordinate it would see a 2π error on crossing π and spin on
	m, j = wheel(t, 0.01, &sim.ActuatorDesc{Gain: 5, Bias: [3]float64{0, -5, -0.5}})
	s = m.NewState()
	s.Ctrl[0] = 4
	for i := 0; i < 4000; i++ {
		sim.Step(m, s)
	}
	if q, w := s.JointPos(m, j), s.JointVel(m, j); math.Abs(q-4) > 1e-3 || math.Abs(w) > 1e-3 {
		t.Errorf("position servo to 4 rad rests at q = %.5f rad, ω = %.2g rad/s; want q = 4, ω = 0", q, w)
	}

	// a limit past π stops a motor that pushes into it
	b := sim.NewBuilder()
	b.Opt.Gravity = sim.Vec3{}
	body := b.AddBody(sim.BodyDesc{Mass: 1, Inertia: sim.V3(0.01, 0.01, 0.01)})
	j = b.AddJoint(sim.JointDesc{Kind: sim.Revolute, Parent: sim.World, Child: body, Axis: sim.V3(0, 0, 1),
		Limited: true, Lower: -1, Upper: 4.5, Damping: 0.05})
	b.AddActuator(sim.ActuatorDesc{Joint: j, Gear: 1, Gain: 1})
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	s = m.NewState()
	s.Ctrl[0] = 0.05 // N·m
	for i := 0; i < 4000; i++ {
		sim.Step(m, s)
	}
	if q := s.JointPos(m, j); math.Abs(q-4.5) > 0.02 {
		t.Errorf("motor against a 4.5 rad limit rests at q = %.4f rad, want 4.5", q)
	}
}
