package curveplot

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"testing"
	"time"

	"gonum.org/v1/plot/vg"
)

// A lone evaluation point is drawn as a marker in the plot area, and the
// legend column right of it holds the legend only: the series' colour
// appears there just in the legend's sample (top rows), never where data
// could be drawn under it.
func TestLonePointVisibleLegendOutside(t *testing.T) {
	f := New("t", "x", "y")
	if err := f.Add(Series{Name: "eval", X: []float64{5000}, Y: []float64{0.5}}); err != nil {
		t.Fatal(err)
	}
	if err := f.Add(Series{Name: "band", X: []float64{0, 1, 2}, Y: []float64{0, 1, 0}, Lo: []float64{-1, 0, -1}, Hi: []float64{1, 2, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := f.Add(Series{Name: "bad", X: []float64{1}, Y: []float64{1, 2}}); err == nil {
		t.Fatal("mismatched series accepted")
	}
	const dpi = 96
	b, err := f.PNG(6*vg.Inch, 4*vg.Inch, 2*vg.Inch)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	bd := img.Bounds()
	if bd.Dx() != 6*dpi || bd.Dy() != 4*dpi {
		t.Fatalf("image %v, want %dx%d", bd.Size(), 6*dpi, 4*dpi)
	}
	legendX := bd.Dx() - 2*dpi
	c0 := Palette[0]
	isC0 := func(x, y int) bool {
		r, g, b, _ := img.At(x, y).RGBA()
		return uint8(r>>8) == c0.R && uint8(g>>8) == c0.G && uint8(b>>8) == c0.B
	}
	inPlot, lowInLegend := 0, 0
	for y := bd.Min.Y; y < bd.Max.Y; y++ {
		for x := bd.Min.X; x < bd.Max.X; x++ {
			if !isC0(x, y) {
				continue
			}
			if x < legendX {
				inPlot++
			} else if y > bd.Dy()/3 {
				lowInLegend++
			}
		}
	}
	if inPlot == 0 {
		t.Error("the lone point left no marker in the plot area")
	}
	if lowInLegend != 0 {
		t.Errorf("%d pixels of the series' colour in the lower legend column", lowInLegend)
	}
}

// Series past the palette's length reuse its colours with another dash
// pattern and marker, so eleven arms are still eleven distinct curves.
func TestStylesPastPalette(t *testing.T) {
	type key struct {
		col    color.RGBA
		dashes string
		glyph  string
	}
	seen := map[key]int{}
	for i := 0; i < len(lineStyles)*len(Palette); i++ {
		col, dashes, glyph := look(i)
		k := key{col, fmt.Sprint(dashes), fmt.Sprintf("%T", glyph)}
		if j, dup := seen[k]; dup {
			t.Fatalf("series %d looks like series %d: %+v", i, j, k)
		}
		seen[k] = i
	}
}

// Values at ±1e308 (whose range overflows to Inf), ±Inf and NaN are
// clipped or left out, and the figure renders instead of looping in the
// tick search.
func TestExtremeValuesRender(t *testing.T) {
	f := New("extreme", "x", "y")
	err := f.Add(Series{Name: "a", X: []float64{0, 1, 2, 3}, Y: []float64{-1e308, 1e308, math.Inf(1), math.NaN()},
		Lo: []float64{-1e308, 0, 0, 0}, Hi: []float64{1e308, 1e308, 1e308, 1e308}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := f.PNG(4*vg.Inch, 3*vg.Inch, vg.Inch); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("PNG did not finish")
	}
	if f.Clipped != 8 {
		t.Errorf("clipped %d, want 8: 7 values beyond ±MaxAbs (Inf included) and 1 NaN point", f.Clipped)
	}
}
