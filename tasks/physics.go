package tasks

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/sim"
)

// The tabletop's engine, the value of Options.Engine and of a run's
// engine key.
const (
	// EngineArticulated is sim/articulated (MuJoCo's equations) on the
	// tasks' MJCF scenes (tasks/scenes/*.xml, embedded): the tabletop's
	// only engine ("" means it too).
	EngineArticulated = "articulated"
	// EngineSim names the maximal-coordinate engine the tabletop ran on
	// until issue 47 (runs and studies recorded before say "sim" or no
	// engine at all). It was removed: Make refuses it with
	// ErrEngineRemoved.
	EngineSim = "sim"
)

// Engines lists the values of Options.Engine ("" is EngineArticulated).
func Engines() []string { return []string{EngineArticulated} }

// ErrEngineRemoved is Make's error for Options.Engine "sim".
var ErrEngineRemoved = errors.New(`engine "sim" (the tabletop's old engine, maximal-coordinate) was removed; ` +
	`the tabletop runs on the articulated engine: leave engine unset or set it to "articulated" ` +
	`(a policy trained on "sim" meets other physics there)`)

// physics is what the Env, its controller, the tasks and the experts use
// of the engine. Ids are resolved by name once, when the Env is made
// (binder); bodies, geoms and joints carry the names of the MJCF scenes
// (tasks/scenes/README.md).
type physics interface {
	bodyID(name string) (int, bool)
	geomID(name string) (int, bool)
	jointID(name string) (int, bool)
	isMocap(b int) bool
	// ctrlOf is the index of the control that drives joint j's servo.
	ctrlOf(j int) (int, bool)

	// pos and rot are body b's world frame.
	pos(b int) sim.Vec3
	rot(b int) sim.Quat
	// jointPos is a hinge's angle (rad) or a slide's displacement (m).
	jointPos(j int) float64
	// mocapPos is mocap body b's commanded position.
	mocapPos(b int) sim.Vec3
	// place puts body b at p, q at rest; a body on a joint other than a
	// free one is left where reset put it (jointed bodies follow their
	// parents).
	place(b int, p sim.Vec3, q sim.Quat)
	// teleportMocap moves mocap body b to p, q at once.
	teleportMocap(b int, p sim.Vec3, q sim.Quat)
	// inContact reports whether geoms a and b touched in the last step.
	inContact(a, b int) bool
	// sharedContact reports whether geoms a and b both touched one and the
	// same third geom in the last step.
	sharedContact(a, b int) bool

	// reset puts the scene at its initial state.
	reset()
	// control applies action a (clipped, finite) through c and advances
	// c.FrameSkip steps.
	control(c *control.EEDelta, a []float64)
	// resetControl makes c's target its mocap body's current position.
	resetControl(c *control.EEDelta)
	timestep() float64
	// warnings returns the engine's warning count and how many of them
	// mean a numerical failure (non-finite state).
	warnings() (total, failed int)
}

// binder resolves a task's ids by name and collects the names it misses.
type binder struct {
	ph      physics
	missing []string
}

// need returns id, noting kind and name as missing unless ok.
func (b *binder) need(kind, name string, id int, ok bool) int {
	if !ok {
		b.missing = append(b.missing, fmt.Sprintf("%s %q", kind, name))
	}
	return id
}

func (b *binder) body(name string) int {
	id, ok := b.ph.bodyID(name)
	return b.need("body", name, id, ok)
}

func (b *binder) geom(name string) int {
	id, ok := b.ph.geomID(name)
	return b.need("geom", name, id, ok)
}

// mocap is body, for a body the task moves with teleportMocap.
func (b *binder) mocap(name string) int {
	id := b.body(name)
	if _, ok := b.ph.bodyID(name); ok && !b.ph.isMocap(id) {
		b.missing = append(b.missing, fmt.Sprintf("mocap=\"true\" on body %q", name))
	}
	return id
}

func (b *binder) joint(name string) int {
	id, ok := b.ph.jointID(name)
	return b.need("joint", name, id, ok)
}

func (b *binder) ctrl(joint int, name string) int {
	id, ok := b.ph.ctrlOf(joint)
	return b.need("an actuator on joint", name, id, ok)
}

func (b *binder) err(engine, task string) error {
	if len(b.missing) == 0 {
		return nil
	}
	return fmt.Errorf("tasks: %s's scene on engine %s lacks %s; the scene must use the names in tasks/scenes/README.md and the task's file",
		task, engine, strings.Join(b.missing, ", "))
}
