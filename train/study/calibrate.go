package study

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"

	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"github.com/vlmrb/vlmrb/rundir"
)

// calibrationUpdates is how many env steps past learning_starts a
// calibration trains: enough log rows of the update phase to time it.
const calibrationUpdates = 2000

// Calibration is the CPU cost of one arm measured by a short training
// of its first run: CPU seconds per env step before learning starts
// (random actions, no updates) and after (updates included).
type Calibration struct {
	Arm               string
	Steps             int64   // env steps the calibration trained
	RandomCPUSPerStep float64 // before learning_starts
	UpdateCPUSPerStep float64 // after
}

// calibrate trains run's configuration for learning_starts +
// calibrationUpdates steps (at most its own budget) into a temporary
// directory with evaluations, GIFs and checkpoints off, and reads the CPU
// time per env step of each phase from its log rows (time/process_cpu_s).
func (r *Runner) calibrate(ctx context.Context, run Run, threads int) (Calibration, error) {
	cal := Calibration{Arm: run.Arm}
	dir, err := os.MkdirTemp("", "vlmrb-calibrate-")
	if err != nil {
		return cal, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	c := run.Config
	starts := c.SAC.LearningStarts
	if c.ResolvedAlgo() == "dqn" {
		starts = c.DQN.LearningStarts
	}
	every := int64(max(c.NumEnvs, 1)) * 50 // log rows to time the phases by
	c.Steps = min(c.Steps, starts+calibrationUpdates)
	c.Steps = (c.Steps + every - 1) / every * every
	c.Out = filepath.Join(dir, "run")
	c.Log.Every, c.Log.TensorBoard, c.Log.Console = every, false, false
	c.Eval.Every, c.Eval.Episodes, c.Eval.GIF = 0, 1, false
	c.Ckpt.Every = 0
	b, err := encodeConfig(c)
	if err != nil {
		return cal, err
	}
	cfgPath := filepath.Join(dir, "config.yaml")
	if err := atomicfile.WriteBytes(cfgPath, b); err != nil {
		return cal, err
	}
	cmd := exec.CommandContext(ctx, r.Binary, "train", "--config", cfgPath, "--out", c.Out, "--quiet")
	cmd.Env = withBLASCore(childEnv(os.Environ(), threads), r.core)
	if out, err := cmd.CombinedOutput(); err != nil {
		return cal, fmt.Errorf("calibrating arm %s on %s: %v\n%s", run.Arm, run.ID(), err, out)
	}
	rows, err := rundir.ReadMetricsJSONL(filepath.Join(c.Out, "metrics.jsonl"))
	if err != nil {
		return cal, fmt.Errorf("calibrating arm %s: %w", run.Arm, err)
	}
	cal.Steps = c.Steps
	cal.RandomCPUSPerStep, cal.UpdateCPUSPerStep = phaseRates(rows, starts)
	if cal.UpdateCPUSPerStep <= 0 {
		return cal, fmt.Errorf("calibrating arm %s: no CPU time in its log (time/process_cpu_s); this platform does not report it", run.Arm)
	}
	return cal, nil
}

// phaseRates returns CPU seconds per env step over the log rows before
// learning starts and over those after it (the row at or just past
// starts divides them). A phase without two rows takes the other's rate.
func phaseRates(rows []rundir.Row, starts int64) (random, update float64) {
	type pt struct {
		step int64
		cpu  float64
	}
	var pts []pt
	for _, r := range rows {
		if v, ok := r.Values["time/process_cpu_s"]; ok && v > 0 {
			pts = append(pts, pt{r.Step, v})
		}
	}
	if len(pts) < 2 {
		return 0, 0
	}
	split := len(pts) - 1
	for i, p := range pts {
		if p.step >= starts {
			split = i
			break
		}
	}
	rate := func(a, b pt) float64 {
		if b.step <= a.step {
			return 0
		}
		return (b.cpu - a.cpu) / float64(b.step-a.step)
	}
	first, last := pts[0], pts[len(pts)-1]
	random = rate(first, pts[split])
	update = rate(pts[split], last)
	if random <= 0 {
		random = rate(first, last)
	}
	if update <= 0 {
		update = rate(first, last)
	}
	return random, update
}

// Calibrate measures the CPU cost of every arm that has runs left to
// train and no finished run to estimate from, by a short training of the
// arm's first such run, and returns the forecast with those rates
// (Estimate from finished runs where there are some). One calibration at
// a time, each with the threads a study child would get.
func (r *Runner) Calibrate(ctx context.Context) (Estimate, []Calibration, error) {
	runs, err := r.prepare() // a dry run: writes nothing
	if err != nil {
		return Estimate{}, nil, err
	}
	var doneRuns, left []Run
	for _, run := range r.seedMajor(runs) {
		switch RunState(run.Config.Out) {
		case Done:
			doneRuns = append(doneRuns, run)
		case Running:
		default:
			left = append(left, run)
		}
	}
	e := estimate(doneRuns, left)
	have := map[string]bool{}
	for _, run := range doneRuns {
		have[run.Arm] = true
	}
	cpus := r.CPUs
	if cpus <= 0 {
		cpus = runtime.NumCPU()
	}
	threads := max(1, cpus/max(1, r.Parallel))
	cals := map[string]Calibration{}
	var out []Calibration
	for _, run := range left {
		if have[run.Arm] {
			continue
		}
		if _, ok := cals[run.Arm]; ok {
			continue
		}
		r.logf("calibrating arm %s on %s (a short training, nothing kept)", run.Arm, run.ID())
		cal, err := r.calibrate(ctx, run, threads)
		if err != nil {
			return e, out, err
		}
		cals[run.Arm] = cal
		out = append(out, cal)
	}
	if len(cals) == 0 {
		return e, out, nil
	}
	// the forecast: finished runs' rates where an arm has them, the
	// calibration's two phases where it has not
	e2 := Estimate{Left: e.Left, StepsLeft: e.StepsLeft, Basis: e.Basis, Calibrated: len(cals)}
	var cpu float64
	for _, run := range left {
		steps := run.Config.Steps
		from := int64(0)
		if _, m, err := rundir.LatestCheckpoint(run.Config.Out); err == nil {
			from = m.Step
		}
		if cal, ok := cals[run.Arm]; ok {
			starts := run.Config.SAC.LearningStarts
			if run.Config.ResolvedAlgo() == "dqn" {
				starts = run.Config.DQN.LearningStarts
			}
			rnd := max(min(starts, steps)-from, 0)
			cpu += cal.RandomCPUSPerStep*float64(rnd) + cal.UpdateCPUSPerStep*float64(max(steps-from, 0)-rnd)
			continue
		}
		cpu += e.CPUSPerStep * float64(max(steps-from, 0)) // pooled or per-arm rate of finished runs
	}
	if e2.StepsLeft > 0 {
		e2.CPUSPerStep = cpu / float64(e2.StepsLeft)
	}
	return e2, out, nil
}
