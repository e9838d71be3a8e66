package train

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/nn"
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/sac"
	"github.com/vlmrb/vlmrb/tasks"
)

// recentEpisodes is the window of rollout/ statistics (SB3's stats_window_size).
const recentEpisodes = 20

// evalSeedSalt separates evaluation episode seeds from training ones; every
// evaluation uses the same episodes, so curves compare like with like.
const evalSeedSalt = 0x5eed_e7a1

// runner holds one training run's state.
type runner struct {
	cfg  Config
	opts Options
	out  io.Writer // console table (nil when quiet)
	errw io.Writer

	meta    tasks.Meta
	vec     *control.VecEnv
	envs    []*tasks.Env
	evalEnv *tasks.Env
	spec    control.Spec

	agent   *sac.Agent
	buf     *replay.Buffer
	sampler replay.Sampler
	diag    *replayDiag // batch-composition diagnostics (replay/ metrics)
	vlmrb   *replay.VLMRB
	batch   *replay.Batch
	prioBuf []float64
	score   *scoring
	rm      *rewardShaper // reward erlvlm | vlmrm
	vlm     *vlmOutage    // VLM failures of scorer, rater, embedder (outage.go)
	evalCam *SimCamera    // eval GIF camera, opened at the first evaluation
	camErr  error         // why evalCam could not be opened (warned once)

	pcg *rand.PCG
	rng *rand.Rand

	step, updates, episodes int64
	nextEpisode             int64
	startStep, startUpdates int64
	sessionStart            time.Time
	elapsedBefore           float64

	obs     [][]float64
	actions [][]float64 // agent actions in [−1, 1] (stored in replay)
	scaled  [][]float64 // the same mapped to the env's bounds
	actF32  []float32
	obsF32  []float32
	epID    []int64
	epT     []int32
	epRet   []float64
	epSucc  []bool

	recentRet, recentLen, recentSucc []float64

	mlog     *MetricsLog
	prog     *Progress
	lastUpd  sac.Metrics
	haveUpd  bool
	lastEval *EvalResult
	res      *Result
}

// Run trains according to cfg. It returns a Result describing what was
// done even when it fails or is interrupted; when ctx is cancelled it stops
// at the next step boundary, writes a checkpoint and returns an error that
// wraps context.Canceled. Configuration mistakes are *ConfigError.
func Run(ctx context.Context, cfg Config, opts Options) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.ResolvedAlgo() == "dqn" {
		return runDQN(ctx, cfg, opts) // discrete tasks (dqn.go)
	}
	r := &runner{cfg: cfg, opts: opts, errw: opts.Stderr}
	if r.errw == nil {
		r.errw = io.Discard
	}
	if !opts.Quiet && opts.Stdout != nil {
		r.out = opts.Stdout
	}
	r.res = &Result{RunDir: cfg.Out}
	r.vlm = newVLMOutage(opts.VLMRequired, r.warnf)
	lk, err := lockRunDir(cfg.Out, r.warnf)
	if err != nil {
		return nil, err
	}
	defer func() { _ = lk.Release() }()
	defer r.close()
	if err := r.setup(ctx); err != nil {
		if errors.Is(err, errFinished) {
			return r.res, nil
		}
		return r.res, err
	}
	err = r.loop(ctx)
	return r.res, r.finish(ctx, err)
}

