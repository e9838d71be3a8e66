package study

import (
	"fmt"
	"time"
)

// tracker is a Runner's progress for its log: how many of the shard's
// runs are through, the CPU time its children used, and an ETA from the
// pace of the runs this call trained to the end (wall time per finished
// run at the parallelism in use, so it includes every overhead).
type tracker struct {
	total   int       // runs in this call's list
	through int       // finished, failed, or skipped as done/held elsewhere
	trained int       // finished by a child this call started (the pace)
	cpuS    float64   // CPU seconds of this call's children
	start   time.Time // when this call started its first child
	now     func() time.Time
}

func newTracker(total int, now func() time.Time) *tracker {
	return &tracker{total: total, start: now(), now: now}
}

// add counts one outcome: trained says a child ran the run to its end.
func (t *tracker) add(cpuS float64, trained bool) {
	t.through++
	t.cpuS += cpuS
	if trained {
		t.trained++
	}
}

// line is "k of N runs, x.xx CPU-h so far, ETA h:mm:ss" (ETA "--" before
// the first run this call trained has finished).
func (t *tracker) line() string {
	eta := "--"
	if left := t.total - t.through; left == 0 {
		eta = "0:00"
	} else if t.trained > 0 {
		per := t.now().Sub(t.start) / time.Duration(t.trained)
		eta = fmtHMS(per * time.Duration(left))
	}
	return fmt.Sprintf("%d of %d runs, %.2f CPU-h so far, ETA %s", t.through, t.total, t.cpuS/3600, eta)
}

func fmtHMS(d time.Duration) string {
	d = d.Round(time.Second)
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	if h > 0 {
		return fmt.Sprintf("%d:%02d:%02d", h, m, s)
	}
	return fmt.Sprintf("%d:%02d", m, s)
}

// Estimate is a dry run's CPU-time forecast for the runs left to train.
type Estimate struct {
	Left        int     // runs not done (to start or to resume)
	StepsLeft   int64   // env steps they still have to take
	Basis       int     // finished runs the rate comes from (0: no estimate)
	CPUSPerStep float64 // CPU seconds per env step over those runs
	Calibrated  int     // arms whose rate comes from a short calibration run (Runner.Calibrate)
}

// CPUH is the forecast in CPU-hours (0 without a basis).
func (e Estimate) CPUH() float64 { return e.CPUSPerStep * float64(e.StepsLeft) / 3600 }

// String says the estimate and where it comes from.
func (e Estimate) String() string {
	switch {
	case e.Left == 0:
		return "nothing left to train"
	case e.Calibrated > 0:
		return fmt.Sprintf("%d runs, %d env steps left: about %.2f CPU-h (%d arms calibrated by a short training, evaluations not included; %d finished runs)",
			e.Left, e.StepsLeft, e.CPUH(), e.Calibrated, e.Basis)
	case e.Basis == 0:
		return fmt.Sprintf("%d runs, %d env steps left; no finished run in this study to estimate CPU time from: "+
			"add --calibrate, or run one (for example --shard 1/%d) and dry-run again", e.Left, e.StepsLeft, max(e.Left, 1))
	default:
		return fmt.Sprintf("%d runs, %d env steps left: about %.1f CPU-h (%.2f CPU-ms per env step over %d finished runs)",
			e.Left, e.StepsLeft, e.CPUH(), 1000*e.CPUSPerStep, e.Basis)
	}
}
