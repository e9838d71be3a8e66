package main

import (
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRenderGridTask(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gif, sheet := filepath.Join(dir, "ep.gif"), filepath.Join(dir, "sheet.png")
	code, out, stderr := runCLI(t, "render", "--task", "doorkey-5x5", "--theme", "abstract", "--size", "100x100",
		"--out", gif, "--sheet", sheet, "--every", "1")
	if code != 0 || !strings.Contains(out, "goal reached") {
		t.Fatalf("render: exit %d out %q err %q", code, out, stderr)
	}
	f, err := os.Open(sheet)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	// 8 frames of 100×100 (20-px tiles on a 5×5 grid) in 4 columns, 2-px padding
	if b := img.Bounds(); b.Dx() != 4*100+5*2 || b.Dy() != 2*100+3*2 {
		t.Fatalf("contact sheet %v", b)
	}
	if code, _, _ := runCLI(t, "render", "--task", "doorkey-5x5", "--depth", filepath.Join(dir, "d.png"), "--out", gif); code != 2 {
		t.Fatalf("--depth on a grid task: exit %d, want 2", code)
	}
}
