package train_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/train"
)

// TestRunArmReachSmoke: a short arm-reach run writes its metrics, summary
// and agent, and its expert baseline solves the task.
func TestRunArmReachSmoke(t *testing.T) {
	cfg := train.DefaultArmReachConfig()
	cfg.Model = filepath.Join("..", "sim", "mjcf", "testdata", "arm6.xml")
	cfg.Steps, cfg.LearningStarts, cfg.EvalEvery, cfg.EvalEpisodes = 300, 200, 150, 2
	cfg.SAC.Hidden, cfg.SAC.BatchSize = []int{16, 16}, 32
	cfg.Task = tasks.ArmReachOptions{Control: "ee", MaxSteps: 50}
	cfg.Out = t.TempDir()
	res, err := train.RunArmReach(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Evals) != 2 || res.Expert < 1 {
		t.Errorf("evals %+v, expert %.2f", res.Evals, res.Expert)
	}
	for _, f := range []string{"metrics.jsonl", "summary.json", "agent.bin"} {
		if _, err := os.Stat(filepath.Join(cfg.Out, f)); err != nil {
			t.Error(err)
		}
	}
	var back train.ArmReachResult
	b, _ := os.ReadFile(filepath.Join(cfg.Out, "summary.json"))
	if err := json.Unmarshal(b, &back); err != nil || back.Steps != 300 {
		t.Errorf("summary.json: %v %+v", err, back)
	}
	if _, err := train.RunArmReach(context.Background(), train.ArmReachConfig{Model: cfg.Model}); err == nil {
		t.Error("a zero budget is accepted")
	}
}
