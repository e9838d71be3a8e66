package main

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math/rand/v2"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/nn"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/tasks/grid"
)

// This file and the other cli_*.go files are the command's own helpers
// over the packages below train (tasks, the grid tasks, nn): task
// listings, episode drivers for render and score, bench's rates.

// Policy maps an observation to an action (control.Policy).
type Policy = control.Policy

// TaskInfo describes one registered task, for listings.
type TaskInfo struct {
	Name, Family, Description string
	Stages                    int  // stages of the task's progress
	Grid                      bool // a discrete grid task (MiniGrid DoorKey; trained with DQN)
}

// TaskList returns the manipulation tasks, then the grid tasks.
func TaskList() ([]TaskInfo, error) {
	var out []TaskInfo
	for _, n := range tasks.Names() {
		m, err := tasks.Lookup(n)
		if err != nil {
			return nil, err
		}
		out = append(out, TaskInfo{Name: n, Family: m.Family, Description: m.Description, Stages: len(m.Stages)})
	}
	for _, n := range grid.Names() {
		m, err := grid.Lookup(n)
		if err != nil {
			return nil, err
		}
		out = append(out, TaskInfo{Name: n, Family: m.Family, Description: m.Description, Stages: len(m.Stages), Grid: true})
	}
	return out, nil
}

// IsGridTask reports whether name is a grid task.
func IsGridTask(name string) bool { return grid.IsGrid(name) }

// BLASBackend returns the BLAS backend networks use now.
func BLASBackend() string { return nn.Backend() }

// BLASBackends returns the BLAS backends compiled in.
func BLASBackends() []string { return nn.Backends() }

// SelectBLAS selects the BLAS backend as Run does for Config.BLAS (auto:
// OpenBLAS when compiled in, else gonum) and returns the one selected.
func SelectBLAS(name string) (string, error) {
	// process-global: every network in this process uses the backend
	if err := nn.SetBackend(name); err != nil {
		return nn.Backend(), err
	}
	return nn.Backend(), nil
}

// Episodes drives one env with one policy, episode after episode; the
// k-th episode (from 0) is seeded with control.EpisodeSeed(Seed, 0, k).
// It is the loop of the CLI's render, view and score commands.
type Episodes struct {
	Env    *tasks.Env
	Policy Policy
	Seed   uint64
	Obs    []float64 // the current observation
	// T, Return, Reward and Success describe the current episode: steps
	// taken, the sum of rewards, the last reward, and whether success held
	// at any step.
	T       int
	Return  float64
	Reward  float64
	Success bool
	act     []float64
	next    int // episodes started
}

// NewEpisodes returns the driver of env under pol; call Reset to start
// the first episode.
func NewEpisodes(env *tasks.Env, pol Policy, seed uint64) *Episodes {
	return &Episodes{Env: env, Policy: pol, Seed: seed, act: make([]float64, env.Spec().ActDim)}
}

// Reset starts the next episode: it resets a policy that keeps state
// (control.Resetter), then the env.
func (e *Episodes) Reset() {
	if rs, ok := e.Policy.(control.Resetter); ok {
		rs.Reset()
	}
	e.Obs, _ = e.Env.Reset(control.EpisodeSeed(e.Seed, 0, e.next))
	e.next++
	e.T, e.Return, e.Reward, e.Success = 0, 0, 0, false
}

// Status is a one-line readout of the current episode (the viewer shows
// it in its title bar).
func (e *Episodes) Status() string {
	succ := "no"
	if e.Success {
		succ = "yes"
	}
	return fmt.Sprintf("episode %d  step %d  reward %.3f  return %.2f  success %s", e.Episode(), e.T, e.Reward, e.Return, succ)
}

// Episode returns the index of the current episode (0 for the first).
func (e *Episodes) Episode() int { return e.next - 1 }

// Step applies the policy's action for the current observation.
func (e *Episodes) Step() (terminated, truncated, success bool, err error) {
	e.Policy.Act(e.Obs, e.act)
	next, rew, term, trunc, info, err := e.Env.Step(e.act)
	if err != nil {
		return false, false, false, err
	}
	e.Obs = next
	e.T++
	e.Reward, e.Return = rew, e.Return+rew
	e.Success = e.Success || info.Success()
	return term, trunc, info.Success(), nil
}

