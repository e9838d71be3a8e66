package rundir

import "slices"

// Valid is a Config that Config.Validated accepted: the proof that
// train.Run takes instead of a Config, so that a config is validated
// once, at the edge that made it (the CLI's flags and files, a study's
// cell, a library caller), and never again inside the loop.
//
// It holds its own deep copy: changing the Config it was made from
// afterwards, slices included, cannot reach the loop. Only Validated
// makes one; the zero Valid proves nothing and train.Run refuses it.
type Valid struct{ cfg *Config }

// Validated checks c (every value the loop cannot run with, the task's
// name included; tasks.Canonical translates other projects' names
// first) and returns the proof, or a *ConfigError naming every mistake.
func (c *Config) Validated() (Valid, error) {
	if err := c.validate(); err != nil {
		return Valid{}, err
	}
	cp := c.clone()
	return Valid{cfg: &cp}, nil
}

// Config returns a copy of the validated config (a zero Config for the
// zero Valid). Changing the copy changes neither v nor what train.Run
// runs with v.
func (v Valid) Config() Config {
	if v.cfg == nil {
		return Config{}
	}
	return v.cfg.clone()
}

// IsZero reports whether v was not made by Validated.
func (v Valid) IsZero() bool { return v.cfg == nil }

// clone is a deep copy of c: the struct and every slice it holds
// (TestCloneCoversEveryReference fails when a field of reference type is
// added without a line here; VLM.Scoring.Priority is a func, shared).
func (c Config) clone() Config {
	c.SAC.Hidden = slices.Clone(c.SAC.Hidden)
	c.DQN.Hidden = slices.Clone(c.DQN.Hidden)
	c.DQN.Categorical = slices.Clone(c.DQN.Categorical)
	c.RM.Goal = slices.Clone(c.RM.Goal)
	c.RM.Baseline = slices.Clone(c.RM.Baseline)
	return c
}
