package grid

import (
	"image"
	"image/color"
	"testing"
)

// TestRender checks, pixel by pixel at chosen points of layoutA's tiles,
// what each theme draws (tile coordinates in [0,1], x right, y down).
func TestRender(t *testing.T) {
	t.Parallel()
	const tile = 16
	e := newA(t, Options{})
	px := func(img *image.RGBA, cx, cy int, u, v float64) color.RGBA {
		return img.RGBAAt(cx*tile+int(u*tile), cy*tile+int(v*tile))
	}
	c := func(x [3]uint8) color.RGBA { return rgba(x) }
	count := func(img *image.RGBA, want color.RGBA) int {
		n := 0
		for y := range img.Rect.Dy() {
			for x := range img.Rect.Dx() {
				if img.RGBAAt(x, y) == want {
					n++
				}
			}
		}
		return n
	}
	img := image.NewRGBA(image.Rect(0, 0, e.FrameSize(tile), e.FrameSize(tile)))
	if e.FrameSize(tile) != 80 || e.TileFor(96) != 19 {
		t.Fatalf("FrameSize(16) = %d, TileFor(96) = %d; want 80 and 19", e.FrameSize(tile), e.TileFor(96))
	}

	e.Render(img, tile, Standard)
	for _, p := range []struct {
		name   string
		cx, cy int
		u, v   float64
		want   color.RGBA
	}{
		{"wall", 0, 0, 0.5, 0.5, c(ColorWall)},
		{"goal", 3, 3, 0.5, 0.5, c(ColorGoal)},
		{"key shaft", 1, 3, 0.56, 0.6, c(ColorKey)},
		{"key ring hole", 1, 3, 0.56, 0.28, cBlack},
		{"floor", 3, 2, 0.5, 0.5, cBlack},
		{"agent body (facing down)", 1, 2, 0.5, 0.4, c(ColorAgent)},
		{"beside the downward triangle's tip", 1, 2, 0.1, 0.85, cBlack},
		{"locked door frame", 2, 1, 0.02, 0.5, c(ColorDoor)},
		{"locked door fill", 2, 1, 0.3, 0.3, color.RGBA{90, 63, 0, 255}}, // 0.45 × (200, 140, 0)
	} {
		if got := px(img, p.cx, p.cy, p.u, p.v); got != p.want {
			t.Errorf("standard %s at tile (%d,%d) (%.2f,%.2f): %v, want %v", p.name, p.cx, p.cy, p.u, p.v, got, p.want)
		}
	}
	// carrying the key draws it small on the agent's tile; the key's old
	// cell is floor; the open door is a strip at the tile's right edge
	for _, a := range []Action{Pickup, Left, Left, Forward, Right, Toggle} {
		e.StepIndex(a)
	}
	e.Render(img, tile, Standard)
	if got := px(img, 1, 1, 0.5+0.5*0.56, 0.5+0.5*0.6); got != c(ColorKey) {
		t.Errorf("carried key not drawn on the agent's tile: %v", got)
	}
	if got := px(img, 1, 3, 0.56, 0.6); got != cBlack {
		t.Errorf("picked-up key still drawn: %v", got)
	}
	if px(img, 2, 1, 0.9, 0.5) != c(ColorDoor) || px(img, 2, 1, 0.5, 0.5) != cBlack {
		t.Errorf("open door: edge %v centre %v, want door colour and floor", px(img, 2, 1, 0.9, 0.5), px(img, 2, 1, 0.5, 0.5))
	}

	// misleading: the key cell shows a locked door, the door a key, the goal is blue
	e.ResetLayout(layoutA)
	e.Render(img, tile, Misleading)
	if px(img, 1, 3, 0.02, 0.5) != c(ColorDoor) || px(img, 2, 1, 0.56, 0.6) != c(ColorKey) || px(img, 3, 3, 0.5, 0.5) != cBlue {
		t.Errorf("misleading: key cell %v, door cell %v, goal %v", px(img, 1, 3, 0.02, 0.5), px(img, 2, 1, 0.56, 0.6), px(img, 3, 3, 0.5, 0.5))
	}
	if count(img, c(ColorGoal)) != 0 {
		t.Error("misleading theme still draws a green goal")
	}

	// abstract: none of the standard semantic colours appear
	e.Render(img, tile, Abstract)
	for _, col := range [][3]uint8{ColorAgent, ColorKey, ColorDoor, ColorGoal} {
		if n := count(img, c(col)); n != 0 {
			t.Errorf("abstract theme has %d pixels of standard colour %v", n, col)
		}
	}
	if count(img, cCyan) == 0 || count(img, cOrange) == 0 || count(img, cMagenta) == 0 || count(img, cWhite) == 0 {
		t.Error("abstract theme misses a texture (key cyan, goal orange, door magenta, agent white)")
	}

	for _, name := range ThemeNames {
		if th, err := ParseTheme(name); err != nil || th.String() != name {
			t.Errorf("ParseTheme(%q) = %v, %v", name, th, err)
		}
	}
	if _, err := ParseTheme("sepia"); err == nil {
		t.Error("unknown theme accepted")
	}
}

// BenchmarkRender measures full-grid frames/s (8×8, 12-px tiles: 96×96).
func BenchmarkRender(b *testing.B) {
	e, _ := New(8, Options{})
	e.Reset(1)
	img := image.NewRGBA(image.Rect(0, 0, 96, 96))
	for b.Loop() {
		e.Render(img, 12, Standard)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "frames/s")
}
