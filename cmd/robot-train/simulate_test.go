package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// simulate --json starts where mj_resetDataKeyframe puts the model, prints
// time 0 and every STEPS steps, and holds --ctrl; bad flags are errors.
func TestSimulateJSON(t *testing.T) {
	t.Parallel()
	model := "../../sim/mjcf/testdata/articulated/actuators.xml"
	code, out, stderr := runCLI(t, "simulate", "--model", model, "--keyframe", "go", "--duration", "0.1", "--every", "10", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	type line struct {
		Time       float64
		Qpos, Qvel []float64
	}
	var lines []line
	for _, s := range strings.Split(strings.TrimSpace(out), "\n") {
		var l line
		if err := json.Unmarshal([]byte(s), &l); err != nil {
			t.Fatalf("line %q: %v", s, err)
		}
		lines = append(lines, l)
	}
	// 0.1 s at 2 ms is 50 steps: time 0 and every 10 steps
	if len(lines) != 6 {
		t.Fatalf("%d lines, want 6", len(lines))
	}
	for i, l := range lines {
		if math.Abs(l.Time-0.02*float64(i)) > 1e-12 || len(l.Qpos) != 4 || len(l.Qvel) != 4 {
			t.Errorf("line %d: time %g, %d qpos, %d qvel; want time %g and 4, 4", i, l.Time, len(l.Qpos), len(l.Qvel), 0.02*float64(i))
		}
	}
	// the keyframe's qpos="0 0.2 -0.4 0"
	for i, w := range []float64{0, 0.2, -0.4, 0} {
		if lines[0].Qpos[i] != w || lines[0].Qvel[i] != 0 {
			t.Errorf("start qpos %v qvel %v, want the keyframe's qpos (0 0.2 -0.4 0) at rest", lines[0].Qpos, lines[0].Qvel)
			break
		}
	}
	// a model the engine refuses (an explicit contact pair)
	refused := filepath.Join(t.TempDir(), "pair.xml")
	if err := os.WriteFile(refused, []byte(`<mujoco><worldbody><body><freejoint/><geom name="a" size="0.1"/></body></worldbody><contact><pair geom1="a" geom2="a"/></contact></mujoco>`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"simulate"},
		{"simulate", "--model", model, "--ctrl", "1,2"},
		{"simulate", "--model", model, "--keyframe", "nope"},
		{"simulate", "--model", model, "--every", "0"},
		{"simulate", "--model", refused},
	} {
		if code, _, stderr := runCLI(t, args...); code == 0 || stderr == "" {
			t.Errorf("%v: exit %d, stderr %q; want an error", args, code, stderr)
		}
	}
}
