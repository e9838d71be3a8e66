package study

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/rundir"
)

// The ETA is the pace of the runs trained so far times the runs left:
// 2 runs through in 10 minutes of wall time, 8 left → 40 minutes.
func TestTrackerLine(t *testing.T) {
	clock := time.Unix(0, 0)
	tr := newTracker(10, func() time.Time { return clock })
	if got := tr.line(); got != "0 of 10 runs, 0.00 CPU-h so far, ETA --" {
		t.Fatalf("before any run: %q", got)
	}
	clock = clock.Add(10 * time.Minute)
	tr.add(1800, true)
	tr.add(1800, true)
	if got, want := tr.line(), "2 of 10 runs, 1.00 CPU-h so far, ETA 40:00"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	tr.add(0, false) // skipped as done elsewhere: through, but not the pace
	if got, want := tr.line(), "3 of 10 runs, 1.00 CPU-h so far, ETA 35:00"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

// The dry-run forecast: CPU-s per env step of the same arm's finished
// runs, of all finished runs where the arm has none, times the steps left.
func TestEstimateFromFinishedRuns(t *testing.T) {
	dir := t.TempDir()
	n := 0
	mk := func(arm string, steps int64, cpu ...float64) Run {
		n++
		out := filepath.Join(dir, arm, strconv.Itoa(n))
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, c := range cpu {
			lines = append(lines, `{"cpu_s":`+strconv.FormatFloat(c, 'f', -1, 64)+`}`)
		}
		if len(lines) > 0 {
			if err := os.WriteFile(filepath.Join(out, attemptsFile), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		c := rundir.DefaultConfig()
		c.Steps, c.Out = steps, out
		return Run{Arm: arm, Config: c}
	}
	done := []Run{mk("a", 100, 4, 6), mk("a", 100, 30)} // 40 CPU-s / 200 steps: 0.2 s/step (a resumed run's two attempts add)
	left := []Run{mk("a", 50), mk("b", 100)}            // 10 + 20 (pooled) CPU-s
	e := estimate(done, left)
	if e.Left != 2 || e.StepsLeft != 150 || e.Basis != 2 {
		t.Fatalf("estimate %+v", e)
	}
	if got := e.CPUSPerStep * float64(e.StepsLeft); math.Abs(got-30) > 1e-9 {
		t.Fatalf("forecast %.6g CPU-s, want 30", got)
	}
	if e := estimate(nil, left); e.Basis != 0 || e.CPUH() != 0 || !strings.Contains(e.String(), "no finished run") {
		t.Fatalf("no basis: %+v %q", e, e.String())
	}
}

// The two phases' CPU rates from log rows: 1 ms a step up to learning
// starts (step 2000), 10 ms a step after it.
func TestPhaseRates(t *testing.T) {
	var rows []rundir.Row
	cpu := 0.5 // the process's start-up
	for step := int64(100); step <= 4000; step += 100 {
		if step <= 2000 {
			cpu += 100 * 0.001
		} else {
			cpu += 100 * 0.010
		}
		rows = append(rows, rundir.Row{Step: step, Values: map[string]float64{"time/process_cpu_s": cpu}})
	}
	rnd, upd := phaseRates(rows, 2000)
	if math.Abs(rnd-0.001) > 1e-12 || math.Abs(upd-0.010) > 1e-12 {
		t.Fatalf("rates %g, %g; want 0.001 and 0.010 CPU-s per step", rnd, upd)
	}
	if r, u := phaseRates(rows[:1], 2000); r != 0 || u != 0 {
		t.Fatalf("one row: %g %g, want no rate", r, u)
	}
}
