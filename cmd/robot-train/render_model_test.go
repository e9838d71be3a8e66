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

// TestRenderModel: `render --model FILE.xml` draws an imported MJCF model
// (PNG and GIF), names its cameras on a bad --camera and refuses an
// unsupported model with the importer's error.
func TestRenderModel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	model := filepath.Join("..", "..", "sim", "mjcf", "testdata", "arm6.xml")
	for _, tc := range []struct {
		file, magic string
		args        []string
	}{
		{"m.png", "\x89PNG", []string{"--camera", "front"}},
		{"m.gif", "GIF89a", []string{"--steps", "6", "--every", "3"}},
	} {
		out := filepath.Join(dir, tc.file)
		code, _, stderr := runCLI(t, append([]string{"render", "--model", model, "--size", "64x48", "--render-backend", "soft", "--out", out}, tc.args...)...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.file, code, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil || !bytes.Contains(b[:min(len(b), 16)], []byte(tc.magic)) {
			t.Fatalf("%s: not a %q file (err %v)", tc.file, tc.magic, err)
		}
	}
	code, _, stderr := runCLI(t, "render", "--model", model, "--camera", "nope", "--out", filepath.Join(dir, "x.png"))
	if code != 2 || !strings.Contains(stderr, "front") {
		t.Errorf("bad camera: exit %d, %q; want exit 2 naming the model's cameras", code, stderr)
	}
	bad := filepath.Join(dir, "bad.xml")
	os.WriteFile(bad, []byte("<mujoco>\n<option noslip_iterations=\"3\"/><worldbody><body><joint type=\"ball\"/><geom size=\"1\"/></body></worldbody></mujoco>"), 0o644)
	code, _, stderr = runCLI(t, "render", "--model", bad, "--out", filepath.Join(dir, "y.png"))
	if code == 0 || !strings.Contains(stderr, "<option> at") || !strings.Contains(stderr, "bad.xml:2") {
		t.Errorf("unsupported model: exit %d, %q", code, stderr)
	}
}

// TestTrainModel: `train --model FILE --task reach` trains task arm-reach
// in an ordinary run directory that resumes; a bad site is refused before
// anything is written; `tasks` lists arm-reach.
func TestTrainModel(t *testing.T) {
	t.Parallel()
	model := filepath.Join("..", "..", "sim", "mjcf", "testdata", "arm6.xml")
	out := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := runCLI(t, "train", "--model", model, "--task", "reach", "--control", "ee", "--steps", "120",
		"--learning-starts", "100", "--eval-every", "120", "--eval-episodes", "1", "--max-episode-len", "20", "--hidden", "8,8", "--quiet", "--out", out)
	if code != 0 || !strings.Contains(stdout, "finished at env step 120") {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	var cfg rundir.Config
	if err := rundir.LoadConfigFile(filepath.Join(out, "config.yaml"), &cfg); err != nil || cfg.Task != "arm-reach" || cfg.Arm.Model != model ||
		cfg.Arm.Control != "ee" || cfg.NumEnvs != 1 || cfg.MaxEpisodeLen != 20 {
		t.Fatalf("config.yaml: %v %+v", err, cfg)
	}
	if code, stdout, stderr := runCLI(t, "train", "--resume", out, "--steps", "160", "--quiet"); code != 0 || !strings.Contains(stdout, "finished at env step 160") {
		t.Errorf("resume: exit %d: %s %s", code, stdout, stderr)
	}
	bad := filepath.Join(t.TempDir(), "bad")
	if code, _, stderr := runCLI(t, "train", "--model", model, "--site", "nope", "--steps", "10", "--quiet", "--out", bad); code != 2 || !strings.Contains(stderr, "ee") {
		t.Errorf("bad site: exit %d %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(bad, "config.yaml")); !os.IsNotExist(err) {
		t.Errorf("a refused run wrote its config.yaml (%v)", err)
	}
	if _, out, _ := runCLI(t, "tasks"); !strings.Contains(out, "arm-reach") {
		t.Errorf("tasks does not list arm-reach: %s", out)
	}
}

// TestEvalModel: `eval --policy expert --model FILE.xml` runs arm-reach's
// IK expert on an imported arm, which reaches (the same expert reaches on
// 20 of 20 arm6 episodes in tasks' tests), the random policy does not,
// and flags that need each other are refused with exit 2.
func TestEvalModel(t *testing.T) {
	t.Parallel()
	model := filepath.Join("..", "..", "sim", "mjcf", "testdata", "arm6.xml")
	type result struct {
		Task           string  `json:"task"`
		SuccessRate    float64 `json:"success_rate"`
		Episodes       int     `json:"episodes"`
		FinalDistanceM float64 `json:"final_distance_m"`
	}
	eval := func(policy string) result {
		code, stdout, stderr := runCLI(t, "eval", "--policy", policy, "--model", model, "--episodes", "5", "--seed", "3", "--json")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", policy, code, stderr)
		}
		var r result
		if err := json.Unmarshal([]byte(stdout), &r); err != nil || r.Task != "arm-reach" || r.Episodes != 5 {
			t.Fatalf("%s: %v %q", policy, err, stdout)
		}
		return r
	}
	if r := eval("expert"); r.SuccessRate < 0.8 || r.FinalDistanceM > 0.05 {
		t.Errorf("expert on arm6: success %.2f, final distance %.3f m; want ≥ 0.8 within 5 cm", r.SuccessRate, r.FinalDistanceM)
	}
	if r := eval("random"); r.SuccessRate > 0.2 || r.FinalDistanceM < 0.1 {
		t.Errorf("random on arm6: success %.2f, final distance %.3f m; want ≤ 0.2, ≥ 10 cm off", r.SuccessRate, r.FinalDistanceM)
	}
	for _, args := range [][]string{
		{"--policy", "expert", "--site", "ee"},
		{"--policy", "expert", "--model", model, "--task", "pick-place"},
		{"--policy", "expert", "--model", model, "--video", filepath.Join(t.TempDir(), "v.gif")},
		{"--checkpoint", t.TempDir(), "--model", model},
	} {
		if code, _, stderr := runCLI(t, append([]string{"eval"}, args...)...); code != 2 {
			t.Errorf("eval %v: exit %d (%q), want 2", args, code, stderr)
		}
	}
}
