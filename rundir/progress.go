package rundir

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// Progress draws a one-line progress bar with steps/s and ETA. It draws
// only when its writer is a terminal, so logs and pipes stay clean.
//
// The speed is that of the last 30 seconds: a run is much faster before
// learning starts (random actions, no updates) than after, and an ETA
// from the average since the start would promise seconds for what takes
// minutes.
type Progress struct {
	w         io.Writer
	tty       bool
	total     int64
	startStep int64
	lastDraw  time.Time
	drawn     bool
	now       func() time.Time

	samples []progressSample // ring, one per rateSampleEvery, oldest at next
	next    int
}

type progressSample struct {
	t    time.Time
	step int64
}

// The recent-speed window: samples every rateSampleEvery, rateSamples of
// them (30 s).
const (
	rateSampleEvery = time.Second
	rateSamples     = 30
)

// IsTerminal reports whether w, or the writer at the end of its chain of
// Unwrap() io.Writer methods (redact.Writer around the CLI's checked
// stdout around *os.File), is a character device (a TTY).
func IsTerminal(w io.Writer) bool {
	for range 16 { // a chain this deep is a cycle, not a wrapper
		u, ok := w.(interface{ Unwrap() io.Writer })
		if !ok {
			break
		}
		w = u.Unwrap()
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	if err != nil {
		return false
	}
	return st.Mode()&os.ModeCharDevice != 0
}

// NewProgress starts a bar for steps startStep..total.
func NewProgress(w io.Writer, startStep, total int64) *Progress {
	return newProgressClock(w, startStep, total, time.Now)
}

func newProgressClock(w io.Writer, startStep, total int64, now func() time.Time) *Progress {
	t := now()
	return &Progress{w: w, tty: w != nil && IsTerminal(w), total: total, startStep: startStep, now: now,
		samples: []progressSample{{t, startStep}}}
}

// sample records (now, step) once per rateSampleEvery.
func (p *Progress) sample(step int64) {
	t := p.now()
	newest := p.samples[(p.next+len(p.samples)-1)%len(p.samples)]
	if t.Sub(newest.t) < rateSampleEvery {
		return
	}
	if len(p.samples) < rateSamples {
		p.samples = append(p.samples, progressSample{t, step})
		return
	}
	p.samples[p.next] = progressSample{t, step}
	p.next = (p.next + 1) % rateSamples
}

// Rate returns env steps per second over the last 30 seconds (since the
// start while the bar is younger than that).
func (p *Progress) Rate(step int64) float64 {
	p.sample(step)
	oldest := p.samples[p.next%len(p.samples)]
	el := p.now().Sub(oldest.t).Seconds()
	if el <= 0 {
		return 0
	}
	return float64(step-oldest.step) / el
}

// Update redraws the bar at most 5 times per second.
func (p *Progress) Update(step int64) {
	p.sample(step) // also off a terminal: Status needs the recent speed
	if !p.tty {
		return
	}
	now := p.now()
	if now.Sub(p.lastDraw) < 200*time.Millisecond && step < p.total {
		return
	}
	p.lastDraw = now
	_, _ = fmt.Fprint(p.w, "\r"+p.line(step)+"\x1b[K")
	p.drawn = true
}

func (p *Progress) line(step int64) string {
	const width = 30
	frac := float64(step) / float64(max(p.total, 1))
	frac = min(max(frac, 0), 1)
	n := int(frac * width)
	rate := p.Rate(step)
	eta := "--:--"
	if rate > 0 {
		eta = fmtDuration(time.Duration(float64(p.total-step) / rate * float64(time.Second)))
	}
	return fmt.Sprintf("[%s%s] %d/%d %5.1f%% %.0f steps/s ETA %s",
		strings.Repeat("#", n), strings.Repeat(".", width-n), step, p.total, 100*frac, rate, eta)
}

// Terminal reports whether the bar draws (its writer is a terminal).
func (p *Progress) Terminal() bool { return p.tty }

// Status is the bar's numbers as one line for logs that are not a
// terminal (CI, Slurm): "step 12000/30000 (40.0%), 118 steps/s, ETA 02:32".
func (p *Progress) Status(step int64) string {
	frac := min(max(float64(step)/float64(max(p.total, 1)), 0), 1)
	rate := p.Rate(step)
	eta := "--:--"
	if rate > 0 {
		eta = fmtDuration(time.Duration(float64(max(p.total-step, 0)) / rate * float64(time.Second)))
	}
	return fmt.Sprintf("step %d/%d (%.1f%%), %.0f steps/s, ETA %s", step, p.total, 100*frac, rate, eta)
}

// Clear erases the bar so other output starts on a clean line.
func (p *Progress) Clear() {
	if p.tty && p.drawn {
		_, _ = fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

func fmtDuration(d time.Duration) string {
	d = d.Round(time.Second)
	h, m, s := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	if h > 0 {
		return fmt.Sprintf("%d:%02d:%02d", h, m, s)
	}
	return fmt.Sprintf("%02d:%02d", m, s)
}
