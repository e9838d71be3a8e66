package train

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/nn"
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/sac"
	"github.com/vlmrb/vlmrb/tasks"
)

// Run trains according to cfg. It returns a Result describing what was
// done even when it fails or is interrupted; when ctx is cancelled it stops
// at the next step boundary, writes a checkpoint and returns an error that
// wraps context.Canceled. Configuration mistakes are *ConfigError.
//
// The loop (loop.go) is shared by the learners: SAC on the manipulation
// tasks (this file), DQN on the grid tasks (dqn.go). opts.Hooks observe
// every stored transition, update, evaluation and checkpoint.
func Run(ctx context.Context, cfg Config, opts Options) (*Result, error) {
	cfg.Replay = cfg.ResolvedReplay() // the run directory's config names the sampler
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := newCore(cfg, opts)
	for _, w := range cfg.Warnings() {
		c.warnf("%s", w)
	}
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
	spec    control.Spec

	agent    *sac.Agent
	score    *scoring
	rm       *rewardShaper // reward erlvlm | vlmrm
	vlm      *vlmOutage    // VLM failures of scorer, rater, embedder (outage.go)
	frameCam *SimCamera    // the scorer's sim camera (nil: oracle scorer or Options.Frames)
	evalCam  *SimCamera    // eval GIF camera, opened at the first evaluation
	camErr   error         // why evalCam could not be opened (warned once)

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
	meta, err := tasks.Lookup(cfg.Task)
	if err != nil {
		return &ConfigError{Msg: err.Error() + " (robot-train tasks lists them)"}
	}
	r.meta = meta
	reward, err := tasks.ParseRewardMode(cfg.EnvReward())
	if err != nil {
		return &ConfigError{Msg: err.Error()}
	}
	ckptDir, man, err := r.prepareRunDir()
	if err != nil {
		return err
	}

	// environments: N training envs in a VecEnv, one evaluation env
	topts := tasks.Options{Reward: reward, MaxSteps: cfg.MaxEpisodeLen}
	r.envs = make([]*tasks.Env, cfg.NumEnvs)
	r.vec, err = control.NewVecEnv(cfg.NumEnvs, func(i int) (control.Env, error) {
		e, err := tasks.Make(cfg.Task, topts)
		r.envs[i] = e
		return e, err
	})
	if err != nil {
		return err
	}
	if r.evalEnv, err = tasks.Make(cfg.Task, topts); err != nil {
		return err
	}
	r.spec = r.vec.Spec()

	// agent
	if err := nn.SetBackend(cfg.BLAS); err != nil {
		return &ConfigError{Msg: err.Error()}
	}
	if r.agent, err = sac.New(cfg.sacConfig(), r.spec.ObsDim, r.spec.ActDim); err != nil {
		return &ConfigError{Msg: err.Error()}
	}

	// replay
	if r.buf, err = replay.NewBuffer(replay.Config{Capacity: cfg.Buffer.Capacity, ObsDim: r.spec.ObsDim, ActDim: r.spec.ActDim,
		ShareNextObs: cfg.Buffer.ShareNextObs}); err != nil {
		return &ConfigError{Msg: err.Error()}
	}
	// λ warms up over Sample calls: one per update
	warm := int64(float64(cfg.Buffer.LambdaWarmup) * cfg.SAC.UpdatesPerStep)
	if err := r.initLoop(r.spec.ObsDim, r.spec.ActDim, cfg.SAC.BatchSize, r.totalUpdates(), warm); err != nil {
		return err
	}
	r.title = fmt.Sprintf("%s / %s", cfg.Task, cfg.Replay)

	if cfg.Reward == "erlvlm" || cfg.Reward == "vlmrm" {
		if r.rm, err = newRewardShaper(ctx, r); err != nil {
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
		r.hooks = append(r.hooks, rewardHook{r: r})
	}
	if cfg.Replay == "vlmrb" {
		if r.score, err = newScoring(ctx, r); err != nil {
			return err
		}
		r.hooks = append(r.hooks, scoringHook{r: r})
	}

	n := cfg.NumEnvs
	r.obs, _ = r.vec.Reset(resetSeed)
	r.obs = append([][]float64(nil), r.obs...)
	r.actions = make([][]float64, n)
	r.scaled = make([][]float64, n)
	for i := range r.actions {
		r.actions[i] = make([]float64, r.spec.ActDim)
		r.scaled[i] = make([]float64, r.spec.ActDim)
	}
	r.actF32 = make([]float32, n*r.spec.ActDim)
	r.obsF32 = make([]float32, n*r.spec.ObsDim)
	for i := range n {
		r.startEpisode(i)
	}
	if err := r.openLog(man); err != nil {
		return err
	}
	if r.out != nil {
		_, _ = fmt.Fprintf(r.out, "training %s (%s reward) with %s replay", cfg.Task, cfg.Reward, cfg.Replay)
		if r.score != nil {
			_, _ = fmt.Fprintf(r.out, ", %s scorer (%s)", cfg.Scorer, r.score.describe())
		}
		if r.rm != nil {
			_, _ = fmt.Fprintf(r.out, ", reward from %s", r.rm.describe())
		}
		r.printStart(ckptDir, man)
	}
	return nil
}

// prepareRunDir decides how the run uses its directory (fresh, resume,
// finished), creates it and writes config.yaml and platform.json.
func (c *core) prepareRunDir() (string, *Manifest, error) {
	ckptDir, man, err := c.openRunDir()
	if err != nil {
		return "", nil, err
	}
	for _, d := range []string{"", "curves", "videos"} {
		if err := os.MkdirAll(filepath.Join(c.cfg.Out, d), 0o755); err != nil {
			return "", nil, fmt.Errorf("create run directory: %w", err)
		}
	}
	return ckptDir, man, saveRunRecord(c.cfg.Out, &c.cfg, man)
}

// printStart ends the console's first line and says what was resumed.
func (c *core) printStart(ckptDir string, man *Manifest) {
	_, _ = fmt.Fprintf(c.out, " for %d env steps on %d envs, seed %d → %s\n", c.cfg.Steps, c.cfg.NumEnvs, c.cfg.Seed, c.cfg.Out)
	if man != nil {
		_, _ = fmt.Fprintf(c.out, "resumed from %s (step %d, %d updates)\n", ckptDir, man.Step, man.Updates)
	}
}

// totalUpdates is the number of gradient updates the budget implies.
func (r *runner) totalUpdates() int64 {
	return int64(float64(max(r.cfg.Steps-r.cfg.SAC.LearningStarts, 0)) * r.cfg.SAC.UpdatesPerStep)
}

// collect takes one step in every env: uniform random actions until
// learning starts, then the stochastic policy; the scripted expert in the
// first cfg.Demos episodes.
func (r *runner) collect(ctx context.Context) error {
	cfg := &r.cfg
	n, A := cfg.NumEnvs, r.spec.ActDim
	if r.score != nil { // frames and progress of the states the actions are taken in
		if err := r.score.capture(ctx, r); err != nil {
			return err
		}
	}
	if r.step < cfg.SAC.LearningStarts {
		for i := range r.actions {
			for j := range r.actions[i] {
				r.actions[i][j] = 2*r.rng.Float64() - 1
			}
		}
	} else {
		for i, o := range r.obs {
			for j, v := range o {
				r.obsF32[i*r.spec.ObsDim+j] = float32(v)
			}
		}
		r.agent.ActBatch(r.actF32, r.obsF32, n, false)
		for i := range r.actions {
			for j := range r.actions[i] {
				r.actions[i][j] = float64(r.actF32[i*A+j])
			}
		}
	}
	for i := range n {
		if r.demo(i) {
			r.expertAction(i)
		}
	}
	next, rew, term, trunc, infos, err := r.vec.Step(r.scaleActions())
	if err != nil {
		return fmt.Errorf("env step: %w", err)
	}
	for i := range n {
		nobs, vals := next[i], infos[i].Values
		done := term[i] || trunc[i]
		if done {
			nobs, vals = infos[i].FinalObs, infos[i].FinalValues
		}
		if _, err := r.add(r.step, i, replay.Transition{
			Obs: r.obs[i], Action: r.actions[i], Reward: rew[i], NextObs: nobs,
			Terminated: term[i], Truncated: trunc[i],
			Env: int32(i), Episode: r.epID[i], Step: r.epT[i],
		}, vals, done); err != nil {
			return err
		}
		r.record(i, rew[i], vals["success"] != 0, done)
		r.obs[i] = next[i]
	}
	r.step += int64(n)
	if err := r.vlm.err(); err != nil {
		return err
	}
	if r.rm != nil {
		return r.rm.afterStep(ctx, r.step)
	}
	return nil
}

// expertAction sets env i's action to its scripted expert's (a fresh
// expert per demo episode), mapped from the env's bounds to the agent's
// [−1, 1] and clamped there, so that what replay stores is what the env
// executes.
func (r *runner) expertAction(i int) {
	if r.experts == nil {
		r.experts, r.expEp = make([]control.Policy, r.cfg.NumEnvs), make([]int64, r.cfg.NumEnvs)
	}
	if r.experts[i] == nil || r.expEp[i] != r.epID[i] {
		r.experts[i], r.expEp[i] = r.envs[i].Expert(), r.epID[i]
	}
	a := r.actions[i]
	r.experts[i].Act(r.obs[i], a)
	lo, hi := r.spec.ActLow, r.spec.ActHigh
	for j, v := range a {
		if lo != nil && hi != nil && hi[j] > lo[j] {
			v = 2*(v-lo[j])/(hi[j]-lo[j]) - 1
		}
		a[j] = min(max(v, -1), 1)
	}
}

// scaleActions maps the agent's [−1, 1] actions to the env's bounds,
// leaving r.actions (what replay stores) in the agent's space.
func (r *runner) scaleActions() [][]float64 {
	lo, hi := r.spec.ActLow, r.spec.ActHigh
	for i, a := range r.actions {
		for j, v := range a {
			if lo != nil && hi != nil {
				v = lo[j] + (v+1)/2*(hi[j]-lo[j])
			}
			r.scaled[i][j] = v
		}
	}
	return r.scaled
}

// train runs the gradient updates the step count calls for: UpdatesPerStep
// per env step after learning starts (and, with a learned reward, after
// the reward exists, plus its catch-up updates).
func (r *runner) train(context.Context) error {
	cfg := &r.cfg
	if r.step < cfg.SAC.LearningStarts || r.buf.Len() < cfg.SAC.BatchSize {
		return nil
	}
	start := cfg.SAC.LearningStarts
	var extra int64
	if r.rm != nil {
		if !r.rm.canTrain() {
			return nil
		}
		start = max(start, r.rm.startStep)
		if r.rm.fitted { // the reward just changed under the agent (PEBBLE)
			r.rm.fitted = false
			if cfg.RM.ResetCritic {
				r.agent.ResetCritics()
			}
			r.rm.catchup += int64(cfg.RM.Catchup)
		}
		extra = r.rm.catchup
	}
	target := int64(float64(r.step-start+int64(cfg.NumEnvs))*cfg.SAC.UpdatesPerStep) + extra
	return r.update(target, r.obs, sacUpdater{r})
}

// sacUpdater is the SAC agent's gradient step for core.update.
type sacUpdater struct{ r *runner }

func (u sacUpdater) prepare(b *replay.Batch) {
	if u.r.rm != nil {
		u.r.rm.apply(b, u.r.rng)
	}
}

func (u sacUpdater) update(b *replay.Batch) (UpdateMetrics, error) { return u.r.agent.Update(b) }

func (u sacUpdater) signal(f feedback) []float32 {
	switch f {
	case tdFeedback:
		return u.r.agent.TDErrors()
	case reloFeedback:
		return u.r.agent.ReLoScores()
	}
	return nil
}

// values adds the VLM-RB and learned-reward groups to a log row.
func (r *runner) values(v map[string]float64) {
	if r.score != nil {
		r.score.metrics(r, v)
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
		r.score.stop()
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
		r.frameCam.Close()
	}
	if r.evalCam != nil {
		r.evalCam.Close()
	}
	if r.agent != nil {
		r.agent.Close()
	}
}
