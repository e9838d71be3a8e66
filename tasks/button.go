package tasks

import (
	"math"
	"math/rand/v2"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/sim"
)

// buttonPressTopdown: press the red button down into its box with the
// closed gripper (MetaWorld button-press-topdown-v2).
//
// The box (kinematic) sits at x ∈ [−0.1, 0.1], y ∈ [0.8, 0.9] on the
// table; the button is a spring-loaded cylinder that travels 3 cm down.
// Departure: MetaWorld's button travels 6 cm and succeeds within 2.4 cm of
// the bottom; here the goal is the fully pressed button top and success is
// |button_z − goal_z| ≤ 0.01 (≥ 2 cm pressed). Dense reward (v2):
// 5·ham(1 − gripper_open, near) + 5·pressed when ‖tcp − button‖ ≤ 0.03,
// near = tolerance(‖button − tcp‖, (0, 0.01), margin ‖button_init − tcp_init‖),
// pressed = tolerance(|goal_z − button_z|, (0, 0.005), margin = initial gap).
type buttonPressTopdown struct {
	box, button, goalBody int
	slide                 int
	buttonShape           int
	btnInit               sim.Vec3
	near0, gap0           float64
}

const (
	buttonBoxHalf    = 0.06
	buttonBoxHeight  = 0.1
	buttonRadius     = 0.025
	buttonHalfHeight = 0.02
	buttonTravel     = 0.03
)

// buttonOffset is the button body centre relative to the box origin (on the
// table) with the button up.
var buttonOffset = sim.V3(0, 0, buttonBoxHeight+buttonTravel-buttonHalfHeight)

func init() { register("button-press-topdown", func() task { return &buttonPressTopdown{} }) }

func (t *buttonPressTopdown) meta() Meta {
	return Meta{
		Name:        "button-press-topdown",
		Description: "press the red button down from above",
		Family:      "press",
		Stages:      []string{"start", "reached", "pressing", "pressed"},
		Colors:      Colors{Object: rgbRed, Goal: rgbWhite, Gripper: rgbGripper},
		HandInit:    sim.V3(0, 0.4, 0.2), SuccessRadius: 0.01,
	}
}

func (t *buttonPressTopdown) bind(b *binder) {
	t.box, t.button = b.mocap("button box"), b.body("red button")
	t.slide, t.buttonShape = b.joint("button slide"), b.geom("red button")
}

func (t *buttonPressTopdown) reset(e *Env, rng *rand.Rand) {
	p := uniform(rng, sim.V3(-0.1, 0.8, 0), sim.V3(0.1, 0.9, 0))
	e.ph.teleportMocap(t.box, p, sim.Identity())
	e.place(t.button, p.Add(buttonOffset))
	e.goal = p.Add(sim.V3(0, 0, buttonBoxHeight))
}

// top returns the centre of the button's top face.
func (t *buttonPressTopdown) top(e *Env) sim.Vec3 {
	return e.ph.pos(t.button).Add(sim.V3(0, 0, buttonHalfHeight))
}

func (t *buttonPressTopdown) start(e *Env) {
	t.btnInit = t.top(e)
	t.near0 = dist(t.btnInit, e.tcpInit)
	t.gap0 = math.Abs(e.goal.Z - t.btnInit.Z)
}

func (t *buttonPressTopdown) objects(e *Env, dst []float64) {
	putVec(dst[0:3], t.top(e))
	quatXYZW(dst[3:7], e.ph.rot(t.button))
}

func (t *buttonPressTopdown) evaluate(e *Env, a []float64) eval {
	btn, tcp := t.top(e), e.TCP()
	gap := math.Abs(e.goal.Z - btn.Z)
	tcpToBtn := dist(btn, tcp)
	near := tolerance(tcpToBtn, 0, 0.01, t.near0)
	pressed := tolerance(gap, 0, 0.005, t.gap0)
	r := 5 * hamacher(1-e.GripperOpen(), near)
	if tcpToBtn <= 0.03 {
		r += 5 * pressed
	}
	return eval{reward: r, success: gap <= 0.01, nearObject: b2f(tcpToBtn <= 0.03),
		graspSuccess: b2f(e.anyPadTouches(t.buttonShape)), graspReward: near, inPlace: pressed, objToTarget: gap}
}

func (t *buttonPressTopdown) progress(e *Env) (float64, int) {
	btn := t.top(e)
	gap := math.Abs(e.goal.Z - btn.Z)
	if gap <= 0.01 {
		return 1, 3
	}
	if q := e.ph.jointPos(t.slide); q > 0.002 {
		return stageProgress(2, 4, q/(buttonTravel-0.01)), 2
	}
	d := xyDist(e.TCP(), btn) + math.Abs(e.TCP().Z-btn.Z-0.02)
	if d < 0.02 {
		return stageProgress(1, 4, 0), 1
	}
	return stageProgress(0, 4, 1-d/math.Max(t.near0, 1e-9)), 0
}

// expert: close the gripper, move above the button, and push straight down
// (MetaWorld SawyerButtonPressTopdownV2Policy).
func (t *buttonPressTopdown) expert(e *Env) control.Policy {
	return control.PolicyFunc(func(obs, dst []float64) {
		o := obsView(obs)
		tcp, btn := o.tcp(), o.obj1()
		if xyDist(tcp, btn) > 0.01 {
			moveTCP(dst, o, btn.Add(sim.V3(0, 0, 0.06)), 10, 1)
			return
		}
		// fingertips sit 1.5 cm below the TCP: aim them 5 mm below the
		// fully pressed top so the push is firm but bounded
		goal := goalOf(e, o)
		moveTCP(dst, o, sim.V3(btn.X, btn.Y, goal.Z+0.01), 10, 1)
	})
}
