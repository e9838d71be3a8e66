package tasks

import (
	"github.com/vlmrb/vlmrb/sim"
)

// Scripted experts follow MetaWorld's policies/sawyer_*_policy.py: a few
// phases chosen from the current observation, and a proportional move of
// the hand toward a phase target (action = gain·(target − hand), clipped).

// obsView names the parts of a 39-D observation.
type obsView []float64

func (o obsView) hand() sim.Vec3   { return sim.V3(o[0], o[1], o[2]) }
func (o obsView) tcp() sim.Vec3    { return o.hand().Sub(sim.V3(0, 0, tcpDrop)) }
func (o obsView) gripper() float64 { return o[3] }
func (o obsView) obj1() sim.Vec3   { return sim.V3(o[4], o[5], o[6]) }
func (o obsView) obj2() sim.Vec3   { return sim.V3(o[11], o[12], o[13]) }
func (o obsView) goal() sim.Vec3   { return sim.V3(o[36], o[37], o[38]) }

// goalOf returns the goal from the observation, or the Env's goal when the
// observation hides it.
func goalOf(e *Env, o obsView) sim.Vec3 {
	if e.opts.HideGoal {
		return e.goal
	}
	return o.goal()
}

// moveTCP writes the action that moves the TCP toward target with gain p
// (per m; 10 means 1 cm error → a = 0.1) and gripper effort grip.
func moveTCP(dst []float64, o obsView, target sim.Vec3, p, grip float64) {
	d := target.Sub(o.tcp()).Scale(p)
	dst[0], dst[1], dst[2] = clamp1(d.X), clamp1(d.Y), clamp1(d.Z)
	dst[3] = grip
}

func clamp1(x float64) float64 { return min(max(x, -1), 1) }

func xyDist(a, b sim.Vec3) float64 { return dist(xy(a), xy(b)) }

// limitSpeed scales the xyz part of an action down to norm ≤ v.
func limitSpeed(dst []float64, v float64) {
	n := sim.V3(dst[0], dst[1], dst[2]).Norm()
	if n > v {
		dst[0], dst[1], dst[2] = dst[0]*v/n, dst[1]*v/n, dst[2]*v/n
	}
}