func (r *runner) warnf(format string, a ...any) {
	_, _ = fmt.Fprintf(r.errw, "warning: "+format+"\n", a...)
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

	ckptDir, man, err := r.openRunDir()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
		return fmt.Errorf("create run directory: %w", err)
	}
	for _, d := range []string{"curves", "videos"} {
		if err := os.MkdirAll(filepath.Join(cfg.Out, d), 0o755); err != nil {
			return fmt.Errorf("create run directory: %w", err)
		}
	}
	if err := SaveConfig(filepath.Join(cfg.Out, "config.yaml"), cfg); err != nil {
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
	sc := sac.DefaultConfig()
	sc.Gamma, sc.Tau, sc.BatchSize = cfg.SAC.Gamma, cfg.SAC.Tau, cfg.SAC.BatchSize
	sc.LearningStarts = int(cfg.SAC.LearningStarts)
	sc.PolicyLR, sc.QLR = cfg.SAC.ActorLR, cfg.SAC.CriticLR
	sc.PolicyFrequency, sc.TargetNetworkFrequency = cfg.SAC.PolicyFreq, cfg.SAC.TargetFreq
	sc.Autotune, sc.Alpha = cfg.SAC.AutoAlpha, cfg.SAC.Alpha
	sc.TargetEntropy, sc.AlphaMin, sc.NoEntropyBackup = cfg.SAC.TargetEntropy, cfg.SAC.AlphaMin, !cfg.SAC.EntropyBackup
	sc.Hidden = cfg.SAC.Hidden
	sc.ReLo = cfg.Replay == "relo"
	sc.Seed = cfg.Seed
	sc.Threads = cfg.SAC.Threads
	if r.agent, err = sac.New(sc, r.spec.ObsDim, r.spec.ActDim); err != nil {
		return &ConfigError{Msg: err.Error()}
	}

	// replay
	if r.buf, err = replay.NewBuffer(replay.Config{Capacity: cfg.Buffer.Capacity, ObsDim: r.spec.ObsDim, ActDim: r.spec.ActDim,
		ShareNextObs: cfg.Buffer.ShareNextObs}); err != nil {
		return &ConfigError{Msg: err.Error()}
	}
	if err := r.makeSampler(); err != nil {
		return err
	}
	r.diag = newReplayDiag(r.buf.Cap(), cfg.NumEnvs)
	r.batch = replay.NewBatch(cfg.SAC.BatchSize, r.spec.ObsDim, r.spec.ActDim)
	r.prioBuf = make([]float64, cfg.SAC.BatchSize)

	// the loop's own random stream: exploration actions and replay draws
	r.pcg = rand.NewPCG(cfg.Seed, 0x7261696e)
	r.rng = rand.New(r.pcg)

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
		r.res.Resumed, r.res.ResumedFrom = true, man.Step
	}
	if r.rm != nil {
		r.rm.lastStep = r.step
	}
	if r.cfg.Replay == "vlmrb" {
		if r.score, err = newScoring(ctx, r); err != nil {
			return err
		}
	}

	n := cfg.NumEnvs
	r.obs, _ = r.vec.Reset(resetSeed)
	r.obs = append([][]float64(nil), r.obs...)
	r.actions = make([][]float64, n)
	for i := range r.actions {
		r.actions[i] = make([]float64, r.spec.ActDim)
	}
	r.actF32 = make([]float32, n*r.spec.ActDim)
	r.obsF32 = make([]float32, n*r.spec.ObsDim)
	r.epID, r.epT, r.epRet, r.epSucc = make([]int64, n), make([]int32, n), make([]float64, n), make([]bool, n)
	for i := range r.epID {
		r.epID[i] = r.nextEpisode
		r.nextEpisode++
	}

	keep := int64(-1)
	if man != nil {
		keep = man.Step
	}
	if r.mlog, err = OpenMetricsLog(cfg.Out, keep, cfg.Log.TensorBoard); err != nil {
		return err
	}
	r.startStep, r.startUpdates = r.step, r.updates
	r.sessionStart = time.Now()
	if r.out != nil {
		r.prog = NewProgress(r.opts.Stdout, r.step, cfg.Steps)
		_, _ = fmt.Fprintf(r.out, "training %s (%s reward) with %s replay", cfg.Task, cfg.Reward, cfg.Replay)
		if r.score != nil {
			_, _ = fmt.Fprintf(r.out, ", %s scorer (%s)", cfg.Scorer, r.score.describe())
		}
		if r.rm != nil {
			_, _ = fmt.Fprintf(r.out, ", reward from %s", r.rm.describe())
		}
		_, _ = fmt.Fprintf(r.out, " for %d env steps on %d envs, seed %d → %s\n", cfg.Steps, n, cfg.Seed, cfg.Out)
		if man != nil {
			_, _ = fmt.Fprintf(r.out, "resumed from %s (step %d, %d updates)\n", ckptDir, man.Step, man.Updates)
		}
	}
	return nil
}

