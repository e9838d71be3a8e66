package rundir

import (
	"strings"
	"testing"
)

// IsMainJob accepts DefaultConfig with any seed, output, evaluation,
// logging, checkpoint or thread settings (they leave learning unchanged)
// and "auto" spelt out, and refuses any change to what is learned.
func TestIsMainJobOnlyForTheDefaultsLearning(t *testing.T) {
	same := []func(*Config){
		func(c *Config) {},
		func(c *Config) { c.Seed, c.Out = 42, "elsewhere" },
		func(c *Config) { c.Eval.Episodes, c.Eval.GIF, c.Log.Every, c.Ckpt.Every = 7, false, 10, 5 },
		func(c *Config) { c.Replay = c.ResolvedReplay() },
		func(c *Config) { c.SAC.Threads = 2 },
		func(c *Config) { c.Scorer = "oracle" },        // unused without VLM-RB
		func(c *Config) { c.SAC.Gamma = MainJobGamma }, // what 0 resolves to on reach-center
	}
	for i, f := range same {
		c := DefaultConfig()
		f(&c)
		if !IsMainJob(c) {
			t.Errorf("case %d: not the main job, want it to be", i)
		}
	}
	other := map[string]func(*Config){
		"steps":  func(c *Config) { c.Steps *= 2 },
		"task":   func(c *Config) { c.Task = "push" },
		"reward": func(c *Config) { c.Reward = "sparse" },
		"replay": func(c *Config) { c.Replay = "vlmrb" },
		"gamma":  func(c *Config) { c.SAC.Gamma += 0.01 },
		"envs":   func(c *Config) { c.NumEnvs = 4 },
		"demos":  func(c *Config) { c.Demos = 3 },
	}
	for name, f := range other {
		c := DefaultConfig()
		f(&c)
		if IsMainJob(c) {
			t.Errorf("%s changed: still the main job", name)
		}
	}
}

// The verdict names the study's numbers for a main-job run, says when this
// run ended below the target, and is absent for other configurations.
func TestMainJobVerdict(t *testing.T) {
	saved := mainJobStudy
	defer func() { mainJobStudy = saved }()
	mainJobStudy.Seeds, mainJobStudy.DetMedian, mainJobStudy.DetLo, mainJobStudy.DetHi = 10, 0.95, 0.8, 1
	mainJobStudy.StochMedian, mainJobStudy.CPUSecondsMax = 1, 200
	c := DefaultConfig()
	good := &EvalResult{Episodes: 50, SuccessRate: 0.96}
	v := MainJobVerdict(c, good, "r")
	if !strings.Contains(v, "median 0.95") || strings.Contains(v, "below") {
		t.Errorf("verdict of a run at 0.96 with the study at 0.95: %q", v)
	}
	bad := &EvalResult{Episodes: 50, SuccessRate: 0.5}
	if v := MainJobVerdict(c, bad, "r"); !strings.Contains(v, "0.50 is below") {
		t.Errorf("verdict of a run at 0.50: %q, want it to say it is below the target", v)
	}
	mainJobStudy.DetMedian = 0.6
	if v := MainJobVerdict(c, good, "r"); !strings.Contains(v, "below the target of 0.9") {
		t.Errorf("verdict with the study at 0.6: %q, want it to say the study is below the target", v)
	}
	c.Steps = 1000
	if v := MainJobVerdict(c, good, "r"); v != "" {
		t.Errorf("verdict for another configuration: %q, want none", v)
	}
	if v := MainJobVerdict(DefaultConfig(), nil, "r"); v != "" {
		t.Errorf("verdict without a final evaluation: %q, want none", v)
	}
}

// sac.gamma 0 is the task's discount: MainJobGamma on the default task
// (what studies/main-job measured), CleanRL's 0.99 on every other; a set
// value wins.
func TestResolvedGamma(t *testing.T) {
	c := DefaultConfig()
	if c.SAC.Gamma != 0 || c.ResolvedGamma() != MainJobGamma {
		t.Errorf("default: sac.gamma %v resolves to %v, want 0 → %v", c.SAC.Gamma, c.ResolvedGamma(), MainJobGamma)
	}
	c.Task = "push"
	if g := c.ResolvedGamma(); g != 0.99 {
		t.Errorf("push: γ %v, want 0.99", g)
	}
	c.SAC.Gamma = 0.9
	if g := c.ResolvedGamma(); g != 0.9 || c.SACConfig().Gamma != 0.9 {
		t.Errorf("set 0.9: γ %v (agent's %v), want 0.9", g, c.SACConfig().Gamma)
	}
	c = DefaultConfig()
	if g := c.SACConfig().Gamma; g != MainJobGamma {
		t.Errorf("the default agent's γ %v, want %v", g, MainJobGamma)
	}
}
