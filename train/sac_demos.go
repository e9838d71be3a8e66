package train

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"math"
	"path/filepath"
	"slices"
	"time"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/hw"
	"github.com/vlmrb/vlmrb/lerobot"
	"github.com/vlmrb/vlmrb/replay"
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
func loadDemos(cfg *Config, spec control.Spec) (eps []demoEpisode, hasProgress bool, err error) {
	path := cfg.DemosPath
	bad := func(format string, a ...any) error {
		return &ConfigError{Msg: fmt.Sprintf("demos %s: ", path) + fmt.Sprintf(format, a...)}
	}
	d, err := lerobot.Open(path, lerobot.Limits{})
	if err != nil {
		return nil, false, &ConfigError{Msg: err.Error()}
	}
	if b, ok, err := d.Meta("vlmrb.json"); err != nil {
		return nil, false, err
	} else if ok {
		var m RecordMeta
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, false, bad("meta/vlmrb.json: %v", err)
		}
		if m.Task != cfg.Task {
			return nil, false, bad("recorded on task %s, the run trains %s; record demonstrations of %s (robot-train record --task %s)", m.Task, cfg.Task, cfg.Task, cfg.Task)
		}
		if m.Reward != cfg.EnvReward() {
			return nil, false, bad("holds %s rewards, the run's env reward is %s; record with --reward %s", m.Reward, cfg.EnvReward(), cfg.EnvReward())
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
		if _, ok := err.(*ConfigError); ok {
			return nil, false, err
		}
		return nil, false, &ConfigError{Msg: err.Error()}
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

// insertDemos puts recorded episodes into the replay buffer before the
// first env step, in the places the run's own first episodes would have
// taken: episode k goes to the env that would have started it (the
// record schedule), the transitions are stored in vector-step order, the
// step counter, the episode statistics and the loop's random stream
// advance as if those episodes had been collected, and each env's next
// episode is the one after its demonstrations in its seed sequence. A run
// with demos_path of a recording of its own first episodes (robot-train
// record --policy expert with the run's seed and num_envs) therefore
// continues exactly as the same run with demos N would, as long as the
// demonstrations end before learning starts and their episodes are equally
// long. It returns each env's first episode index for VecEnv.ResetFrom.
func (r *runner) insertDemos(ctx context.Context, eps []demoEpisode, hasProgress bool) ([]int, error) {
	n, A := r.cfg.NumEnvs, r.spec.ActDim
	// VLM-RB: the oracle scores clips by privileged progress alone, which
	// robot-train record stores; the frame scorers get the dataset's video
	// of their camera when it matches their frames; otherwise the
	// demonstrations keep p̄
	var frames []*image.RGBA
	score := false
	if r.score != nil {
		why := "the dataset has no observation.progress"
		switch {
		case r.score.srcs == nil:
			score = hasProgress
		case r.frameCam == nil:
			why = "the scorer's frames come from Options.Frames"
		default:
			frames, why = demoFrames(ctx, &r.cfg)
			score = frames != nil
		}
		if !score {
			r.warnf("the %s scorer does not score the recorded demonstrations (%s); they keep the default priority", r.cfg.Scorer, why)
		}
	}
	// the run's hooks and the library user's see the demonstrations
	own := r.hooks
	r.hooks = append(own[:len(own):len(own)], r.opts.Hooks...)
	defer func() { r.hooks = own }()
	sched := newEpisodeSchedule(n)
	perEnv := make([][]int, n)
	for k := range eps {
		ei, _ := sched.next()
		perEnv[ei] = append(perEnv[ei], k)
		sched.finish(ei, eps[k].len())
	}
	steps := slices.Max(sched.end)
	if int64(steps*n) >= r.cfg.Steps {
		return nil, &ConfigError{Msg: fmt.Sprintf("demos %s fill %d env steps (%d per env on %d envs), the whole budget of %d steps; raise --steps",
			r.cfg.DemosPath, steps*n, steps, n, r.cfg.Steps)}
	}
	seq := 0 // vector steps of demonstrations (the frames' sequence number)
	cur, t := make([]int, n), make([]int, n)
	ret := make([]float64, n)
	succ := make([]bool, n)
	for range steps {
		if r.step < r.cfg.SAC.LearningStarts {
			for range n * A { // the uniform actions collect would have drawn
				r.rng.Float64()
			}
		}
		for i := range n {
			if cur[i] >= len(perEnv[i]) {
				continue
			}
			k := perEnv[i][cur[i]]
			e, tt := &eps[k], t[i]
			done := e.term[tt] || e.trunc[tt]
			sv := b2f(e.succs[tt])
			ref, err := r.addDemo(r.step, i, replay.Transition{
				Obs: e.obs[tt], Action: e.act[tt], Reward: e.rew[tt], NextObs: e.next[tt],
				Terminated: e.term[tt], Truncated: e.trunc[tt],
				Env: int32(i), Episode: int64(k), Step: int32(tt),
			}, map[string]float64{"success": sv}, done)
			if err != nil {
				return nil, err
			}
			if score { // the clip pipeline, with the recording's o_t (its frame tt)
				f := frame.Frame{Camera: r.cfg.VLM.Camera, Seq: uint64(seq),
					Time: time.Unix(0, 0).Add(time.Duration(float64(tt) * r.spec.ControlDt * float64(time.Second)))}
				if frames != nil {
					f.Image = frames[e.from+int64(tt)]
				}
				r.score.recorded(i, int64(k), ref, f, e.prog[tt], hasProgress, done)
			}
			ret[i] += e.rew[tt]
			succ[i] = succ[i] || e.succs[tt]
			t[i]++
			if t[i] == e.len() {
				r.closeEpisode(ret[i], float64(t[i]), succ[i])
				cur[i]++
				t[i], ret[i], succ[i] = 0, 0, false
			}
		}
		r.step += int64(n)
		seq++
		if err := r.pace(ctx, r); err != nil { // evaluations, log rows, checkpoints as the loop would
			return nil, err
		}
	}
	r.nextEpisode = int64(len(eps))
	first := make([]int, n)
	for i := range perEnv {
		first[i] = len(perEnv[i])
	}
	if r.out != nil {
		_, _ = fmt.Fprintf(r.out, "demonstrations: %d episodes, %d transitions from %s (step counter now %d)\n",
			len(eps), r.buf.Len(), r.cfg.DemosPath, r.step)
	}
	return first, nil
}

// maxDemoFrameBytes bounds the decoded scorer frames of recorded
// demonstrations held in memory (RGBA).
const maxDemoFrameBytes = 512 << 20

// demoFrames decodes the dataset's video of the scorer's camera, one
// image per dataset frame, when it shows what the scorer's own frames
// would: the same camera name and size and the standard theme (record
// renders with it). Otherwise it returns nil and why.
func demoFrames(ctx context.Context, cfg *Config) ([]*image.RGBA, string) {
	if cfg.VLM.Theme != "" && cfg.VLM.Theme != "standard" {
		return nil, fmt.Sprintf("the scorer sees the %s theme, recordings the standard one", cfg.VLM.Theme)
	}
	d, err := lerobot.Open(cfg.DemosPath, lerobot.Limits{})
	if err != nil {
		return nil, err.Error()
	}
	key := lerobot.ImagePrefix + cfg.VLM.Camera
	f, ok := d.Info.Features[key]
	if !ok || f.DType != "video" || len(f.Shape) != 3 {
		return nil, fmt.Sprintf("the dataset has no video %s of the scorer's camera", key)
	}
	if f.Shape[0] != cfg.VLM.Height || f.Shape[1] != cfg.VLM.Width {
		return nil, fmt.Sprintf("its video %s is %dx%d, the scorer's frames %dx%d (record --size %dx%d)",
			key, f.Shape[1], f.Shape[0], cfg.VLM.Width, cfg.VLM.Height, cfg.VLM.Width, cfg.VLM.Height)
	}
	if n := int64(d.Info.TotalFrames) * int64(4*f.Shape[0]*f.Shape[1]); n > maxDemoFrameBytes {
		return nil, fmt.Sprintf("its %d frames would take %d MB decoded (limit %d MB)", d.Info.TotalFrames, n>>20, maxDemoFrameBytes>>20)
	}
	var paths []string
	for _, e := range d.Episodes {
		v := e.Videos[key]
		p := filepath.Join(d.Dir, filepath.FromSlash(d.Info.VideoFile(key, v.Chunk, v.File)))
		if len(paths) == 0 || paths[len(paths)-1] != p {
			paths = append(paths, p)
		}
	}
	var frames []*image.RGBA
	for _, p := range paths {
		src, err := hw.OpenVideo(ctx, p, hw.Options{})
		if err != nil {
			return nil, err.Error()
		}
		var fr frame.Frame
		for {
			if err := src.Next(ctx, &fr); err != nil {
				_ = src.Close()
				if errors.Is(err, frame.ErrEndOfStream) {
					break
				}
				return nil, err.Error()
			}
			c := fr.Clone()
			frames = append(frames, c.Image)
		}
	}
	if len(frames) != d.Info.TotalFrames {
		return nil, fmt.Sprintf("its video %s has %d frames for %d dataset frames", key, len(frames), d.Info.TotalFrames)
	}
	return frames, ""
}
