package main

import (
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

// TestRenderDepthSegSheet: render's side outputs are PNGs of the frame
// size with plausible contents: depth in mm within the camera's working
// range (the task camera sits about 1 m from the table), segmentation with
// several bodies, and a sheet of the requested tiles.
func TestRenderDepthSegSheet(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	code, _, stderr := runCLI(t, "render", "--task", "push", "--size", "64x48", "--steps", "6", "--every", "2",
		"--render-backend", "soft", "--msaa", "1", "--out", p("f.png"), "--depth", p("d.png"), "--seg", p("s.png"),
		"--sheet", p("sh.png"), "--sheet-frames", "4", "--sheet-cols", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	d, ok := decodePNG(t, p("d.png")).(*image.Gray16)
	if !ok || d.Rect.Dx() != 64 || d.Rect.Dy() != 48 {
		t.Fatalf("depth is %T %v, want a 64x48 Gray16", d, d.Bounds())
	}
	lo, hi := 1<<16, 0
	for y := 0; y < 48; y++ {
		for x := 0; x < 64; x++ {
			if v := int(d.Gray16At(x, y).Y); v > 0 {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	if lo < 200 || hi > 10000 || hi <= lo {
		t.Fatalf("depth range %d..%d mm, want within 0.2..10 m and not flat", lo, hi)
	}
	s := decodePNG(t, p("s.png"))
	colours := map[[3]uint32]bool{}
	for y := 0; y < 48; y++ {
		for x := 0; x < 64; x++ {
			r, g, b, _ := s.At(x, y).RGBA()
			colours[[3]uint32{r, g, b}] = true
		}
	}
	if len(colours) < 4 {
		t.Fatalf("segmentation has %d colours, want several bodies", len(colours))
	}
	// 2×2 tiles of 64×48 with 2 px padding
	if b := decodePNG(t, p("sh.png")).Bounds(); b.Dx() != 2*64+3*2 || b.Dy() != 2*48+3*2 {
		t.Fatalf("sheet %v, want 134x102", b.Size())
	}
	if code, _, _ := runCLI(t, "render", "--task", "push", "--depth", p("d.jpg"), "--out", p("f.png")); code != 2 {
		t.Fatalf("--depth with a .jpg path: exit %d, want 2", code)
	}
}
