package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/train"
)

type evalJSON struct {
	Task        string    `json:"task"`
	Seed        uint64    `json:"seed"`
	Episodes    int       `json:"episodes"`
	SuccessRate float64   `json:"success_rate"`
	Returns     []float64 `json:"returns"`
	Successes   []bool    `json:"successes"`
}

func evalOut(t *testing.T, args ...string) evalJSON {
	t.Helper()
	code, out, stderr := runCLI(t, append(append([]string{"eval"}, args...), "--json")...)
	if code != 0 {
		t.Fatalf("eval %v: exit %d out %q err %q", args, code, out, stderr)
	}
	var r evalJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("eval %v: %q: %v", args, out, err)
	}
	return r
}

// TestExportEvalONNX exports a SAC checkpoint and checks that eval --onnx
// repeats eval --checkpoint: the same episodes, step for step (the
// exported actor is bit-identical on single observations), so the same
// returns and successes.
func TestExportEvalONNX(t *testing.T) {
	t.Parallel()
	run := filepath.Join(t.TempDir(), "run")
	if code, _, stderr := runCLI(t, tiny(run, "--eval-episodes", "2")...); code != 0 {
		t.Fatalf("train: exit %d: %s", code, stderr)
	}
	model := filepath.Join(t.TempDir(), "policy.onnx")
	code, out, stderr := runCLI(t, "export", "--checkpoint", run, "--step", "100", "--onnx", model)
	if code != 0 || !strings.Contains(out, "SAC actor") || !strings.Contains(out, "env step 100") {
		t.Fatalf("export: exit %d out %q err %q", code, out, stderr)
	}
	if st, err := os.Stat(model); err != nil || st.Size() == 0 {
		t.Fatalf("no model written: %v", err)
	}
	// the run's own evaluation settings (episodes, seed) by default
	ck := evalOut(t, "--checkpoint", run, "--step", "100")
	ox := evalOut(t, "--onnx", model)
	if ox.Task != "reach" || ox.Seed != ck.Seed || ox.Episodes != 2 || !reflect.DeepEqual(ox.Returns, ck.Returns) || !reflect.DeepEqual(ox.Successes, ck.Successes) {
		t.Fatalf("eval --onnx %+v\n  differs from eval --checkpoint %+v", ox, ck)
	}
	ck = evalOut(t, "--checkpoint", run, "--step", "100", "--episodes", "3", "--seed", "77")
	ox = evalOut(t, "--onnx", model, "--episodes", "3", "--seed", "77")
	if !reflect.DeepEqual(ox.Returns, ck.Returns) {
		t.Fatalf("seed 77: ONNX returns %v, checkpoint %v", ox.Returns, ck.Returns)
	}
}

func TestExportEvalONNXGrid(t *testing.T) {
	t.Parallel()
	c := rundir.DefaultConfig()
	c.Task, c.Replay, c.Out, c.Steps = "doorkey-5x5", "uniform", filepath.Join(t.TempDir(), "run"), 600
	c.DQN.LearningStarts, c.DQN.BatchSize, c.DQN.Hidden = 200, 16, []int{16}
	c.Eval = rundir.EvalConfig{Episodes: 2}
	if _, err := train.Run(context.Background(), validConfig(t, c), train.Options{}); err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(t.TempDir(), "dk.onnx")
	code, out, stderr := runCLI(t, "export", "--checkpoint", c.Out, "--onnx", model)
	if code != 0 || !strings.Contains(out, "DQN Q-network") {
		t.Fatalf("export: exit %d out %q err %q", code, out, stderr)
	}
	for _, extra := range [][]string{nil, {"--epsilon", "0.3", "--episodes", "3"}} {
		ck := evalOut(t, append([]string{"--checkpoint", c.Out}, extra...)...)
		ox := evalOut(t, append([]string{"--onnx", model}, extra...)...)
		if ox.Seed != ck.Seed || !reflect.DeepEqual(ox.Returns, ck.Returns) {
			t.Fatalf("%v: eval --onnx %+v\n  differs from eval --checkpoint %+v", extra, ox, ck)
		}
	}
}

func TestExportErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.onnx")
	_ = os.WriteFile(junk, []byte("this is not a protobuf model"), 0o644)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"export", "--checkpoint", dir}, 2, "--onnx FILE.onnx"},
		{[]string{"export", "--checkpoint", dir, "--onnx", filepath.Join(dir, "p.onnx")}, 2, "no config.yaml"},
		{[]string{"eval", "--onnx", junk, "--checkpoint", dir}, 2, "--checkpoint is for checkpoints"},
		{[]string{"eval", "--onnx", filepath.Join(dir, "missing.onnx")}, 1, "no such file"},
		{[]string{"eval", "--onnx", junk}, 1, "onnx: bad encoding"},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d stderr %q, want exit %d and %q", tc.args, code, stderr, tc.code, tc.want)
		}
	}
}

// validConfig is a library caller's edge in a test: c validated once.
func validConfig(t testing.TB, c rundir.Config) rundir.Valid {
	t.Helper()
	v, err := c.Validated()
	if err != nil {
		t.Fatal(err)
	}
	return v
}
