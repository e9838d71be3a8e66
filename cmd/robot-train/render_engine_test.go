package main

import (
	"image"
	"path/filepath"
	"strings"
	"testing"
)

// render --engine draws the task on the named engine: the same scene and
// camera, the robot where that engine put it. After 60 expert steps of
// pick-place the two engines' frames differ (the MJCF hand trails its
// target further) but in a minority of pixels; an unknown engine is a
// usage error naming the engines.
func TestRenderEngine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var imgs []image.Image
	for _, engine := range []string{"sim", "articulated"} {
		out := filepath.Join(dir, engine+".png")
		code, _, stderr := runCLI(t, "render", "--task", "pick-place", "--engine", engine, "--size", "96x96", "--steps", "60",
			"--render-backend", "soft", "--msaa", "1", "--out", out)
		if code != 0 {
			t.Fatalf("--engine %s: exit %d: %s", engine, code, stderr)
		}
		imgs = append(imgs, decodePNG(t, out))
	}
	diff := 0
	for y := 0; y < 96; y++ {
		for x := 0; x < 96; x++ {
			if imgs[0].At(x, y) != imgs[1].At(x, y) {
				diff++
			}
		}
	}
	t.Logf("sim and articulated frames differ in %d of %d pixels", diff, 96*96)
	if diff == 0 || diff > 96*96/10 {
		t.Errorf("sim and articulated frames differ in %d of %d pixels; want some, and under 10%%", diff, 96*96)
	}
	code, _, stderr := runCLI(t, "render", "--task", "pick-place", "--engine", "mujoco", "--out", filepath.Join(dir, "x.png"))
	if code != exitUsage || !strings.Contains(stderr, "articulated") {
		t.Errorf("--engine mujoco: exit %d, %s; want a usage error listing the engines", code, stderr)
	}
}

// eval --engine runs the scripted expert on the named engine (it
// succeeds there as on sim) and refuses an unknown engine.
func TestEvalEngine(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := runCLI(t, "eval", "--policy", "expert", "--task", "push", "--engine", "articulated", "--episodes", "2", "--json")
	if code != 0 || !strings.Contains(stdout, `"success_rate":1,`) {
		t.Fatalf("exit %d: %s %s", code, stdout, stderr)
	}
	if code, _, stderr := runCLI(t, "eval", "--policy", "expert", "--task", "push", "--engine", "bogus"); code != exitUsage || !strings.Contains(stderr, "articulated") {
		t.Errorf("--engine bogus: exit %d, %s; want a usage error listing the engines", code, stderr)
	}
}
