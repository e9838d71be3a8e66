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
	"github.com/vlmrb/vlmrb/dqn"
	"github.com/vlmrb/vlmrb/nn"
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/tasks/grid"
)

// AlgoChoices are the learners train can run: auto picks dqn for discrete
// tasks (the grid tasks) and sac for the manipulation tasks.
var AlgoChoices = []string{"auto", "sac", "dqn"}

// DQNConfig holds the Double DQN hyperparameters of discrete tasks (the
// `dqn:` section of a config file). Defaults: DefaultDQNConfig.
type DQNConfig struct {
	Hidden         []int   `yaml:"hidden"`          // hidden layer widths of the Q network
	Gamma          float64 `yaml:"gamma"`           // discount
	LR             float64 `yaml:"lr"`              // Adam step size
	BatchSize      int     `yaml:"batch_size"`      // transitions per update
	LearningStarts int64   `yaml:"learning_starts"` // env steps of uniform random actions before updates
	TrainFreq      int     `yaml:"train_freq"`      // env steps (all envs) per gradient update
	TargetFreq     int     `yaml:"target_freq"`     // updates between target-network updates
	Tau            float64 `yaml:"tau"`             // target update coefficient (1: hard copy)
	EpsStart       float64 `yaml:"eps_start"`       // ε at learning_starts
	EpsEnd         float64 `yaml:"eps_end"`         // final ε
	EpsFraction    float64 `yaml:"eps_fraction"`    // fraction of the post-learning_starts budget over which ε decays linearly
	EvalEps        float64 `yaml:"eval_eps"`        // ε of evaluation episodes (0: greedy)
	NStep          int     `yaml:"n_step"`          // n-step returns (1: one-step TD)
	MaxGradNorm    float64 `yaml:"max_grad_norm"`   // gradient clip (L2 norm)
	Double         bool    `yaml:"double"`          // Double DQN target (false: vanilla max over the target net)
}

// GridConfig configures the grid tasks (the `grid:` section). Grid tasks
// ignore max_episode_len (its default suits the manipulation tasks) and
// take their time limit from max_steps.
type GridConfig struct {
	View     string `yaml:"view"`      // egocentric (MiniGrid's 7×7×3 agent view) | full (FullyObsWrapper)
	MaxSteps int    `yaml:"max_steps"` // episode time limit (0: MiniGrid's 10·size²; it also scales the reward)
}

// DefaultDQNConfig returns the defaults used for DoorKey: a 128×128
// network on one-hot codes, batch 64, an update every 4 env steps after
// 2,000 random steps, a hard target copy every 250 updates (1,000 env
// steps), ε from 1 to 0.05 over the first 40% of the run, 3-step returns
// and the Double-DQN target. Chosen on doorkey-5x5 (see bench/RESULTS.md).
func DefaultDQNConfig() DQNConfig {
	return DQNConfig{
		Hidden: []int{128, 128}, Gamma: 0.99, LR: 5e-4, BatchSize: 64,
		LearningStarts: 2000, TrainFreq: 4, TargetFreq: 250, Tau: 1,
		EpsStart: 1, EpsEnd: 0.05, EpsFraction: 0.4, NStep: 3, MaxGradNorm: 10, Double: true,
	}
}

// IsDiscrete reports whether the task has a discrete action space (the
// grid tasks).
func IsDiscrete(task string) bool { return grid.IsGrid(task) }

// ResolvedAlgo returns the learner a config runs: Algo, or for auto dqn on
// discrete tasks and sac otherwise.
func (c *Config) ResolvedAlgo() string {
	if c.Algo == "" || c.Algo == "auto" {
		if IsDiscrete(c.Task) {
			return "dqn"
		}
		return "sac"
	}
	return c.Algo
}

