package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/train"
)

// runCLI runs the CLI in-process and returns its exit code and output.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// tiny is a train budget that finishes in seconds, even under -race.
func tiny(out string, extra ...string) []string {
	return append([]string{"train", "--task", "reach", "--steps", "200", "--num-envs", "2",
		"--learning-starts", "100", "--batch-size", "32", "--hidden", "16,16",
		"--eval-every", "0", "--eval-episodes", "1", "--max-episode-len", "50",
		"--log-every", "100", "--checkpoint-every", "100", "--quiet", "--out", out}, extra...)
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	badYAML := filepath.Join(dir, "bad.yaml")
	os.WriteFile(badYAML, []byte("task: reach\nsac:\n  batchsize: 64\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want string // in stderr
	}{
		{"no args", nil, "usage: robot-train"},
		{"unknown command", []string{"trian"}, `unknown command "trian"`},
		{"unknown flag", []string{"train", "--bogus"}, "flag provided but not defined: -bogus"},
		{"bad replay", []string{"train", "--replay", "fifo", "--out", filepath.Join(dir, "a")}, `replay "fifo" is not one of uniform|per|relo|vlmrb`},
		{"bad scorer", []string{"train", "--scorer", "gpt", "--out", filepath.Join(dir, "b")}, "scorer"},
		{"unknown task", []string{"train", "--task", "fly", "--steps", "10", "--out", filepath.Join(dir, "c")}, "unknown task \"fly\""},
		{"openai without server", []string{"train", "--scorer", "openai", "--out", filepath.Join(dir, "d")}, "--vlm-base-url"},
		{"unknown config key", []string{"train", "--config", badYAML, "--out", filepath.Join(dir, "e")}, "batchsize"},
		{"missing config", []string{"train", "--config", filepath.Join(dir, "nope.yaml")}, "file not found"},
		{"stray argument", []string{"train", "reach"}, `unexpected argument "reach"`},
		{"resume nothing", []string{"train", "--resume", filepath.Join(dir, "none")}, "no config.yaml"},
		{"resume unsafe flag", []string{"train", "--resume", dir, "--replay", "per"}, "--replay cannot change on resume"},
		{"eval needs one source", []string{"eval", "--task", "reach"}, "exactly one of --checkpoint"},
		{"eval bad task", []string{"eval", "--policy", "expert", "--task", "fly"}, "unknown task"},
		{"eval bad policy", []string{"eval", "--policy", "genius", "--task", "reach"}, "expert|random"},
		{"render no out", []string{"render", "--task", "reach"}, "--out"},
		{"render bad ext", []string{"render", "--task", "reach", "--out", "x.bmp"}, ".png, .gif or .mp4"},
		{"render bad size", []string{"render", "--task", "reach", "--out", "x.png", "--size", "0x9"}, "WxH"},
		{"score no source", []string{"score"}, "--source is required"},
		{"score oracle on camera", []string{"score", "--source", "dir:/tmp", "--scorer", "oracle"}, "only sim:TASK"},
		{"score bad task", []string{"score", "--source", "sim:fly"}, "unknown task"},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != exitUsage {
			t.Errorf("%s: exit %d, want 2 (stderr %q)", tc.name, code, stderr)
			continue
		}
		if !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: stderr %q lacks %q", tc.name, stderr, tc.want)
		}
	}
}

func TestHelpExitsZero(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"help"}, {"train", "-h"}, {"eval", "--help"}} {
		if code, _, _ := runCLI(t, args...); code != exitOK {
			t.Errorf("%v: exit %d", args, code)
		}
	}
}

func TestTasksAndVersion(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, "tasks")
	if code != 0 || !strings.Contains(out, "reach") || !strings.Contains(out, "DESCRIPTION") {
		t.Fatalf("tasks: exit %d out %q err %q", code, out, stderr)
	}
	code, out, stderr = runCLI(t, "version")
	if code != 0 || !strings.Contains(out, "robot-train") || !strings.Contains(out, "BLAS backend") {
		t.Fatalf("version: exit %d out %q err %q", code, out, stderr)
	}
}

func TestEvalScriptedJSON(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, "eval", "--policy", "expert", "--task", "reach", "--episodes", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var res struct {
		SuccessRate *float64 `json:"success_rate"`
		MeanReturn  *float64 `json:"mean_return"`
		Episodes    int      `json:"episodes"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || res.SuccessRate == nil || res.MeanReturn == nil || res.Episodes != 2 {
		t.Fatalf("bad JSON %q: %v", out, err)
	}
	// the scripted reach expert solves reach (tasks promises ≥ 95%)
	if *res.SuccessRate < 0.5 {
		t.Fatalf("expert success rate %v on reach", *res.SuccessRate)
	}
}

func TestScoreSimOracleJSON(t *testing.T) {
	t.Parallel()
	code, out, stderr := runCLI(t, "score", "--source", "sim:reach", "--scorer", "oracle", "--clips", "3", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3: %q", len(lines), out)
	}
	for i, l := range lines {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("line %d not JSON: %v", i, err)
		}
		for _, k := range []string{"clip", "score", "latency_ms", "error"} {
			if _, ok := v[k]; !ok {
				t.Fatalf("line %d lacks %q: %s", i, k, l)
			}
		}
		if v["error"] != "" {
			t.Fatalf("clip %d: error %v", i, v["error"])
		}
		if s := v["score"].(float64); s < 0 || s > 1 {
			t.Fatalf("clip %d: score %v outside [0,1]", i, s)
		}
	}
}

func TestTrainSmokeAndEvalCheckpoint(t *testing.T) {
	t.Parallel()
	for _, replay := range []string{"uniform", "per", "relo", "vlmrb"} {
		t.Run(replay, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "run")
			args := tiny(out, "--replay", replay)
			if replay == "vlmrb" {
				args = append(args, "--scorer", "oracle")
			}
			code, stdout, stderr := runCLI(t, args...)
			if code != 0 {
				t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
			}
			for _, f := range []string{"config.yaml", "metrics.csv", "metrics.jsonl"} {
				if _, err := os.Stat(filepath.Join(out, f)); err != nil {
					t.Fatal(err)
				}
			}
			_, man, err := train.LatestCheckpoint(out)
			if err != nil || man.Step != 200 {
				t.Fatalf("checkpoint %+v %v", man, err)
			}
			rows, err := train.ReadMetricsJSONL(filepath.Join(out, "metrics.jsonl"))
			if err != nil || len(rows) == 0 {
				t.Fatalf("metrics rows %d %v", len(rows), err)
			}
			hasEval := false
			for _, r := range rows {
				if _, ok := r.Values["eval/success_rate"]; ok {
					hasEval = true
				}
			}
			if !hasEval {
				t.Fatal("no eval/success_rate row after the final evaluation")
			}
			if !strings.Contains(stdout, "checkpoint:") {
				t.Fatalf("summary lacks the checkpoint path: %s", stdout)
			}
			if replay != "uniform" {
				return
			}
			code, js, stderr := runCLI(t, "eval", "--checkpoint", out, "--episodes", "1", "--json")
			if code != 0 {
				t.Fatalf("eval exit %d: %s", code, stderr)
			}
			if !strings.Contains(js, `"success_rate"`) {
				t.Fatalf("eval JSON %q", js)
			}
			// a second train into the same directory is refused
			code, _, stderr = runCLI(t, tiny(out)...)
			if code != exitUsage || !strings.Contains(stderr, "--resume") {
				t.Fatalf("reuse of run dir: exit %d %q", code, stderr)
			}
		})
	}
}
