package train

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/nn"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/sac"
	"github.com/vlmrb/vlmrb/tasks"
)

// Run trains v, a config validated once by its builder (Validated; Run
// never validates again). It returns a Result describing what was done
// even when it fails or is interrupted; when ctx is cancelled it stops at
// the next step boundary, writes a checkpoint and returns an error that
// wraps context.Canceled. Config mistakes (the zero Valid too) are *ConfigError.
//
// The loop (loop.go) is shared by SAC on the manipulation tasks (this
// file) and DQN on the grid tasks (dqn.go); opts.Hooks observe every
// stored transition, update, evaluation and checkpoint. Process-global
// state: Run selects package nn's BLAS backend for the whole process
// (nn.SetBackend(cfg.BLAS)): two runs in one process with different blas
// settings both use the one chosen last.
func Run(ctx context.Context, v rundir.Valid, opts Options) (*Result, error) {
	if v.IsZero() {
		return nil, rundir.ConfigErrorf("train.Run: the config was not validated; pass the rundir.Valid that cfg.Validated() returns")
	}
	cfg := v.Config()
	c := newCore(cfg, opts)
	if r := cfg.ResolvedReplay(); r != cfg.Replay { // config.yaml names the sampler
		c.derived = append(c.derived, fmt.Sprintf("replay %s (derived from replay %q: the default for %s)", r, cfg.Replay, cfg.ResolvedAlgo()))
		c.cfg.Replay, cfg.Replay = r, r
	}
	for _, w := range cfg.Warnings() {
		c.warnf("%s", w)
	}
	// a start refused before anything was written leaves no run directory
	// behind when this call made it
	_, statErr := os.Stat(cfg.Out)
	madeDir, refused := errors.Is(statErr, os.ErrNotExist), false
	defer func() {
		if madeDir && refused {
			rundir.RemoveEmptyRunDir(cfg.Out)
		}
	}()
	lk, err := lockRunDir(cfg.Out, c.warnf)
	if err != nil {
		return nil, err
	}
	defer func() { _ = lk.Release() }()
	var l interface {
		learner
		setup(ctx context.Context) error
		close()
	}
	if cfg.ResolvedAlgo() == "dqn" {
		l = &dqnRunner{core: c}
	} else {
		l = &runner{core: c, vlm: newVLMOutage(opts.VLMRequired, c.warnf)}
	}
	defer l.close()
	if err := l.setup(ctx); err != nil {
		if errors.Is(err, errFinished) {
			return c.res, nil
		}
		refused = true
		return c.res, err
	}
	c.hooks = append(c.hooks, opts.Hooks...)
	err = c.loop(ctx, l)
	return c.res, c.finish(ctx, l, err)
}

// runner is SAC on a manipulation task: N envs in a VecEnv, one evaluation
// env, and the optional VLM-RB scoring and VLM reward that hook into the
// shared loop.
type runner struct {
	*core

	meta    tasks.Meta
	vec     *control.VecEnv
	envs    []*tasks.Env
	evalEnv *tasks.Env
	arm     []rundir.ArmEnv // tasks over an imported arm (armrun.go, armobject.go): its envs instead of envs
	armEval rundir.ArmEnv
	spec    control.Spec

	agent    *sac.Agent
	score    *scoring
	rm       *rewardShaper     // reward erlvlm | vlmrm
	vlm      *vlmOutage        // VLM failures of scorer, rater, embedder (outage.go)
	frameCam *render.SimCamera // the scorer's sim camera (nil: oracle scorer or Options.Frames)
	evalCam  *render.SimCamera // eval GIF camera, opened at the first evaluation
	camErr   error             // why evalCam could not be opened (warned once)

	obs     [][]float64
	experts []control.Policy // per env: the expert of its demo episode (nil otherwise)
	expEp   []int64          // the episode each expert was made for
	actions [][]float64      // agent actions in [−1, 1] (stored in replay)
	scaled  [][]float64      // the same mapped to the env's bounds
	actF32  []float32
	obsF32  []float32
}

