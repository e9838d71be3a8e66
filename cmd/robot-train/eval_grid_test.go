package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/train"
)

func TestEvalGrid(t *testing.T) {
	t.Parallel()
	// the planner solves every episode
	code, out, stderr := runCLI(t, "eval", "--task", "doorkey-6x6", "--policy", "expert", "--episodes", "5", "--json")
	if code != 0 {
		t.Fatalf("eval expert: exit %d err %q", code, stderr)
	}
	var res struct {
		SuccessRate float64 `json:"success_rate"`
		Episodes    int     `json:"episodes"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.SuccessRate != 1 || res.Episodes != 5 {
		t.Fatalf("expert eval %q (%v)", out, err)
	}
	// a DQN checkpoint is recognised from its run directory
	c := rundir.DefaultConfig()
	c.Task, c.Replay, c.Out, c.Steps = "doorkey-5x5", "uniform", filepath.Join(t.TempDir(), "run"), 600
	c.DQN.LearningStarts, c.DQN.BatchSize, c.DQN.Hidden = 200, 16, []int{16}
	c.Eval = rundir.EvalConfig{Episodes: 1}
	if _, err := train.Run(context.Background(), validConfig(t, c), train.Options{}); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = runCLI(t, "eval", "--checkpoint", c.Out, "--episodes", "2", "--epsilon", "0.1", "--json")
	if code != 0 {
		t.Fatalf("eval checkpoint: exit %d out %q err %q", code, out, stderr)
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.Episodes != 2 {
		t.Fatalf("checkpoint eval %q (%v)", out, err)
	}
}

func TestTrainGridSmoke(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "dk")
	code, stdout, stderr := runCLI(t, "train", "--task", "doorkey-5x5", "--replay", "uniform", "--steps", "600",
		"--learning-starts", "200", "--batch-size", "16", "--hidden", "16", "--eval-episodes", "1", "--out", out, "--quiet")
	if code != 0 {
		t.Fatalf("train: exit %d out %q err %q", code, stdout, stderr)
	}
	cfg := rundir.DefaultConfig()
	if err := rundir.LoadConfigFile(filepath.Join(out, "config.yaml"), &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.ResolvedAlgo() != "dqn" || cfg.DQN.LearningStarts != 200 || cfg.DQN.BatchSize != 16 || len(cfg.DQN.Hidden) != 1 {
		t.Fatalf("stored config: algo %s dqn %+v", cfg.ResolvedAlgo(), cfg.DQN)
	}
	if code, _, _ := runCLI(t, "train", "--task", "doorkey-5x5", "--updates-per-step", "2", "--out", out+"2"); code != 2 {
		t.Fatalf("--updates-per-step on a DQN task: exit %d, want 2", code)
	}
}
