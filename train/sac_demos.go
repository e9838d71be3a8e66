package train

import (
	"context"
	"errors"
	"fmt"
	"image"
	"path/filepath"
	"time"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/hw"
	"github.com/vlmrb/vlmrb/lerobot"
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/vlmprio"
)

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
	ds := r.demoScoring(ctx, hasProgress)
	// the run's hooks and the library user's see the demonstrations
	own := r.hooks
	r.hooks = append(own[:len(own):len(own)], r.opts.Hooks...)
	defer func() { r.hooks = own }()
	perEnv, steps, err := r.scheduleDemos(eps)
	if err != nil {
		return nil, err
	}
	if err := r.replayDemos(ctx, eps, perEnv, steps, ds); err != nil {
		return nil, err
	}
	r.nextEpisode = int64(len(eps))
	first := make([]int, len(perEnv))
	for i := range perEnv {
		first[i] = len(perEnv[i])
	}
	if r.out != nil {
		_, _ = fmt.Fprintf(r.out, "demonstrations: %d episodes, %d transitions from %s (step counter now %d)\n",
			len(eps), r.buf.Len(), r.cfg.DemosPath, r.step)
	}
	return first, nil
}

// demoScore is how VLM-RB scores the recorded demonstrations: not at all
// (score false), by their recorded progress (the oracle) or from the
// dataset's video of the scorer's camera (frames).
type demoScore struct {
	score, hasProgress bool
	frames             []*image.RGBA
}

// demoScoring decides demoScore: the oracle scores clips by privileged
// progress alone, which robot-train record stores; the frame scorers get
// the dataset's video of their camera when it matches their frames;
// otherwise the demonstrations keep p̄ (with a warning).
func (r *runner) demoScoring(ctx context.Context, hasProgress bool) demoScore {
	ds := demoScore{hasProgress: hasProgress}
	if r.score == nil {
		return ds
	}
	why := "the dataset has no observation.progress"
	switch {
	case r.score.srcs == nil:
		ds.score = hasProgress
	case r.frameCam == nil:
		why = "the scorer's frames come from Options.Frames"
	default:
		ds.frames, why = demoFrames(ctx, &r.cfg)
		ds.score = ds.frames != nil
	}
	if !ds.score {
		r.warnf("the %s scorer does not score the recorded demonstrations (%s); they keep the default priority", r.cfg.Scorer, why)
	}
	return ds
}

// scheduleDemos assigns the recorded episodes to the envs that would have
// started them (the record schedule) and returns them per env with the
// vector steps they fill; they must leave some of the budget.
func (r *runner) scheduleDemos(eps []demoEpisode) ([][]int, int, error) {
	n := r.cfg.NumEnvs
	sched := rundir.NewEpisodeSchedule(n)
	perEnv := make([][]int, n)
	for k := range eps {
		ei, _ := sched.Next()
		perEnv[ei] = append(perEnv[ei], k)
		sched.Finish(ei, eps[k].len())
	}
	steps := sched.Steps()
	if int64(steps*n) >= r.cfg.Steps {
		return nil, 0, &rundir.ConfigError{Msg: fmt.Sprintf("demos %s fill %d env steps (%d per env on %d envs), the whole budget of %d steps; raise --steps",
			r.cfg.DemosPath, steps*n, steps, n, r.cfg.Steps)}
	}
	return perEnv, steps, nil
}

// replayDemos stores the demonstrations in vector-step order as collect
// would have stored those episodes: the loop's random stream, the step
// counter, the episode statistics and the loop's pacing advance with them.
func (r *runner) replayDemos(ctx context.Context, eps []demoEpisode, perEnv [][]int, steps int, ds demoScore) error {
	n, A := r.cfg.NumEnvs, r.spec.ActDim
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
			var o *vlmprio.Observed
			if ds.score { // the clip pipeline, with the recording's o_t (its frame tt)
				f := frame.Frame{Camera: r.cfg.VLM.Camera, Seq: uint64(seq),
					Time: time.Unix(0, 0).Add(time.Duration(float64(tt) * r.spec.ControlDt * float64(time.Second)))}
				if ds.frames != nil {
					f.Image = ds.frames[e.from+int64(tt)]
				}
				o = &vlmprio.Observed{Frame: f, Progress: e.prog[tt], HasProgress: ds.hasProgress}
			}
			if _, err := r.addDemo(r.step, i, replay.Transition{
				Obs: e.obs[tt], Action: e.act[tt], Reward: e.rew[tt], NextObs: e.next[tt],
				Terminated: e.term[tt], Truncated: e.trunc[tt],
				Env: int32(i), Episode: int64(k), Step: int32(tt),
			}, o, map[string]float64{"success": sv}, done); err != nil {
				return err
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
			return err
		}
	}
	return nil
}

// maxDemoFrameBytes bounds the decoded scorer frames of recorded
// demonstrations held in memory (RGBA).
const maxDemoFrameBytes = 512 << 20

// demoFrames decodes the dataset's video of the scorer's camera, one
// image per dataset frame, when it shows what the scorer's own frames
// would: the same camera name and size and the standard theme (record
// renders with it). Otherwise it returns nil and why.
func demoFrames(ctx context.Context, cfg *rundir.Config) ([]*image.RGBA, string) {
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
