package train

import (
	"math"
	"testing"

	"github.com/vlmrb/vlmrb/vlmprio"
)

// TestScoreWindow: each log row reports the mean score and the share at or
// above 0.5 of the clips scored since the row before, worked out by hand
// from cumulative snapshots; a row with no new clip reports neither.
func TestScoreWindow(t *testing.T) {
	var w scoreWindow
	for i, row := range []struct {
		m           vlmprio.Metrics
		mean, share float64 // NaN: not reported
	}{
		// 4 clips: 0.05, 0.15, 0.55, 0.95
		{vlmprio.Metrics{Scored: 4, ScoreSum: 1.7, ScoreHist: [10]int64{1, 1, 0, 0, 0, 1, 0, 0, 0, 1}}, 0.425, 0.5},
		// 2 more: 0.45, 0.65
		{vlmprio.Metrics{Scored: 6, ScoreSum: 2.8, ScoreHist: [10]int64{1, 1, 0, 0, 1, 1, 1, 0, 0, 1}}, 0.55, 0.5},
		// none
		{vlmprio.Metrics{Scored: 6, ScoreSum: 2.8, ScoreHist: [10]int64{1, 1, 0, 0, 1, 1, 1, 0, 0, 1}}, math.NaN(), math.NaN()},
	} {
		v := map[string]float64{}
		w.metrics(v, row.m)
		for _, c := range []struct {
			key  string
			want float64
		}{{"vlm/mean_score", row.mean}, {"vlm/score_above_half", row.share}} {
			got, ok := v[c.key]
			if math.IsNaN(c.want) {
				if ok {
					t.Errorf("row %d: %s = %v reported with no new clip", i, c.key, got)
				}
			} else if !ok || math.Abs(got-c.want) > 1e-12 {
				t.Errorf("row %d: %s = %v (reported %v), want %v", i, c.key, got, ok, c.want)
			}
		}
	}
}