// validateDQN checks the algo choice and, for dqn, the dqn and grid
// sections.
func (c *Config) validateDQN(add func(error)) {
	if c.Algo != "" {
		add(oneOf("algo", c.Algo, AlgoChoices))
	}
	algo := c.ResolvedAlgo()
	switch {
	case algo == "dqn" && c.Task != "" && !IsDiscrete(c.Task):
		add(badf("algo dqn needs a discrete task (%v); %s has continuous actions: use --algo sac", grid.Names(), c.Task))
	case algo == "sac" && IsDiscrete(c.Task):
		add(badf("task %s has discrete actions: use --algo dqn (or auto)", c.Task))
	}
	if algo != "dqn" {
		return
	}
	d := c.DQN
	if _, err := grid.ParseView(c.Grid.View); err != nil {
		add(badf("grid.view %q is not one of egocentric|full", c.Grid.View))
	}
	if c.Grid.MaxSteps < 0 {
		add(badf("grid.max_steps must be ≥ 0 (0: MiniGrid's 10·size²)"))
	}
	if len(d.Hidden) == 0 {
		add(badf("dqn.hidden needs at least one layer width"))
	}
	for _, h := range d.Hidden {
		if h <= 0 {
			add(badf("dqn.hidden widths must be > 0 (got %d)", h))
		}
	}
	if d.Gamma <= 0 || d.Gamma > 1 {
		add(badf("dqn.gamma must be in (0, 1] (got %g)", d.Gamma))
	}
	if d.LR <= 0 {
		add(badf("dqn.lr must be > 0 (got %g)", d.LR))
	}
	if d.BatchSize <= 0 || d.TrainFreq <= 0 || d.TargetFreq <= 0 || d.NStep <= 0 {
		add(badf("dqn.batch_size, dqn.train_freq, dqn.target_freq and dqn.n_step must be > 0"))
	}
	if d.LearningStarts < 0 {
		add(badf("dqn.learning_starts must be ≥ 0 (got %d)", d.LearningStarts))
	}
	if d.Tau <= 0 || d.Tau > 1 {
		add(badf("dqn.tau must be in (0, 1] (got %g)", d.Tau))
	}
	for _, e := range []struct {
		name string
		v    float64
	}{{"eps_start", d.EpsStart}, {"eps_end", d.EpsEnd}, {"eps_fraction", d.EpsFraction}, {"eval_eps", d.EvalEps}} {
		if !(e.v >= 0 && e.v <= 1) {
			add(badf("dqn.%s must be in [0, 1] (got %g)", e.name, e.v))
		}
	}
	if d.MaxGradNorm < 0 {
		add(badf("dqn.max_grad_norm must be ≥ 0 (0 disables)"))
	}
	if d.NStep > 1 && c.Buffer.ShareNextObs {
		add(badf("buffer.share_next_obs needs one-step transitions (a stored next obs is the following transition's obs); set dqn.n_step: 1 or share_next_obs: false"))
	}
	if c.Buffer.Capacity < d.BatchSize {
		add(badf("buffer.capacity (%d) is smaller than dqn.batch_size (%d)", c.Buffer.Capacity, d.BatchSize))
	}
	if c.Reward != "sparse" && c.Reward != "dense" {
		add(badf("reward %s is not available for grid tasks: they have MiniGrid's own reward (use dense or sparse, which are the same there)", c.Reward))
	}
}

// dqnRunner is one DQN training run on a grid task. It mirrors runner
// (the SAC loop) with a discrete agent and environments stepped in turn.
type dqnRunner struct {
	cfg  Config
	opts Options
	out  io.Writer
	errw io.Writer

	envs    []*grid.Env
	evalEnv *grid.Env
	epCount []int // episodes started per env, for EpisodeSeed
	seed    uint64

	agent   *dqn.Agent
	dcfg    dqn.Config
	buf     *replay.Buffer
	sampler replay.Sampler
	vlmrb   *replay.VLMRB
	batch   *replay.Batch
	prioBuf []float64
	score   *gridScoring // replay vlmrb

	pcg *rand.PCG
	rng *rand.Rand

	step, updates, episodes int64
	nextEpisode             int64
	startStep, startUpdates int64
	sessionStart            time.Time
	elapsedBefore           float64

	obs    [][]float64
	act    []float64
	epID   []int64
	epT    []int32
	epRet  []float64
	epSucc []bool
	nq     []nstepQueue

	recentRet, recentLen, recentSucc []float64

	mlog     *MetricsLog
	prog     *Progress
	lastUpd  dqn.Metrics
	haveUpd  bool
	lastEval *EvalResult
	res      *Result
}

