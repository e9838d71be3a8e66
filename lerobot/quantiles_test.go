package lerobot

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// LeRobot's histogram quantiles of 0, 1, …, 99 by hand: every value has a
// bin of its own (width w = (99 + 2e-10)/5000), so the first bin whose
// cumulative count reaches q·100 is value q·100 − 1's, and interpolation
// (one count in it, one still wanted) lands on its right edge: within w
// above the value. q01's target (1) is met in the very first bin, which
// RunningQuantileStats answers with that bin's left edge, min − 1e-10.
func TestHistQuantilesByHand(t *testing.T) {
	vals := make([]float64, 100)
	for i := range vals {
		vals[i] = float64(i)
	}
	w := (99 + 2e-10) / quantileBins
	q := histQuantiles(vals, nil)
	if q[0] != -1e-10 {
		t.Errorf("q01 = %.12g, want the first edge -1e-10", q[0])
	}
	for l, v := range []float64{9, 49, 89, 98} {
		if got := q[l+1]; got < v || got > v+w {
			t.Errorf("%s = %.9g, want within [%g, %g]", QuantileKeys[l+1], got, v, v+w)
		}
	}
	// weights are repetitions
	levels, counts := []float64{3, 7, 20}, []float64{5, 0, 11}
	var rep []float64
	for i, c := range counts {
		for range int(c) {
			rep = append(rep, levels[i])
		}
	}
	if a, b := histQuantiles(levels, counts), histQuantiles(rep, nil); !slices.Equal(a, b) {
		t.Errorf("weighted %v, repeated %v", a, b)
	}
	// fewer than 2 values: every quantile is the mean
	if q := histQuantiles([]float64{4.5}, nil); q[0] != 4.5 || q[4] != 4.5 {
		t.Errorf("one value: %v", q)
	}
}

// stats.json carries q01…q99 for every feature; a dataset's quantile is
// the frame-weighted mean of its episodes' (LeRobot's aggregate), and the
// episode table's stats/FEATURE/STAT columns hold each episode's.
func TestStatsQuantiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	lengths := []int{30, 10}
	writeSynthetic(t, dir, lengths, []Camera{{Name: "task", Width: 16, Height: 16}})
	b, err := os.ReadFile(filepath.Join(dir, "meta", "stats.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]map[string]any
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	for feat, m := range st {
		for _, k := range QuantileKeys {
			if _, ok := m[k]; !ok {
				t.Errorf("stats.json %s has no %s", feat, k)
			}
		}
	}
	// state dim 0 of episode e, frame s is e·1000 + s: its q50 per episode
	// is within a bin of the middle frame, and the dataset's is their
	// frame-weighted mean
	epQ50 := func(e, n int) float64 {
		vals := make([]float64, n)
		for s := range n {
			vals[s] = float64(float32(float64(e*1000 + s)))
		}
		return histQuantiles(vals, nil)[2]
	}
	want := (30*epQ50(0, 30) + 10*epQ50(1, 10)) / 40
	got := st[KeyState]["q50"].([]any)[0].(float64)
	if math.Abs(got-want) > 1e-9 {
		t.Fatalf("dataset q50 of state[0] = %.12g, want %.12g (frame-weighted mean of episodes')", got, want)
	}
	img := st[ImagePrefix+"task"]["q50"].([]any)
	if len(img) != 3 {
		t.Fatalf("image q50 shape %v, want [3][1][1]", img)
	}
	// the episode table
	f, err := os.Open(filepath.Join(dir, "meta", "episodes", "chunk-000", "file-000.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, _ := f.Stat()
	pf, err := parquet.OpenFile(f, fi.Size())
	if err != nil {
		t.Fatal(err)
	}
	for _, col := range []string{"stats/" + KeyState + "/q50", "stats/" + KeyAction + "/q99", "stats/" + KeyTimestamp + "/mean",
		"stats/" + ImagePrefix + "task/q01", "stats/" + KeyState + "/count"} {
		if !slices.ContainsFunc(pf.Schema().Columns(), func(path []string) bool { return path[0] == col }) {
			t.Errorf("episode table lacks %s", col)
		}
	}
	type epRow struct {
		Q50   []float64 `parquet:"stats/observation.state/q50,list"`
		Count []int64   `parquet:"stats/observation.state/count,list"`
	}
	rows, err := parquet.Read[epRow](f, fi.Size())
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Q50[0] != epQ50(0, 30) || rows[1].Q50[0] != epQ50(1, 10) || rows[0].Count[0] != 30 || rows[1].Count[0] != 10 {
		t.Fatalf("episode rows %+v, want q50 %g, %g and counts 30, 10", rows, epQ50(0, 30), epQ50(1, 10))
	}
}

// Privileged values stay out of observation.*, which LeRobot feeds to
// policies as state.
func TestPrivilegedOutsideObservation(t *testing.T) {
	for _, k := range []string{KeyProgress, KeyCameraTime} {
		if len(k) >= len("observation.") && k[:len("observation.")] == "observation." {
			t.Errorf("%s is under observation.*", k)
		}
	}
}
