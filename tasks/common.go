package tasks

import (
	"math"

	"github.com/vlmrb/vlmrb/sim"
)

// MetaWorld's puck: a cylinder of radius 2 cm and half-height 2 cm
// (0.75 kg, as MetaWorld's, in the scene files).
const puckRadius, puckHalfHeight = 0.02, 0.02

// place puts a free body at pos, upright and at rest.
func (e *Env) place(b int, pos sim.Vec3) {
	e.ph.place(b, pos, sim.Identity())
}

// caging is MetaWorld's base SawyerXYZEnv._gripper_caging_reward: how well
// the two pads surround obj (in y) with the TCP level with it (in xz),
// combined with the closing effort a[3]. objInit is the object's start
// position.
func (e *Env) caging(a []float64, obj, objInit sim.Vec3, objRadius, padThresh, reachRadius, xzThresh float64, highDensity, mediumDensity bool) float64 {
	padR, padL := e.padY()
	tcp := e.TCP()
	cage := func(pad float64) float64 {
		toObj := math.Abs(pad - obj.Y)
		toInit := math.Abs(pad - objInit.Y)
		return tolerance(toObj, objRadius, padThresh, math.Abs(toInit-padThresh))
	}
	cagingY := hamacher(cage(padL), cage(padR))
	xzTcp, xzObj, xzInit, xzTcpInit := sim.V3(tcp.X, 0, tcp.Z), sim.V3(obj.X, 0, obj.Z), sim.V3(objInit.X, 0, objInit.Z), sim.V3(e.tcpInit.X, 0, e.tcpInit.Z)
	cagingXZ := tolerance(dist(xzTcp, xzObj), 0, xzThresh, dist(xzInit, xzTcpInit)-xzThresh)
	closed := min(max(0, a[3]), 1)
	c := hamacher(cagingY, cagingXZ)
	gripping := 0.0
	if c > 0.97 {
		gripping = closed
	}
	out := hamacher(c, gripping)
	if highDensity {
		out = (out + c) / 2
	}
	if mediumDensity {
		reach := tolerance(dist(obj, tcp), 0, reachRadius, math.Abs(dist(objInit, e.tcpInit)-reachRadius))
		out = (out + reach) / 2
	}
	return out
}

// cagingPickPlace is the pick-place override of the caging reward (signed
// pad distances, both terms averaged).
func (e *Env) cagingPickPlace(a []float64, obj, objInit sim.Vec3, padRInit, padLInit float64) float64 {
	padR, padL := e.padY()
	tcp := e.TCP()
	dl, dr := padL-obj.Y, obj.Y-padR
	ml := math.Abs(math.Abs(obj.Y-padLInit) - 0.05)
	mr := math.Abs(math.Abs(obj.Y-padRInit) - 0.05)
	y := hamacher(tolerance(dl, 0.015, 0.05, ml), tolerance(dr, 0.015, 0.05, mr))
	xzTcp, xzObj, xzInit, xzTcpInit := sim.V3(tcp.X, 0, tcp.Z), sim.V3(obj.X, 0, obj.Z), sim.V3(objInit.X, 0, objInit.Z), sim.V3(e.tcpInit.X, 0, e.tcpInit.Z)
	xz := tolerance(dist(xzTcp, xzObj), 0, 0.005, dist(xzInit, xzTcpInit)-0.005)
	closed := min(max(a[3], 0), 1)
	c := hamacher(y, xz)
	gripping := 0.0
	if c > 0.97 {
		gripping = closed
	}
	return (hamacher(c, gripping) + c) / 2
}

// padsTouch reports whether both finger pads touch shape sh.
func (e *Env) padsTouch(sh int) bool {
	return e.ph.inContact(e.hp.padR, sh) && e.ph.inContact(e.hp.padL, sh)
}

// anyPadTouches reports whether either pad touches shape sh.
func (e *Env) anyPadTouches(sh int) bool {
	return e.ph.inContact(e.hp.padR, sh) || e.ph.inContact(e.hp.padL, sh)
}

// sampleSeparated draws obj and goal positions from their boxes until their
// xy distance is at least sep (MetaWorld's resampling loop).
func sampleSeparated(e *Env, objLo, objHi, goalLo, goalHi sim.Vec3, sep float64) (obj, goal sim.Vec3) {
	for {
		obj = uniform(e.rng, objLo, objHi)
		goal = uniform(e.rng, goalLo, goalHi)
		if dist(xy(obj), xy(goal)) >= sep {
			return obj, goal
		}
	}
}

// stageProgress maps a stage index k of n stages and a fraction f ∈ [0,1]
// toward the next stage to overall progress in [0,1].
func stageProgress(k, n int, f float64) float64 {
	if k >= n-1 {
		return 1
	}
	f = min(max(f, 0), 1)
	return (float64(k) + f) / float64(n-1)
}

// PadsHold reports whether both finger pads touched one and the same shape
// in the last step (a grasp as the gripper feels it: an object squeezed
// between the pads, whatever the task calls its object).
func (e *Env) PadsHold() bool { return e.ph.sharedContact(e.hp.padR, e.hp.padL) }
