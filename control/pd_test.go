package control

import (
	"math"
	"testing"

	"github.com/vlmrb/vlmrb/sim"
)

// TestJointPDReachesTarget integrates a 1-DOF joint (mass m on a slide,
// semi-implicit Euler at 2.5 ms, the simulator's timestep) driven by the PD
// effort and checks it settles within 1 mm of the target in 2 s without
// exceeding the effort limit.
func TestJointPDReachesTarget(t *testing.T) {
	t.Parallel()
	const (
		dt      = 0.0025 // s
		tol     = 0.001  // m: "within 1 mm"
		horizon = 2.0    // s
		mass    = 0.5    // kg
	)
	tests := []struct {
		name          string
		kp, kd, limit float64
	}{
		{"critically damped", 400, 2 * math.Sqrt(400*mass), 0},
		{"overdamped", 200, 40, 0},
		{"force limited", 2000, 2 * math.Sqrt(2000*mass), 5},
	}
	for _, tc := range tests {
		c := JointPD{Kp: tc.kp, Kd: tc.kd, MaxEffort: tc.limit, Target: []float64{0.1}}
		q, qd, u := []float64{0}, []float64{0}, []float64{0}
		maxU := 0.0
		for range int(horizon / dt) {
			c.Effort(u, q, qd)
			maxU = max(maxU, math.Abs(u[0]))
			qd[0] += u[0] / mass * dt
			q[0] += qd[0] * dt
		}
		if math.Abs(q[0]-0.1) > tol {
			t.Errorf("%s: q = %.5f m after %g s, want 0.1 ± %g", tc.name, q[0], horizon, tol)
		}
		if tc.limit > 0 && maxU > tc.limit+1e-12 {
			t.Errorf("%s: effort reached %g N, limit %g", tc.name, maxU, tc.limit)
		}
	}
}

// TestJointPDControlReadsSim checks Control reads the joint coordinate and
// velocity of a simulated slide: a finger displaced by +2 cm and moving at
// +0.1 m/s gets effort Kp·(0 − 0.02) − Kd·0.1.
func TestJointPDControlReadsSim(t *testing.T) {
	t.Parallel()
	b := sim.NewBuilder()
	b.Opt.Gravity = sim.V3(0, 0, 0)
	base := b.AddBody(sim.BodyDesc{Name: "base", Mocap: true, Pos: sim.V3(0, 0, 1)})
	f := b.AddBody(sim.BodyDesc{Name: "slider", Mass: 0.1, Pos: sim.V3(0, 0, 1)})
	b.AddShape(f, sim.ShapeDesc{Kind: sim.Box, Size: sim.V3(0.01, 0.01, 0.01)})
	j := b.AddJoint(sim.JointDesc{Name: "slide", Kind: sim.Prismatic, Parent: base, Child: f, Anchor: sim.V3(0, 0, 1), Axis: sim.V3(0, 1, 0)})
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewState()
	s.Bodies[f].Pos = sim.V3(0, 0.02, 1)
	s.Bodies[f].Vel = sim.V3(0, 0.1, 0)
	c := JointPD{Kp: 100, Kd: 3, Joints: []sim.JointID{j}, Target: []float64{0}}
	u := []float64{0}
	c.Control(u, m, s)
	if want := 100*(0-0.02) - 3*0.1; math.Abs(u[0]-want) > 1e-9 {
		t.Fatalf("effort %g, want %g", u[0], want)
	}
}
