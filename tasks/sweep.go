package tasks

import (
	"math"
	"math/rand/v2"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/sim"
)

// sweepInto: move the green cube into the square hole in the table
// (MetaWorld sweep-into-v2).
//
// The table has a 16 × 16 cm hole centred at (0, 0.84) over a 5 cm pit.
// Randomisation: cube in (−0.1,0.6,0.02)–(0.1,0.7,0.02), ≥ 0.15 m from the
// hole centre in xy; the goal is the hole centre ±1 mm. Success:
// xy ‖cube − goal‖ ≤ 0.05. Dense reward (v2): g = sweep caging (radius
// 0.02), r = 2g + 6·ham(g, in_place), 10 on success. Departure: the cube
// weighs 0.1 kg and rotates (MetaWorld: 0.01 kg with huge inertia).
type sweepInto struct {
	cube               int
	cubeShape          int
	objInit            sim.Vec3
	padRInit, padLInit float64
	place0, reach0     float64
}

const cubeHalf = 0.02

func init() { register("sweep-into", func() task { return &sweepInto{} }) }

func (t *sweepInto) meta() Meta {
	return Meta{
		Name:        "sweep-into",
		Description: "sweep the green cube into the black square hole in the table",
		Family:      "sweep",
		Stages:      []string{"start", "reached", "grasped", "moving", "in hole"},
		Colors:      Colors{Object: rgbGreen, Goal: rgbBlack, Gripper: rgbGripper},
		HandInit:    sim.V3(0, 0.6, 0.2), SuccessRadius: 0.05,
	}
}

func (t *sweepInto) bind(b *binder) {
	t.cube, t.cubeShape = b.body("green cube"), b.geom("green cube")
}

func (t *sweepInto) reset(e *Env, rng *rand.Rand) {
	goal := holeCenter.Add(uniform(rng, sim.V3(-0.001, -0.001, cubeHalf), sim.V3(0.001, 0.001, cubeHalf)))
	var obj sim.Vec3
	for {
		obj = uniform(rng, sim.V3(-0.1, 0.6, cubeHalf), sim.V3(0.1, 0.7, cubeHalf))
		if xyDist(obj, holeCenter) >= 0.15 {
			break
		}
	}
	e.place(t.cube, obj)
	e.goal = goal
}

func (t *sweepInto) start(e *Env) {
	t.objInit = e.ph.pos(t.cube)
	t.padRInit, t.padLInit = e.padY()
	t.place0 = xyDist(t.objInit, e.goal)
	t.reach0 = dist(t.objInit, e.tcpInit)
}

func (t *sweepInto) objects(e *Env, dst []float64) {
	putVec(dst[0:3], e.ph.pos(t.cube))
	quatXYZW(dst[3:7], e.ph.rot(t.cube))
}

// cagingSweep is MetaWorld sweep-into's _gripper_caging_reward override.
func (t *sweepInto) cagingSweep(e *Env, obj sim.Vec3) float64 {
	const r, padMargin, xzMargin, g = 0.02, 0.05, 0.01, 0.005
	padR, padL := e.padY()
	tcp := e.TCP()
	dl, dr := padL-obj.Y, obj.Y-padR
	ml := math.Abs(math.Abs(obj.Y-t.padLInit) - padMargin)
	mr := math.Abs(math.Abs(obj.Y-t.padRInit) - padMargin)
	y := hamacher(tolerance(dl, r, padMargin, ml), tolerance(dr, r, padMargin, mr))
	xz := tolerance(dist(sim.V3(tcp.X, 0, tcp.Z), sim.V3(obj.X, 0, obj.Z)), 0, xzMargin,
		dist(sim.V3(t.objInit.X, 0, t.objInit.Z), sim.V3(e.tcpInit.X, 0, e.tcpInit.Z))-xzMargin)
	c := hamacher(y, xz)
	gripping := 0.0
	if c > 0.95 {
		gripping = hamacher(tolerance(dr, r, r+g, mr), tolerance(dl, r, r+g, ml))
	}
	return (c + gripping) / 2
}

func (t *sweepInto) evaluate(e *Env, a []float64) eval {
	obj := e.ph.pos(t.cube)
	d := xyDist(obj, e.goal)
	inPlace := tolerance(d, 0, 0.05, t.place0)
	g := t.cagingSweep(e, obj)
	r := 2*g + 6*hamacher(g, inPlace)
	success := d <= 0.05
	if success {
		r = 10
	}
	tcpTo := dist(e.TCP(), obj)
	return eval{reward: r, success: success, nearObject: b2f(tcpTo <= 0.03),
		graspSuccess: b2f(e.padsTouch(t.cubeShape)), graspReward: g, inPlace: inPlace, objToTarget: d}
}

func (t *sweepInto) progress(e *Env) (float64, int) {
	obj := e.ph.pos(t.cube)
	d := xyDist(obj, e.goal)
	if d <= 0.05 {
		return 1, 4
	}
	toward := 1 - d/math.Max(t.place0, 1e-9)
	if e.padsTouch(t.cubeShape) {
		if toward > 0.1 {
			return stageProgress(3, 5, toward), 3
		}
		return stageProgress(2, 5, 0), 2
	}
	if tcpTo := dist(e.TCP(), obj); tcpTo < 0.02 {
		return stageProgress(1, 5, 0), 1
	} else {
		return stageProgress(0, 5, 1-tcpTo/math.Max(t.reach0, 1e-9)), 0
	}
}

// expert: grasp the cube, carry it just above the table to the hole and let
// go (MetaWorld SawyerSweepIntoV2Policy grasps too).
func (t *sweepInto) expert(e *Env) control.Policy {
	return control.PolicyFunc(func(obs, dst []float64) {
		o := obsView(obs)
		tcp, cube, goal := o.tcp(), o.obj1(), goalOf(e, o)
		holding := dist(tcp, cube) < 0.03 && e.padsTouch(t.cubeShape)
		switch {
		case xyDist(cube, goal) < 0.03:
			// over or in the hole: let go and back off upward
			moveTCP(dst, o, sim.V3(tcp.X, tcp.Y, 0.15), 10, -1)
		case holding:
			target := sim.V3(goal.X, goal.Y, t.objInit.Z+0.01).Add(tcp.Sub(cube))
			moveTCP(dst, o, target, 10, 1)
			limitSpeed(dst, 0.6)
		case xyDist(tcp, cube) > 0.012:
			moveTCP(dst, o, cube.Add(sim.V3(0, 0, 0.06)), 10, -1)
		case tcp.Z-cube.Z > 0.006:
			moveTCP(dst, o, cube, 10, -1)
		default:
			moveTCP(dst, o, cube, 10, 1)
		}
	})
}