// nstepQueue holds an env's last n (obs, action, reward) for n-step
// returns.
type nstepQueue struct {
	obs  [][]float64
	act  []float64
	rew  []float64
	step []int32
}

// runDQN is Run for config whose resolved algo is dqn.
func runDQN(ctx context.Context, cfg Config, opts Options) (*Result, error) {
	r := &dqnRunner{cfg: cfg, opts: opts, errw: opts.Stderr}
	if r.errw == nil {
		r.errw = io.Discard
	}
	if !opts.Quiet && opts.Stdout != nil {
		r.out = opts.Stdout
	}
	r.res = &Result{RunDir: cfg.Out}
	lk, err := lockRunDir(cfg.Out, r.warnf)
	if err != nil {
		return nil, err
	}
	defer func() { _ = lk.Release() }()
	defer r.close()
	if err := r.setup(); err != nil {
		if errors.Is(err, errFinished) {
			return r.res, nil
		}
		return r.res, err
	}
	err = r.loop(ctx)
	return r.res, r.finish(ctx, err)
}

func (r *dqnRunner) warnf(format string, a ...any) {
	_, _ = fmt.Fprintf(r.errw, "warning: "+format+"\n", a...)
}

// setup prepares the run directory, environments, agent and replay,
// restoring a checkpoint when resuming.
func (r *dqnRunner) setup() error {
	cfg := &r.cfg
	view, err := grid.ParseView(cfg.Grid.View)
	if err != nil {
		return &ConfigError{Msg: err.Error()}
	}
	// the run directory: the SAC runner's rules (fresh, resume, finished)
	sr := &runner{cfg: *cfg, opts: r.opts, errw: r.errw, res: r.res}
	sr.cfg.SAC.BatchSize = cfg.DQN.BatchSize
	ckptDir, man, err := sr.openRunDir()
	if err != nil {
		return err
	}
	cfg.Buffer.Capacity = sr.cfg.Buffer.Capacity
	for _, d := range []string{"", "curves", "videos"} {
		if err := os.MkdirAll(filepath.Join(cfg.Out, d), 0o755); err != nil {
			return fmt.Errorf("create run directory: %w", err)
		}
	}
	if err := SaveConfig(filepath.Join(cfg.Out, "config.yaml"), cfg); err != nil {
		return err
	}

	gopts := grid.Options{View: view, MaxSteps: cfg.Grid.MaxSteps}
	r.envs = make([]*grid.Env, cfg.NumEnvs)
	for i := range r.envs {
		if r.envs[i], err = grid.Make(cfg.Task, gopts); err != nil {
			return &ConfigError{Msg: err.Error() + " (robot-train tasks lists them)"}
		}
	}
	if r.evalEnv, err = grid.Make(cfg.Task, gopts); err != nil {
		return &ConfigError{Msg: err.Error()}
	}
	spec := r.evalEnv.Spec()

	if err := nn.SetBackend(cfg.BLAS); err != nil {
		return &ConfigError{Msg: err.Error()}
	}
	d := cfg.DQN
	dc := dqn.DefaultConfig()
	dc.Hidden, dc.Gamma, dc.LR, dc.BatchSize = d.Hidden, d.Gamma, d.LR, d.BatchSize
	dc.TargetFrequency, dc.Tau, dc.NStep = d.TargetFreq, d.Tau, d.NStep
	dc.MaxGradNorm = d.MaxGradNorm
	if d.MaxGradNorm == 0 {
		dc.MaxGradNorm = -1 // 0 disables in the config file; dqn takes a negative value for that
	}
	dc.EpsStart, dc.EpsEnd, dc.LearningStarts = d.EpsStart, d.EpsEnd, d.LearningStarts
	dc.EpsDecaySteps = int64(d.EpsFraction * float64(max(cfg.Steps-d.LearningStarts, 0)))
	dc.Categorical = r.evalEnv.Cardinalities()
	dc.Double = d.Double
	dc.ReLo = cfg.Replay == "relo"
	dc.Seed = cfg.Seed
	if r.agent, err = dqn.New(dc, spec.ObsDim, spec.Discrete); err != nil {
		return &ConfigError{Msg: err.Error()}
	}
	r.dcfg = r.agent.Config()

	if r.buf, err = replay.NewBuffer(replay.Config{Capacity: cfg.Buffer.Capacity, ObsDim: spec.ObsDim, ActDim: 1,
		ShareNextObs: cfg.Buffer.ShareNextObs}); err != nil {
		return &ConfigError{Msg: err.Error()}
	}
	total := r.totalUpdates()
	if r.sampler, r.vlmrb, err = newSampler(cfg, r.buf, total, int64(float64(cfg.Buffer.LambdaWarmup)/float64(d.TrainFreq))); err != nil {
		return err
	}
	r.batch = replay.NewBatch(d.BatchSize, spec.ObsDim, 1)
	r.prioBuf = make([]float64, d.BatchSize)
	r.pcg = rand.NewPCG(cfg.Seed, 0x7261696e)
	r.rng = rand.New(r.pcg)

	r.seed = cfg.Seed
	if man != nil {
		if err := r.restore(ckptDir, man); err != nil {
			return err
		}
		// fresh episodes after a resume (the interrupted ones are not in the checkpoint)
		r.seed = cfg.Seed ^ uint64(man.Step)*0x9e3779b97f4a7c15
		r.res.Resumed, r.res.ResumedFrom = true, man.Step
	}
	if cfg.Replay == "vlmrb" {
		if r.score, err = newGridScoring(r); err != nil {
			return err
		}
	}

	n := cfg.NumEnvs
	r.obs = make([][]float64, n)
	r.epCount = make([]int, n)
	r.act = []float64{0}
	r.epID, r.epT, r.epRet, r.epSucc = make([]int64, n), make([]int32, n), make([]float64, n), make([]bool, n)
	r.nq = make([]nstepQueue, n)
	for i, e := range r.envs {
		r.obs[i], _ = e.Reset(control.EpisodeSeed(r.seed, i, 0))
		r.epCount[i] = 1
		r.epID[i] = r.nextEpisode
		r.nextEpisode++
		if r.score != nil {
			r.score.episodeStart(i, e)
		}
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
		_, _ = fmt.Fprintf(r.out, "training %s (%s view) with DQN and %s replay", cfg.Task, view, cfg.Replay)
		if r.score != nil {
			_, _ = fmt.Fprintf(r.out, ", %s scorer (%s)", cfg.Scorer, r.score.describe())
		}
		_, _ = fmt.Fprintf(r.out, " for %d env steps on %d envs, seed %d → %s\n", cfg.Steps, n, cfg.Seed, cfg.Out)
		if man != nil {
			_, _ = fmt.Fprintf(r.out, "resumed from %s (step %d, %d updates)\n", ckptDir, man.Step, man.Updates)
		}
	}
	return nil
}

