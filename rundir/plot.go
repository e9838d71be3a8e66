package rundir

import (
	"fmt"
	"math"
	"path/filepath"

	"github.com/vlmrb/vlmrb/internal/curveplot"
	"gonum.org/v1/plot/vg"
)

// curve describes one learning-curve PNG: the metric keys drawn on it.
type curve struct {
	file, title, ylabel string
	keys                []string
}

var curves = []curve{
	{"success_rate.png", "Success rate", "success rate", []string{"eval/success_rate", "rollout/success_rate"}},
	{"return.png", "Episode return", "return", []string{"eval/mean_reward", "rollout/ep_rew_mean"}},
	{"losses.png", "Losses", "loss", []string{"losses/qf1_loss", "losses/qf2_loss", "losses/actor_loss"}},
	{"alpha.png", "Entropy coefficient", "alpha", []string{"charts/alpha"}},
	{"vlm.png", "VLM scoring", "fraction", []string{"vlm/scored_fraction", "vlm/lambda", "vlm/mean_score"}},
}

// evalStd is the ±1 standard deviation band of an evaluation metric over
// its episodes: the return's own, and √(p(1−p)) for a success rate p.
var evalStd = map[string]func(v map[string]float64) (float64, bool){
	"eval/mean_reward": func(v map[string]float64) (float64, bool) {
		sd, ok := v["eval/std_return"]
		return sd, ok
	},
	"eval/success_rate": func(v map[string]float64) (float64, bool) {
		p, ok := v["eval/success_rate"]
		return math.Sqrt(max(p*(1-p), 0)), ok
	},
}

// PlotCurves writes learning-curve PNGs into dir from rows and returns the
// paths it wrote; a curve whose metrics have no finite values yet is
// skipped. Evaluation points are markers with a ±1 std band over the
// episodes; the legend sits right of the plot. Files are replaced
// atomically.
func PlotCurves(dir string, title string, rows []Row) ([]string, error) {
	var written []string
	for _, c := range curves {
		f := curveplot.New(title+": "+c.title, "env steps", c.ylabel)
		for _, k := range c.keys {
			s := curveplot.Series{Name: k}
			band := evalStd[k]
			for _, r := range rows {
				v, ok := r.Values[k]
				if old, renamed := renamedKeys[k]; !ok && renamed { // a row logged before the rename
					v, ok = r.Values[old]
				}
				if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
					continue
				}
				s.X, s.Y = append(s.X, float64(r.Step)), append(s.Y, v)
				if band != nil {
					sd, ok := band(r.Values)
					if !ok || math.IsNaN(sd) {
						sd = 0
					}
					lo, hi := v-sd, v+sd
					if k == "eval/success_rate" {
						lo, hi = max(lo, 0), min(hi, 1)
					}
					s.Lo, s.Hi = append(s.Lo, lo), append(s.Hi, hi)
				}
			}
			if err := f.Add(s); err != nil {
				return written, fmt.Errorf("plot %s: %w", k, err)
			}
		}
		if f.Len() == 0 {
			continue
		}
		path := filepath.Join(dir, c.file)
		if err := f.Save(path, 7.5*vg.Inch, 4*vg.Inch, 1.9*vg.Inch); err != nil {
			return written, fmt.Errorf("render %s: %w", c.file, err)
		}
		written = append(written, path)
	}
	return written, nil
}
