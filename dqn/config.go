package dqn

import (
	"fmt"

	"github.com/vlmrb/vlmrb/nn"
)

// MaxBatchSize bounds Config.BatchSize (also for a decoded checkpoint).
const MaxBatchSize = 1 << 16

// Config holds the Double DQN hyperparameters. Start from DefaultConfig;
// New replaces zero numeric fields with the defaults (booleans are taken
// as given).
//
// The yaml tags are the keys of a training config's dqn section (package
// train); what the loop derives (the ε schedule's length, one-hot widths,
// the seed, ReLo) or sets with its own meaning (max_grad_norm, where 0
// disables) is yaml:"-".
type Config struct {
	Gamma     float64 `yaml:"gamma"`      // discount factor (0.99)
	LR        float64 `yaml:"lr"`         // Adam step size (2.5e-4, CleanRL dqn.py)
	BatchSize int     `yaml:"batch_size"` // transitions per gradient step (64); Update accepts any batch size
	Hidden    []int   `yaml:"hidden"`     // hidden widths of the Q network ({128, 128})

	// TargetFrequency: every this many Updates the target network moves
	// toward the online one by Tau (1000; Tau 1 makes it a hard copy as in
	// Mnih et al. 2015).
	TargetFrequency int     `yaml:"target_freq"`
	Tau             float64 `yaml:"tau"`

	HuberDelta  float64 `yaml:"-"`      // κ of the Huber loss (1: PyTorch's SmoothL1Loss)
	MaxGradNorm float64 `yaml:"-"`      // clip the gradient to this L2 norm (10, Stable-Baselines3); negative disables
	NStep       int     `yaml:"n_step"` // n of n-step returns the stored rewards hold (1); the target uses γⁿ

	// ε-greedy: ε falls linearly from EpsStart to EpsEnd over
	// EpsDecaySteps env steps after LearningStarts, then stays at EpsEnd
	// (CleanRL: 1 → 0.05 over half the run).
	EpsStart       float64 `yaml:"eps_start"`
	EpsEnd         float64 `yaml:"eps_end"`
	EpsDecaySteps  int64   `yaml:"-"`
	LearningStarts int64   `yaml:"learning_starts"` // env steps of uniform random actions before the first update (used by the training loop)

	// Categorical[j] > 0 one-hots observation element j into that many
	// inputs (values are rounded and clamped to [0, width−1]); 0 passes
	// the value through. Empty: every element passes through.
	Categorical []int `yaml:"-"`

	Double bool   `yaml:"double"` // Double DQN target (online argmax, target value); false: max over the target net (Mnih et al. 2015)
	ReLo   bool   `yaml:"-"`      // compute ReLo scores (one more target forward pass per Update)
	Seed   uint64 `yaml:"-"`      // seeds the agent's PCG generator (initialisation and exploration)
}

// DefaultConfig returns CleanRL dqn.py's defaults where they apply to a
// small discrete task (learning rate, γ, target copy every 1000 updates,
// ε 1 → 0.05), with the Double-DQN target, SB3's gradient clip and batch
// 64 on a 128×128 network, which updates about 5× faster than 256×256
// at batch 128 on DoorKey's 1,033 one-hot inputs (BenchmarkUpdate).
func DefaultConfig() Config {
	return Config{
		Gamma: 0.99, LR: 2.5e-4, BatchSize: 64, Hidden: []int{128, 128},
		TargetFrequency: 1000, Tau: 1, HuberDelta: 1, MaxGradNorm: 10, NStep: 1,
		EpsStart: 1, EpsEnd: 0.05, EpsDecaySteps: 50000, LearningStarts: 10000,
		Double: true,
	}
}

// Epsilon returns ε after step env steps: EpsStart until LearningStarts,
// then the linear decay to EpsEnd over EpsDecaySteps.
func (c Config) Epsilon(step int64) float64 {
	t := step - c.LearningStarts
	if t <= 0 {
		return c.EpsStart
	}
	if c.EpsDecaySteps <= 0 || t >= c.EpsDecaySteps {
		return c.EpsEnd
	}
	return c.EpsStart + (c.EpsEnd-c.EpsStart)*float64(t)/float64(c.EpsDecaySteps)
}

// withDefaults fills zero numeric fields and validates the result.
func (c Config) withDefaults() (Config, error) {
	d := DefaultConfig()
	f := func(v *float64, def float64) {
		if *v == 0 {
			*v = def
		}
	}
	i := func(v *int, def int) {
		if *v == 0 {
			*v = def
		}
	}
	f(&c.Gamma, d.Gamma)
	f(&c.LR, d.LR)
	i(&c.BatchSize, d.BatchSize)
	i(&c.TargetFrequency, d.TargetFrequency)
	f(&c.Tau, d.Tau)
	f(&c.HuberDelta, d.HuberDelta)
	f(&c.MaxGradNorm, d.MaxGradNorm)
	i(&c.NStep, d.NStep)
	if len(c.Hidden) == 0 {
		c.Hidden = d.Hidden
	}
	c.Hidden = append([]int(nil), c.Hidden...)
	c.Categorical = append([]int(nil), c.Categorical...)
	switch {
	case c.Gamma < 0 || c.Gamma > 1:
		return c, fmt.Errorf("dqn: Gamma %g outside [0, 1]", c.Gamma)
	case c.Tau < 0 || c.Tau > 1:
		return c, fmt.Errorf("dqn: Tau %g outside [0, 1]", c.Tau)
	case c.BatchSize > MaxBatchSize:
		return c, fmt.Errorf("dqn: BatchSize %d above %d (dqn.MaxBatchSize)", c.BatchSize, MaxBatchSize)
	case c.BatchSize < 1 || c.TargetFrequency < 1 || c.NStep < 1:
		return c, fmt.Errorf("dqn: BatchSize, TargetFrequency and NStep must be positive")
	case c.LR < 0 || c.HuberDelta < 0:
		return c, fmt.Errorf("dqn: LR and HuberDelta must not be negative")
	case c.EpsStart < 0 || c.EpsStart > 1 || c.EpsEnd < 0 || c.EpsEnd > 1:
		return c, fmt.Errorf("dqn: EpsStart %g and EpsEnd %g must be in [0, 1]", c.EpsStart, c.EpsEnd)
	case c.EpsDecaySteps < 0 || c.LearningStarts < 0:
		return c, fmt.Errorf("dqn: EpsDecaySteps and LearningStarts must not be negative")
	}
	if len(c.Hidden) > nn.MaxLayers-2 {
		return c, fmt.Errorf("dqn: %d hidden layers: at most %d (nn.MaxLayers)", len(c.Hidden), nn.MaxLayers-2)
	}
	for _, h := range c.Hidden {
		if h < 1 || h > nn.MaxWidth {
			return c, fmt.Errorf("dqn: hidden width %d: use 1 to %d (nn.MaxWidth)", h, nn.MaxWidth)
		}
	}
	for j, w := range c.Categorical {
		if w < 0 || w > nn.MaxWidth {
			return c, fmt.Errorf("dqn: Categorical[%d] = %d outside 0..%d", j, w, nn.MaxWidth)
		}
	}
	return c, nil
}
