package train

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/lerobot"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks"
)

// demoEpisode is one recorded episode as replay transitions, actions
// already in the agent's [−1, 1].
type demoEpisode struct {
	obs, act, next     [][]float64
	rew                []float64
	term, trunc, succs []bool
	prog               []float64 // privileged progress at obs (observation.progress; 0 when absent)
	from               int64     // the dataset's global index of the episode's first frame
}

func (e *demoEpisode) len() int { return len(e.rew) }

// loadDemos reads the episodes of the LeRobot v3 dataset at path (as
// robot-train record writes them, or any dataset with observation.state,
// action and next.reward) and checks them against the run: the shapes and,
// where both sides name them, the names of the observation and action
// vectors; with a vlmrb recording (meta/vlmrb.json) also the task and the
// reward mode.
//
// s_{t+1} comes from next.observation.state when the dataset has it, else
// from the next frame (an episode's last frame then has no transition).
// next.done ends an episode as terminated unless next.truncated says it
// was a time limit; without next.done an episode's last transition counts
// as truncated (bootstrapped).
func loadDemos(cfg *rundir.Config, spec control.Spec) (eps []demoEpisode, hasProgress bool, err error) {
	path := cfg.DemosPath
	bad := func(format string, a ...any) error {
		return &rundir.ConfigError{Msg: fmt.Sprintf("demos %s: ", path) + fmt.Sprintf(format, a...)}
	}
	d, err := lerobot.Open(path, lerobot.Limits{})
	if err != nil {
		return nil, false, &rundir.ConfigError{Msg: err.Error()}
	}
	if b, ok, err := d.Meta("vlmrb.json"); err != nil {
		return nil, false, err
	} else if ok {
		var m rundir.RecordMeta
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, false, bad("meta/vlmrb.json: %v", err)
		}
		if err := m.Fits(cfg); err != nil {
			return nil, false, bad("%v", err)
		}
	}
	cols := d.Columns()
	if !cols.State || !cols.Action || !cols.Reward {
		return nil, false, bad("needs observation.state, action and next.reward features (a camera-only recording cannot be a demonstration)")
	}
	if err := checkVector(&d.Info, lerobot.KeyState, "observation", spec.ObsDim, obsNames(spec)); err != nil {
		return nil, false, bad("%v", err)
	}
	if err := checkVector(&d.Info, lerobot.KeyAction, "action", spec.ActDim, actNames(spec)); err != nil {
		return nil, false, bad("%v", err)
	}
	// a frame is one control step: a dataset at another rate holds other
	// dynamics (actions held for another time) than the env steps
	if spec.ControlDt > 0 {
		if hz := 1 / spec.ControlDt; math.Abs(d.Info.FPS-hz) > 1e-6*hz {
			return nil, false, bad("is at %g fps, the task's control rate is %g Hz (one frame per control step); record it at %g fps (robot-train record does) or resample it", d.Info.FPS, hz, hz)
		}
	}
	if n := int64(d.Info.TotalFrames); n > int64(cfg.Buffer.Capacity) {
		return nil, false, bad("holds %d frames, more than buffer.capacity %d: the run would overwrite its demonstrations", n, cfg.Buffer.Capacity)
	}

	// the frames, per episode; transitions are built once an episode is whole
	raw := make([]demoEpisode, len(d.Episodes))
	lo, hi := spec.ActLow, spec.ActHigh
	err = d.ReadFrames(func(f *lerobot.FrameRow) error {
		s, a := f64s(f.State), f64s(f.Action)
		for j, v := range a {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return bad("frame %d has a non-finite action", f.Index)
			}
			if lo != nil && hi != nil && hi[j] > lo[j] {
				v = 2*(v-lo[j])/(hi[j]-lo[j]) - 1
			}
			a[j] = min(max(v, -1), 1)
		}
		for _, v := range s {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return bad("frame %d has a non-finite observation", f.Index)
			}
		}
		last := f.FrameIndex == d.Episodes[f.Episode].Length-1
		done := f.Done
		if !cols.Done {
			done = last
		}
		trunc := done && f.Truncated
		if !cols.Done {
			trunc = done
		}
		var next []float64
		if cols.NextState {
			next = f64s(f.NextState)
		}
		raw[f.Episode].add(s, a, next, float64(f.Reward), done && !trunc, trunc, f.Success, f.Progress)
		return nil
	})
	if err != nil {
		if _, ok := err.(*rundir.ConfigError); ok {
			return nil, false, err
		}
		return nil, false, &rundir.ConfigError{Msg: err.Error()}
	}
	if !cols.NextState {
		for i := range raw {
			raw[i].nextFromFollowing()
		}
	}
	for i := range raw {
		raw[i].from = d.Episodes[i].From
	}
	eps = slices.DeleteFunc(raw, func(e demoEpisode) bool { return e.len() == 0 })
	if len(eps) == 0 {
		return nil, false, bad("has no transitions")
	}
	return eps, cols.Progress, nil
}

// nextFromFollowing sets s_{t+1} to the next frame's state, for datasets
// without next.observation.state: the last frame has none and is dropped,
// and the transition before it bootstraps (truncated).
func (e *demoEpisode) nextFromFollowing() {
	n := e.len()
	for t := 0; t+1 < n; t++ {
		e.next[t] = e.obs[t+1]
	}
	if n == 0 {
		return
	}
	e.obs, e.act, e.next, e.rew = e.obs[:n-1], e.act[:n-1], e.next[:n-1], e.rew[:n-1]
	e.term, e.trunc, e.succs, e.prog = e.term[:n-1], e.trunc[:n-1], e.succs[:n-1], e.prog[:n-1]
	if n > 1 && !e.term[n-2] {
		e.trunc[n-2] = true
	}
}

func (e *demoEpisode) add(s, a, next []float64, r float64, term, trunc, succ bool, prog float64) {
	e.obs, e.act, e.next = append(e.obs, s), append(e.act, a), append(e.next, next)
	e.rew, e.term, e.trunc, e.succs = append(e.rew, r), append(e.term, term), append(e.trunc, trunc), append(e.succs, succ)
	e.prog = append(e.prog, prog)
}

// checkVector compares a dataset's vector feature with the task's.
func checkVector(in *lerobot.Info, key, what string, dim int, names []string) error {
	n, dn, ok := in.Vector(key)
	if !ok {
		return fmt.Errorf("feature %s is not a vector", key)
	}
	if n != dim {
		return fmt.Errorf("%s has %d values (%s), the task's %s has %d", key, n, what, what, dim)
	}
	if dn != nil && names != nil {
		for i := range dn {
			if dn[i] != names[i] {
				return fmt.Errorf("%s element %d is %q, the task's %s element %d is %q: the layouts differ", key, i, dn[i], what, i, names[i])
			}
		}
	}
	return nil
}

// obsNames and actNames are the manipulation tasks' vector names (nil for
// specs of another shape).
func obsNames(spec control.Spec) []string {
	if spec.ObsDim == tasks.ObsDim && spec.Discrete == 0 {
		return tasks.ObsNames()
	}
	return nil
}

func actNames(spec control.Spec) []string {
	if spec.ActDim == tasks.ActDim && spec.Discrete == 0 {
		return tasks.ActNames()
	}
	return nil
}

func f64s(x []float32) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}
