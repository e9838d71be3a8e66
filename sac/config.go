package sac

import (
	"fmt"

	"github.com/vlmrb/vlmrb/nn"
)

// MaxBatchSize bounds Config.BatchSize (also for a decoded checkpoint:
// Update's workspace grows with the batch).
const MaxBatchSize = 1 << 16

// Config holds the SAC hyperparameters. Start from DefaultConfig; New
// replaces zero numeric fields with the defaults (booleans are taken as
// given).
//
// The yaml tags are the keys of a training config's sac section
// (package train); fields the training loop derives (the seed, ReLo, the
// entropy backup's sign) or leaves at their defaults are yaml:"-".
type Config struct {
	Gamma     float64 `yaml:"gamma"`      // discount factor (0.99)
	Tau       float64 `yaml:"tau"`        // Polyak coefficient of the target critics (0.005)
	BatchSize int     `yaml:"batch_size"` // transitions per gradient step (256); Update accepts any batch size
	PolicyLR  float64 `yaml:"actor_lr"`   // Adam step size of the actor (3e-4)
	QLR       float64 `yaml:"critic_lr"`  // Adam step size of the critics and of log α (1e-3)

	// PolicyFrequency: every PolicyFrequency-th Update runs PolicyFrequency
	// actor (and α) steps on the same batch, as CleanRL does (2).
	PolicyFrequency int `yaml:"policy_freq"`
	// TargetNetworkFrequency: Polyak update every this many Updates (1).
	TargetNetworkFrequency int `yaml:"target_freq"`

	Autotune      bool    `yaml:"auto_alpha"`     // tune α toward TargetEntropy (true in DefaultConfig)
	Alpha         float64 `yaml:"alpha"`          // α when Autotune is off (0.2); with Autotune α starts at 1 (log α = 0), as CleanRL
	TargetEntropy float64 `yaml:"target_entropy"` // target entropy for Autotune; 0 means −|A|
	// AlphaMin is a floor on the tuned α (0: none). On sparse rewards the
	// tuning drives α toward 0 long before the first success, which ends
	// exploration; a floor keeps the policy's noise alive.
	AlphaMin float64 `yaml:"alpha_min"`
	// NoEntropyBackup drops the −α·log π(a′|s′) term from the critic target
	// (y = r + γ(1−d)·min Q̄), so Q estimates stay on the reward's scale
	// whatever α does. Standard SAC keeps it (false).
	NoEntropyBackup bool `yaml:"-"`

	Hidden    []int   `yaml:"hidden"` // hidden widths of actor and critics ({256, 256})
	LogStdMin float64 `yaml:"-"`      // lower bound of the actor's log σ (−5)
	LogStdMax float64 `yaml:"-"`      // upper bound of the actor's log σ (2)

	MaxGradNorm float64 `yaml:"-"`       // clip each network's gradient to this L2 norm; 0 disables (CleanRL: off)
	ReLo        bool    `yaml:"-"`       // compute ReLo scores (one more target-critic forward pass per Update)
	Threads     int     `yaml:"threads"` // 1: Update runs on the caller's goroutine; 2: the twin critics run in parallel (1)
	Seed        uint64  `yaml:"-"`       // seeds the agent's PCG generator (initialisation and action noise)
}

// DefaultConfig returns CleanRL's defaults for sac_continuous_action.py.
func DefaultConfig() Config {
	return Config{
		Gamma: 0.99, Tau: 0.005, BatchSize: 256,
		PolicyLR: 3e-4, QLR: 1e-3, PolicyFrequency: 2, TargetNetworkFrequency: 1,
		Autotune: true, Alpha: 0.2,
		Hidden: []int{256, 256}, LogStdMin: -5, LogStdMax: 2,
		Threads: 1,
	}
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
	f(&c.Tau, d.Tau)
	i(&c.BatchSize, d.BatchSize)
	f(&c.PolicyLR, d.PolicyLR)
	f(&c.QLR, d.QLR)
	i(&c.PolicyFrequency, d.PolicyFrequency)
	i(&c.TargetNetworkFrequency, d.TargetNetworkFrequency)
	f(&c.Alpha, d.Alpha)
	if len(c.Hidden) == 0 {
		c.Hidden = d.Hidden
	}
	c.Hidden = append([]int(nil), c.Hidden...)
	if c.LogStdMin == 0 && c.LogStdMax == 0 {
		c.LogStdMin, c.LogStdMax = d.LogStdMin, d.LogStdMax
	}
	i(&c.Threads, d.Threads)
	switch {
	case c.Gamma < 0 || c.Gamma > 1:
		return c, fmt.Errorf("sac: Gamma %g outside [0, 1]", c.Gamma)
	case c.Tau < 0 || c.Tau > 1:
		return c, fmt.Errorf("sac: Tau %g outside [0, 1]", c.Tau)
	case c.BatchSize > MaxBatchSize:
		return c, fmt.Errorf("sac: BatchSize %d above %d (sac.MaxBatchSize)", c.BatchSize, MaxBatchSize)
	case c.BatchSize < 1 || c.PolicyFrequency < 1 || c.TargetNetworkFrequency < 1:
		return c, fmt.Errorf("sac: BatchSize, PolicyFrequency and TargetNetworkFrequency must be positive")
	case c.PolicyLR < 0 || c.QLR < 0 || c.Alpha < 0 || c.MaxGradNorm < 0 || c.AlphaMin < 0:
		return c, fmt.Errorf("sac: learning rates, Alpha, AlphaMin and MaxGradNorm must not be negative")
	case c.LogStdMin >= c.LogStdMax:
		return c, fmt.Errorf("sac: LogStdMin %g must be below LogStdMax %g", c.LogStdMin, c.LogStdMax)
	case c.Threads < 1 || c.Threads > 2:
		return c, fmt.Errorf("sac: Threads %d: use 1 or 2", c.Threads)
	}
	if len(c.Hidden) > nn.MaxLayers-2 {
		return c, fmt.Errorf("sac: %d hidden layers: at most %d (nn.MaxLayers)", len(c.Hidden), nn.MaxLayers-2)
	}
	for _, h := range c.Hidden {
		if h < 1 || h > nn.MaxWidth {
			return c, fmt.Errorf("sac: hidden width %d: use 1 to %d (nn.MaxWidth)", h, nn.MaxWidth)
		}
	}
	return c, nil
}
