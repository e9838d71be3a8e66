package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

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
	c := train.DefaultConfig()
	c.Task, c.Replay, c.Out, c.Steps = "doorkey-5x5", "uniform", filepath.Join(t.TempDir(), "run"), 600
	c.DQN.LearningStarts, c.DQN.BatchSize, c.DQN.Hidden = 200, 16, []int{16}
	c.Eval = train.EvalConfig{Episodes: 1}
	if _, err := train.Run(context.Background(), c, train.Options{}); err != nil {
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
