package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/train"
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
	os.WriteFile(bad, []byte("<mujoco>\n<worldbody><body><joint type=\"ball\"/><geom size=\"1\"/></body></worldbody></mujoco>"), 0o644)
	code, _, stderr = runCLI(t, "render", "--model", bad, "--out", filepath.Join(dir, "y.png"))
	if code == 0 || !strings.Contains(stderr, "<joint> at") || !strings.Contains(stderr, "bad.xml:2") {
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
	var cfg train.Config
	if err := train.LoadConfigFile(filepath.Join(out, "config.yaml"), &cfg); err != nil || cfg.Task != "arm-reach" || cfg.Arm.Model != model ||
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
