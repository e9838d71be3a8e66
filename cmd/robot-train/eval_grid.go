package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/vlmrb/vlmrb/train"
)

// isDQNRun reports whether runDir holds a run of the dqn learner.
func isDQNRun(runDir string) bool {
	cfg := train.DefaultConfig()
	return train.LoadConfigFile(runDir+"/config.yaml", &cfg) == nil && cfg.ResolvedAlgo() == "dqn"
}

// evalGrid is robot-train eval for the grid tasks: a DQN checkpoint (greedy,
// or ε-greedy with --epsilon) or the planner/random policy.
func evalGrid(ctx context.Context, stdout, stderr io.Writer, ckpt, policy, task string, episodes int, seed uint64, eps float64, asJSON bool) error {
	var pol train.Policy
	var what string
	view := "" // egocentric
	if ckpt != "" {
		agent, cfg, ac, err := train.LoadDQNCheckpoint(ckpt)
		if err != nil {
			return err
		}
		reportCheckpoint(stderr, ac)
		if task == "" {
			task = cfg.Task
		}
		view = cfg.Grid.View
		pol = train.DQNPolicy(agent, eps, seed)
		what = fmt.Sprintf("checkpoint %s (step %d)", ckpt, ac.Manifest.Step)
	}
	if task == "" {
		return usagef("--task NAME is required with --policy (robot-train tasks lists them)")
	}
	env, err := train.MakeGridEnv(task, view) // unknown task: *train.ConfigError (exit 2)
	if err != nil {
		return err
	}
	if policy != "" {
		if pol, err = train.GridScriptedPolicy(policy, env, seed); err != nil {
			return err
		}
		what = policy + " policy"
	}
	res, err := train.EvaluateGrid(ctx, env, pol, episodes, seed)
	if err != nil {
		return err
	}
	if asJSON {
		out := struct {
			Task    string  `json:"task"`
			Policy  string  `json:"policy"`
			Seed    uint64  `json:"seed"`
			Epsilon float64 `json:"epsilon"`
			*train.EvalResult
		}{task, what, seed, eps, res}
		return json.NewEncoder(stdout).Encode(out)
	}
	_, _ = fmt.Fprintf(stdout, "%s on %s: success rate %.2f, mean return %.3f ± %.3f, mean length %.1f over %d episodes (ε %g)\n",
		what, task, res.SuccessRate, res.MeanReturn, res.StdReturn, res.MeanLength, res.Episodes, eps)
	return nil
}
