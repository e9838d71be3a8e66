package study

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/rundir"
)

func TestRunDiagsAggregates(t *testing.T) {
	row := func(step int64, kv map[string]float64) rundir.Row { return rundir.Row{Step: step, Values: kv} }
	rows := []rundir.Row{
		row(10, map[string]float64{"losses/qf1_values": 3, "charts/alpha": 0.2, "replay/prioritized_frac": 0.2}),
		row(20, map[string]float64{"losses/qf1_values": 9, "charts/alpha": 0.01, "replay/prioritized_frac": 0.4}),
		row(30, map[string]float64{"losses/qf1_values": 5, "charts/alpha": 0.05, "replay/prioritized_frac": math.NaN()}),
		row(40, map[string]float64{"losses/qf1_values": 4, "charts/alpha": 0.02, "replay/prioritized_frac": 0.6}),
	}
	steps, vals := []float64{10, 20, 30, 40}, []float64{0, 0, 0.5, 1}
	got := runDiags(rows, steps, vals)
	want := map[string]float64{
		"first":                   30,   // first step with the metric above 0
		"losses/qf1_values":       9,    // max
		"charts/alpha":            0.05, // max over steps ≥ 20 (half of 40): not the early 0.2
		"replay/prioritized_frac": 0.4,  // mean of 0.2, 0.4, 0.6 (NaN skipped)
	}
	for k, dk := range diagKeys {
		key := dk.key
		if key == "" || dk.agg != "mean" && dk.agg != "max" && dk.agg != "max2" {
			key = dk.agg // first, lag, firstpos, pre, post
		}
		w, ok := want[key]
		switch {
		case !ok && !math.IsNaN(got[k]):
			t.Errorf("%s: %v, want NaN (not logged)", key, got[k])
		case ok && math.Abs(got[k]-w) > 1e-12:
			t.Errorf("%s: %v, want %v", key, got[k], w)
		}
	}
	if never := runDiags(rows, steps, []float64{0, 0, 0, 0}); !math.IsInf(never[0], 1) {
		t.Errorf("first of a run that never succeeds = %v, want +Inf", never[0])
	}
}

func TestRunDiagsSplitsAtFirstReward(t *testing.T) {
	row := func(step int64, kv map[string]float64) rundir.Row { return rundir.Row{Step: step, Values: kv} }
	const rho = "eval/score_dq_spearman"
	rows := []rundir.Row{
		row(10, map[string]float64{rewardKey: 0}),
		row(10, map[string]float64{rho: -0.6}),
		row(20, map[string]float64{rewardKey: 0}),
		row(20, map[string]float64{rho: -0.4}),
		row(30, map[string]float64{rewardKey: 0.01}), // the first reward is in the buffer
		row(30, map[string]float64{rho: 0.5}),
		row(40, map[string]float64{rewardKey: 0.02}),
		row(40, map[string]float64{rho: 0.9}),
	}
	got := map[string]float64{}
	for k, v := range runDiags(rows, []float64{10, 20, 30, 40, 50}, []float64{0, 0.6, 0, 0.3, 0.5}) {
		switch dk := diagKeys[k]; {
		case dk.key == rho:
			got[dk.agg] = v
		case dk.agg == "firstpos" || dk.agg == "lag":
			got[dk.agg] = v
		}
	}
	// the reward enters the buffer at step 30; the success at 20 came
	// before it (luck), the first ≥ 0.5 after it is at 50
	if got["firstpos"] != 30 || got["lag"] != 20 {
		t.Errorf("first reward %v, lag %v; want 30 and 20", got["firstpos"], got["lag"])
	}
	for agg, want := range map[string]float64{"mean": 0.1, "pre": -0.5, "post": 0.7} {
		if math.Abs(got[agg]-want) > 1e-12 {
			t.Errorf("%s Spearman %v, want %v", agg, got[agg], want)
		}
	}
	// a run whose buffer never holds a reward has no "post" value and no
	// lag, and its first reward is never
	for k, v := range runDiags(rows[:4], []float64{10, 20}, []float64{0, 0}) {
		switch dk := diagKeys[k]; {
		case (dk.key == rho && dk.agg == "post" || dk.agg == "lag") && !math.IsNaN(v):
			t.Errorf("%s of a run without reward = %v, want NaN", dk.agg, v)
		case dk.agg == "firstpos" && !math.IsInf(v, 1):
			t.Errorf("first reward of a run without reward = %v, want +Inf", v)
		}
	}
}

func TestArmDiagsMedianAndJSON(t *testing.T) {
	mk := func(first, q float64) *runData {
		d := &runData{diags: make([]float64, len(diagKeys))}
		for k := range d.diags {
			d.diags[k] = math.NaN()
		}
		d.diags[0], d.diags[1] = first, q
		return d
	}
	ds := []*runData{mk(30, 5), mk(math.Inf(1), 100), mk(10, 7)}
	got := armDiags(ds)
	if len(got) != 2 {
		t.Fatalf("%d diagnostics, want 2 (the others were never logged): %+v", len(got), got)
	}
	if f := got[0]; f.Median != 30 || f.Min != 10 || !math.IsInf(float64(f.Max), 1) || f.Runs != 3 {
		t.Errorf("first success: %+v, want median 30, min 10, max +Inf", f)
	}
	if q := got[1]; q.Median != 7 || q.Min != 5 || q.Max != 100 {
		t.Errorf("max Q: %+v, want median 7 of {5, 7, 100}", q)
	}
	b, err := json.Marshal(got[0])
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"key":"metric","agg":"first","runs":3,"median":30,"min":10,"max":null}`; string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
}

// Runs not done are listed per task/arm and state with seed ranges.
func TestNotDoneGrouped(t *testing.T) {
	runs := []RunStatus{
		{ID: "reach/per/s101", State: Done},
		{ID: "reach/per/s102", State: Missing}, {ID: "reach/per/s103", State: Missing}, {ID: "reach/per/s104", State: Missing},
		{ID: "reach/per/s106", State: Missing},
		{ID: "reach/uniform/s101", State: Running},
		{ID: "reach/uniform/s102", State: Missing}, {ID: "reach/uniform/s103", State: Missing},
	}
	got := strings.Join(notDone(runs), "\n")
	want := "reach/per: missing s102–s104, s106\nreach/uniform: running s101\nreach/uniform: missing s102, s103"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
