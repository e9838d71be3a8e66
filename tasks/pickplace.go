package tasks

import (
	"math"
	"math/rand/v2"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/sim"
)

// pickPlace: grasp the red puck and carry it to a goal in the air
// (MetaWorld pick-place-v2); push shares its state and expert with the goal
// on the table.
//
// Randomisation: puck in (−0.1,0.6,0.02)–(0.1,0.7,0.02); goal in
// (−0.1,0.8,0.05)–(0.1,0.9,0.3) (push: z := puck z); xy separation ≥ 0.15.
// Success: ‖puck − goal‖ ≤ 0.07 (push: 0.05). Dense rewards as MetaWorld
// v2, see evaluate.
type pickPlace struct {
	push           bool
	puck, goalBody int
	puckShape      int
	objInit        sim.Vec3
	padRInit       float64
	padLInit       float64
	reach0, place0 float64
}

func init() {
	register("pick-place", func() task { return &pickPlace{} })
	register("push", func() task { return &pickPlace{push: true} })
}

func (t *pickPlace) meta() Meta {
	if t.push {
		return Meta{
			Name:        "push",
			Description: "push the red puck to the green goal on the table",
			Family:      "push",
			Stages:      []string{"start", "reached", "grasped", "moving", "placed"},
			Colors:      Colors{Object: rgbRed, Goal: rgbGreen, Gripper: rgbGripper},
			HandInit:    sim.V3(0, 0.6, 0.2), SuccessRadius: 0.05,
		}
	}
	return Meta{
		Name:        "pick-place",
		Description: "pick up the red puck and place it on the green goal",
		Family:      "pick_place",
		Stages:      []string{"start", "reached", "grasped", "lifted", "placed"},
		Colors:      Colors{Object: rgbRed, Goal: rgbGreen, Gripper: rgbGripper},
		HandInit:    sim.V3(0, 0.6, 0.2), SuccessRadius: 0.07,
	}
}

func (t *pickPlace) bind(b *binder) {
	t.puck, t.goalBody, t.puckShape = b.body("red puck"), b.mocap("green goal"), b.geom("red puck")
}

func (t *pickPlace) reset(e *Env, rng *rand.Rand) {
	goalLo, goalHi := sim.V3(-0.1, 0.8, 0.05), sim.V3(0.1, 0.9, 0.3)
	if t.push {
		goalLo.Z, goalHi.Z = 0.01, 0.02
	}
	obj, goal := sampleSeparated(e, sim.V3(-0.1, 0.6, 0.02), sim.V3(0.1, 0.7, 0.02), goalLo, goalHi, 0.15)
	if t.push {
		goal.Z = obj.Z
	}
	e.place(t.puck, obj)
	e.goal = goal
	e.ph.teleportMocap(t.goalBody, goal, sim.Identity())
}

func (t *pickPlace) start(e *Env) {
	t.objInit = e.ph.pos(t.puck)
	t.padRInit, t.padLInit = e.padY()
	t.reach0 = dist(t.objInit, e.tcpInit)
	t.place0 = dist(t.objInit, e.goal)
}

func (t *pickPlace) objects(e *Env, dst []float64) {
	putVec(dst[0:3], e.ph.pos(t.puck))
	quatXYZW(dst[3:7], e.ph.rot(t.puck))
}

func (t *pickPlace) evaluate(e *Env, a []float64) eval {
	obj := e.ph.pos(t.puck)
	tcp := e.TCP()
	toTarget := dist(obj, e.goal)
	tcpToObj := dist(tcp, obj)
	opened := e.GripperOpen()
	inPlace := tolerance(toTarget, 0, 0.05, t.place0)
	ev := eval{objToTarget: toTarget, nearObject: b2f(tcpToObj <= 0.03), inPlace: inPlace}
	if t.push {
		// MetaWorld push-v2 compute_reward
		g := e.caging(a, obj, t.objInit, 0.015, 0.05, 0.01, 0.005, true, false)
		r := 2 * g
		if tcpToObj < 0.02 && opened > 0 {
			r += 1 + r + 5*inPlace
		}
		ev.success = toTarget <= 0.05
		if ev.success {
			r = 10
		}
		ev.reward, ev.graspReward = r, g
		ev.graspSuccess = b2f(e.anyPadTouches(t.puckShape) && opened > 0)
		return ev
	}
	// MetaWorld pick-place-v2 compute_reward
	g := e.cagingPickPlace(a, obj, t.objInit, t.padRInit, t.padLInit)
	r := hamacher(g, inPlace)
	if tcpToObj < 0.02 && opened > 0 && obj.Z-0.01 > t.objInit.Z {
		r += 1 + 5*inPlace
	}
	if toTarget < 0.05 {
		r = 10
	}
	ev.success = toTarget <= 0.07
	ev.reward, ev.graspReward = r, g
	ev.graspSuccess = b2f(opened > 0 && obj.Z-0.02 > t.objInit.Z)
	return ev
}

func (t *pickPlace) grasped(e *Env) bool { return e.padsTouch(t.puckShape) }

func (t *pickPlace) progress(e *Env) (float64, int) {
	obj := e.ph.pos(t.puck)
	toTarget := dist(obj, e.goal)
	n := len(t.meta().Stages)
	if toTarget <= t.meta().SuccessRadius {
		return 1, 4
	}
	toward := 1 - toTarget/math.Max(t.place0, 1e-9)
	if t.grasped(e) {
		if !t.push && obj.Z > t.objInit.Z+0.02 {
			return stageProgress(3, n, toward), 3
		}
		if t.push && toward > 0.1 {
			return stageProgress(3, n, toward), 3
		}
		return stageProgress(2, n, 0), 2
	}
	d := dist(e.TCP(), obj)
	if d < 0.02 {
		return stageProgress(1, n, 0), 1
	}
	return stageProgress(0, n, 1-d/math.Max(t.reach0, 1e-9)), 0
}

// expert: hover above the puck, descend with the gripper open, close, then
// carry the puck to the goal (MetaWorld SawyerPickPlaceV2Policy /
// SawyerPushV2Policy). The phase is read from the observation alone.
func (t *pickPlace) expert(e *Env) control.Policy {
	return control.PolicyFunc(func(obs, dst []float64) {
		o := obsView(obs)
		tcp, puck, goal := o.tcp(), o.obj1(), goalOf(e, o)
		// privileged: both pads touch the puck (MetaWorld's policy infers
		// this from the gripper opening; contacts are unambiguous here)
		holding := dist(tcp, puck) < 0.03 && e.padsTouch(t.puckShape) && o.gripper() < 0.6
		switch {
		case holding:
			target := goal
			if t.push {
				// carry it just clear of the table: sliding friction under
				// the puck would tip it
				target.Z = t.objInit.Z + 0.01
			} else if tcp.Z < 0.06 && xyDist(puck, goal) > 0.04 {
				// lift clear of the table before moving sideways
				target = sim.V3(puck.X, puck.Y, max(goal.Z, 0.08))
			}
			// the offset between TCP and puck centre is carried along
			target = target.Add(tcp.Sub(puck))
			moveTCP(dst, o, target, 10, 1)
			limitSpeed(dst, 0.6)
		case xyDist(tcp, puck) > 0.012:
			moveTCP(dst, o, puck.Add(sim.V3(0, 0, 0.06)), 10, -1)
		case tcp.Z-puck.Z > 0.006:
			moveTCP(dst, o, puck, 10, -1)
		default:
			// in place: close and wait for the fingers
			moveTCP(dst, o, puck, 10, 1)
		}
	})
}
