package study

import (
	"github.com/vlmrb/vlmrb/internal/curveplot"
	"gonum.org/v1/plot/vg"
)

// plotCurves draws each arm's IQM curve with its shaded CI band and eval
// points as markers, the legend in a column right of the plot so it never
// covers a line.
func plotCurves(path, title, ylabel string, cs []CurveSeries) error {
	f := curveplot.New(title, "env steps", ylabel+" (IQM, 95% CI)")
	for _, c := range cs {
		s := curveplot.Series{Name: c.Arm, X: c.Steps}
		for _, iv := range c.IQM {
			s.Y, s.Lo, s.Hi = append(s.Y, iv.Point), append(s.Lo, iv.Lo), append(s.Hi, iv.Hi)
		}
		if err := f.Add(s); err != nil {
			return err
		}
	}
	if unitRange(cs) {
		f.Plot.Y.Min, f.Plot.Y.Max = 0, 1
	}
	return f.Save(path, 8*vg.Inch, 4*vg.Inch, 1.9*vg.Inch)
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