// newSampler builds the configured replay sampler over buf. totalUpdates
// anneals PER's β; warmupSamples is VLM-RB's λ warm-up in Sample calls.
func newSampler(cfg *Config, buf *replay.Buffer, totalUpdates, warmupSamples int64) (replay.Sampler, *replay.VLMRB, error) {
	b := cfg.Buffer
	var (
		s   replay.Sampler
		v   *replay.VLMRB
		err error
	)
	switch cfg.Replay {
	case "uniform":
		s = replay.NewUniform(buf)
	case "per", "relo":
		pc := replay.DefaultPERConfig()
		if cfg.Replay == "relo" {
			pc = replay.DefaultReLoConfig()
		}
		pc.Alpha, pc.Beta0, pc.Eps = b.PERAlpha, b.PERBeta0, b.PEREps
		pc.BetaSteps = totalUpdates
		var p *replay.PER
		if cfg.Replay == "per" {
			p, err = replay.NewPER(buf, pc)
		} else {
			p, err = replay.NewReLo(buf, pc)
		}
		s = p
	case "vlmrb":
		vc := replay.DefaultVLMRBConfig()
		vc.LambdaMax, vc.Default = b.LambdaMax, b.DefaultPrio
		vc.Threshold, vc.Floor, vc.Alpha = b.Threshold, b.ScoreFloor, b.VLMAlpha
		if b.ScoreMap == "raw" {
			vc.Mapping = replay.MapRaw
		}
		vc.UseTD, vc.ISWeights = b.TDProduct, b.ImportanceIS
		vc.Beta0, vc.BetaSteps = b.PERBeta0, totalUpdates
		vc.WarmupSteps = warmupSamples
		v, err = replay.NewVLMRB(buf, vc)
		s = v
	case "aer", "ero":
		s, err = newBaselineSampler(cfg, buf, totalUpdates)
		if err != nil {
			return nil, nil, err
		}
	default:
		return nil, nil, badf("replay %q is not available for DQN (choose one of %v)", cfg.Replay, ReplayChoices)
	}
	if err != nil {
		return nil, nil, &ConfigError{Msg: err.Error()}
	}
	return s, v, nil
}

