package control

import (
	"math"
	"testing"
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
