package tasks

import (
	"math"
	"math/rand/v2"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/sim"
)

// doorOpen: swing the safe's door open toward the robot by its yellow
// handle (MetaWorld door-open-v2).
//
// The safe (kinematic) sits at x ∈ [0, 0.1], y ∈ [0.85, 0.95] on the table;
// its door hangs on a vertical hinge at its left edge and opens toward the
// robot through [0, 2] rad. The handle is a horizontal bar 11.5 cm in front of
// the door near its free edge (the palm must clear the door while the
// fingers hook behind the bar). Goal: the handle position with the door at
// 90°. Success: |handle_x − goal_x| ≤ 0.04 (door open ≳ 1.33 rad ≈ 76°;
// MetaWorld: ≤ 0.08 with its larger door, ≈ 85°). Dense reward (v2 shape):
// 2·ham(ready, grab) + 8·opened, grab = (a[3] + 1)/2, opened =
// 0.2·[θ > π/90] + 0.8·tolerance(π/2 + π/6 − θ, (0, 0.5), margin π/3), 10 on
// success. Departure: ready = tolerance(‖tcp − hook point‖, (0, 0.02),
// margin 0.5) with the hook point between handle and door, in place of
// MetaWorld's funnel-shaped "above floor" term.
type doorOpen struct {
	safe, door, goalBody int
	hinge                int
	handleShape          int
	handleInit           sim.Vec3
}

const (
	doorHalfX, doorHalfZ = 0.1, 0.07
	doorCenterZ          = 0.09
	doorStandoff         = 0.115
)

var (
	// relative to the safe origin (on the table)
	doorHingeOffset = sim.V3(-0.15, 0, doorCenterZ)
	doorBodyOffset  = sim.V3(-0.05, 0, doorCenterZ)
	// handle bar centre and hook point relative to the hinge, door closed
	doorHandleRel = sim.V3(0.15, -doorStandoff, 0.03)
	doorHookRel   = sim.V3(0.15, -0.08, 0.02)
)

func init() { register("door-open", func() task { return &doorOpen{} }) }

func (t *doorOpen) meta() Meta {
	return Meta{
		Name:        "door-open",
		Description: "open the door of the safe by pulling its yellow handle",
		Family:      "articulated",
		Stages:      []string{"start", "reached", "opening", "open"},
		Colors:      Colors{Object: rgbYellow, Goal: rgbGreen, Gripper: rgbGripper},
		HandInit:    sim.V3(0, 0.6, 0.2), SuccessRadius: 0.04,
	}
}

func (t *doorOpen) bind(b *binder) {
	t.safe, t.door, t.goalBody = b.mocap("safe"), b.body("safe door"), b.mocap("green goal")
	t.hinge, t.handleShape = b.joint("door hinge"), b.geom("door handle")
}

// rel returns the world position of a point given relative to the hinge
// (door closed) with the door open by theta.
func (t *doorOpen) rel(e *Env, p sim.Vec3, theta float64) sim.Vec3 {
	h := e.ph.pos(t.safe).Add(doorHingeOffset)
	return h.Add(sim.QuatFromAxisAngle(sim.V3(0, 0, -1), theta).Rotate(p))
}

func (t *doorOpen) reset(e *Env, rng *rand.Rand) {
	p := uniform(rng, sim.V3(0, 0.85, 0), sim.V3(0.1, 0.95, 0))
	e.ph.teleportMocap(t.safe, p, sim.Identity())
	e.place(t.door, p.Add(doorBodyOffset))
	e.goal = t.rel(e, doorHandleRel, math.Pi/2)
	e.ph.teleportMocap(t.goalBody, e.goal, sim.Identity())
}

func (t *doorOpen) handle(e *Env) sim.Vec3 {
	return e.ph.pos(t.door).Add(e.ph.rot(t.door).Rotate(doorHandleRel.Add(doorHingeOffset).Sub(doorBodyOffset)))
}

func (t *doorOpen) start(e *Env) { t.handleInit = t.handle(e) }

func (t *doorOpen) objects(e *Env, dst []float64) {
	putVec(dst[0:3], t.handle(e))
	quatXYZW(dst[3:7], e.ph.rot(t.door))
}

func (t *doorOpen) evaluate(e *Env, a []float64) eval {
	h := t.handle(e)
	theta := e.ph.jointPos(t.hinge)
	hook := t.rel(e, doorHookRel, theta)
	ready := tolerance(dist(e.TCP(), hook), 0, 0.02, 0.5)
	grab := (min(max(a[3], -1), 1) + 1) / 2
	opened := 0.8 * tolerance(math.Pi/2+math.Pi/6-theta, 0, 0.5, math.Pi/3)
	if theta > math.Pi/90 {
		opened += 0.2
	}
	gap := math.Abs(h.X - e.goal.X)
	success := gap <= 0.04
	r := 2*hamacher(ready, grab) + 8*opened
	if success {
		r = 10
	}
	return eval{reward: r, success: success, nearObject: b2f(dist(e.TCP(), hook) <= 0.03),
		graspSuccess: b2f(e.anyPadTouches(t.handleShape)), graspReward: ready, inPlace: opened, objToTarget: gap}
}

func (t *doorOpen) progress(e *Env) (float64, int) {
	h := t.handle(e)
	if math.Abs(h.X-e.goal.X) <= 0.04 {
		return 1, 3
	}
	theta := e.ph.jointPos(t.hinge)
	if theta > 0.05 {
		return stageProgress(2, 4, theta/1.32), 2
	}
	hook := t.rel(e, doorHookRel, theta)
	d := dist(e.TCP(), hook)
	if d < 0.02 {
		return stageProgress(1, 4, 0), 1
	}
	return stageProgress(0, 4, 1-d/math.Max(dist(t.rel(e, doorHookRel, 0), e.tcpInit), 1e-9)), 0
}

// expert: close the gripper, drop the fingers into the gap between handle
// and door from above, then pull along the door's arc a little ahead of its
// current angle (MetaWorld SawyerDoorOpenV2Policy hooks the handle too).
// It reads the hinge angle from the state (privileged).
func (t *doorOpen) expert(e *Env) control.Policy {
	return control.PolicyFunc(func(obs, dst []float64) {
		o := obsView(obs)
		tcp := o.tcp()
		theta := e.ph.jointPos(t.hinge)
		hook := t.rel(e, doorHookRel, theta)
		switch {
		case xyDist(tcp, hook) > 0.015 && theta < 0.05:
			moveTCP(dst, o, hook.Add(sim.V3(0, 0, 0.08)), 10, 1)
		case tcp.Z-hook.Z > 0.01 && theta < 0.05:
			moveTCP(dst, o, hook, 10, 1)
		default:
			moveTCP(dst, o, t.rel(e, doorHookRel, min(theta+0.3, 1.7)), 10, 1)
			limitSpeed(dst, 0.5)
		}
	})
}
