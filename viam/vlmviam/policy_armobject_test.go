package vlmviam

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/train"
)

// TestLoadPolicyRefusesArmObject: a checkpoint of panda-push (its
// actions drive a gripper, its observations include the cube) is refused
// with an error naming the task, instead of being driven as arm-reach
// over the arm's joints.
func TestLoadPolicyRefusesArmObject(t *testing.T) {
	t.Parallel()
	cfg := rundir.DefaultConfig()
	rundir.ApplyArmDefaults(&cfg)
	cfg.Task, cfg.Arm.Model = tasks.ArmPushName, filepath.Join("..", "..", "tasks", "testdata", "gripper_arm.xml")
	cfg.Out = filepath.Join(t.TempDir(), "run")
	cfg.Steps, cfg.MaxEpisodeLen = 60, 20
	cfg.SAC.Hidden, cfg.SAC.LearningStarts, cfg.SAC.BatchSize = []int{8, 8}, 50, 16
	cfg.Eval.Every, cfg.Eval.Episodes = 0, 1
	cfg.Log.Every, cfg.Ckpt.Every = 60, 60
	if _, err := train.Run(context.Background(), validConfig(t, cfg), train.Options{Quiet: true}); err != nil {
		t.Fatal(err)
	}
	p, err := LoadPolicy(cfg.Out)
	if err == nil {
		p.Close()
		t.Fatal("LoadPolicy accepted a panda-push checkpoint")
	}
	if !strings.Contains(err.Error(), tasks.ArmPushName) || !strings.Contains(err.Error(), "arm-reach") {
		t.Errorf("error %q does not name the task and what to use instead", err)
	}
}
