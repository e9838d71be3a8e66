package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/rundir"
)

// printConfig runs train --print-config with args and decodes what it
// printed back into a Config (so the test reads values, not text).
func printConfig(t *testing.T, args ...string) rundir.Config {
	t.Helper()
	code, stdout, stderr := runCLI(t, append([]string{"train", "--print-config"}, args...)...)
	if code != exitOK {
		t.Fatalf("train --print-config %v: exit %d\n%s", args, code, stderr)
	}
	path := filepath.Join(t.TempDir(), "printed.yaml")
	if err := os.WriteFile(path, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	c := rundir.DefaultConfig()
	if err := rundir.LoadConfigFile(path, &c); err != nil {
		t.Fatalf("the printed config does not load back: %v\n%s", err, stdout)
	}
	return c
}

// Every key is reachable: --set (repeatable, after --config, before the
// flags), the new learner flags, counts in the notation people use, and
// MetaWorld's task names; --print-config prints the result and trains
// nothing.
func TestSetAndPrintConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "c.yaml")
	_ = os.WriteFile(file, []byte("sac:\n  gamma: 0.9\n  tau: 0.01\n"), 0o644)
	c := printConfig(t, "--config", file, "--set", "sac.gamma=0.98", "--set", "buffer.capacity=1e5",
		"--tau", "0.02", "--steps", "100k", "--learning-starts", "0", "--actor-lr", "1e-4", "--critic-lr", "5e-4",
		"--task", "reach-v3", "--set", "vlm.clip_len=16", "--out", filepath.Join(dir, "run"))
	if c.SAC.Gamma != 0.98 || c.SAC.Tau != 0.02 || c.Buffer.Capacity != 100000 || c.Steps != 100000 ||
		c.SAC.LearningStarts != 0 || c.SAC.PolicyLR != 1e-4 || c.SAC.QLR != 5e-4 || c.Task != "reach" || c.VLM.Clip.Length != 16 {
		t.Fatalf("resolved config: gamma %g tau %g capacity %d steps %d learning_starts %d actor_lr %g critic_lr %g task %q clip_len %d",
			c.SAC.Gamma, c.SAC.Tau, c.Buffer.Capacity, c.Steps, c.SAC.LearningStarts, c.SAC.PolicyLR, c.SAC.QLR, c.Task, c.VLM.Clip.Length)
	}
	if _, err := os.Stat(filepath.Join(dir, "run")); !os.IsNotExist(err) {
		t.Fatalf("--print-config made the run directory: %v", err)
	}
	// the learner flags reach DQN's keys on the grid tasks
	g := printConfig(t, "--task", "MiniGrid-DoorKey-5x5-v0", "--gamma", "0.95", "--critic-lr", "1e-3", "--out", filepath.Join(dir, "g"))
	if g.Task != "doorkey-5x5" || g.DQN.Gamma != 0.95 || g.DQN.LR != 1e-3 {
		t.Fatalf("grid: task %q dqn.gamma %g dqn.lr %g", g.Task, g.DQN.Gamma, g.DQN.LR)
	}
}

// Mistakes get the closest names and no Go type names.
func TestSettingMistakes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	typo := filepath.Join(dir, "typo.yaml")
	_ = os.WriteFile(typo, []byte("task: reach\nsac:\n  gama: 0.9\n"), 0o644)
	badType := filepath.Join(dir, "type.yaml")
	_ = os.WriteFile(badType, []byte("sac:\n  batch_size: many\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--set", "sac.gama=0.98"}, "--set sac.gama: no such config key; did you mean sac.gamma?"},
		{[]string{"--set", "sac.gamma"}, "want KEY=VALUE"},
		{[]string{"--set", "sac=1"}, "sac is a section"},
		{[]string{"--set", "sac.gamma=high"}, "want a number"},
		{[]string{"--config", typo}, "line 3: unknown key sac.gama; did you mean sac.gamma?"},
		{[]string{"--config", badType}, "into an integer"},
		{[]string{"--task", "reech"}, `unknown task "reech"; did you mean reach?`},
		{[]string{"--task", "nope"}, "doorkey-5x5"},
		{[]string{"--task", "nope"}, "arm-reach"},
		{[]string{"--steps", "1.5"}, "not a whole number"},
	} {
		code, _, stderr := runCLI(t, append([]string{"train", "--print-config", "--out", filepath.Join(dir, "r")}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, want %d and %q in:\n%s", tc.args, code, exitUsage, tc.want, stderr)
		}
		for _, goName := range []string{"train.", "float64", "int64", "SACConfig"} {
			if strings.Contains(stderr, goName) {
				t.Errorf("%v: a Go type name (%s) in the message:\n%s", tc.args, goName, stderr)
			}
		}
	}
}

// sac.learning_starts 0 means no random phase (it is not "the default"):
// the loop runs updates_per_step updates per env step counted from
// learning_starts, the vector step just taken included (train/sac_collect.go).
func TestLearningStartsZeroTrains(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	args := tiny(out)
	for i, a := range args {
		if a == "--learning-starts" {
			args[i+1] = "0"
		}
	}
	code, _, stderr := runCLI(t, args...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows, err := rundir.ReadMetricsJSONL(filepath.Join(out, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	first := rows[0] // step 100: 50 vector steps of 2 envs
	upd, ok := first.Values["time/total_updates"]
	if !ok || first.Step != 100 {
		t.Fatalf("first row %+v", first)
	}
	// by step 100 with 2 envs: (100 − 0 + 2) × 1 = 102; with the
	// default's 2,000 random steps there would be none
	if upd != 102 {
		t.Fatalf("updates by step 100 with learning_starts 0: %g, want 102", upd)
	}
}

// One set of defaults: record stores the reward train trains on, and
// record, score and render make frames the size the scorer sees in
// training; eval's GIFs are training's.
func TestCommandsShareTrainDefaults(t *testing.T) {
	def := rundir.DefaultConfig()
	size := func(table []flagDef) string {
		for _, d := range table {
			if d.name == "size" {
				return d.def
			}
		}
		t.Fatal("no --size row")
		return ""
	}
	want := strconv.Itoa(def.VLM.Width) + "x" + strconv.Itoa(def.VLM.Height)
	for name, table := range map[string][]flagDef{"record": recordFlags, "score": scoreFlags, "render": renderFlags} {
		if got := size(table); got != want {
			t.Errorf("%s --size default %s, want the scorer's %s", name, got, want)
		}
	}
	for _, d := range recordFlags {
		if d.name == "reward" && d.def != def.Reward {
			t.Errorf("record --reward default %s, train trains on %s", d.def, def.Reward)
		}
	}
	for _, d := range evalFlags {
		if d.name == "video-size" && d.def != strconv.Itoa(def.Eval.GIFSize) {
			t.Errorf("eval --video-size default %s, training's GIFs are %d", d.def, def.Eval.GIFSize)
		}
	}
}

// train --dry-run checks the configuration and the run directory and
// writes nothing; a bad configuration fails it as it would fail the run.
func TestTrainDryRun(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	code, stdout, stderr := runCLI(t, "train", "--dry-run", "--steps", "2e4", "--out", out)
	if code != exitOK || !strings.Contains(stdout, "dry run: would start "+rundir.DefaultConfig().Task+" (uniform replay, 20000 env steps) in "+out) {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatalf("--dry-run made %s: %v", out, err)
	}
	if code, _, stderr := runCLI(t, "train", "--dry-run", "--set", "sac.batch_size=0", "--out", out); code != exitUsage || !strings.Contains(stderr, "batch_size") {
		t.Fatalf("a bad config passed the dry run: exit %d: %s", code, stderr)
	}
}
