package study

import (
	"bytes"
	"fmt"
	"image/color"

	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// palette: Tableau 10, the colours rliable's and matplotlib's plots use.
var palette = []color.RGBA{
	{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255},
	{148, 103, 189, 255}, {140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255},
	{188, 189, 34, 255}, {23, 190, 207, 255},
}

// plotCurves draws each arm's IQM curve with its shaded CI band and eval
// points as markers, the legend in a column right of the plot so it never
// covers a line.
func plotCurves(path, title, ylabel string, cs []CurveSeries) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "env steps"
	p.Y.Label.Text = ylabel + " (IQM, 95% CI)"
	p.Add(plotter.NewGrid())
	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	for i, c := range cs {
		col := palette[i%len(palette)]
		band := make(plotter.XYs, 0, 2*len(c.Steps))
		line := make(plotter.XYs, 0, len(c.Steps))
		for j, s := range c.Steps {
			band = append(band, plotter.XY{X: s, Y: c.IQM[j].Lo})
			line = append(line, plotter.XY{X: s, Y: c.IQM[j].Point})
		}
		for j := len(c.Steps) - 1; j >= 0; j-- {
			band = append(band, plotter.XY{X: c.Steps[j], Y: c.IQM[j].Hi})
		}
		if len(c.Steps) > 1 {
			poly, err := plotter.NewPolygon(band)
			if err != nil {
				return fmt.Errorf("plot %s: %w", c.Arm, err)
			}
			poly.Color = color.NRGBA{col.R, col.G, col.B, 56}
			poly.Width = 0
			poly.LineStyle.Color = color.Transparent
			p.Add(poly)
		}
		l, pts, err := plotter.NewLinePoints(line)
		if err != nil {
			return fmt.Errorf("plot %s: %w", c.Arm, err)
		}
		l.Color, l.Width = col, vg.Points(1.6)
		pts.Color, pts.Shape, pts.Radius = col, draw.CircleGlyph{}, vg.Points(2)
		p.Add(l, pts)
		legend.Add(c.Arm, l, pts)
	}
	if unitRange(cs) {
		p.Y.Min, p.Y.Max = 0, 1
	}
	w, h := 8*vg.Inch, 4*vg.Inch
	lw := 1.9 * vg.Inch
	img := vgimg.New(w, h)
	dc := draw.New(img)
	p.Draw(draw.Crop(dc, 0, -lw, 0, 0))
	legend.Draw(draw.Crop(dc, w-lw+vg.Points(6), 0, 0, -vg.Points(20)))
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, buf.Bytes())
}

// unitRange reports whether every band lies in [0, 1] (a success rate).
func unitRange(cs []CurveSeries) bool {
	for _, c := range cs {
		for _, iv := range c.IQM {
			if iv.Lo < 0 || iv.Hi > 1 {
				return false
			}
		}
	}
	return true
}
