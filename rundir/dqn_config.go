package rundir

import (
	"github.com/vlmrb/vlmrb/dqn"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/tasks/grid"
)

// AlgoChoices are the learners train can run: auto picks dqn for discrete
// tasks (the grid tasks) and sac for the manipulation tasks.
var AlgoChoices = []string{"auto", "sac", "dqn"}

// DQNConfig is the `dqn:` section of discrete tasks: the agent's
// hyperparameters (dqn.Config, its yaml keys inline: hidden, gamma, lr,
// batch_size, learning_starts, target_freq, tau, eps_start, eps_end,
// n_step, double) and what the training loop does with them. Defaults:
// DefaultDQNConfig.
type DQNConfig struct {
	dqn.Config  `yaml:",inline"`
	TrainFreq   int     `yaml:"train_freq"`    // env steps (all envs) per gradient update
	EpsFraction float64 `yaml:"eps_fraction"`  // fraction of the post-learning_starts budget over which ε decays linearly
	EvalEps     float64 `yaml:"eval_eps"`      // ε of evaluation episodes (0: greedy)
	MaxGradNorm float64 `yaml:"max_grad_norm"` // gradient clip (L2 norm; 0 disables)
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
	dc := dqn.DefaultConfig()
	dc.Hidden, dc.Gamma, dc.LR, dc.BatchSize = []int{128, 128}, 0.99, 5e-4, 64
	dc.LearningStarts, dc.TargetFrequency, dc.Tau = 2000, 100, 1
	dc.EpsStart, dc.EpsEnd, dc.NStep, dc.Double = 1, 0.05, 3, true
	return DQNConfig{Config: dc, TrainFreq: 4, EpsFraction: 0.4, MaxGradNorm: 10}
}

// ResolvedAlgo returns the learner a config runs: Algo, or for auto dqn on
// discrete tasks and sac otherwise.
func (c *Config) ResolvedAlgo() string {
	if c.Algo == "" || c.Algo == "auto" {
		if tasks.IsDiscrete(c.Task) {
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
	case algo == "dqn" && c.Task != "" && !tasks.IsDiscrete(c.Task):
		add(ConfigErrorf("algo dqn needs a discrete task (%v); %s has continuous actions: use --algo sac", grid.Names(), c.Task))
	case algo == "sac" && tasks.IsDiscrete(c.Task):
		add(ConfigErrorf("task %s has discrete actions: use --algo dqn (or auto)", c.Task))
	}
	if algo != "dqn" {
		return
	}
	d := c.DQN
	if _, err := grid.ParseView(c.Grid.View); err != nil {
		add(ConfigErrorf("grid.view %q is not one of egocentric|full", c.Grid.View))
	}
	if c.Grid.MaxSteps < 0 {
		add(ConfigErrorf("grid.max_steps must be ≥ 0 (0: MiniGrid's 10·size²)"))
	}
	if len(d.Hidden) == 0 {
		add(ConfigErrorf("dqn.hidden needs at least one layer width"))
	}
	for _, h := range d.Hidden {
		if h <= 0 {
			add(ConfigErrorf("dqn.hidden widths must be > 0 (got %d)", h))
		}
	}
	if d.Gamma <= 0 || d.Gamma > 1 {
		add(ConfigErrorf("dqn.gamma must be in (0, 1] (got %g)", d.Gamma))
	}
	if d.LR <= 0 {
		add(ConfigErrorf("dqn.lr must be > 0 (got %g)", d.LR))
	}
	if d.BatchSize <= 0 || d.TrainFreq <= 0 || d.TargetFrequency <= 0 || d.NStep <= 0 {
		add(ConfigErrorf("dqn.batch_size, dqn.train_freq, dqn.target_freq and dqn.n_step must be > 0"))
	}
	if d.LearningStarts < 0 {
		add(ConfigErrorf("dqn.learning_starts must be ≥ 0 (got %d)", d.LearningStarts))
	}
	if d.Tau <= 0 || d.Tau > 1 {
		add(ConfigErrorf("dqn.tau must be in (0, 1] (got %g)", d.Tau))
	}
	for _, e := range []struct {
		name string
		v    float64
	}{{"eps_start", d.EpsStart}, {"eps_end", d.EpsEnd}, {"eps_fraction", d.EpsFraction}, {"eval_eps", d.EvalEps}} {
		if !(e.v >= 0 && e.v <= 1) {
			add(ConfigErrorf("dqn.%s must be in [0, 1] (got %g)", e.name, e.v))
		}
	}
	if d.MaxGradNorm < 0 {
		add(ConfigErrorf("dqn.max_grad_norm must be ≥ 0 (0 disables)"))
	}
	if d.NStep > 1 && c.Buffer.ShareNextObs {
		add(ConfigErrorf("buffer.share_next_obs needs one-step transitions (a stored next obs is the following transition's obs); set dqn.n_step: 1 or share_next_obs: false"))
	}
	if c.Buffer.Capacity < d.BatchSize {
		add(ConfigErrorf("buffer.capacity (%d) is smaller than dqn.batch_size (%d)", c.Buffer.Capacity, d.BatchSize))
	}
	if c.Reward != "sparse" && c.Reward != "dense" {
		add(ConfigErrorf("reward %s is not available for grid tasks: they have MiniGrid's own reward (use dense or sparse, which are the same there)", c.Reward))
	}
}
