package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/tasks/grid"
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
	var pol control.Policy
	var what string
	view := grid.Egocentric
	if ckpt != "" {
		agent, cfg, ac, err := train.LoadDQNCheckpoint(ckpt)
		if err != nil {
			return err
		}
		reportCheckpoint(stderr, ac)
		if task == "" {
			task = cfg.Task
		}
		if view, err = grid.ParseView(cfg.Grid.View); err != nil {
			return err
		}
		rng := rand.New(rand.NewPCG(seed, 0x65707331))
		pol = control.PolicyFunc(func(obs, dst []float64) {
			if eps > 0 && rng.Float64() < eps {
				dst[0] = float64(rng.IntN(grid.NumActions))
				return
			}
			dst[0] = float64(agent.Greedy(obs))
		})
		what = fmt.Sprintf("checkpoint %s (step %d)", ckpt, ac.Manifest.Step)
	}
	if task == "" {
		return usagef("--task NAME is required with --policy (robot-train tasks lists them)")
	}
	env, err := grid.Make(task, grid.Options{View: view})
	if err != nil {
		return usagef("%v", err)
	}
	switch policy {
	case "":
	case "expert":
		p := grid.Expert(env)
		pol, what = p, "expert policy"
	case "random":
		rng := rand.New(rand.NewPCG(seed, 0x72616e64))
		pol = control.PolicyFunc(func(_, dst []float64) { dst[0] = float64(rng.IntN(grid.NumActions)) })
		what = "random policy"
	default:
		return usagef("--policy %q: choose expert or random", policy)
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
