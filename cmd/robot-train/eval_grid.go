package main

import (
	"context"
	"io"

	"github.com/vlmrb/vlmrb/rundir"
)

// isDQNRun reports whether runDir (or the run a checkpoint directory
// belongs to) holds a run of the dqn learner.
func isDQNRun(path string) bool {
	runDir, _, _ := rundir.SplitCheckpointPath(path)
	cfg := rundir.DefaultConfig()
	return rundir.LoadConfigFile(runDir+"/config.yaml", &cfg) == nil && cfg.ResolvedAlgo() == "dqn"
}

// evalGrid is robot-train eval --policy on a grid task: the planner
// (expert) or random policy. A DQN checkpoint goes through rundir.EvalRun.
func evalGrid(ctx context.Context, stdout io.Writer, policy, task string, episodes int, seed uint64, asJSON bool) error {
	env, err := MakeGridEnv(task, "") // egocentric; unknown task: *rundir.ConfigError (exit 2)
	if err != nil {
		return err
	}
	pol, err := GridScriptedPolicy(policy, env, seed)
	if err != nil {
		return err
	}
	res, err := rundir.EvaluateGrid(ctx, env, pol, episodes, seed)
	if err != nil {
		return err
	}
	return printEval(stdout, asJSON, task, policy+" policy", seed, res, "")
}
