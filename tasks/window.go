package tasks

import (
	"math"
	"math/rand/v2"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/sim"
)

// windowOpen: slide the window open to the right by pushing its yellow
// handle (MetaWorld window-open-v2).
//
// The frame (kinematic) sits at x ∈ [−0.1, 0.1], y ∈ [0.7, 0.9] on the
// table; the sash slides 0.2 m along +x on a damped prismatic joint. The
// handle is a vertical bar 8 cm in front of the pane (so the palm clears
// the glass). Goal: the handle 0.2 m to the right. Success:
// |handle_x − goal_x| ≤ 0.05 (≥ 0.15 m of travel). Dense reward (v2):
// 10·ham(reach, in_place), reach = tolerance(‖handle − tcp‖, (0, 0.02),
// margin |‖handle_init − tcp_init‖ − 0.02|), in_place =
// tolerance(|handle_x − goal_x|, (0, 0.05), margin |initial gap − 0.05|).
type windowOpen struct {
	frame, sash, goalBody int
	slide                 int
	handleShape           int
	handleInit            sim.Vec3
	reach0, gap0          float64
}

const (
	windowTravel   = 0.2
	paneHalfX      = 0.1
	paneHalfZ      = 0.12
	paneCenterZ    = 0.16
	windowStandoff = 0.08
)

var (
	sashOffset         = sim.V3(0, 0, paneCenterZ)
	windowHandleOffset = sim.V3(-0.07, -windowStandoff, 0) // from the sash centre
	rgbGlass           = [3]uint8{170, 210, 235}
)

func init() { register("window-open", func() task { return &windowOpen{} }) }

func (t *windowOpen) meta() Meta {
	return Meta{
		Name:        "window-open",
		Description: "slide the window open to the right by pushing its yellow handle",
		Family:      "articulated",
		Stages:      []string{"start", "reached", "opening", "open"},
		Colors:      Colors{Object: rgbYellow, Goal: rgbGreen, Gripper: rgbGripper},
		HandInit:    sim.V3(0, 0.4, 0.2), SuccessRadius: 0.05,
	}
}

func (t *windowOpen) bind(b *binder) {
	t.frame, t.sash, t.goalBody = b.mocap("window frame"), b.body("window sash"), b.mocap("green goal")
	t.slide, t.handleShape = b.joint("window slide"), b.geom("window handle")
}

func (t *windowOpen) reset(e *Env, rng *rand.Rand) {
	p := uniform(rng, sim.V3(-0.1, 0.7, 0), sim.V3(0.1, 0.9, 0))
	e.ph.teleportMocap(t.frame, p, sim.Identity())
	e.place(t.sash, p.Add(sashOffset))
	e.goal = p.Add(sashOffset).Add(windowHandleOffset).Add(sim.V3(windowTravel, 0, 0))
	e.ph.teleportMocap(t.goalBody, e.goal, sim.Identity())
}

func (t *windowOpen) handle(e *Env) sim.Vec3 {
	return e.ph.pos(t.sash).Add(e.ph.rot(t.sash).Rotate(windowHandleOffset))
}

func (t *windowOpen) start(e *Env) {
	t.handleInit = t.handle(e)
	t.reach0 = math.Abs(dist(t.handleInit, e.tcpInit) - 0.02)
	t.gap0 = math.Abs(math.Abs(t.handleInit.X-e.goal.X) - 0.05)
}

func (t *windowOpen) objects(e *Env, dst []float64) {
	putVec(dst[0:3], t.handle(e))
	// MetaWorld's window-open reports a zero quaternion; report the sash's.
	quatXYZW(dst[3:7], e.ph.rot(t.sash))
}

func (t *windowOpen) evaluate(e *Env, a []float64) eval {
	h := t.handle(e)
	gap := math.Abs(h.X - e.goal.X)
	tcpTo := dist(h, e.TCP())
	reach := tolerance(tcpTo, 0, 0.02, t.reach0)
	inPlace := tolerance(gap, 0, 0.05, t.gap0)
	return eval{reward: 10 * hamacher(reach, inPlace), success: gap <= 0.05, nearObject: b2f(tcpTo <= 0.05),
		graspSuccess: b2f(e.anyPadTouches(t.handleShape)), graspReward: reach, inPlace: inPlace, objToTarget: gap}
}

func (t *windowOpen) progress(e *Env) (float64, int) {
	h := t.handle(e)
	if math.Abs(h.X-e.goal.X) <= 0.05 {
		return 1, 3
	}
	if q := e.ph.jointPos(t.slide); q > 0.01 {
		return stageProgress(2, 4, q/(windowTravel-0.05)), 2
	}
	d := dist(e.TCP(), h)
	if d < 0.04 {
		return stageProgress(1, 4, 0), 1
	}
	return stageProgress(0, 4, 1-d/math.Max(dist(t.handleInit, e.tcpInit), 1e-9)), 0
}

// expert: close the gripper, come down just left of the handle, and push it
// right past the goal (MetaWorld SawyerWindowOpenV2Policy).
func (t *windowOpen) expert(e *Env) control.Policy {
	return control.PolicyFunc(func(obs, dst []float64) {
		o := obsView(obs)
		tcp, h := o.tcp(), o.obj1()
		goal := goalOf(e, o)
		side := h.Add(sim.V3(-0.04, 0, 0))
		switch {
		case xyDist(tcp, side) > 0.015 && tcp.X > h.X-0.03:
			// not yet left of the handle: go round above it
			moveTCP(dst, o, side.Add(sim.V3(0, 0, 0.08)), 10, 1)
		case xyDist(tcp, side) > 0.015 && math.Abs(tcp.Z-h.Z) > 0.01:
			moveTCP(dst, o, side.Add(sim.V3(0, 0, 0.08)), 10, 1)
		case math.Abs(tcp.Z-h.Z) > 0.01:
			moveTCP(dst, o, side, 10, 1)
		default:
			moveTCP(dst, o, sim.V3(goal.X+0.02-0.022, h.Y, h.Z), 10, 1)
			limitSpeed(dst, 0.5)
		}
	})
}
