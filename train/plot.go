package train

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"

	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// curve describes one learning-curve PNG: the metric keys drawn on it.
type curve struct {
	file, title, ylabel string
	keys                []string
}

var curves = []curve{
	{"success_rate.png", "Success rate", "success rate", []string{"eval/success_rate", "rollout/success_rate"}},
	{"return.png", "Episode return", "return", []string{"eval/mean_return", "rollout/ep_rew_mean"}},
	{"losses.png", "Losses", "loss", []string{"losses/qf1", "losses/qf2", "losses/actor"}},
	{"alpha.png", "Entropy coefficient", "alpha", []string{"charts/alpha"}},
	{"vlm.png", "VLM scoring", "fraction", []string{"vlm/scored_fraction", "vlm/lambda", "vlm/mean_score"}},
}

var linePalette = []color.Color{
	color.RGBA{31, 119, 180, 255}, color.RGBA{255, 127, 14, 255},
	color.RGBA{44, 160, 44, 255}, color.RGBA{214, 39, 40, 255},
}

// PlotCurves writes learning-curve PNGs into dir from rows and returns the
// paths it wrote; a curve whose metrics have no finite values yet is
// skipped. Files are replaced atomically.
func PlotCurves(dir string, title string, rows []Row) ([]string, error) {
	var written []string
	for _, c := range curves {
		p := plot.New()
		p.Title.Text = title + ": " + c.title
		p.X.Label.Text = "env steps"
		p.Y.Label.Text = c.ylabel
		p.Add(plotter.NewGrid())
		n := 0
		for i, k := range c.keys {
			var xy plotter.XYs
			for _, r := range rows {
				if v, ok := r.Values[k]; ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
					xy = append(xy, plotter.XY{X: float64(r.Step), Y: v})
				}
			}
			if len(xy) == 0 {
				continue
			}
			l, err := plotter.NewLine(xy)
			if err != nil {
				return written, fmt.Errorf("plot %s: %w", k, err)
			}
			l.Color = linePalette[i%len(linePalette)]
			l.Width = vg.Points(1.5)
			p.Add(l)
			if len(xy) == 1 {
				s, err := plotter.NewScatter(xy)
				if err == nil {
					s.Color = l.Color
					p.Add(s)
				}
			}
			p.Legend.Add(k, l)
			n++
		}
		if n == 0 {
			continue
		}
		p.Legend.Top = true
		p.Legend.YOffs = -vg.Points(6) // keep clear of the title
		wt, err := p.WriterTo(6*vg.Inch, 4*vg.Inch, "png")
		if err != nil {
			return written, fmt.Errorf("render %s: %w", c.file, err)
		}
		path := filepath.Join(dir, c.file)
		if err := atomicfile.Write(path, 0o644, func(w io.Writer) error {
			_, err := wt.WriteTo(w)
			return err
		}); err != nil {
			return written, err
		}
		written = append(written, path)
	}
	return written, nil
}
