package vlmviam

import (
	"fmt"
	"image"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/tasks"
)

// maxResults caps the episode results a world keeps (oldest dropped).
const maxResults = 10000

// EpisodeResult is what a sim world records of one finished or current
// episode: the seed it was reset with, control steps taken, the summed
// task reward, and whether the task's success test held at any step (the
// MetaWorld convention rundir.Evaluate uses).
type EpisodeResult struct {
	Seed    uint64  `json:"seed"`
	Steps   int     `json:"steps"`
	Return  float64 `json:"return"`
	Success bool    `json:"success"`
}

// WorldConfig names a simulated task instance shared by sim components.
type WorldConfig struct {
	// World names the shared simulation ("default" when empty).
	World string `json:"world,omitempty"`
	// Task is a vlmrb task name (robot-train tasks lists them).
	Task string `json:"task"`
	// Reward is dense or sparse ("" keeps the task default).
	Reward string `json:"reward,omitempty"`
	// MaxSteps is the episode length in control steps (0: training's
	// default, the same as robot-train eval).
	MaxSteps int `json:"max_steps,omitempty"`
	// Seed is the episode seed of the first automatic reset.
	Seed uint64 `json:"seed,omitempty"`
}

func (c *WorldConfig) validate() error {
	if c.Task == "" {
		return fmt.Errorf(`"task" is required: a vlmrb task name such as "reach" (robot-train tasks lists them)`)
	}
	if tasks.IsDiscrete(c.Task) {
		return fmt.Errorf(`"task" %q is a grid task, which has no arm; use a manipulation task such as "reach"`, c.Task)
	}
	if _, err := tasks.Describe(c.Task); err != nil {
		return fmt.Errorf(`"task": %w`, err)
	}
	if c.Reward != "" && c.Reward != "dense" && c.Reward != "sparse" {
		return fmt.Errorf(`"reward" is %q; use "dense" or "sparse"`, c.Reward)
	}
	if c.MaxSteps < 0 {
		return fmt.Errorf(`"max_steps" is %d; use a positive number of control steps or 0 for the default`, c.MaxSteps)
	}
	return nil
}

func (c WorldConfig) key() string {
	if c.World == "" {
		return "default"
	}
	return c.World
}

// World is one simulated task shared by the sim arm, gripper, camera and
// pose tracker of a module process. All methods are safe for concurrent
// use; they serialise on one mutex.
type World struct {
	cfg  WorldConfig
	refs int

	mu      sync.Mutex
	env     *tasks.Env
	obs     []float64
	grip    float64    // a[3] of the next control step (−1 open … +1 closed)
	lastCmd [3]float64 // last commanded hand position (mm)
	started bool
	done    bool
	cur     EpisodeResult
	results []EpisodeResult
	moves   int64 // MoveToPosition calls served

	moving atomic.Bool // a Move is stepping the simulation
	halt   atomic.Bool // Stop asked the Move in flight to end
}

var worlds = struct {
	sync.Mutex
	m map[string]*World
}{m: map[string]*World{}}

// acquireWorld returns the world named by c, creating it on first use.
// A component that names an existing world with another task, reward or
// episode length rebuilds it: a fresh world with the new settings takes
// the name, and the old one lives on until its last component leaves it
// (the others move over as viam-server reconfigures them, which it does
// when one config write changes them together).
func acquireWorld(c WorldConfig) (*World, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	worlds.Lock()
	defer worlds.Unlock()
	if w, ok := worlds.m[c.key()]; ok && w.cfg.Task == c.Task && w.cfg.Reward == c.Reward && w.cfg.MaxSteps == c.MaxSteps {
		w.refs++
		return w, nil
	}
	env, err := tasks.MakeEnv(c.Task, c.Reward, c.MaxSteps)
	if err != nil {
		return nil, err
	}
	w := &World{cfg: c, refs: 1, env: env, grip: -1}
	worlds.m[c.key()] = w // a previous world of this name stays with its users
	return w, nil
}

