package train

import (
	"fmt"
	"math/rand/v2"

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

// RandomPolicy returns a policy of uniform random actions in [−1, 1].
func RandomPolicy(seed uint64) control.Policy {
	rng := rand.New(rand.NewPCG(seed, 0x72616e64))
	return control.PolicyFunc(func(obs, dst []float64) {
		for i := range dst {
			dst[i] = 2*rng.Float64() - 1
		}
	})
}

// ScriptedPolicy returns the named scripted policy for env: "expert" (the
// task's scripted expert) or "random".
func ScriptedPolicy(name string, env *tasks.Env, seed uint64) (control.Policy, error) {
	switch name {
	case "expert":
		return env.Expert(), nil
	case "random":
		return RandomPolicy(seed), nil
	}
	return nil, &ConfigError{Msg: fmt.Sprintf("--policy %q is not one of expert|random", name)}
}
