package train

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

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
// 2,000 random steps, a hard target copy every 100 updates (400 env
// steps), ε from 1 to 0.05 over the first 40% of the run, 3-step returns
// and the Double-DQN target. Chosen on doorkey-5x5 with uniform replay and
// 100k steps (studies/doorkey5-dqn*.yaml, bench/RESULTS.md): with a copy
// every 250 updates 2 of 15 seeds ended at ≥ 0.9 eval success; every 100,
// 14 of 15 (the 15th at 0.8): 5 calibration seeds, then 10 fresh ones.
func DefaultDQNConfig() DQNConfig {
	return DQNConfig{
		Hidden: []int{128, 128}, Gamma: 0.99, LR: 5e-4, BatchSize: 64,
		LearningStarts: 2000, TrainFreq: 4, TargetFreq: 100, Tau: 1,
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

// ResolvedReplay is the replay sampler a run uses: Replay, or for "auto"
// (the default) PER with DQN and uniform replay with SAC. On DoorKey-8×8
// with two planner demonstrations PER beat uniform replay with
// P(> uniform) 0.955 [0.84, 1.00] (studies/doorkey-demos, seeds 11–20)
// and again on fresh seeds under a rule fixed before they ran, 0.935
// [0.81, 1.00] (studies/doorkey-themes, 21–30). SAC's uniform default is
// studies/default-dense's.
func (c *Config) ResolvedReplay() string {
	if c.Replay == "" || c.Replay == "auto" {
		if c.ResolvedAlgo() == "dqn" {
			return "per"
		}
		return "uniform"
	}
	return c.Replay
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

// dqnRunner is Double DQN on a grid task: environments stepped in turn,
// n-step returns, and VLM-RB's tile-frame scoring, on the shared loop.
type dqnRunner struct {
	*core

	envs    []*grid.Env
	experts []*grid.Planner // per env, for demo episodes
	evalEnv *grid.Env
	epCount []int // episodes started per env, for EpisodeSeed
	seed    uint64

	agent *dqn.Agent
	dcfg  dqn.Config
	score *gridScoring // replay vlmrb

	obs  [][]float64
	act  []float64
	nq   []nstepQueue
	info map[string]float64 // the step's info for the hooks (success)
}

// nstepQueue holds an env's last n (obs, action, reward) for n-step
// returns, and each step's info for the diagnostics.
type nstepQueue struct {
	obs  [][]float64
	act  []float64
	rew  []float64
	step []int32
	lab  []stepLabel
}

// stepLabel is the info of the state after one step: the diagnostics label
// a stored transition (s_t, a_t, R, s_{t+m}) by its own step t, so the
// progress events are the steps that picked up the key, opened the door and
// reached the goal (grid.Stages), each counted once.
type stepLabel struct{ success, stage, progress float64 }

// setup prepares the run directory, environments, agent and replay,
// restoring a checkpoint when resuming.
func (r *dqnRunner) setup(context.Context) error {
	cfg := &r.cfg
	view, err := grid.ParseView(cfg.Grid.View)
	if err != nil {
		return &ConfigError{Msg: err.Error()}
	}
	ckptDir, man, err := r.prepareRunDir()
	if err != nil {
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
	if r.agent, err = dqn.New(r.dqnConfig(), spec.ObsDim, spec.Discrete); err != nil {
		return &ConfigError{Msg: err.Error()}
	}
	r.dcfg = r.agent.Config()

	if r.buf, err = replay.NewBuffer(replay.Config{Capacity: cfg.Buffer.Capacity, ObsDim: spec.ObsDim, ActDim: 1,
		ShareNextObs: cfg.Buffer.ShareNextObs}); err != nil {
		return &ConfigError{Msg: err.Error()}
	}
	warm := int64(float64(cfg.Buffer.LambdaWarmup) / float64(cfg.DQN.TrainFreq))
	if err := r.initLoop(spec.ObsDim, 1, cfg.DQN.BatchSize, r.totalUpdates(), warm); err != nil {
		return err
	}
	r.title = fmt.Sprintf("%s / dqn / %s", cfg.Task, cfg.Replay)

	r.seed = cfg.Seed
	if man != nil {
		if err := r.restore(ckptDir, man); err != nil {
			return err
		}
		// fresh episodes after a resume (the interrupted ones are not in the checkpoint)
		r.seed = cfg.Seed ^ uint64(man.Step)*0x9e3779b97f4a7c15
	}
	r.hooks = hookList{r.diag}
	if cfg.Replay == "vlmrb" {
		if r.score, err = newGridScoring(r); err != nil {
			return err
		}
		r.hooks = append(r.hooks, gridScoringHook{s: r.score})
	}

	n := cfg.NumEnvs
	r.obs = make([][]float64, n)
	r.epCount = make([]int, n)
	r.act = []float64{0}
	r.nq = make([]nstepQueue, n)
	r.info = map[string]float64{"success": 0, "stage": 0, "progress": 0}
	for i, e := range r.envs {
		var info control.Info
		r.obs[i], info = e.Reset(control.EpisodeSeed(r.seed, i, 0))
		r.diag.begin(i, info.Values)
		r.epCount[i] = 1
		r.startEpisode(i)
		if r.score != nil {
			r.score.episodeStart(i, e)
		}
	}
	if err := r.openLog(man); err != nil {
		return err
	}
	if r.out != nil {
		_, _ = fmt.Fprintf(r.out, "training %s (%s view) with DQN and %s replay", cfg.Task, view, cfg.Replay)
		if r.score != nil {
			_, _ = fmt.Fprintf(r.out, ", %s scorer (%s)", cfg.Scorer, r.score.describe())
		}
		r.printStart(ckptDir, man)
	}
	return nil
}

// dqnConfig is the agent's configuration from the run's.
func (r *dqnRunner) dqnConfig() dqn.Config {
	d := r.cfg.DQN
	dc := dqn.DefaultConfig()
	dc.Hidden, dc.Gamma, dc.LR, dc.BatchSize = d.Hidden, d.Gamma, d.LR, d.BatchSize
	dc.TargetFrequency, dc.Tau, dc.NStep = d.TargetFreq, d.Tau, d.NStep
	dc.MaxGradNorm = d.MaxGradNorm
	if d.MaxGradNorm == 0 {
		dc.MaxGradNorm = -1 // 0 disables in the config file; dqn takes a negative value for that
	}
	dc.EpsStart, dc.EpsEnd, dc.LearningStarts = d.EpsStart, d.EpsEnd, d.LearningStarts
	dc.EpsDecaySteps = int64(d.EpsFraction * float64(max(r.cfg.Steps-d.LearningStarts, 0)))
	dc.Categorical = r.evalEnv.Cardinalities()
	dc.Double = d.Double
	dc.ReLo = r.cfg.Replay == "relo"
	dc.Seed = r.cfg.Seed
	return dc
}

// totalUpdates is the number of gradient updates the budget implies.
func (r *dqnRunner) totalUpdates() int64 {
	return max(r.cfg.Steps-r.cfg.DQN.LearningStarts, 0) / int64(r.cfg.DQN.TrainFreq)
}

// collect steps every env in turn with an ε-greedy action (uniform random
// before learning starts), resetting finished episodes.
func (r *dqnRunner) collect(context.Context) error {
	eps := r.dcfg.Epsilon(r.step)
	for i, e := range r.envs {
		switch {
		case r.demo(i):
			if r.experts == nil {
				r.experts = make([]*grid.Planner, r.cfg.NumEnvs)
			}
			if r.experts[i] == nil || r.experts[i].Env != e {
				r.experts[i] = grid.Expert(e)
			}
			r.act[0] = float64(r.experts[i].Next())
		case r.step < r.cfg.DQN.LearningStarts || r.rng.Float64() < eps:
			r.act[0] = float64(r.rng.IntN(grid.NumActions))
		default:
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
		lab := stepLabel{b2f(info.Success()), info.Get("stage"), info.Get("progress")}
		if err := r.store(i, a, rew, next, term, trunc, lab); err != nil {
			return err
		}
		r.record(i, rew, info.Success(), term || trunc)
		if term || trunc {
			next, info = e.Reset(control.EpisodeSeed(r.seed, i, r.epCount[i]))
			r.diag.begin(i, info.Values)
			r.epCount[i]++
			if r.score != nil {
				r.score.episodeStart(i, e)
			}
		}
		r.obs[i] = next
	}
	r.step += int64(r.cfg.NumEnvs)
	return nil
}

// store queues env i's step for n-step returns and adds every transition
// that is complete: (s_t, a_t, Σ_{k<m} γ^k r_{t+k}, s_{t+m}) with m = n,
// or the m < n steps left when the episode ends (terminated: no bootstrap;
// truncated: the learner bootstraps with γⁿ, a small bias at time limits).
func (r *dqnRunner) store(i int, a, rew float64, next []float64, term, trunc bool, lab stepLabel) error {
	q := &r.nq[i]
	q.obs = append(q.obs, r.obs[i])
	q.act = append(q.act, a)
	q.rew = append(q.rew, rew)
	q.step = append(q.step, r.epT[i])
	q.lab = append(q.lab, lab)
	nstep := r.cfg.DQN.NStep
	done := term || trunc
	emit := func() error {
		ret, g := 0.0, 1.0
		for _, v := range q.rew {
			ret += g * v
			g *= r.cfg.DQN.Gamma
		}
		t := replay.Transition{
			Obs: q.obs[0], Action: q.act[:1], Reward: ret, NextObs: next,
			Terminated: term, Truncated: trunc,
			Env: int32(i), Episode: r.epID[i], Step: q.step[0],
		}
		last := done && len(q.rew) == 1
		r.info["success"], r.info["stage"], r.info["progress"] = q.lab[0].success, q.lab[0].stage, q.lab[0].progress
		q.obs, q.act, q.rew, q.step, q.lab = q.obs[1:], q.act[1:], q.rew[1:], q.step[1:], q.lab[1:]
		_, err := r.add(r.step, i, t, r.info, last)
		return err
	}
	if !done {
		if len(q.rew) == nstep {
			return emit()
		}
		return nil
	}
	for len(q.rew) > 0 {
		if err := emit(); err != nil {
			return err
		}
	}
	r.nq[i] = nstepQueue{}
	return nil
}

// train runs the gradient updates the step count calls for: one per
// train_freq env steps after learning_starts.
func (r *dqnRunner) train(context.Context) error {
	cfg := &r.cfg
	if r.step < cfg.DQN.LearningStarts || r.buf.Len() < cfg.DQN.BatchSize {
		return nil
	}
	return r.update((r.step-cfg.DQN.LearningStarts)/int64(cfg.DQN.TrainFreq), r.obs, dqnUpdater{r.agent})
}

// dqnUpdater is the DQN agent's gradient step for core.update.
type dqnUpdater struct{ a *dqn.Agent }

func (dqnUpdater) prepare(*replay.Batch) {}

func (u dqnUpdater) update(b *replay.Batch) (UpdateMetrics, error) { return u.a.Update(b) }

func (u dqnUpdater) signal(f feedback) []float32 {
	switch f {
	case tdFeedback:
		return u.a.TDErrors()
	case reloFeedback:
		return u.a.ReLoScores()
	}
	return nil
}

// values adds the exploration rate and the VLM-RB group to a log row.
func (r *dqnRunner) values(v map[string]float64) {
	v["rollout/exploration"] = r.dcfg.Epsilon(r.step)
	if r.score != nil {
		r.score.metrics(v)
	}
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

// evaluate runs the greedy policy (ε = dqn.eval_eps) and records a GIF
// when asked.
func (r *dqnRunner) evaluate(ctx context.Context) (*EvalResult, map[string]float64, error) {
	// evaluation draws its own ε stream so it does not perturb training's
	// (EvalRun draws the same one)
	seed := EvalSeed(r.cfg)
	pol := dqnEvalPolicy(r.agent, r.cfg.DQN.EvalEps, rand.New(rand.NewPCG(seed, uint64(r.step))))
	res, err := EvaluateGrid(ctx, r.evalEnv, pol, r.cfg.Eval.Episodes, seed)
	if err != nil {
		return nil, nil, err
	}
	if r.cfg.Eval.GIF {
		if gif, err := r.evalGIF(); err != nil {
			r.warnf("evaluation GIF: %v", err)
		} else {
			r.res.GIFs = append(r.res.GIFs, gif)
		}
	}
	return res, nil, nil
}

// dqnRunState is the DQN loop's part of a checkpoint.
type dqnRunState struct {
	loopState
	LastUpd dqn.Metrics `json:"last_update"`
}

func (r *dqnRunner) checkpoint() error {
	st := dqnRunState{loopState: r.loopState()}
	if m, ok := r.lastUpd.(dqn.Metrics); ok {
		st.LastUpd = m
	}
	return r.save(r.agent.MarshalBinary, st)
}

func (r *dqnRunner) restore(dir string, man *Manifest) error {
	var st dqnRunState
	ab, err := r.core.restore(dir, man, &st, &st.loopState)
	if err != nil {
		return err
	}
	agent, err := dqn.Unmarshal(ab)
	if err != nil {
		return fmt.Errorf("resume agent: %w", err)
	}
	r.agent = agent
	r.dcfg = agent.Config()
	if st.HaveUpd {
		r.lastUpd = st.LastUpd
	}
	return nil
}

func (r *dqnRunner) stop() {
	if r.score != nil {
		r.score.stop()
	}
}

func (r *dqnRunner) close() {
	r.stop()
	r.closeLog()
}

// gridScoringHook hands every stored transition to VLM-RB's clipper.
type gridScoringHook struct {
	NopHook
	s *gridScoring
}

func (h gridScoringHook) OnStep(e StepEvent) error {
	h.s.push(e.Env, e.Ref, e.Done)
	return nil
}

func (r *dqnRunner) marshalAgent() ([]byte, error) { return r.agent.MarshalBinary() }
