package tasks

import (
	"math/rand/v2"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/sim"
)

// reach: move the TCP to a goal in the air (MetaWorld reach-v2).
//
// Randomisation: a distractor puck in (−0.1,0.6,0.02)–(0.1,0.7,0.02), the
// goal in (−0.1,0.8,0.05)–(0.1,0.9,0.3), resampled until their xy distance
// is ≥ 0.15. Success: ‖tcp − goal‖ ≤ 0.05. Dense reward (v2):
// 10·tolerance(‖tcp − goal‖, (0, 0.05), margin ‖hand_init − goal‖).
type reach struct {
	puck, goalBody int
	puckShape      int
	d0             float64
}

func init() { register("reach", func() task { return &reach{} }) }

func (t *reach) meta() Meta {
	return Meta{
		Name:        "reach",
		Description: "move the robot gripper to the green goal marker",
		Family:      "reach",
		Stages:      []string{"start", "approaching", "reached"},
		Colors:      Colors{Object: rgbGripper, Goal: rgbGreen, Gripper: rgbGripper},
		HandInit:    sim.V3(0, 0.6, 0.2), SuccessRadius: 0.05,
	}
}

func (t *reach) bind(b *binder) {
	t.puck, t.goalBody, t.puckShape = b.body("red puck"), b.mocap("green goal"), b.geom("red puck")
}

func (t *reach) reset(e *Env, rng *rand.Rand) {
	obj, goal := sampleSeparated(e, sim.V3(-0.1, 0.6, 0.02), sim.V3(0.1, 0.7, 0.02), sim.V3(-0.1, 0.8, 0.05), sim.V3(0.1, 0.9, 0.3), 0.15)
	e.place(t.puck, obj)
	e.goal = goal
	e.ph.teleportMocap(t.goalBody, goal, sim.Identity())
}

func (t *reach) start(e *Env) { t.d0 = dist(e.meta.HandInit, e.goal) }

func (t *reach) objects(e *Env, dst []float64) {
	putVec(dst[0:3], e.ph.pos(t.puck))
	quatXYZW(dst[3:7], e.ph.rot(t.puck))
}

func (t *reach) evaluate(e *Env, a []float64) eval {
	d := dist(e.TCP(), e.goal)
	inPlace := tolerance(d, 0, 0.05, t.d0)
	return eval{reward: 10 * inPlace, success: d <= 0.05, nearObject: b2f(d <= 0.05), inPlace: inPlace, objToTarget: d}
}

func (t *reach) progress(e *Env) (float64, int) {
	d := dist(e.TCP(), e.goal)
	switch {
	case d <= 0.05:
		return 1, 2
	case d < t.d0/2:
		return stageProgress(1, 3, 1-(d-0.05)/(t.d0/2-0.05)), 1
	}
	return stageProgress(0, 3, (t.d0-d)/(t.d0/2)), 0
}

// expert moves the TCP straight to the goal (MetaWorld SawyerReachV2Policy, p = 25).
func (t *reach) expert(e *Env) control.Policy {
	return control.PolicyFunc(func(obs, dst []float64) {
		o := obsView(obs)
		moveTCP(dst, o, goalOf(e, o), 25, 0)
	})
}