// release drops one reference; the last one closes the simulation.
func (w *World) release() {
	worlds.Lock()
	defer worlds.Unlock()
	w.refs--
	if w.refs > 0 {
		return
	}
	if worlds.m[w.cfg.key()] == w {
		delete(worlds.m, w.cfg.key())
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.env.Close()
}

// users returns how many components hold w.
func (w *World) users() int {
	worlds.Lock()
	defer worlds.Unlock()
	return w.refs
}

// current reports whether w is still the world its name refers to (false
// once a reconfigure rebuilt it).
func (w *World) current() bool {
	worlds.Lock()
	defer worlds.Unlock()
	return worlds.m[w.cfg.key()] == w
}

// Task returns the world's task name.
func (w *World) Task() string { return w.cfg.Task }

// resetLocked starts an episode; the previous one, if any, is recorded.
func (w *World) resetLocked(seed uint64) {
	if w.started {
		w.pushResultLocked()
	}
	obs, _ := w.env.Reset(seed)
	w.obs = obs
	w.started, w.done = true, false
	w.cur = EpisodeResult{Seed: seed}
	w.lastCmd = [3]float64{obs[0] * 1000, obs[1] * 1000, obs[2] * 1000}
}

func (w *World) pushResultLocked() {
	w.results = append(w.results, w.cur)
	if len(w.results) > maxResults {
		w.results = w.results[len(w.results)-maxResults:]
	}
}

func (w *World) ensureLocked() {
	if !w.started {
		w.resetLocked(w.cfg.Seed)
	}
}

// Reset starts a new episode with seed.
func (w *World) Reset(seed uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.resetLocked(seed)
}

// Hand returns the hand position (mm, world frame of the task).
func (w *World) Hand() [3]float64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ensureLocked()
	return [3]float64{w.obs[0] * 1000, w.obs[1] * 1000, w.obs[2] * 1000}
}

// Move advances the simulation so the hand target moves by p − (the
// previously commanded position), at most tasks.ActionScale per control
// step: one step for the displacement of one action (what the policy
// runner sends each tick), several for a longer move. The gripper takes
// its last command. It returns the control steps taken.
func (w *World) Move(p [3]float64) (int, error) {
	for _, v := range p {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("vlmrb sim: target position %v is not finite", p)
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ensureLocked()
	if w.done {
		return 0, fmt.Errorf("vlmrb sim: the episode ended after %d steps; reset it with DoCommand {\"reset\": {\"seed\": N}} on the sim arm", w.cur.Steps)
	}
	var d [3]float64
	big := 0.0
	for i := range d {
		d[i] = (p[i] - w.lastCmd[i]) / 1000
		big = max(big, math.Abs(d[i]))
	}
	// one control step per action's worth of displacement; the tolerance
	// keeps a full-scale action that went through mm and back one step
	n := max(1, int(math.Ceil(big/tasks.ActionScale-1e-6)))
	a := make([]float64, tasks.ActDim)
	w.halt.Store(false)
	w.moving.Store(true)
	defer w.moving.Store(false)
	for k := range n {
		if k > 0 && w.halt.Load() {
			// Stop: the target becomes where this move got to
			for i := range 3 {
				w.lastCmd[i] += (p[i] - w.lastCmd[i]) * float64(k) / float64(n)
			}
			return k, status.Error(codes.Aborted, fmt.Sprintf("vlmrb sim: move stopped after %d of %d control steps", k, n))
		}
		for i := range 3 {
			a[i] = d[i] / (float64(n) * tasks.ActionScale)
		}
		a[3] = w.grip
		obs, r, term, trunc, info, err := w.env.Step(a)
		if err != nil {
			return k, fmt.Errorf("vlmrb sim: %w", err)
		}
		w.obs = obs
		w.cur.Steps++
		w.cur.Return += r
		w.cur.Success = w.cur.Success || info.Success()
		w.moves++
		if term || trunc {
			w.done = true
			w.lastCmd = p
			return k + 1, nil
		}
	}
	w.lastCmd = p
	return n, nil
}

// SimMoveToleranceMM is how close an absolute MoveTo brings the hand to
// its target before it returns.
const SimMoveToleranceMM = 1.0

// simSettleMax bounds the zero-displacement steps MoveTo waits for the
// hand to settle onto its target.
const simSettleMax = 50

// MoveTo is the absolute move of a Viam arm: control steps of at most one
// action's displacement bring the hand target to p (as Move), then steps
// without displacement let the hand, which lags its target, settle until
// it is within SimMoveToleranceMM of p. A hand held off the target (the
// task's hand workspace, an object) is an error after simSettleMax steps,
// naming where it stopped. It returns the control steps taken.
func (w *World) MoveTo(p [3]float64) (int, error) {
	n, err := w.Move(p)
	if err != nil {
		return n, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.moving.Store(true)
	defer w.moving.Store(false)
	a := make([]float64, tasks.ActDim)
	for k := 0; ; k++ {
		var d2 float64
		for i := range 3 {
			d2 += (w.obs[i]*1000 - p[i]) * (w.obs[i]*1000 - p[i])
		}
		if d2 <= SimMoveToleranceMM*SimMoveToleranceMM {
			return n + k, nil
		}
		if w.done {
			return n + k, status.Error(codes.FailedPrecondition, fmt.Sprintf("vlmrb sim: the episode ended with the hand %.1f mm from the target; reset it with DoCommand {\"reset\": {\"seed\": N}}", math.Sqrt(d2)))
		}
		if k >= simSettleMax || w.halt.Load() {
			if w.halt.Load() {
				return n + k, status.Error(codes.Aborted, "vlmrb sim: move stopped while the hand settled")
			}
			return n + k, status.Error(codes.FailedPrecondition, fmt.Sprintf("vlmrb sim: the hand stopped %.1f mm from the target [%.1f %.1f %.1f] mm after %d settling steps, at [%.1f %.1f %.1f] mm (the task's hand workspace or an object holds it)",
				math.Sqrt(d2), p[0], p[1], p[2], k, w.obs[0]*1000, w.obs[1]*1000, w.obs[2]*1000))
		}
		a[3] = w.grip
		obs, r, term, trunc, info, err := w.env.Step(a)
		if err != nil {
			return n + k, fmt.Errorf("vlmrb sim: %w", err)
		}
		w.obs = obs
		w.cur.Steps++
		w.cur.Return += r
		w.cur.Success = w.cur.Success || info.Success()
		w.moves++
		if term || trunc {
			w.done = true
		}
	}
}

// Stop ends the Move in flight (if any) before its next control step.
func (w *World) Stop() { w.halt.Store(true) }

// IsMoving reports whether a Move is stepping the simulation.
func (w *World) IsMoving() bool { return w.moving.Load() }

// SetGrip sets a[3] of the following control steps, clipped to [−1, 1].
func (w *World) SetGrip(g float64) error {
	if math.IsNaN(g) || math.IsInf(g, 0) {
		return fmt.Errorf("vlmrb sim: gripper command %g is not finite", g)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.grip = min(max(g, -1), 1)
	return nil
}

// Holding reports whether both finger pads touched the same object in
// the last control step (tasks.Env.PadsHold).
func (w *World) Holding() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ensureLocked()
	return w.env != nil && w.env.PadsHold()
}

// GripperOpen returns the finger gap as a fraction of fully open.
func (w *World) GripperOpen() float64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ensureLocked()
	return w.obs[3]
}

// Progress returns the task's privileged progress in [0, 1] and stage name.
func (w *World) Progress() (float64, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ensureLocked()
	return w.env.Progress()
}

// Obs returns a copy of the current 39-D observation.
func (w *World) Obs() []float64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ensureLocked()
	return append([]float64(nil), w.obs...)
}

