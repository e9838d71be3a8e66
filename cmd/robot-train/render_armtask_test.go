package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/rundir"
)

// TestArmObjectCLI: `train --model FILE --task push` trains panda-push
// through train.Run; `eval --policy expert --model FILE --task pick` runs
// the IK-plus-grasp expert, which succeeds, and random actions do not;
// `render --model FILE --task pick` draws the task's scene; `tasks` lists
// both tasks; an arm without a gripper is refused with exit 2.
func TestArmObjectCLI(t *testing.T) {
	t.Parallel()
	model := filepath.Join("..", "..", "tasks", "testdata", "gripper_arm.xml")
	out := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := runCLI(t, "train", "--model", model, "--task", "push", "--steps", "120",
		"--learning-starts", "100", "--eval-every", "120", "--eval-episodes", "1", "--max-episode-len", "20", "--hidden", "8,8", "--quiet", "--out", out)
	if code != 0 || !strings.Contains(stdout, "finished at env step 120") {
		t.Fatalf("train: exit %d: %s %s", code, stdout, stderr)
	}
	var cfg rundir.Config
	if err := rundir.LoadConfigFile(filepath.Join(out, "config.yaml"), &cfg); err != nil || cfg.Task != "panda-push" || cfg.Arm.Model != model {
		t.Fatalf("config.yaml: %v %+v", err, cfg)
	}
	type result struct {
		Task        string  `json:"task"`
		SuccessRate float64 `json:"success_rate"`
	}
	for policy, ok := range map[string]func(float64) bool{"expert": func(s float64) bool { return s >= 0.75 }, "random": func(s float64) bool { return s == 0 }} {
		code, stdout, stderr := runCLI(t, "eval", "--policy", policy, "--model", model, "--task", "pick", "--episodes", "4", "--seed", "2", "--json")
		var r result
		if code != 0 || json.Unmarshal([]byte(stdout), &r) != nil || r.Task != "panda-pick" || !ok(r.SuccessRate) {
			t.Errorf("eval %s: exit %d, %+v (%s %s)", policy, code, r, stdout, stderr)
		}
	}
	png := filepath.Join(t.TempDir(), "scene.png")
	if code, _, stderr := runCLI(t, "render", "--model", model, "--task", "pick", "--steps", "3", "--size", "64x48", "--render-backend", "soft", "--out", png); code != 0 {
		t.Errorf("render: exit %d: %s", code, stderr)
	} else if b, err := os.ReadFile(png); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("render wrote no PNG (%v)", err)
	}
	if _, out, _ := runCLI(t, "tasks"); !strings.Contains(out, "panda-pick") || !strings.Contains(out, "panda-push") {
		t.Errorf("tasks does not list panda-pick and panda-push: %s", out)
	}
	arm6 := filepath.Join("..", "..", "sim", "mjcf", "testdata", "arm6.xml")
	if code, _, stderr := runCLI(t, "eval", "--policy", "expert", "--model", arm6, "--task", "push"); code != 2 || !strings.Contains(stderr, "slide joint") {
		t.Errorf("an arm without a gripper: exit %d %q", code, stderr)
	}
}
