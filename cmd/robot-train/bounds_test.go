//go:build unix

package main

import (
	"bytes"
	"image/gif"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestExportRefusesCheckpointsAndSpecialTargets: export --onnx into the
// run's checkpoints/ or onto a FIFO fails with exit 2 and leaves the
// target as it was (it used to rename over both and exit 0).
func TestExportRefusesCheckpointsAndSpecialTargets(t *testing.T) {
	t.Parallel()
	run := filepath.Join(t.TempDir(), "run")
	if code, _, stderr := runCLI(t, tiny(run)...); code != 0 {
		t.Fatalf("train: exit %d: %s", code, stderr)
	}
	agent := filepath.Join(run, "checkpoints", "step-000000000100", "agent.bin")
	before, err := os.ReadFile(agent)
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(t.TempDir(), "out.onnx")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ out, want string }{
		{agent, "inside the run's checkpoints"},
		{filepath.Join(run, "checkpoints", "policy.onnx"), "inside the run's checkpoints"},
		{fifo, "is a FIFO"},
	} {
		code, _, stderr := runCLI(t, "export", "--checkpoint", run, "--step", "100", "--onnx", tc.out)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("--onnx %s: exit %d, %q; want exit 2 saying %q", tc.out, code, stderr, tc.want)
		}
	}
	if after, err := os.ReadFile(agent); err != nil || !bytes.Equal(after, before) {
		t.Errorf("agent.bin changed (%v)", err)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v", err)
	}
}

// TestRenderModelBounds: a model that is a device is refused; a GIF of
// more frames than the cap is refused up front; the default GIF of a
// model with a tiny timestep is cut to the cap with a note saying so.
func TestRenderModelBounds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	code, _, stderr := runCLI(t, "render", "--model", "/dev/zero", "--out", filepath.Join(dir, "z.png"))
	if code == 0 || !strings.Contains(stderr, "character device") {
		t.Errorf("--model /dev/zero: exit %d, %q", code, stderr)
	}
	model := filepath.Join(dir, "ball.xml")
	if err := os.WriteFile(model, []byte(`<mujoco><option timestep="0.0001"/><worldbody><geom type="plane" size="1 1 .1"/>
<body pos="0 0 .5"><freejoint/><geom size=".05"/></body></worldbody></mujoco>`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "b.gif")
	code, _, stderr = runCLI(t, "render", "--model", model, "--size", "16x16", "--render-backend", "soft", "--steps", "100000", "--every", "1", "--out", out)
	if code != 2 || !strings.Contains(stderr, "over the cap of 600") {
		t.Errorf("100,001 frames: exit %d, %q", code, stderr)
	}
	code, stdout, stderr := runCLI(t, "render", "--model", model, "--size", "16x16", "--render-backend", "soft", "--out", out)
	if code != 0 || !strings.Contains(stdout, "note:") {
		t.Fatalf("default GIF at a 0.1 ms timestep: exit %d, %q %q", code, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	g, err := gif.DecodeAll(bytes.NewReader(b))
	if err != nil || len(g.Image) > 600 || len(g.Image) < 590 {
		t.Errorf("GIF of %d frames (%v), want the cap of 600 or just under", len(g.Image), err)
	}
}
