package rundir

import (
	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/sac"
	"github.com/vlmrb/vlmrb/tasks"
)

// LoadAgent loads the agent of runDir's newest checkpoint whose agent
// verifies (LoadAgentCheckpoint), and the run's config. Close the agent
// when done.
func LoadAgent(runDir string) (*sac.Agent, Config, *Manifest, error) {
	a, cfg, ac, err := LoadAgentCheckpoint(runDir)
	if err != nil {
		return nil, cfg, nil, err
	}
	return a, cfg, ac.Manifest, nil
}

// AgentPolicy wraps an agent as a deterministic control.Policy.
func AgentPolicy(a *sac.Agent) control.Policy {
	return control.PolicyFunc(func(obs, dst []float64) { a.Act(dst, obs, true) })
}

// ScriptedPolicy returns the named scripted policy for env: "expert" (the
// task's scripted expert) or "random"; another name is a *ConfigError.
//
// Deprecated: use tasks.ScriptedPolicy.
func ScriptedPolicy(name string, env *tasks.Env, seed uint64) (control.Policy, error) {
	p, err := tasks.ScriptedPolicy(name, env, seed)
	return p, asConfigError(err)
}
