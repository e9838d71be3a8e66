package curveplot

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Palette is Tableau 10, the colours rliable's and matplotlib's plots use.
var Palette = []color.RGBA{
	{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255},
	{148, 103, 189, 255}, {140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255},
	{188, 189, 34, 255}, {23, 190, 207, 255},
}

// Series is one curve: y at each x, and optionally a band [Lo, Hi] at
// each x (nil: no band).
type Series struct {
	Name   string
	X, Y   []float64
	Lo, Hi []float64
}

// MaxAbs bounds the values a figure draws: a value beyond ±MaxAbs
// (±Inf included) is drawn at ±MaxAbs and counted in Clipped, and a point
// with a NaN is left out, so axis ranges and their ticks stay finite (the
// tick search loops for ever on a range that overflows, as ±1e308 does).
const MaxAbs = 1e12

// Figure is a plot with a legend kept outside it.
type Figure struct {
	Plot   *plot.Plot
	legend plot.Legend
	n      int
	// Clipped counts values drawn at ±MaxAbs and points left out for a
	// NaN; PNG notes it in the title.
	Clipped int
}

// clip returns s with every value within ±MaxAbs and without the points
// that hold a NaN, counting what it changed in f.Clipped.
func (f *Figure) clip(s Series) Series {
	c := func(v float64) float64 {
		switch {
		case v > MaxAbs:
			f.Clipped++
			return MaxAbs
		case v < -MaxAbs:
			f.Clipped++
			return -MaxAbs
		}
		return v
	}
	out := Series{Name: s.Name}
	for i := range s.X {
		vals := []float64{s.X[i], s.Y[i]}
		if s.Lo != nil {
			vals = append(vals, s.Lo[i], s.Hi[i])
		}
		if slices.ContainsFunc(vals, math.IsNaN) {
			f.Clipped++
			continue
		}
		out.X, out.Y = append(out.X, c(s.X[i])), append(out.Y, c(s.Y[i]))
		if s.Lo != nil {
			out.Lo, out.Hi = append(out.Lo, c(s.Lo[i])), append(out.Hi, c(s.Hi[i]))
		}
	}
	if s.Lo != nil && out.Lo == nil {
		out.Lo, out.Hi = []float64{}, []float64{}
	}
	return out
}

// New starts a figure with a title, axis labels and a grid.
func New(title, xlabel, ylabel string) *Figure {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Add(plotter.NewGrid())
	l := plot.NewLegend()
	l.Top, l.Left = true, true
	return &Figure{Plot: p, legend: l}
}

// lineStyles tell apart series that share a palette colour: the first
// len(Palette) series are solid with round markers, the next ones dashed
// with square markers, then dotted with triangles.
var lineStyles = []struct {
	dashes []vg.Length
	glyph  draw.GlyphDrawer
}{
	{nil, draw.CircleGlyph{}},
	{[]vg.Length{vg.Points(6), vg.Points(3)}, draw.SquareGlyph{}},
	{[]vg.Length{vg.Points(1.5), vg.Points(2.5)}, draw.TriangleGlyph{}},
}

// look is the colour, dash pattern and marker of the n-th series.
func look(n int) (color.RGBA, []vg.Length, draw.GlyphDrawer) {
	st := lineStyles[(n/len(Palette))%len(lineStyles)]
	return Palette[n%len(Palette)], st.dashes, st.glyph
}

// Add draws s in the next palette colour (and line style, past the
// palette's length): its band (when it has one and more than one point),
// the line and a marker at every point.
func (f *Figure) Add(s Series) error {
	if len(s.X) != len(s.Y) || s.Lo != nil && (len(s.Lo) != len(s.X) || len(s.Hi) != len(s.X)) {
		return fmt.Errorf("curveplot: series %q has %d x, %d y, %d lo, %d hi", s.Name, len(s.X), len(s.Y), len(s.Lo), len(s.Hi))
	}
	s = f.clip(s)
	if len(s.X) == 0 {
		return nil
	}
	col, dashes, glyph := look(f.n)
	f.n++
	if s.Lo != nil && len(s.X) > 1 {
		band := make(plotter.XYs, 0, 2*len(s.X))
		for i := range s.X {
			band = append(band, plotter.XY{X: s.X[i], Y: s.Lo[i]})
		}
		for i := len(s.X) - 1; i >= 0; i-- {
			band = append(band, plotter.XY{X: s.X[i], Y: s.Hi[i]})
		}
		poly, err := plotter.NewPolygon(band)
		if err != nil {
			return fmt.Errorf("curveplot: %s: %w", s.Name, err)
		}
		poly.Color = color.NRGBA{col.R, col.G, col.B, 56}
		poly.Width = 0
		poly.LineStyle.Color = color.Transparent
		f.Plot.Add(poly)
	}
	xy := make(plotter.XYs, len(s.X))
	for i := range s.X {
		xy[i] = plotter.XY{X: s.X[i], Y: s.Y[i]}
	}
	l, pts, err := plotter.NewLinePoints(xy)
	if err != nil {
		return fmt.Errorf("curveplot: %s: %w", s.Name, err)
	}
	l.Color, l.Width, l.Dashes = col, vg.Points(1.6), dashes
	pts.Color, pts.Shape, pts.Radius = col, glyph, vg.Points(2)
	f.Plot.Add(l, pts)
	f.legend.Add(s.Name, l, pts)
	return nil
}

// Len is the number of series drawn.
func (f *Figure) Len() int { return f.n }

// PNG renders the figure w×h with the legend in a column legendW wide
// right of the plot.
func (f *Figure) PNG(w, h, legendW vg.Length) ([]byte, error) {
	if f.Clipped > 0 && !strings.Contains(f.Plot.Title.Text, "clipped") {
		f.Plot.Title.Text += fmt.Sprintf(" (%d values beyond ±%g clipped or NaN left out)", f.Clipped, MaxAbs)
	}
	img := vgimg.New(w, h)
	dc := draw.New(img)
	f.Plot.Draw(draw.Crop(dc, 0, -legendW, 0, 0))
	f.legend.Draw(draw.Crop(dc, w-legendW+vg.Points(6), 0, 0, -vg.Points(20)))
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Save writes PNG(w, h, legendW) to path atomically.
func (f *Figure) Save(path string, w, h, legendW vg.Length) error {
	b, err := f.PNG(w, h, legendW)
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, b)
}