// MakeGridEnv makes the grid task name with the observation view (""
// egocentric; a run's grid.view). An unknown task is a *rundir.ConfigError.
func MakeGridEnv(name, view string) (*grid.Env, error) {
	v := grid.Egocentric
	if view != "" {
		var err error
		if v, err = grid.ParseView(view); err != nil {
			return nil, err
		}
	}
	env, err := grid.Make(name, grid.Options{View: v})
	if err != nil {
		return nil, &rundir.ConfigError{Msg: err.Error()}
	}
	return env, nil
}

// GridScriptedPolicy returns the planner ("expert") or a uniformly
// random ("random", seeded by seed) policy for a grid env.
func GridScriptedPolicy(name string, env *grid.Env, seed uint64) (Policy, error) {
	next, err := gridActions(name, env, seed)
	if err != nil {
		return nil, err
	}
	return control.PolicyFunc(func(_, dst []float64) { dst[0] = float64(next()) }), nil
}

// gridActions is the action source of GridScriptedPolicy: the planner's
// next action, or a uniformly random one from a generator seeded by seed.
func gridActions(name string, env *grid.Env, seed uint64) (func() grid.Action, error) {
	switch name {
	case "expert":
		return grid.Expert(env).Next, nil
	case "random":
		rng := rand.New(rand.NewPCG(seed, 0x72616e64))
		return func() grid.Action { return grid.Action(rng.IntN(grid.NumActions)) }, nil
	}
	return nil, &rundir.ConfigError{Msg: fmt.Sprintf("--policy %q: choose expert or random", name)}
}

// GridRender says which grid episode to draw (robot-train render).
type GridRender struct {
	Task, Policy, Theme string // task, expert|random, standard|misleading|abstract
	Side                int    // wanted frame side (px); tiles are square
	Steps               int    // control steps (0: one episode, or none when Still)
	Every               int    // keep every k-th step's frame (≥ 1)
	Seed                uint64
	Still               bool // a single picture: Steps 0 means no step
}

// GridFrames is a rendered grid episode.
type GridFrames struct {
	Frames  []*image.RGBA
	Side    int    // frame side (px)
	Theme   string // the theme's name
	Success bool   // the goal was reached
}

// RenderGridEpisode runs one episode of a grid task and draws its tile
// frames: the first, every Every-th and the last. Bad names are a
// *rundir.ConfigError.
func RenderGridEpisode(ctx context.Context, g GridRender) (*GridFrames, error) {
	if g.Every < 1 {
		return nil, errors.New("train: GridRender.Every must be ≥ 1")
	}
	theme, err := grid.ParseTheme(g.Theme)
	if err != nil {
		return nil, &rundir.ConfigError{Msg: err.Error()}
	}
	env, err := grid.Make(g.Task, grid.Options{})
	if err != nil {
		return nil, &rundir.ConfigError{Msg: err.Error()}
	}
	pol, err := gridActions(g.Policy, env, g.Seed)
	if err != nil {
		return nil, err
	}
	tile := env.TileFor(g.Side)
	side := env.FrameSize(tile)
	env.Reset(control.EpisodeSeed(g.Seed, 0, 0))
	out := &GridFrames{Side: side, Theme: fmt.Sprint(theme)}
	grab := func() {
		img := image.NewRGBA(image.Rect(0, 0, side, side))
		env.Render(img, tile, theme)
		out.Frames = append(out.Frames, img)
	}
	n := g.Steps
	if n == 0 && !g.Still {
		n = env.MaxSteps()
	}
	grab()
	for t := 1; t <= n; t++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, term, trunc := env.StepIndex(pol())
		out.Success = out.Success || (term && r > 0)
		if t%g.Every == 0 || term || trunc || t == n {
			grab()
		}
		if term || trunc {
			break
		}
	}
	return out, nil
}
