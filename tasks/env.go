package tasks

import (
	"fmt"
	"math/rand/v2"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

// Observation layout (39 values, MetaWorld v2/v3):
//
//	[0:3]   hand position (m)
//	[3]     gripper opening in [0,1] (finger gap / 0.1 m)
//	[4:7]   object 1 position, [7:11] its quaternion (x, y, z, w)
//	[11:14] object 2 position, [14:18] its quaternion (zeros when absent)
//	[18:36] the previous step's [0:18] (equal to the current one after Reset)
//	[36:39] goal position (zeros with Options.HideGoal)
const (
	ObsDim   = 39
	ActDim   = 4
	frameDim = 18
	// FrameSkip physics steps of the scenes' timestep (2.5 ms)
	// make one 80 Hz control step, as in MetaWorld.
	FrameSkip = 5
	// ActionScale is the mocap displacement per unit action (m).
	ActionScale = 1.0 / 100
	// settleSteps are control steps run at Reset with the hand held still
	// and the gripper open, so objects come to rest (MetaWorld runs 50).
	settleSteps = 4
)

// Env is a manipulation task behind control.Env. Make it with Make.
type Env struct {
	meta Meta
	opts Options
	task task

	// ph is the engine (art behind the physics interface).
	ph   physics
	art  *artPhysics
	hp   handParts
	ctrl control.EEDelta
	spec control.Spec

	rng      *rand.Rand
	pcg      *rand.PCG
	t        int
	done     bool
	started  bool
	curr     [frameDim]float64
	prev     [frameDim]float64
	goal     sim.Vec3
	tcpInit  sim.Vec3
	act      [ActDim]float64
	lastEval eval
	warnings int
}

// Make builds the named task's environment. See Names for the registry.
func Make(name string, opts Options) (*Env, error) {
	f, ok := registry[name]
	if !ok {
		return nil, &unknownError{what: "task", name: name, known: Names()}
	}
	if opts.MaxSteps < 0 {
		return nil, fmt.Errorf("tasks: MaxSteps %d is negative", opts.MaxSteps)
	}
	if opts.MaxSteps == 0 {
		opts.MaxSteps = DefaultMaxSteps
	}
	if opts.Reward != Dense && opts.Reward != Sparse {
		return nil, fmt.Errorf("tasks: unknown reward mode %d", opts.Reward)
	}
	if err := CheckEngine(opts.Engine); err != nil {
		return nil, err
	}
	t := f()
	meta := withScorerParts(t.meta())
	ph, err := newArtPhysics(name)
	if err != nil {
		return nil, err
	}
	bd := &binder{ph: ph}
	hp := bindHand(bd)
	t.bind(bd)
	if err := bd.err(EngineArticulated, name); err != nil {
		return nil, err
	}
	e := &Env{meta: meta, opts: opts, task: t, ph: ph, art: ph, hp: hp, pcg: rand.NewPCG(0, 0)}
	e.rng = rand.New(e.pcg)
	e.ctrl = control.EEDelta{
		Mocap: hp.mocap, Rot: mocapRot, Scale: ActionScale,
		Low: sim.V3(handLowX, handLowY, handLowZ), High: sim.V3(handHighX, handHighY, handHighZ),
		Fingers:      []int{hp.ctrlR, hp.ctrlL},
		FingerOpen:   []float64{fingerOpenTarget, fingerOpenTarget},
		FingerClosed: []float64{fingerClosedTarget, fingerClosedTarget},
		FrameSkip:    FrameSkip,
	}
	if opts.Safety != nil {
		e.ctrl.Safety = &control.Safety{Limits: *opts.Safety}
	}
	e.spec = control.BoxSpec(ObsDim, ActDim, -1, 1)
	e.spec.MaxEpisodeSteps = opts.MaxSteps
	e.spec.ControlDt = FrameSkip * ph.timestep()
	e.spec.RewardLow, e.spec.RewardHigh = 0, 10
	if opts.Reward == Sparse {
		e.spec.RewardHigh = 1
	}
	return e, nil
}

// Spec returns the observation and action spec: 39 unbounded observations,
// 4 actions in [−1, 1], the time limit and the 12.5 ms control step.
func (e *Env) Spec() control.Spec { return e.spec }

// Meta returns the task's static description.
func (e *Env) Meta() Meta { return e.meta }

// Name returns the registry name.
func (e *Env) Name() string { return e.meta.Name }

// Description returns the instruction text for prompts.
func (e *Env) Description() string { return e.meta.Description }

// Family returns the prompt-template family.
func (e *Env) Family() string { return e.meta.Family }

// Colors returns the colours of the task's object, goal and gripper.
func (e *Env) Colors() Colors { return e.meta.Colors }

// Stages returns the names of the progress stages in order.
func (e *Env) Stages() []string { return e.meta.Stages }

// Engine returns the physics engine the Env runs on (EngineArticulated).
func (e *Env) Engine() string { return EngineArticulated }

// Model returns the task's scene, compiled from its MJCF file
// (tasks/scenes/*.xml): the engine's model and the geoms, names and
// colours renderers draw (render.ModelScene). It is static; safe to read
// from other goroutines.
func (e *Env) Model() *mjcf.Model { return e.art.a }

// Data returns the engine's live state, with its bodies' frames current
// after every Reset and Step. It changes on every Step and Reset; render
// it between calls, from the goroutine that steps the Env.
func (e *Env) Data() *articulated.Data { return e.art.d }

// CheckEngine returns nil for "" and EngineArticulated, ErrEngineRemoved
// for EngineSim and an error listing the engines for anything else.
func CheckEngine(engine string) error {
	switch engine {
	case "", EngineArticulated:
		return nil
	case EngineSim:
		return ErrEngineRemoved
	}
	return &unknownError{what: "engine", name: engine, known: Engines()}
}

// Goal returns the episode's goal position (m).
func (e *Env) Goal() sim.Vec3 { return e.goal }

// Steps returns the number of control steps taken in this episode.
func (e *Env) Steps() int { return e.t }

// Progress returns privileged task progress in [0,1] and the name of the
// highest stage reached, computed from the simulator state.
func (e *Env) Progress() (float64, string) {
	p, k := e.task.progress(e)
	return p, e.meta.Stages[k]
}

// Expert returns the task's scripted expert policy for this Env. It reads
// the observation (and, when the goal is hidden, the Env's goal).
func (e *Env) Expert() control.Policy { return e.task.expert(e) }

// Close releases nothing (the Env holds only memory); it exists for control.Env.
func (e *Env) Close() error { return nil }

// TCP returns the tool centre point: midway between the fingers, 1 cm
// above their tips (m).
func (e *Env) TCP() sim.Vec3 {
	r, l := e.ph.pos(e.hp.fingerR), e.ph.pos(e.hp.fingerL)
	mid := r.Add(l).Scale(0.5)
	return mid.Add(e.ph.rot(e.hp.hand).Rotate(sim.V3(0, 0, fingerDrop-tcpDrop)))
}

// GripperOpen returns the finger gap as a fraction of the fully open gap.
func (e *Env) GripperOpen() float64 {
	r, l := e.ph.pos(e.hp.fingerR), e.ph.pos(e.hp.fingerL)
	gap := l.Sub(r).Norm() - 2*fingerHalfY
	return min(max(gap/fingerOpenGap, 0), 1)
}

// padY returns the world y of the right and left pads' inner faces.
func (e *Env) padY() (right, left float64) {
	return e.ph.pos(e.hp.fingerR).Y + fingerHalfY, e.ph.pos(e.hp.fingerL).Y - fingerHalfY
}

// Reset starts an episode whose randomisation is determined by seed.
func (e *Env) Reset(seed uint64) ([]float64, control.Info) {
	if e.opts.FreezeLayout {
		seed = e.opts.LayoutSeed
	}
	e.pcg.Seed(seed, 0x7a5c)
	e.ph.reset()
	e.t, e.done, e.started = 0, false, true
	e.task.reset(e, e.rng)
	e.ph.resetControl(&e.ctrl)
	// let objects settle with the hand still and the gripper open
	open := [ActDim]float64{0, 0, 0, -1}
	for range settleSteps {
		e.ph.control(&e.ctrl, open[:])
	}
	e.warnings, _ = e.ph.warnings()
	e.tcpInit = e.TCP()
	e.task.start(e)
	e.frame(e.curr[:])
	e.prev = e.curr
	e.lastEval = e.task.evaluate(e, open[:])
	return e.obs(), e.info(e.lastEval)
}

// Step applies one action (clipped to [−1,1]⁴; NaN/Inf rejected) for one
// 12.5 ms control step and returns the MetaWorld-style transition. The
// episode is truncated at Options.MaxSteps, or early (with info
// "sim_unstable" = 1) if the simulator reports a numerical failure.
func (e *Env) Step(action []float64) ([]float64, float64, bool, bool, control.Info, error) {
	if !e.started || e.done {
		return nil, 0, false, false, control.Info{}, control.ErrNeedsReset
	}
	if err := e.spec.ClipAction(e.act[:], action); err != nil {
		return nil, 0, false, false, control.Info{}, err
	}
	e.ph.control(&e.ctrl, e.act[:])
	e.t++
	e.prev = e.curr
	e.frame(e.curr[:])
	ev := e.task.evaluate(e, e.act[:])
	e.lastEval = ev
	reward := ev.reward
	if e.opts.Reward == Sparse {
		reward = b2f(ev.success)
	}
	info := e.info(ev)
	terminated := e.opts.TerminateOnSuccess && ev.success
	truncated := !terminated && e.t >= e.opts.MaxSteps
	if sf := e.ctrl.Safety; sf != nil {
		c := sf.Counts
		info.Values["safety_interventions"] = float64(c.Workspace + c.Speed + c.Force + c.NonFinite)
	}
	w, failed := e.ph.warnings()
	if w > e.warnings && failed > 0 {
		info.Values["sim_unstable"] = 1
		truncated = !terminated
	}
	e.warnings = w
	e.done = terminated || truncated
	return e.obs(), reward, terminated, truncated, info, nil
}

// frame writes the 18-value current frame.
func (e *Env) frame(dst []float64) {
	putVec(dst[0:3], e.ph.pos(e.hp.hand))
	dst[3] = e.GripperOpen()
	for i := 4; i < frameDim; i++ {
		dst[i] = 0
	}
	e.task.objects(e, dst[4:18])
}

func (e *Env) obs() []float64 {
	o := make([]float64, ObsDim)
	copy(o[0:18], e.curr[:])
	copy(o[18:36], e.prev[:])
	if !e.opts.HideGoal {
		putVec(o[36:39], e.goal)
	}
	return o
}

func (e *Env) info(ev eval) control.Info {
	p, k := e.task.progress(e)
	return control.Info{Values: map[string]float64{
		"success":         b2f(ev.success),
		"near_object":     ev.nearObject,
		"grasp_success":   ev.graspSuccess,
		"grasp_reward":    ev.graspReward,
		"in_place_reward": ev.inPlace,
		"obj_to_target":   ev.objToTarget,
		"unscaled_reward": ev.reward,
		"progress":        p,
		"stage":           float64(k),
	}}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func dist(a, b sim.Vec3) float64 { return a.Sub(b).Norm() }

func uniform(rng *rand.Rand, lo, hi sim.Vec3) sim.Vec3 {
	return sim.V3(lo.X+rng.Float64()*(hi.X-lo.X), lo.Y+rng.Float64()*(hi.Y-lo.Y), lo.Z+rng.Float64()*(hi.Z-lo.Z))
}

func xy(v sim.Vec3) sim.Vec3 { return sim.V3(v.X, v.Y, 0) }
