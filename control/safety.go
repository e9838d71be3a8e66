package control

import (
	"errors"
	"fmt"
	"math"
)

// ErrForceLimit is returned by Safety.CheckForce when a measured force
// exceeds the limit; a robot driver should stop and hold.
var ErrForceLimit = errors.New("control: measured force exceeds the safety limit")

// Limits bound Cartesian end-effector commands. The zero value of a field
// disables that limit. They are plain numbers so the same Safety filter
// runs in front of the simulator and in front of a real robot's driver.
type Limits struct {
	// WorkspaceLow/High is the axis-aligned box (m, world frame) the
	// end-effector target must stay inside. Disabled when Low == High.
	WorkspaceLow, WorkspaceHigh [3]float64
	// MaxSpeed caps the target's speed (m/s): a new target is moved no
	// further than MaxSpeed·dt from the previous one.
	MaxSpeed float64
	// MaxForce caps commanded gripper/joint efforts and measured contact
	// forces (N).
	MaxForce float64
}

// SafetyCounts counts how often each limit acted.
type SafetyCounts struct {
	Workspace, Speed, Force, NonFinite int
}

// Safety filters commands through Limits and counts interventions. Use one
// per robot; it is not safe for concurrent use.
type Safety struct {
	Limits
	Counts SafetyCounts
}

// Target returns the end-effector target to command given the previous
// commanded target prev and the requested one want, dt seconds later:
// non-finite requests hold prev, the step is shortened to MaxSpeed·dt, and
// the result is clamped into the workspace box.
func (s *Safety) Target(prev, want [3]float64, dt float64) [3]float64 {
	for _, w := range want {
		if math.IsNaN(w) || math.IsInf(w, 0) {
			s.Counts.NonFinite++
			return s.box(prev)
		}
	}
	if s.MaxSpeed > 0 && dt > 0 {
		d := [3]float64{want[0] - prev[0], want[1] - prev[1], want[2] - prev[2]}
		n := math.Sqrt(d[0]*d[0] + d[1]*d[1] + d[2]*d[2])
		if lim := s.MaxSpeed * dt; n > lim {
			s.Counts.Speed++
			k := lim / n
			want = [3]float64{prev[0] + k*d[0], prev[1] + k*d[1], prev[2] + k*d[2]}
		}
	}
	return s.box(want)
}

func (s *Safety) box(p [3]float64) [3]float64 {
	if s.WorkspaceLow == s.WorkspaceHigh {
		return p
	}
	clamped := false
	for i := range p {
		c := min(max(p[i], s.WorkspaceLow[i]), s.WorkspaceHigh[i])
		if c != p[i] {
			clamped = true
		}
		p[i] = c
	}
	if clamped {
		s.Counts.Workspace++
	}
	return p
}

// Effort clamps a commanded force or torque to ±MaxForce (N); non-finite
// efforts become 0.
func (s *Safety) Effort(f float64) float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		s.Counts.NonFinite++
		return 0
	}
	if s.MaxForce > 0 && math.Abs(f) > s.MaxForce {
		s.Counts.Force++
		return math.Copysign(s.MaxForce, f)
	}
	return f
}

// CheckForce returns an error wrapping ErrForceLimit when a measured force
// magnitude (N) exceeds MaxForce.
func (s *Safety) CheckForce(measured float64) error {
	if s.MaxForce > 0 && !(math.Abs(measured) <= s.MaxForce) {
		s.Counts.Force++
		return fmt.Errorf("%w: %.3g N > %.3g N", ErrForceLimit, measured, s.MaxForce)
	}
	return nil
}