// totalUpdates is the number of gradient updates the budget implies.
func (r *dqnRunner) totalUpdates() int64 {
	return max(r.cfg.Steps-r.cfg.DQN.LearningStarts, 0) / int64(r.cfg.DQN.TrainFreq)
}

// loop runs env steps, updates, logging, evaluation and checkpoints until
// the budget is spent or ctx is cancelled.
func (r *dqnRunner) loop(ctx context.Context) error {
	cfg := &r.cfg
	n := int64(cfg.NumEnvs)
	for r.step < cfg.Steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		eps := r.dcfg.Epsilon(r.step)
		for i, e := range r.envs {
			if r.step < cfg.DQN.LearningStarts {
				r.act[0] = float64(r.rng.IntN(grid.NumActions))
			} else if r.rng.Float64() < eps {
				r.act[0] = float64(r.rng.IntN(grid.NumActions))
			} else {
				r.act[0] = float64(r.agent.Greedy(r.obs[i]))
			}
			a := r.act[0]
			next, rew, term, trunc, info, err := e.Step(r.act)
			if err != nil {
				return fmt.Errorf("env step: %w", err)
			}
			if r.score != nil {
				r.score.afterStep(i, e)
			}
			r.store(i, a, rew, next, term, trunc)
			r.epRet[i] += rew
			r.epT[i]++
			if info.Success() {
				r.epSucc[i] = true
			}
			if term || trunc {
				r.endEpisode(i)
				next, _ = e.Reset(control.EpisodeSeed(r.seed, i, r.epCount[i]))
				r.epCount[i]++
				if r.score != nil {
					r.score.episodeStart(i, e)
				}
			}
			r.obs[i] = next
		}
		r.step += n
		if err := r.train(); err != nil {
			return err
		}
		if r.prog != nil {
			r.prog.Update(r.step)
		}
		if crossed(r.step, n, cfg.Eval.Every) && r.step < cfg.Steps {
			if err := r.evalAndLog(ctx, false); err != nil {
				return err
			}
		}
		if crossed(r.step, n, cfg.Log.Every) {
			if err := r.logRow(); err != nil {
				return err
			}
		}
		if crossed(r.step, n, cfg.Ckpt.Every) && r.step < cfg.Steps {
			if err := r.checkpoint(); err != nil {
				return err
			}
		}
	}
	return nil
}