// setup prepares the run directory, environments, agent, replay and scoring,
// restoring a checkpoint when resuming.
func (r *runner) setup(ctx context.Context) error {
	cfg := &r.cfg
	meta, err := r.taskMeta()
	if err != nil {
		return err
	}
	r.meta = meta
	reward, err := tasks.ParseRewardMode(cfg.EnvReward())
	if err != nil {
		return &rundir.ConfigError{Msg: err.Error()}
	}
	ckptDir, man, err := r.prepareRunDir()
	if err != nil {
		return err
	}

	if err := r.build(reward); err != nil {
		return err
	}

	if cfg.Reward == "erlvlm" || cfg.Reward == "vlmrm" {
		if r.rm, err = newRewardShaper(ctx, rewardSetup{cfg: cfg, meta: r.meta, envs: r.envs, vec: r.vec, replay: r.buf,
			vlm: r.vlm, warnf: r.warnf}); err != nil {
			return err
		}
	}
	resetSeed := cfg.Seed
	if man != nil {
		if err := r.restore(ckptDir, man); err != nil {
			return err
		}
		// fresh episodes after a resume (the interrupted ones are not in the checkpoint)
		resetSeed = cfg.Seed ^ uint64(man.Step)*0x9e3779b97f4a7c15
	}
	r.hooks = hookList{r.diag}
	if r.rm != nil {
		r.rm.lastStep = r.step
		r.hooks = append(r.hooks, r.rm)
	}
	if cfg.Replay == "vlmrb" {
		if r.score, err = r.newScoring(ctx); err != nil {
			return err
		}
		r.hooks = append(r.hooks, r.score)
	}

	var demos []demoEpisode // recorded demonstrations, checked before any file is written
	var demoProgress bool   // they carry privileged progress (the oracle scorer rates them)
	if man == nil && cfg.DemosPath != "" {
		if demos, demoProgress, err = loadDemos(cfg, r.spec); err != nil {
			return err
		}
	}
	r.allocActions()
	if err := r.openLog(man); err != nil {
		return err
	}
	if r.out != nil {
		_, _ = fmt.Fprintf(r.out, "training %s (%s reward) with %s replay", cfg.Task, cfg.Reward, cfg.Replay)
		if r.score != nil {
			_, _ = fmt.Fprintf(r.out, ", %s scorer (%s)", cfg.Scorer, r.score.desc)
		}
		if r.rm != nil {
			_, _ = fmt.Fprintf(r.out, ", reward from %s", r.rm.describe())
		}
		r.printStart(ckptDir, man)
	}
	var first []int // each env's first episode after recorded demonstrations
	if demos != nil {
		if first, err = r.insertDemos(ctx, demos, demoProgress); err != nil {
			return err
		}
	}
	r.startEpisodes(resetSeed, first)
	return nil
}

// build makes the environments (N training envs in a VecEnv, one
// evaluation env), the agent, the replay buffer and the loop's sampler.
func (r *runner) build(reward tasks.RewardMode) error {
	cfg := &r.cfg
	err := r.buildEnvs(reward)
	if err != nil {
		return err
	}
	r.spec = r.vec.Spec()
	// process-global: every network in this process uses it (see Run)
	if err := nn.SetBackend(cfg.BLAS); err != nil {
		return &rundir.ConfigError{Msg: err.Error()}
	}
	if r.agent, err = sac.New(cfg.SACConfig(), r.spec.ObsDim, r.spec.ActDim); err != nil {
		return &rundir.ConfigError{Msg: err.Error()}
	}
	if r.buf, err = replay.NewBuffer(replay.Config{Capacity: cfg.Buffer.Capacity, ObsDim: r.spec.ObsDim, ActDim: r.spec.ActDim,
		ShareNextObs: cfg.Buffer.ShareNextObs}); err != nil {
		return &rundir.ConfigError{Msg: err.Error()}
	}
	// λ warms up over Sample calls: one per update
	warm := int64(float64(cfg.Buffer.LambdaWarmup) * cfg.SAC.UpdatesPerStep)
	if err := r.initLoop(r.spec.ObsDim, r.spec.ActDim, cfg.SAC.BatchSize, r.totalUpdates(), warm); err != nil {
		return err
	}
	r.title = fmt.Sprintf("%s / %s", cfg.Task, cfg.Replay)
	return nil
}