func (r *runner) makeSampler() error {
	b := r.cfg.Buffer
	var err error
	switch r.cfg.Replay {
	case "uniform":
		r.sampler = replay.NewUniform(r.buf)
	case "per", "relo":
		pc := replay.DefaultPERConfig()
		if r.cfg.Replay == "relo" {
			pc = replay.DefaultReLoConfig()
		}
		pc.Alpha, pc.Beta0, pc.Eps = b.PERAlpha, b.PERBeta0, b.PEREps
		pc.BetaSteps = r.totalUpdates()
		var s *replay.PER
		if r.cfg.Replay == "per" {
			s, err = replay.NewPER(r.buf, pc)
		} else {
			s, err = replay.NewReLo(r.buf, pc)
		}
		r.sampler = s
	case "vlmrb":
		vc := replay.DefaultVLMRBConfig()
		vc.LambdaMax, vc.Default = b.LambdaMax, b.DefaultPrio
		vc.Threshold, vc.Floor, vc.Alpha = b.Threshold, b.ScoreFloor, b.VLMAlpha
		if b.ScoreMap == "raw" {
			vc.Mapping = replay.MapRaw
		}
		vc.UseTD, vc.ISWeights = b.TDProduct, b.ImportanceIS
		vc.Beta0, vc.BetaSteps = b.PERBeta0, r.totalUpdates()
		// λ warms up over Sample calls: one per update
		vc.WarmupSteps = int64(float64(b.LambdaWarmup) * r.cfg.SAC.UpdatesPerStep)
		r.vlmrb, err = replay.NewVLMRB(r.buf, vc)
		r.sampler = r.vlmrb
	case "aer", "ero": // baselines.go
		r.sampler, err = newBaselineSampler(&r.cfg, r.buf, r.totalUpdates())
		if err != nil {
			return err
		}
	}
	if err != nil {
		return &ConfigError{Msg: err.Error()}
	}
	return nil
}

// totalUpdates is the number of gradient updates the budget implies.
func (r *runner) totalUpdates() int64 {
	return int64(float64(max(r.cfg.Steps-r.cfg.SAC.LearningStarts, 0)) * r.cfg.SAC.UpdatesPerStep)
}

// loop runs env steps, updates, logging, evaluation and checkpoints until
// the budget is spent or ctx is cancelled.
func (r *runner) loop(ctx context.Context) error {
	cfg := &r.cfg
	n := cfg.NumEnvs
	A := r.spec.ActDim
	for r.step < cfg.Steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		// frames and progress of the states the actions are taken in
		if r.score != nil {
			if err := r.score.capture(r); err != nil {
				return err
			}
		}
		// act: uniform random until learning starts, then the stochastic policy
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
		scaled := r.scaleActions()
		next, rew, term, trunc, infos, err := r.vec.Step(scaled)
		if err != nil {
			return fmt.Errorf("env step: %w", err)
		}
		for i := range n {
			nobs := next[i]
			done := term[i] || trunc[i]
			vals := infos[i].Values
			if done {
				nobs, vals = infos[i].FinalObs, infos[i].FinalValues
			}
			ref := r.buf.Add(replay.Transition{
				Obs: r.obs[i], Action: r.actions[i], Reward: rew[i], NextObs: nobs,
				Terminated: term[i], Truncated: trunc[i],
				Env: int32(i), Episode: r.epID[i], Step: r.epT[i],
			})
			r.diag.add(ref, i, rew[i], vals, done)
			if r.score != nil {
				r.score.push(r, i, ref, done)
			}
			if r.rm != nil {
				p, ok := vals["progress"]
				if !ok {
					p = math.NaN()
				}
				if err := r.rm.observe(r, i, ref, done, p); err != nil {
					return err
				}
			}
			r.epRet[i] += rew[i]
			r.epT[i]++
			if vals["success"] != 0 {
				r.epSucc[i] = true
			}
			if done {
				r.endEpisode(i)
			}
			r.obs[i] = next[i]
		}
		r.step += int64(n)
		if err := r.vlm.err(); err != nil {
			return err
		}
		if r.rm != nil {
			if err := r.rm.afterStep(ctx, r.step); err != nil {
				return err
			}
		}

		if err := r.train(); err != nil {
			return err
		}
		if r.prog != nil {
			r.prog.Update(r.step)
		}
		if crossed(r.step, int64(n), cfg.Eval.Every) && r.step < cfg.Steps {
			if err := r.evalAndLog(ctx, false); err != nil {
				return err
			}
		}
		if crossed(r.step, int64(n), cfg.Log.Every) {
			if err := r.logRow(); err != nil {
				return err
			}
		}
		if crossed(r.step, int64(n), cfg.Ckpt.Every) && r.step < cfg.Steps {
			if err := r.checkpoint(); err != nil {
				return err
			}
		}
	}
	return nil
}

