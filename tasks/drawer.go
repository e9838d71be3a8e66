package tasks

import (
	"math"
	"math/rand/v2"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/sim"
)

// drawerOpen: pull the drawer open by its yellow handle (MetaWorld
// drawer-open-v2).
//
// The cabinet (a kinematic body) sits at x ∈ [−0.1, 0.1], y = 0.9, z = 0;
// the drawer slides 0.16 m toward the robot (−y) on a damped prismatic
// joint. The handle bar sits 6 cm in front of the drawer front. The goal
// is the handle position 0.13 m out. Success: ‖handle − goal‖ ≤ 0.03
// (about 0.10 m of the 0.16 m travel, as in MetaWorld). Dense reward (v2):
// 5·(caging + opening), opening = tolerance(‖handle − goal‖, (0, 0.02),
// margin 0.2), caging = tolerance(‖(handle − tcp)⊙(3,3,1)‖, (0, 0.01),
// margin ‖(handle_init − tcp_init)⊙(3,3,1)‖). Departure: MetaWorld measures
// caging from the hand body, which on its Sawyer sits at the fingertips;
// here the TCP plays that role.
type drawerOpen struct {
	cabinet, drawer, goalBody int
	slide                     int
	handleShape               int
	handleInit                sim.Vec3
	cage0                     float64
}

// drawer geometry relative to the cabinet origin (on the table, centre of
// the cabinet's footprint).
const (
	drawerTravel    = 0.16
	drawerOpenGoal  = 0.13 // handle displacement of the goal (m)
	cabinetHalfX    = 0.12
	cabinetHalfY    = 0.1
	cabinetHalfZ    = 0.075
	drawerHalfZ     = 0.035
	drawerCenterZ   = 0.05
	handleStandoff  = 0.06
	handleHalfX     = 0.045
	handleHalfThick = 0.008
)

var (
	drawerHandleOffset = sim.V3(0, -cabinetHalfY-handleStandoff, drawerCenterZ) // handle centre, drawer closed
	drawerBodyOffset   = sim.V3(0, 0, drawerCenterZ)
	rgbOrange          = [3]uint8{235, 140, 30}
)

func init() { register("drawer-open", func() task { return &drawerOpen{} }) }

func (t *drawerOpen) meta() Meta {
	return Meta{
		Name:        "drawer-open",
		Description: "open the drawer by pulling its yellow handle",
		Family:      "articulated",
		Stages:      []string{"start", "reached", "grasped", "opening", "open"},
		Colors:      Colors{Object: rgbYellow, Goal: rgbGreen, Gripper: rgbGripper},
		HandInit:    sim.V3(0, 0.6, 0.2), SuccessRadius: 0.03,
	}
}

func (t *drawerOpen) bind(b *binder) {
	t.cabinet, t.drawer, t.goalBody = b.mocap("cabinet"), b.body("drawer"), b.mocap("green goal")
	t.slide, t.handleShape = b.joint("drawer slide"), b.geom("drawer handle")
}

func (t *drawerOpen) reset(e *Env, rng *rand.Rand) {
	p := sim.V3(-0.1+0.2*rng.Float64(), 0.9, 0)
	e.ph.teleportMocap(t.cabinet, p, sim.Identity())
	e.place(t.drawer, p.Add(drawerBodyOffset))
	e.goal = p.Add(drawerHandleOffset).Add(sim.V3(0, -drawerOpenGoal, 0))
	e.ph.teleportMocap(t.goalBody, e.goal, sim.Identity())
}

func (t *drawerOpen) handle(e *Env) sim.Vec3 {
	return e.ph.pos(t.drawer).Add(e.ph.rot(t.drawer).Rotate(drawerHandleOffset.Sub(drawerBodyOffset)))
}

func (t *drawerOpen) start(e *Env) {
	t.handleInit = t.handle(e)
	t.cage0 = t.handleInit.Sub(e.tcpInit).Mul(sim.V3(3, 3, 1)).Norm()
}

func (t *drawerOpen) objects(e *Env, dst []float64) {
	putVec(dst[0:3], t.handle(e))
	quatXYZW(dst[3:7], e.ph.rot(t.drawer))
}

func (t *drawerOpen) evaluate(e *Env, a []float64) eval {
	h := t.handle(e)
	d := dist(h, e.goal)
	cage := tolerance(h.Sub(e.TCP()).Mul(sim.V3(3, 3, 1)).Norm(), 0, 0.01, t.cage0)
	opening := tolerance(d, 0, 0.02, 0.2)
	return eval{
		reward: 5 * (cage + opening), success: d <= 0.03,
		nearObject: b2f(dist(h, e.TCP()) <= 0.03), graspSuccess: b2f(e.padsTouch(t.handleShape)),
		graspReward: cage, inPlace: opening, objToTarget: d,
	}
}

func (t *drawerOpen) progress(e *Env) (float64, int) {
	h := t.handle(e)
	n := 5
	if dist(h, e.goal) <= 0.03 {
		return 1, 4
	}
	q := e.ph.jointPos(t.slide)
	if q > 0.01 {
		return stageProgress(3, n, q/(drawerOpenGoal-0.03)), 3
	}
	if e.anyPadTouches(t.handleShape) {
		return stageProgress(2, n, 0), 2
	}
	d := dist(e.TCP(), h)
	if d < 0.02 {
		return stageProgress(1, n, 0), 1
	}
	return stageProgress(0, n, 1-d/math.Max(dist(t.handleInit, e.tcpInit), 1e-9)), 0
}

// expert: hover above the handle, descend with the fingers half open so
// they straddle the bar, close on it, and pull toward the robot
// (MetaWorld SawyerDrawerOpenV2Policy, which hooks instead of grasping).
func (t *drawerOpen) expert(e *Env) control.Policy {
	return control.PolicyFunc(func(obs, dst []float64) {
		o := obsView(obs)
		tcp, h := o.tcp(), o.obj1()
		goal := goalOf(e, o)
		switch {
		case xyDist(tcp, h) > 0.012 && tcp.Z < h.Z+0.04 && math.Abs(tcp.Y-h.Y) > 0.012:
			// too low and not over the handle: rise first
			moveTCP(dst, o, sim.V3(tcp.X, tcp.Y, h.Z+0.08), 10, 0)
		case xyDist(tcp, h) > 0.012:
			moveTCP(dst, o, h.Add(sim.V3(0, 0, 0.08)), 10, 0)
		case tcp.Z-h.Z > 0.008:
			moveTCP(dst, o, h, 10, 0)
		case o.gripper() > 0.3:
			moveTCP(dst, o, h, 10, 1)
		default:
			moveTCP(dst, o, sim.V3(h.X, goal.Y-0.02, h.Z), 10, 1)
		}
	})
}
