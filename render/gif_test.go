package render

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"testing"
)

// A frame of flat colours (at most 256) is encoded exactly: no pixel
// changes, so a flat surface stays flat instead of speckled by dithering.
func TestGIFFlatColoursExact(t *testing.T) {
	frames := make([]*image.RGBA, 3)
	for k := range frames {
		f := image.NewRGBA(image.Rect(0, 0, 64, 48))
		for y := range 48 {
			for x := range 64 {
				// 200 distinct shades: 8 bands × 25 steps, shifting per frame
				c := uint8((x/8 + k) % 8 * 30)
				f.SetRGBA(x, y, color.RGBA{c, uint8(y / 2 * 10), 255 - c, 255})
			}
		}
		frames[k] = f
	}
	var buf bytes.Buffer
	if err := EncodeGIF(&buf, frames, 5); err != nil {
		t.Fatal(err)
	}
	g, err := gif.DecodeAll(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Image) != 3 {
		t.Fatalf("%d frames", len(g.Image))
	}
	for k, p := range g.Image {
		for y := range 48 {
			for x := range 64 {
				r, gg, b, _ := p.At(x, y).RGBA()
				w := frames[k].RGBAAt(x, y)
				if uint8(r>>8) != w.R || uint8(gg>>8) != w.G || uint8(b>>8) != w.B {
					t.Fatalf("frame %d pixel (%d,%d) = %d,%d,%d, want %v", k, x, y, r>>8, gg>>8, b>>8, w)
				}
			}
		}
	}
}

// Many colours: the palette from the frames stays close to every pixel
// (a smooth gradient, 65,536 colours into 256: mean error a few levels
// per channel).
func TestGIFPaletteFromFrames(t *testing.T) {
	f := image.NewRGBA(image.Rect(0, 0, 256, 256))
	for y := range 256 {
		for x := range 256 {
			f.SetRGBA(x, y, color.RGBA{uint8(x), uint8(y), uint8((x + y) / 2), 255})
		}
	}
	pal := framePalette([]*image.RGBA{f}, 256)
	if len(pal) != 256 {
		t.Fatalf("palette of %d colours, want 256", len(pal))
	}
	var sum float64
	for y := range 256 {
		for x := range 256 {
			c := f.RGBAAt(x, y)
			p := pal[pal.Index(c)].(color.RGBA)
			sum += absDiff(c.R, p.R) + absDiff(c.G, p.G) + absDiff(c.B, p.B)
		}
	}
	// 256 boxes over a 2-D colour sheet of side 256: boxes of ~16×16,
	// mean distance to the box centre about 4 per channel
	if mean := sum / (3 * 256 * 256); mean > 6 {
		t.Fatalf("mean error %.2f levels per channel", mean)
	}
}

func absDiff(a, b uint8) float64 {
	if a > b {
		return float64(a - b)
	}
	return float64(b - a)
}