// buildEnvs makes the N training envs in a VecEnv and the evaluation env.
func (r *runner) buildEnvs(reward tasks.RewardMode) error {
	cfg := &r.cfg
	if cfg.IsArmTask() {
		return r.buildArmEnvs()
	}
	topts := cfg.TaskOptions(reward)
	var err error
	if r.vec, r.envs, err = tasks.MakeVec(cfg.Task, cfg.NumEnvs, topts); err != nil {
		return err
	}
	r.evalEnv, err = tasks.Make(cfg.Task, topts)
	return err
}

// allocActions sizes the per-env action buffers.
func (r *runner) allocActions() {
	n := r.cfg.NumEnvs
	r.actions = make([][]float64, n)
	r.scaled = make([][]float64, n)
	for i := range r.actions {
		r.actions[i] = make([]float64, r.spec.ActDim)
		r.scaled[i] = make([]float64, r.spec.ActDim)
	}
	r.actF32 = make([]float32, n*r.spec.ActDim)
	r.obsF32 = make([]float32, n*r.spec.ObsDim)
}

// startEpisodes resets the envs from seed (each env i from its first[i]-th
// episode when recorded demonstrations took the first ones) and starts
// their episodes; episode ids continue after the demonstrations'.
func (r *runner) startEpisodes(seed uint64, first []int) {
	if first != nil {
		r.obs, _ = r.vec.ResetFrom(seed, first)
	} else {
		r.obs, _ = r.vec.Reset(seed)
	}
	r.obs = append([][]float64(nil), r.obs...)
	for i := range r.cfg.NumEnvs {
		r.startEpisode(i)
	}
}

// prepareRunDir decides how the run uses its directory (fresh, resume,
// finished), creates it and writes config.yaml and platform.json.
func (c *core) prepareRunDir() (string, *rundir.Manifest, error) {
	ckptDir, man, err := c.openRunDir()
	if err != nil {
		return "", nil, err
	}
	for _, d := range []string{"", "curves", "videos"} {
		if err := os.MkdirAll(filepath.Join(c.cfg.Out, d), 0o755); err != nil {
			return "", nil, fmt.Errorf("create run directory: %w", err)
		}
	}
	return ckptDir, man, rundir.SaveRunRecord(c.cfg.Out, &c.cfg, man)
}

// printStart ends the console's first line and says what was resumed.
func (c *core) printStart(ckptDir string, man *rundir.Manifest) {
	_, _ = fmt.Fprintf(c.out, " for %d env steps on %d envs, seed %d → %s\n", c.cfg.Steps, c.cfg.NumEnvs, c.cfg.Seed, c.cfg.Out)
	for _, d := range c.derived {
		_, _ = fmt.Fprintln(c.out, d)
	}
	if man != nil {
		_, _ = fmt.Fprintf(c.out, "resumed from %s (step %d, %d updates)\n", ckptDir, man.Step, man.Updates)
	}
}

// totalUpdates is the number of gradient updates the budget implies.
func (r *runner) totalUpdates() int64 {
	return int64(float64(max(r.cfg.Steps-r.cfg.SAC.LearningStarts, 0)) * r.cfg.SAC.UpdatesPerStep)
}

// values adds the VLM-RB and learned-reward groups to a log row.
func (r *runner) values(v map[string]float64) {
	if r.score != nil {
		r.score.metrics(v, r.buf.Len())
	}
	if r.rm != nil {
		r.rm.metrics(v)
	}
	r.vlm.metrics(v)
}

func (r *runner) stop() {
	if r.score != nil {
		r.score.stop()
	}
}

func (r *runner) fillVLM() { r.res.VLMFailures = r.vlm.summary() }

func (r *runner) close() {
	r.fillVLM()
	if r.score != nil {
		r.score.close()
	}
	if r.rm != nil {
		r.rm.close()
	}
	r.closeLog()
	if r.vec != nil {
		_ = r.vec.Close()
	}
	if r.frameCam != nil {
		_ = r.frameCam.Close()
	}
	if r.evalCam != nil {
		_ = r.evalCam.Close()
	}
	if r.agent != nil {
		r.agent.Close()
	}
}
