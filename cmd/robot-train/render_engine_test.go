package main

import (
	"image"
	"path/filepath"
	"strings"
	"testing"
)

// render --engine articulated draws what render draws without it (the
// one engine); --engine sim, the removed old engine, and an unknown engine
// are usage errors saying what to pass.
func TestRenderEngine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var imgs []image.Image
	for _, engine := range []string{"", "articulated"} {
		out := filepath.Join(dir, "e"+engine+".png")
		args := []string{"render", "--task", "pick-place", "--size", "96x96", "--steps", "60",
			"--render-backend", "soft", "--msaa", "1", "--out", out}
		if engine != "" {
			args = append(args, "--engine", engine)
		}
		code, _, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("--engine %q: exit %d: %s", engine, code, stderr)
		}
		imgs = append(imgs, decodePNG(t, out))
	}
	for y := 0; y < 96; y++ {
		for x := 0; x < 96; x++ {
			if imgs[0].At(x, y) != imgs[1].At(x, y) {
				t.Fatalf("pixel (%d,%d) differs with and without --engine articulated", x, y)
			}
		}
	}
	code, _, stderr := runCLI(t, "render", "--task", "pick-place", "--engine", "mujoco", "--out", filepath.Join(dir, "x.png"))
	if code != exitUsage || !strings.Contains(stderr, "articulated") {
		t.Errorf("--engine mujoco: exit %d, %s; want a usage error listing the engines", code, stderr)
	}
	code, _, stderr = runCLI(t, "render", "--task", "pick-place", "--engine", "sim", "--out", filepath.Join(dir, "y.png"))
	if code != exitUsage || !strings.Contains(stderr, "was removed") {
		t.Errorf("--engine sim: exit %d, %s; want a usage error saying the old engine was removed", code, stderr)
	}
}

// eval --engine runs the scripted expert on the named engine (it
// succeeds there) and refuses an unknown engine.
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