// crossed reports whether step just passed a multiple of every (after
// advancing by inc).
func crossed(step, inc, every int64) bool {
	return every > 0 && step/every != (step-inc)/every
}

// scaleActions maps the agent's [−1, 1] actions to the env's bounds,
// leaving r.actions (what replay stores) in the agent's space.
func (r *runner) scaleActions() [][]float64 {
	lo, hi := r.spec.ActLow, r.spec.ActHigh
	if r.scaled == nil {
		r.scaled = make([][]float64, len(r.actions))
		for i := range r.scaled {
			r.scaled[i] = make([]float64, len(r.actions[i]))
		}
	}
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

func (r *runner) endEpisode(i int) {
	push := func(s *[]float64, v float64) {
		*s = append(*s, v)
		if len(*s) > recentEpisodes {
			*s = (*s)[1:]
		}
	}
	push(&r.recentRet, r.epRet[i])
	push(&r.recentLen, float64(r.epT[i]))
	push(&r.recentSucc, b2f(r.epSucc[i]))
	r.episodes++
	r.epID[i] = r.nextEpisode
	r.nextEpisode++
	r.epT[i], r.epRet[i], r.epSucc[i] = 0, 0, false
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// train runs the gradient updates the step count calls for.
func (r *runner) train() error {
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
	for r.updates < target {
		attend(r.sampler, r.obs, r.updates) // AER's current state
		if !r.sampler.Sample(r.batch, r.rng) {
			return nil
		}
		k := 0
		if r.vlmrb != nil {
			k = r.vlmrb.LastPrioritized()
		}
		r.diag.batch(r.batch, k, r.buf.Len())
		if r.rm != nil {
			r.rm.apply(r.batch, r.rng)
		}
		m, err := r.agent.Update(r.batch)
		if err != nil {
			return err
		}
		r.lastUpd, r.haveUpd = m, true
		r.updates++
		var sig []float32
		switch {
		case cfg.Replay == "per", cfg.Replay == "ero", cfg.Replay == "vlmrb" && cfg.Buffer.TDProduct:
			sig = r.agent.TDErrors()
		case cfg.Replay == "relo":
			sig = r.agent.ReLoScores()
		}
		if sig != nil {
			for i, v := range sig {
				r.prioBuf[i] = float64(v)
			}
			r.sampler.UpdatePriorities(r.batch.Refs, r.prioBuf[:len(sig)])
		}
	}
	return nil
}

// rates returns env steps/s and updates/s of this process.
func (r *runner) rates() (float64, float64) {
	el := time.Since(r.sessionStart).Seconds()
	if el <= 0 {
		return 0, 0
	}
	return float64(r.step-r.startStep) / el, float64(r.updates-r.startUpdates) / el
}

// logRow writes one metrics row and prints the console table.
func (r *runner) logRow() error {
	v := map[string]float64{
		"rollout/ep_rew_mean":  mean(r.recentRet),
		"rollout/ep_len_mean":  mean(r.recentLen),
		"rollout/success_rate": mean(r.recentSucc),
		"time/episodes":        float64(r.episodes),
		"time/total_updates":   float64(r.updates),
		"time/elapsed_s":       r.elapsedBefore + time.Since(r.sessionStart).Seconds(),
	}
	sps, ups := r.rates()
	v["time/fps"], v["time/updates_per_s"] = sps, ups
	if r.haveUpd {
		r.lastUpd.Range(func(k string, x float64) { v[k] = x })
	}
	if r.score != nil {
		r.score.metrics(r, v)
	}
	r.diag.metrics(v, r.buf.Len())
	if r.rm != nil {
		r.rm.metrics(v)
	}
	if err := r.mlog.Write(Row{Step: r.step, Values: v}); err != nil {
		return err
	}
	if r.out != nil {
		if r.prog != nil {
			r.prog.Clear()
		}
		// the table shows the latest evaluation; the files keep it in its own rows
		if r.lastEval != nil {
			v["eval/success_rate"] = r.lastEval.SuccessRate
			v["eval/mean_return"] = r.lastEval.MeanReturn
		}
		_, _ = fmt.Fprint(r.out, FormatTable(r.step, v))
	}
	return nil
}

// evalAndLog evaluates the deterministic policy, logs eval/ metrics and
// refreshes the curves.
func (r *runner) evalAndLog(ctx context.Context, final bool) error {
	if r.cfg.Eval.Episodes == 0 {
		return nil
	}
	gif := ""
	if r.cfg.Eval.GIF && r.evalCam == nil && r.camErr == nil {
		r.evalCam, r.camErr = NewSimCamera(r.cfg.VLM.Backend, r.cfg.VLM.Camera, r.cfg.VLM.Theme, r.cfg.Eval.GIFSize, r.cfg.Eval.GIFSize, r.evalEnv)
		if r.camErr != nil {
			r.warnf("no evaluation GIFs: %v", r.camErr)
		}
	}
	if r.evalCam != nil {
		gif = filepath.Join(r.cfg.Out, "videos", fmt.Sprintf("eval-%09d.gif", r.step))
	}
	res, err := Evaluate(ctx, r.evalEnv, r.agentPolicy(), EvalOptions{
		Episodes: r.cfg.Eval.Episodes, Seed: r.cfg.Seed ^ evalSeedSalt,
		GIF: gif, Cam: r.evalCam, Warnf: r.warnf,
	})
	if err != nil {
		return err
	}
	r.lastEval = res
	if final {
		r.res.FinalEval = res
	}
	afterEval(r.sampler, res.MeanReturn) // ERO's replay reward
	if gif != "" {
		if _, err := os.Stat(gif); err == nil {
			r.res.GIFs = append(r.res.GIFs, gif)
		}
	}
	row := Row{Step: r.step, Values: map[string]float64{
		"eval/success_rate":   res.SuccessRate,
		"eval/mean_return":    res.MeanReturn,
		"eval/std_return":     res.StdReturn,
		"eval/mean_ep_length": res.MeanLength,
		"eval/episodes":       float64(res.Episodes),
	}}
	expertRho := math.NaN()
	if r.rm != nil {
		rho, byStage, err := r.rm.expertRank(ctx, r.evalEnv, r.cfg.Seed^evalSeedSalt^0xe4)
		if err != nil {
			r.warnf("reward on an expert episode: %v", err)
		} else if !math.IsNaN(rho) {
			row.Values["eval/reward_expert_spearman"] = rho
			expertRho = rho
		}
		for k, v := range byStage {
			row.Values[fmt.Sprintf("eval/reward_expert_stage_%d", k)] = v
		}
	}
	if r.score != nil {
		// the paper's Fig. 3 check: clip scores against the critic's ΔQ
		rho, err := scoreValueCorrelation(ctx, r, r.score, r.cfg.Seed^evalSeedSalt^0xd9, 4)
		if err != nil {
			r.warnf("score vs ΔQ on an expert episode: %v", err)
		} else if !math.IsNaN(rho) {
			row.Values["eval/score_dq_spearman"] = rho
		}
	}
	if err := r.mlog.Write(row); err != nil {
		return err
	}
	if r.out != nil {
		if r.prog != nil {
			r.prog.Clear()
		}
		_, _ = fmt.Fprintf(r.out, "eval @ %d: success rate %.2f, mean return %.1f ± %.1f (%d episodes)",
			r.step, res.SuccessRate, res.MeanReturn, res.StdReturn, res.Episodes)
		if !math.IsNaN(expertRho) {
			_, _ = fmt.Fprintf(r.out, "; learned reward vs progress on an expert episode: Spearman %.2f", expertRho)
		}
		_, _ = fmt.Fprintln(r.out)
	}
	return r.plot()
}

func (r *runner) plot() error {
	paths, err := PlotCurves(filepath.Join(r.cfg.Out, "curves"), fmt.Sprintf("%s / %s", r.cfg.Task, r.cfg.Replay), r.mlog.Rows())
	if err != nil {
		r.warnf("learning curves: %v", err)
		return nil
	}
	r.res.Curves = paths
	return nil
}

// agentPolicy is the deterministic policy for evaluation.
func (r *runner) agentPolicy() control.Policy {
	return control.PolicyFunc(func(obs, dst []float64) { r.agent.Act(dst, obs, true) })
}

// writeBytes adapts an encoder to a CheckpointPart writer.
func writeBytes(encode func() ([]byte, error)) func(io.Writer) error {
	return func(w io.Writer) error {
		b, err := encode()
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
}

// checkpointFlushTimeout bounds VLM-RM's embedding flush at a checkpoint.
const checkpointFlushTimeout = 20 * time.Second

// runState is the loop's part of a checkpoint.
type runState struct {
	NextEpisode   int64     `json:"next_episode"`
	RecentRet     []float64 `json:"recent_returns"`
	RecentLen     []float64 `json:"recent_lengths"`
	RecentSucc    []float64 `json:"recent_successes"`
	HaveUpd       bool      `json:"have_update_metrics"`
	LastUpd       sac.Metrics
	LastEval      *EvalResult `json:"last_eval,omitempty"`
	RewardStart   int64       `json:"reward_start_step,omitempty"`      // erlvlm with pretrain none: env step of the first reward fit
	RewardCatchup int64       `json:"reward_catchup_updates,omitempty"` // erlvlm: extra updates granted at the first fit
}

// checkpoint writes agent, replay buffer, RNG and counters atomically.
func (r *runner) checkpoint() error {
	if err := r.mlog.Sync(); err != nil {
		return err
	}
	pcgState, err := r.pcg.MarshalBinary()
	if err != nil {
		return fmt.Errorf("checkpoint rng: %w", err)
	}
	st := runState{NextEpisode: r.nextEpisode, RecentRet: r.recentRet, RecentLen: r.recentLen,
		RecentSucc: r.recentSucc, HaveUpd: r.haveUpd, LastUpd: r.lastUpd, LastEval: r.lastEval}
	if r.rm != nil {
		st.RewardStart, st.RewardCatchup = r.rm.startStep, r.rm.catchup
	}
	man := &Manifest{
		Step: r.step, Updates: r.updates, Episodes: r.episodes,
		RNG:     map[string]string{"train": hex.EncodeToString(pcgState)},
		Elapsed: r.elapsedBefore + time.Since(r.sessionStart).Seconds(),
	}
	parts := []CheckpointPart{
		{Name: "agent.bin", Write: writeBytes(r.agent.MarshalBinary)},
		{Name: "replay.bin", Write: r.buf.Save},
		{Name: "config.yaml", Write: writeBytes(r.cfg.encode)},
		{Name: "state.json", Write: func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(st)
		}},
	}
	if r.rm != nil {
		// a bounded wait: an unreachable embedding server must not hold up
		// a checkpoint (or Ctrl-C); frames it does not embed stay unset
		ctx, cancel := context.WithTimeout(context.Background(), checkpointFlushTimeout)
		defer cancel()
		parts = append(parts, CheckpointPart{Name: "reward.bin", Write: writeBytes(func() ([]byte, error) { return r.rm.marshal(ctx) })})
	}
	dir, err := SaveCheckpoint(r.cfg.Out, man, parts, r.cfg.Ckpt.Keep)
	if err != nil {
		return err
	}
	r.res.Checkpoint = dir
	return nil
}

// restore loads a checkpoint into the freshly built runner.
func (r *runner) restore(dir string, man *Manifest) error {
	open := func(name string) (*os.File, error) {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("resume: %w", err)
		}
		return f, nil
	}
	ab, err := os.ReadFile(filepath.Join(dir, "agent.bin"))
	if err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	agent, err := sac.Unmarshal(ab)
	if err != nil {
		return fmt.Errorf("resume agent: %w", err)
	}
	r.agent.Close()
	r.agent = agent
	f, err := open("replay.bin")
	if err != nil {
		return err
	}
	err = r.buf.Load(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("resume replay buffer: %w", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	var st runState
	if err := json.Unmarshal(b, &st); err != nil {
		return fmt.Errorf("resume: state.json: %w", err)
	}
	h, err := hex.DecodeString(man.RNG["train"])
	if err == nil {
		err = r.pcg.UnmarshalBinary(h)
	}
	if err != nil {
		return fmt.Errorf("resume: rng state: %w", err)
	}
	r.step, r.updates, r.episodes = man.Step, man.Updates, man.Episodes
	r.elapsedBefore = man.Elapsed
	r.nextEpisode = st.NextEpisode
	r.recentRet, r.recentLen, r.recentSucc = st.RecentRet, st.RecentLen, st.RecentSucc
	r.haveUpd, r.lastUpd, r.lastEval = st.HaveUpd, st.LastUpd, st.LastEval
	if r.rm != nil {
		rb, err := os.ReadFile(filepath.Join(dir, "reward.bin"))
		if err != nil {
			return fmt.Errorf("resume reward model: %w", err)
		}
		if err := r.rm.unmarshal(rb); err != nil {
			return fmt.Errorf("resume reward model (%s): %w", filepath.Join(dir, "reward.bin"), err)
		}
		r.rm.startStep, r.rm.catchup = st.RewardStart, st.RewardCatchup
	}
	return nil
}

// finish runs the end-of-run evaluation, checkpoint and plots.
func (r *runner) finish(ctx context.Context, loopErr error) error {
	if r.mlog == nil {
		return loopErr
	}
	if r.score != nil {
		r.score.stop()
	}
	interrupted := errors.Is(loopErr, context.Canceled) || errors.Is(loopErr, context.DeadlineExceeded)
	var diverged *sac.DivergedError
	switch {
	case loopErr == nil:
		if err := r.evalAndLog(ctx, true); err != nil {
			return err
		}
		if !crossed(r.step, int64(r.cfg.NumEnvs), r.cfg.Log.Every) {
			if err := r.logRow(); err != nil {
				return err
			}
		}
	case interrupted:
		r.res.Interrupted = true
	case errors.As(loopErr, &diverged):
		// never checkpoint a diverged agent over the last good one
		r.fillResult()
		return loopErr
	default:
		r.fillResult()
		return loopErr
	}
	if r.prog != nil {
		r.prog.Clear()
	}
	if err := r.checkpoint(); err != nil {
		return errors.Join(loopErr, err)
	}
	_ = r.plot()
	r.fillResult()
	return loopErr
}

func (r *runner) fillResult() {
	r.res.Step, r.res.Updates, r.res.Episodes = r.step, r.updates, r.episodes
	r.res.Elapsed = time.Since(r.sessionStart)
	r.res.EnvSPS, r.res.UpdatesPS = r.rates()
	r.res.VLMFailures = r.vlm.summary()
}

func (r *runner) close() {
	if r.score != nil {
		r.score.stop()
		r.score.close()
	}
	if r.rm != nil {
		r.rm.close()
	}
	if r.mlog != nil {
		if err := r.mlog.Close(); err != nil {
			r.warnf("closing metric files: %v", err)
		}
	}
	if r.vec != nil {
		_ = r.vec.Close()
	}
	if r.evalCam != nil {
		r.evalCam.Close()
	}
	if r.agent != nil {
		r.agent.Close()
	}
}
