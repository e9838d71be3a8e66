package train

import (
	"math"
	"testing"

	"github.com/vlmrb/vlmrb/vlmprio"
)

// TestScoreWindow: each log row reports the mean score and the share at or
// above 0.5 of the clips scored since the row before, worked out by hand
// from two cumulative snapshots; a row with no new clip reports neither.
func TestScoreWindow(t *testing.T) {
	var w scoreWindow
	v := map[string]float64{}
	// 4 clips: 0.05, 0.15, 0.55, 0.95
	w.metrics(v, vlmprio.Metrics{Scored: 4, ScoreSum: 1.7, ScoreHist: [10]int64{1, 1, 0, 0, 0, 1, 0, 0, 0, 1}})
	if got := v["vlm/mean_score"]; math.Abs(got-0.425) > 1e-12 {
		t.Errorf("first row mean %v, want 0.425", got)
	}
	if got := v["vlm/score_above_half"]; got != 0.5 {
		t.Errorf("first row share %v, want 0.5", got)
	}
	// 2 more: 0.45, 0.65 → mean 0.55, one of two ≥ 0.5
	v = map[string]float64{}
	w.metrics(v, vlmprio.Metrics{Scored: 6, ScoreSum: 2.8, ScoreHist: [10]int64{1, 1, 0, 0, 1, 1, 1, 0, 0, 1}})
	if got := v["vlm/mean_score"]; math.Abs(got-0.55) > 1e-12 {
		t.Errorf("second row mean %v, want 0.55", got)
	}
	if got := v["vlm/score_above_half"]; got != 0.5 {
		t.Errorf("second row share %v, want 0.5", got)
	}
	v = map[string]float64{}
	w.metrics(v, vlmprio.Metrics{Scored: 6, ScoreSum: 2.8, ScoreHist: [10]int64{1, 1, 0, 0, 1, 1, 1, 0, 0, 1}})
	if _, ok := v["vlm/mean_score"]; ok {
		t.Error("a row with no new clip reports a mean score")
	}
}