// store queues env i's step for n-step returns and adds every transition
// that is complete: (s_t, a_t, Σ_{k<m} γ^k r_{t+k}, s_{t+m}) with m = n,
// or the m < n steps left when the episode ends (terminated: no bootstrap;
// truncated: the learner bootstraps with γⁿ, a small bias at time limits).
func (r *dqnRunner) store(i int, a, rew float64, next []float64, term, trunc bool) {
	q := &r.nq[i]
	q.obs = append(q.obs, r.obs[i])
	q.act = append(q.act, a)
	q.rew = append(q.rew, rew)
	q.step = append(q.step, r.epT[i])
	nstep := r.cfg.DQN.NStep
	done := term || trunc
	emit := func() {
		ret, g := 0.0, 1.0
		for _, v := range q.rew {
			ret += g * v
			g *= r.cfg.DQN.Gamma
		}
		ref := r.buf.Add(replay.Transition{
			Obs: q.obs[0], Action: q.act[:1], Reward: ret, NextObs: next,
			Terminated: term, Truncated: trunc,
			Env: int32(i), Episode: r.epID[i], Step: q.step[0],
		})
		if r.score != nil {
			r.score.push(i, ref, done && len(q.rew) == 1)
		}
		q.obs, q.act, q.rew, q.step = q.obs[1:], q.act[1:], q.rew[1:], q.step[1:]
	}
	if !done {
		if len(q.rew) == nstep {
			emit()
		}
		return
	}
	for len(q.rew) > 0 {
		emit()
	}
	r.nq[i] = nstepQueue{}
}

