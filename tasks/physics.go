package tasks

import (
	"fmt"
	"strings"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/sim"
)

// Engines selectable by Options.Engine.
const (
	// EngineSim is the maximal-coordinate engine sim, the scenes built in
	// Go (scenes.go and each task's build); the default.
	EngineSim = "sim"
	// EngineArticulated is sim/articulated (MuJoCo's equations) on the
	// tasks' MJCF scenes (tasks/scenes/*.xml, embedded).
	EngineArticulated = "articulated"
)

// Engines lists the values of Options.Engine ("" is EngineSim).
func Engines() []string { return []string{EngineSim, EngineArticulated} }

// physics is what the Env, its controller, the tasks and the experts use
// of an engine. Ids are resolved by name once, when the Env is made
// (binder); bodies, geoms (shapes) and joints carry the Go scene's names
// in both engines.
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
	// free one is left where reset put it (the articulated engine's
	// jointed bodies follow their parents).
	place(b int, p sim.Vec3, q sim.Quat)
	// teleportMocap moves mocap body b (and in the articulated engine
	// whatever hangs from it) to p, q at once.
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

	// view returns the sim model and state renderers draw: the engine's
	// own for sim, the Go scene posed from the engine's state for the
	// articulated engine.
	view() (*sim.Model, *sim.State)
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
	return fmt.Errorf("tasks: %s's scene on engine %s lacks %s; the scene must use the Go scene's names (tasks/scenes.go and the task's file)",
		task, engine, strings.Join(b.missing, ", "))
}

// simPhysics is the old engine: the Go scene's sim.Model and its State.
type simPhysics struct {
	m *sim.Model
	s *sim.State
}

func (p *simPhysics) bodyID(name string) (int, bool) {
	b, ok := p.m.Body(name)
	return int(b), ok
}

func (p *simPhysics) geomID(name string) (int, bool) {
	g, ok := p.m.Shape(name)
	return int(g), ok
}

func (p *simPhysics) jointID(name string) (int, bool) {
	j, ok := p.m.Joint(name)
	return int(j), ok
}

func (p *simPhysics) isMocap(b int) bool { return p.m.Bodies[b].Mocap }

func (p *simPhysics) ctrlOf(j int) (int, bool) {
	if j < 0 || j >= len(p.m.Joints) {
		return -1, false
	}
	k := p.m.Joints[j].CtrlIndex
	return k, k >= 0
}

func (p *simPhysics) pos(b int) sim.Vec3             { return p.s.Bodies[b].Pos }
func (p *simPhysics) rot(b int) sim.Quat             { return p.s.Bodies[b].Rot }
func (p *simPhysics) jointPos(j int) float64         { return p.s.JointPos(p.m, sim.JointID(j)) }
func (p *simPhysics) inContact(a, b int) bool        { return p.s.InContact(sim.ShapeID(a), sim.ShapeID(b)) }
func (p *simPhysics) timestep() float64              { return p.m.Opt.Timestep }
func (p *simPhysics) view() (*sim.Model, *sim.State) { return p.m, p.s }

func (p *simPhysics) mocapPos(b int) sim.Vec3 {
	pos, _ := p.s.Mocap(sim.BodyID(b))
	return pos
}

func (p *simPhysics) place(b int, pos sim.Vec3, q sim.Quat) { p.s.SetBodyPose(sim.BodyID(b), pos, q) }

func (p *simPhysics) teleportMocap(b int, pos sim.Vec3, q sim.Quat) {
	p.s.TeleportMocap(sim.BodyID(b), pos, q)
}

func (p *simPhysics) sharedContact(a, b int) bool {
	sa, sb := sim.ShapeID(a), sim.ShapeID(b)
	for _, c := range p.s.Contacts() {
		var other sim.ShapeID
		switch {
		case c.ShapeA == sa:
			other = c.ShapeB
		case c.ShapeB == sa:
			other = c.ShapeA
		default:
			continue
		}
		if other != sb && p.s.InContact(sb, other) {
			return true
		}
	}
	return false
}

// reset makes a fresh State rather than CopyFrom: sim keeps solver
// warm-start data outside what CopyFrom copies, which made resets not
// bit-reproducible. Overwriting *p.s keeps the pointer that renderers
// hold valid.
func (p *simPhysics) reset() { *p.s = *p.m.NewState() }

func (p *simPhysics) control(c *control.EEDelta, a []float64) { c.Step(p.m, p.s, a) }
func (p *simPhysics) resetControl(c *control.EEDelta)         { c.Reset(p.s) }

func (p *simPhysics) warnings() (int, int) { return p.s.Warnings.Total(), p.s.Warnings.NaN }