// Results returns the finished episodes and the current one.
func (w *World) Results() (done []EpisodeResult, cur EpisodeResult, started bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]EpisodeResult(nil), w.results...), w.cur, w.started
}

// Render draws the current state through cam into dst.
func (w *World) Render(cam *render.SimCamera, dst *image.RGBA) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ensureLocked()
	return cam.Render(w.env, dst)
}

// Env runs f with the world's env under the world's lock (for building a
// camera on it).
func (w *World) withEnv(f func(*tasks.Env) error) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return f(w.env)
}

// handBodies are the task scene's bodies of the hand
// (tasks/scenes/README.md).
var handBodies = []string{"hand", "right finger", "left finger"}

// HandShape is one collision geom of the simulated hand: kind (box,
// sphere, capsule, cylinder), its world pose (mm and a unit quaternion
// w, x, y, z) and its size in MuJoCo's convention (mm: box half extents;
// radius and half length for capsule and cylinder; radius for sphere).
type HandShape struct {
	Name string
	Kind string
	Pos  [3]float64
	Quat [4]float64
	Size [3]float64
}

// HandShapes returns the collision geoms of the hand and its fingers at
// the current state of the task's articulated engine (visual geoms,
// contype and conaffinity 0, left out).
func (w *World) HandShapes() []HandShape {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ensureLocked()
	a, d := w.env.Model(), w.env.Data()
	m := a.Model
	var out []HandShape
	for _, bn := range handBodies {
		b := slices.IndexFunc(m.Bodies, func(b articulated.Body) bool { return b.Name == bn })
		if b < 0 {
			continue
		}
		for i := range a.Geoms {
			g := &a.Geoms[i]
			if g.Body != b || len(m.Geoms) == len(a.Geoms) && m.Geoms[i].Contype == 0 && m.Geoms[i].Conaffinity == 0 {
				continue
			}
			p, q := render.GeomPose(d, g)
			out = append(out, HandShape{Name: g.Name, Kind: g.Type,
				Pos: [3]float64{p.X * 1000, p.Y * 1000, p.Z * 1000}, Quat: [4]float64{q.W, q.X, q.Y, q.Z},
				Size: [3]float64{g.Size.X * 1000, g.Size.Y * 1000, g.Size.Z * 1000}})
		}
	}
	return out
}