func (r *dqnRunner) endEpisode(i int) {
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

// train runs the gradient updates the step count calls for: one per
// train_freq env steps after learning_starts.
func (r *dqnRunner) train() error {
	cfg := &r.cfg
	if r.step < cfg.DQN.LearningStarts || r.buf.Len() < cfg.DQN.BatchSize {
		return nil
	}
	target := (r.step - cfg.DQN.LearningStarts) / int64(cfg.DQN.TrainFreq)
	for r.updates < target {
		attend(r.sampler, r.obs, r.updates)
		if !r.sampler.Sample(r.batch, r.rng) {
			return nil
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

func (r *dqnRunner) rates() (float64, float64) {
	el := time.Since(r.sessionStart).Seconds()
	if el <= 0 {
		return 0, 0
	}
	return float64(r.step-r.startStep) / el, float64(r.updates-r.startUpdates) / el
}

func (r *dqnRunner) logRow() error {
	v := map[string]float64{
		"rollout/ep_rew_mean":  mean(r.recentRet),
		"rollout/ep_len_mean":  mean(r.recentLen),
		"rollout/success_rate": mean(r.recentSucc),
		"rollout/exploration":  r.dcfg.Epsilon(r.step),
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
		r.score.metrics(v)
	}
	if err := r.mlog.Write(Row{Step: r.step, Values: v}); err != nil {
		return err
	}
	if r.out != nil {
		if r.prog != nil {
			r.prog.Clear()
		}
		if r.lastEval != nil {
			v["eval/success_rate"] = r.lastEval.SuccessRate
			v["eval/mean_return"] = r.lastEval.MeanReturn
		}
		_, _ = fmt.Fprint(r.out, FormatTable(r.step, v))
	}
	return nil
}

// EvaluateGrid runs episodes of policy on env from seeds
// EpisodeSeed(seed, 0, k) and reports the success rate (the goal reached),
// returns and lengths.
func EvaluateGrid(ctx context.Context, env *grid.Env, policy control.Policy, episodes int, seed uint64) (*EvalResult, error) {
	if episodes <= 0 {
		return nil, fmt.Errorf("evaluate: episodes must be ≥ 1 (got %d)", episodes)
	}
	res := &EvalResult{Episodes: episodes}
	act := []float64{0}
	total := 0
	for k := range episodes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		obs, _ := env.Reset(control.EpisodeSeed(seed, 0, k))
		if rs, ok := policy.(control.Resetter); ok {
			rs.Reset()
		}
		ret, succ, length := 0.0, false, 0
		for {
			policy.Act(obs, act)
			next, rew, term, trunc, info, err := env.Step(act)
			if err != nil {
				return nil, err
			}
			ret += rew
			length++
			succ = succ || info.Success()
			obs = next
			if term || trunc {
				break
			}
		}
		res.Returns = append(res.Returns, ret)
		res.Successes = append(res.Successes, succ)
		res.MeanReturn += ret
		if succ {
			res.SuccessRate++
		}
		total += length
	}
	n := float64(episodes)
	res.MeanReturn /= n
	res.SuccessRate /= n
	res.MeanLength = float64(total) / n
	for _, x := range res.Returns {
		res.StdReturn += (x - res.MeanReturn) * (x - res.MeanReturn)
	}
	res.StdReturn = math.Sqrt(res.StdReturn / n)
	return res, nil
}

func (r *dqnRunner) evalAndLog(ctx context.Context, final bool) error {
	if r.cfg.Eval.Episodes == 0 {
		return nil
	}
	// evaluation draws its own ε stream so it does not perturb training's
	epsRng := rand.New(rand.NewPCG(r.cfg.Seed^evalSeedSalt, uint64(r.step)))
	evalEps := r.cfg.DQN.EvalEps
	pol := control.PolicyFunc(func(obs, dst []float64) {
		if evalEps > 0 && epsRng.Float64() < evalEps {
			dst[0] = float64(epsRng.IntN(grid.NumActions))
			return
		}
		dst[0] = float64(r.agent.Greedy(obs))
	})
	res, err := EvaluateGrid(ctx, r.evalEnv, pol, r.cfg.Eval.Episodes, r.cfg.Seed^evalSeedSalt)
	if err != nil {
		return err
	}
	r.lastEval = res
	if final {
		r.res.FinalEval = res
	}
	afterEval(r.sampler, res.MeanReturn)
	if r.cfg.Eval.GIF {
		if gif, err := r.evalGIF(); err != nil {
			r.warnf("evaluation GIF: %v", err)
		} else {
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
	if err := r.mlog.Write(row); err != nil {
		return err
	}
	if r.out != nil {
		if r.prog != nil {
			r.prog.Clear()
		}
		_, _ = fmt.Fprintf(r.out, "eval @ %d: success rate %.2f, mean return %.2f ± %.2f (%d episodes)\n",
			r.step, res.SuccessRate, res.MeanReturn, res.StdReturn, res.Episodes)
	}
	paths, err := PlotCurves(filepath.Join(r.cfg.Out, "curves"), fmt.Sprintf("%s / dqn / %s", r.cfg.Task, r.cfg.Replay), r.mlog.Rows())
	if err != nil {
		r.warnf("learning curves: %v", err)
	} else {
		r.res.Curves = paths
	}
	return nil
}

// dqnRunState is the loop's part of a checkpoint.
type dqnRunState struct {
	NextEpisode int64       `json:"next_episode"`
	RecentRet   []float64   `json:"recent_returns"`
	RecentLen   []float64   `json:"recent_lengths"`
	RecentSucc  []float64   `json:"recent_successes"`
	HaveUpd     bool        `json:"have_update_metrics"`
	LastUpd     dqn.Metrics `json:"last_update"`
	LastEval    *EvalResult `json:"last_eval,omitempty"`
}

func (r *dqnRunner) checkpoint() error {
	if err := r.mlog.Sync(); err != nil {
		return err
	}
	pcgState, err := r.pcg.MarshalBinary()
	if err != nil {
		return fmt.Errorf("checkpoint rng: %w", err)
	}
	st := dqnRunState{NextEpisode: r.nextEpisode, RecentRet: r.recentRet, RecentLen: r.recentLen,
		RecentSucc: r.recentSucc, HaveUpd: r.haveUpd, LastUpd: r.lastUpd, LastEval: r.lastEval}
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
	dir, err := SaveCheckpoint(r.cfg.Out, man, parts, r.cfg.Ckpt.Keep)
	if err != nil {
		return err
	}
	r.res.Checkpoint = dir
	return nil
}

func (r *dqnRunner) restore(dir string, man *Manifest) error {
	ab, err := os.ReadFile(filepath.Join(dir, "agent.bin"))
	if err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	agent, err := dqn.Unmarshal(ab)
	if err != nil {
		return fmt.Errorf("resume agent: %w", err)
	}
	r.agent = agent
	r.dcfg = agent.Config()
	f, err := os.Open(filepath.Join(dir, "replay.bin"))
	if err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	err = r.buf.Load(f)
	_ = f.Close()
	if err != nil {
		return fmt.Errorf("resume replay buffer: %w", err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "state.json"))
	if err != nil {
		return fmt.Errorf("resume: %w", err)
	}
	var st dqnRunState
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
	return nil
}

func (r *dqnRunner) finish(ctx context.Context, loopErr error) error {
	if r.mlog == nil {
		return loopErr
	}
	if r.score != nil {
		r.score.stop()
	}
	interrupted := errors.Is(loopErr, context.Canceled) || errors.Is(loopErr, context.DeadlineExceeded)
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
	default:
		// never checkpoint a diverged or failed run over the last good one
		r.fillResult()
		return loopErr
	}
	if r.prog != nil {
		r.prog.Clear()
	}
	if err := r.checkpoint(); err != nil {
		return errors.Join(loopErr, err)
	}
	r.fillResult()
	return loopErr
}

func (r *dqnRunner) fillResult() {
	r.res.Step, r.res.Updates, r.res.Episodes = r.step, r.updates, r.episodes
	r.res.Elapsed = time.Since(r.sessionStart)
	r.res.EnvSPS, r.res.UpdatesPS = r.rates()
}

func (r *dqnRunner) close() {
	if r.score != nil {
		r.score.stop()
	}
	if r.mlog != nil {
		if err := r.mlog.Close(); err != nil {
			r.warnf("closing metric files: %v", err)
		}
	}
}

// LoadDQNCheckpoint loads the DQN agent of runDir's newest checkpoint whose
// manifest and agent.bin verify, with the run's config.
func LoadDQNCheckpoint(runDir string) (*dqn.Agent, Config, *AgentCheckpoint, error) {
	cfg := DefaultConfig()
	if err := LoadConfigFile(filepath.Join(runDir, "config.yaml"), &cfg); err != nil {
		return nil, cfg, nil, err
	}
	if cfg.ResolvedAlgo() != "dqn" {
		return nil, cfg, nil, &ConfigError{Msg: fmt.Sprintf("%s is a %s run, not a DQN one", runDir, cfg.ResolvedAlgo())}
	}
	ac, err := LatestAgentCheckpoint(runDir)
	if err != nil {
		return nil, cfg, ac, &ConfigError{Msg: fmt.Sprintf("%v: train longer or let the run reach a checkpoint", err)}
	}
	b, err := os.ReadFile(filepath.Join(ac.Dir, "agent.bin"))
	if err != nil {
		return nil, cfg, ac, err
	}
	a, err := dqn.Unmarshal(b)
	if err != nil {
		return nil, cfg, ac, fmt.Errorf("load agent from %s: %w", ac.Dir, err)
	}
	return a, cfg, ac, nil
}
