package tasks

import (
	"fmt"

	"github.com/vlmrb/vlmrb/control"
)

// ScriptedPolicyNames are the scripted policies ScriptedPolicy builds.
var ScriptedPolicyNames = []string{"expert", "random"}

// ScriptedPolicy returns the named scripted policy for env: "expert" (the
// task's scripted expert, env.Expert) or "random" (control.RandomPolicy
// seeded by seed). Another name is an error listing both.
func ScriptedPolicy(name string, env *Env, seed uint64) (control.Policy, error) {
	switch name {
	case "expert":
		return env.Expert(), nil
	case "random":
		return control.RandomPolicy(seed), nil
	}
	return nil, fmt.Errorf("--policy %q is not one of expert|random", name)
}
