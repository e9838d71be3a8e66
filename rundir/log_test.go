package rundir

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestMetricsLogGrowsColumnsAndResumes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	l, err := OpenMetricsLog(dir, -1, true)
	if err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(l.Write(Row{Step: 100, Values: map[string]float64{"rollout/ep_rew_mean": 1}}))
	must(l.Write(Row{Step: 200, Values: map[string]float64{"rollout/ep_rew_mean": 2, "losses/qf1": 0.5}}))
	must(l.Write(Row{Step: 300, Values: map[string]float64{"rollout/ep_rew_mean": 3, "losses/qf1": math.NaN()}}))
	must(l.Close())

	recs := readCSV(t, filepath.Join(dir, "metrics.csv"))
	want := [][]string{
		{"step", "losses/qf1", "rollout/ep_rew_mean"},
		{"100", "", "1"},
		{"200", "0.5", "2"},
		{"300", "NaN", "3"},
	}
	if len(recs) != len(want) {
		t.Fatalf("csv %v", recs)
	}
	for i := range want {
		if strings.Join(recs[i], ",") != strings.Join(want[i], ",") {
			t.Fatalf("csv row %d = %v, want %v", i, recs[i], want[i])
		}
	}
	rows, err := ReadMetricsJSONL(filepath.Join(dir, "metrics.jsonl"))
	if err != nil || len(rows) != 3 || rows[1].Values["losses/qf1"] != 0.5 || !math.IsNaN(rows[2].Values["losses/qf1"]) {
		t.Fatalf("jsonl rows %v err %v", rows, err)
	}

	// a torn last line (SIGKILL mid-write) is ignored; resume keeps rows ≤ 200
	f, _ := os.OpenFile(filepath.Join(dir, "metrics.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	_, _ = f.WriteString(`{"step":400,"rollout/ep_re`)
	f.Close()
	l, err = OpenMetricsLog(dir, 200, false)
	if err != nil {
		t.Fatal(err)
	}
	must(l.Write(Row{Step: 250, Values: map[string]float64{"rollout/ep_rew_mean": 9}}))
	must(l.Close())
	rows, _ = ReadMetricsJSONL(filepath.Join(dir, "metrics.jsonl"))
	var steps []int64
	for _, r := range rows {
		steps = append(steps, r.Step)
	}
	if len(steps) != 3 || steps[0] != 100 || steps[1] != 200 || steps[2] != 250 {
		t.Fatalf("resumed steps %v, want [100 200 250]", steps)
	}
	if n := len(readCSV(t, filepath.Join(dir, "metrics.csv"))); n != 4 {
		t.Fatalf("resumed csv has %d lines, want 4", n)
	}
}

func TestFormatTableGroups(t *testing.T) {
	t.Parallel()
	s := FormatTable(1000, map[string]float64{
		"rollout/ep_rew_mean": 12.5, "losses/qf1": 0.25, "eval/success_rate": 0.5, "time/fps": 300,
	})
	for _, want := range []string{"| eval/", "|     success_rate", "| losses/", "| rollout/", "| time/", "total_timesteps", "1000"} {
		if !strings.Contains(s, want) {
			t.Fatalf("table lacks %q:\n%s", want, s)
		}
	}
	if strings.Index(s, "eval/") > strings.Index(s, "losses/") {
		t.Fatalf("groups not sorted:\n%s", s)
	}
}

func TestPlotCurvesWritesPNG(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rows := []Row{
		{Step: 1000, Values: map[string]float64{"eval/success_rate": 0, "losses/qf1": 1}},
		{Step: 2000, Values: map[string]float64{"eval/success_rate": 0.5, "losses/qf1": 0.5}},
	}
	paths, err := PlotCurves(dir, "reach", rows)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2 {
		t.Fatalf("wrote %v, want success_rate.png and losses.png", paths)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil || len(b) < 8 || string(b[1:4]) != "PNG" {
			t.Fatalf("%s is not a PNG (err %v)", p, err)
		}
	}
}
