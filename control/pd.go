package control

import (
	"fmt"
	"math"
)

// JointPD is a joint-space PD controller with an effort limit:
//
//	effort_i = clamp(Kp·(Target_i − q_i) − Kd·q̇_i, ±MaxEffort)
//
// in N (prismatic) or N·m (revolute). Effort takes q and q̇ from any
// source (an engine's joints, a real robot's encoders). The zero MaxEffort means
// unlimited. JointPD holds no state besides its fields and is safe to copy.
type JointPD struct {
	Kp        float64   // stiffness (N/m or N·m/rad)
	Kd        float64   // damping (N·s/m or N·m·s/rad)
	MaxEffort float64   // |effort| limit (N or N·m); 0 = none
	Target    []float64 // target coordinates (m or rad), one per joint
}

// Effort writes the PD efforts for coordinates q and velocities qd into
// dst. All slices must have len(Target) elements.
func (c *JointPD) Effort(dst, q, qd []float64) {
	if len(dst) != len(c.Target) || len(q) != len(c.Target) || len(qd) != len(c.Target) {
		panic(fmt.Sprintf("control: JointPD.Effort lengths dst %d q %d qd %d, want %d", len(dst), len(q), len(qd), len(c.Target)))
	}
	for i := range dst {
		u := c.Kp*(c.Target[i]-q[i]) - c.Kd*qd[i]
		if c.MaxEffort > 0 {
			u = min(max(u, -c.MaxEffort), c.MaxEffort)
		}
		if math.IsNaN(u) {
			u = 0
		}
		dst[i] = u
	}
}
