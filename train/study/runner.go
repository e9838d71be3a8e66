package study

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"github.com/vlmrb/vlmrb/internal/runlock"
	"github.com/vlmrb/vlmrb/internal/safefile"
	"github.com/vlmrb/vlmrb/rundir"
)

// Files a study keeps in each run directory next to what train writes.
const (
	configFile   = "study-config.yaml"    // the resolved config the run was started with
	doneFile     = "study-done.json"      // written after the run finished (exit 0)
	runningFile  = "study-running.json"   // pid and start of the process running it now
	attemptsFile = "study-attempts.jsonl" // one line per process that worked on it (CPU time)
)

// State is where a run stands.
type State string

// The states of a run, as the report lists them.
const (
	Done    State = "done"
	Running State = "running"
	Partial State = "partial" // started, has a checkpoint to resume from
	Missing State = "missing" // not started (or nothing resumable)
)

// Attempt is one process's work on a run.
type Attempt struct {
	Start    time.Time `json:"start"`
	WallS    float64   `json:"wall_s"`
	CPUS     float64   `json:"cpu_s"` // user + system CPU of the training process
	ExitCode int       `json:"exit_code"`
	Signal   string    `json:"signal,omitempty"` // the signal that ended it, if one did
	Resumed  bool      `json:"resumed"`
	Host     string    `json:"host"`
	PID      int       `json:"pid,omitempty"`
	// Orphaned: the study process died while this child trained; the
	// child recorded the attempt itself (see RecordOrphan).
	Orphaned bool   `json:"orphaned,omitempty"`
	BLASCore string `json:"openblas_coretype,omitempty"` // the kernel the runner pinned (BLASCoreFile)

	stopped bool // stopped by this Runner's one SIGINT, at a checkpoint
}

type runningMark struct {
	PID   int       `json:"pid"`
	Host  string    `json:"host"`
	Start time.Time `json:"start"`
}

// RunState reports the state of the run in dir.
func RunState(dir string) State {
	if _, err := os.Lstat(filepath.Join(dir, doneFile)); err == nil {
		return Done
	}
	if errors.Is(runlock.Probe(dir), runlock.ErrHeld) {
		return Running
	}
	mark := filepath.Join(dir, runningFile)
	if b, err := safefile.ReadFile(mark, maxSmallFile); err == nil {
		var m runningMark
		st, serr := os.Stat(mark)
		if json.Unmarshal(b, &m) == nil && serr == nil && alive(m, st.ModTime()) {
			return Running
		}
	}
	if _, _, err := rundir.LatestCheckpoint(dir); err == nil {
		return Partial
	}
	return Missing
}

// Caps on the study's own files in a run directory: each is read whole,
// and anything larger is not one of them.
const (
	maxSmallFile    = 64 << 10 // study-running.json, study-done.json, study-config.yaml
	maxAttemptsFile = 16 << 20 // study-attempts.jsonl (≈ 100k attempts)
)

// heartbeat is how often a running mark is refreshed; a mark from another
// host whose file is older than staleAfter belongs to a dead job (a killed
// Slurm task or a deleted pod) and is taken over.
const (
	heartbeat  = 30 * time.Second
	staleAfter = 5 * time.Minute
)

// alive reports whether the process of a running mark still exists: by its
// pid on this host, by the mark's heartbeat on shared storage elsewhere.
func alive(m runningMark, modTime time.Time) bool {
	host, _ := os.Hostname()
	if m.Host != host {
		return time.Since(modTime) < staleAfter
	}
	p, err := os.FindProcess(m.PID)
	if err != nil {
		return false
	}
	return p.Signal(syscall.Signal(0)) == nil
}

// Attempts reads the attempt log of the run in dir.
func Attempts(dir string) []Attempt {
	b, err := safefile.ReadFile(filepath.Join(dir, attemptsFile), maxAttemptsFile)
	if err != nil {
		return nil
	}
	return parseAttempts(b)
}

// parseAttempts parses an attempt log (one JSON object a line).
func parseAttempts(b []byte) []Attempt {
	var out []Attempt
	for _, line := range bytes.Split(b, []byte("\n")) {
		var a Attempt
		if len(bytes.TrimSpace(line)) > 0 && json.Unmarshal(line, &a) == nil {
			out = append(out, a)
		}
	}
	return out
}

// Runner executes a study's runs as robot-train child processes.
type Runner struct {
	Spec     *Spec
	Dir      string    // study output directory
	Binary   string    // robot-train executable (its `train` subcommand runs each cell)
	Parallel int       // runs at once (≥ 1)
	Shard    Shard     // which part of the grid (zero: all), taken after Only
	Only     Filter    // which arms and tasks (zero: all)
	Log      io.Writer // one line per started and finished run (nil: none)
	// DryRun lists what Run would do (start, resume, skip) without running.
	DryRun bool
	// CPUs is the core count shared by the parallel runs (0: runtime.NumCPU).
	// Each child gets max(1, CPUs/Parallel) BLAS and Go threads.
	CPUs int

	core string   // OPENBLAS_CORETYPE of every child (see BLASCoreFile)
	prog *tracker // progress of execute's list
	// extended: runs finished at a lower steps than the study file now
	// gives (checkConfig), continued to the new budget
	extended map[string]bool
}

// Summary counts what a Runner did.
type Summary struct {
	Total, Skipped, Finished, Failed int
	CPUS                             float64 // CPU seconds of the children started by this call
	Errors                           []string
	Estimate                         Estimate // a dry run's forecast of the CPU time left
}

// Run executes every run of the shard that is not done: fresh ones from
// the start, interrupted ones from their newest checkpoint. It returns when
// all are done or ctx is cancelled (children get one SIGINT, checkpoint
// and stop; they resume on the next call).
//
// Any number of Runners (processes, hosts sharing the directory) may work
// on one study directory at once: each run directory is taken with its
// lock (runlock, RUN_DIR/.lock, the lock `train` takes) before anything in
// it is read to decide, and held until the run's outcome is recorded; the
// training child inherits it. A run whose lock is held elsewhere is
// skipped, a run found done under its lock is skipped, so every run is
// trained by exactly one process at a time and finished once.
func (r *Runner) Run(ctx context.Context) (Summary, error) {
	var sum Summary
	runs, err := r.prepare()
	if err != nil {
		return sum, err
	}
	sum.Total = len(runs)
	todo := r.seedMajor(runs)
	if r.DryRun {
		r.dryRun(todo, &sum)
		return sum, nil
	}
	par := max(1, r.Parallel)
	cpus := r.CPUs
	if cpus <= 0 {
		cpus = runtime.NumCPU()
	}
	r.execute(ctx, todo, par, max(1, cpus/par), &sum)
	if ctx.Err() != nil {
		return sum, ctx.Err()
	}
	return sum, nil
}

// prepare readies the study directory (unpacked runs, frozen defaults,
// the pinned BLAS core) and returns the runs of this shard, each checked
// against the study file before anything is written: a refused study
// leaves DIR/study.yaml as it was.
func (r *Runner) prepare() ([]Run, error) {
	// r.Dir itself may be a link the user made (to scratch storage); no
	// directory below it is followed through one (safefile.CheckDir)
	if !r.DryRun {
		if err := os.MkdirAll(r.Dir, 0o755); err != nil {
			return nil, fmt.Errorf("study: %w", err)
		}
	}
	if err := r.unpackForRun(); err != nil { // runs kept in DIR/runs.tar.gz
		return nil, err
	}
	if err := r.Spec.freezeDefaults(r.Dir, !r.DryRun); err != nil {
		return nil, err
	}
	core, err := r.Spec.pinBLASCore(r.Dir, !r.DryRun)
	if err != nil {
		return nil, err
	}
	r.core = core
	runs, err := r.Spec.Runs(r.Dir)
	if err != nil {
		return nil, err
	}
	if err := r.Only.Check(r.Spec); err != nil {
		return nil, err
	}
	runs = r.Spec.dropRetired(r.Shard.Select(r.Only.Select(runs)), r.logf)
	for _, run := range runs {
		if err := safefile.CheckDir(r.Dir, run.Config.Out); err != nil {
			return nil, fmt.Errorf("study: run %s: %w", run.ID(), err)
		}
		extended, err := checkConfig(run)
		if err != nil {
			return nil, err
		}
		if err := checkEngine(run); err != nil {
			return nil, err
		}
		if extended {
			if r.extended == nil {
				r.extended = map[string]bool{}
			}
			r.extended[run.ID()] = true
		}
	}
	if !r.DryRun {
		if err := atomicfile.WriteBytes(filepath.Join(r.Dir, SpecFile), r.Spec.src); err != nil {
			return nil, fmt.Errorf("study: %w", err)
		}
		for _, run := range runs {
			if r.extended[run.ID()] {
				if err := r.reopen(run); err != nil {
					return nil, err
				}
			}
		}
	}
	return runs, nil
}

// reopen makes a run that finished at a lower budget than the study file
// now gives resumable, under its lock: its done mark goes and its study
// config becomes the raised one, so the next attempt resumes it from its
// last checkpoint to the new budget. Everything it recorded stays.
func (r *Runner) reopen(run Run) error {
	dir := run.Config.Out
	if _, err := os.Lstat(filepath.Join(dir, doneFile)); err != nil {
		return nil // already reopened (or never finished): resumes as it is
	}
	lk, err := runlock.Acquire(dir, "robot-train study run ("+run.ID()+")")
	if err != nil {
		return fmt.Errorf("study: run %s: %w", run.ID(), err)
	}
	defer func() { _ = lk.Release() }()
	b, err := encodeConfig(run.Config)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, configFile), b); err != nil {
		return fmt.Errorf("study: run %s: %w", run.ID(), err)
	}
	if err := os.Remove(filepath.Join(dir, doneFile)); err != nil {
		return fmt.Errorf("study: run %s: %w", run.ID(), err)
	}
	r.logf("extend %s to %d steps: it resumes from its last checkpoint", run.ID(), run.Config.Steps)
	return nil
}

// seedMajor orders the runs seed-major: every arm of every task gets its
// first seed before any gets its second, so a study stopped part-way has
// comparable arms. This is only the order of trying: whether a run is
// trained is decided under its lock, when its turn comes.
func (r *Runner) seedMajor(runs []Run) []Run {
	seedIdx := map[uint64]int{}
	for i, sd := range r.Spec.Seeds {
		seedIdx[sd] = i
	}
	todo := slices.Clone(runs)
	sort.SliceStable(todo, func(i, j int) bool { return seedIdx[todo[i].Seed] < seedIdx[todo[j].Seed] })
	return todo
}

// dryRun logs what Run would do with each run.
func (r *Runner) dryRun(todo []Run, sum *Summary) {
	var left []Run
	var doneRuns []Run
	for _, run := range todo {
		switch RunState(run.Config.Out) {
		case Done:
			if r.extended[run.ID()] {
				r.logf("would extend %s to %d steps (resume from its last checkpoint)", run.ID(), run.Config.Steps)
				left = append(left, run)
				continue
			}
			sum.Skipped++
			doneRuns = append(doneRuns, run)
		case Running:
			sum.Skipped++
			r.logf("skip %s: another process is running it", run.ID())
		case Partial:
			r.logf("would resume %s", run.ID())
			left = append(left, run)
		default:
			r.logf("would start %s", run.ID())
			left = append(left, run)
		}
	}
	sum.Estimate = estimate(doneRuns, left)
}

// estimate forecasts the CPU time of the runs left from the finished ones:
// CPU seconds per env step of the finished runs of the same arm (of all
// arms where that arm has none), times the steps each run has left.
func estimate(doneRuns, left []Run) Estimate {
	type acc struct {
		cpuS  float64
		steps int64
		n     int
	}
	byArm := map[string]*acc{}
	var all acc
	for _, run := range doneRuns {
		var cpu float64
		for _, a := range Attempts(run.Config.Out) {
			cpu += a.CPUS
		}
		if cpu <= 0 || run.Config.Steps <= 0 {
			continue // no CPU record (an archived or a foreign run)
		}
		a := byArm[run.Arm]
		if a == nil {
			a = &acc{}
			byArm[run.Arm] = a
		}
		a.cpuS, a.steps, a.n = a.cpuS+cpu, a.steps+run.Config.Steps, a.n+1
		all.cpuS, all.steps, all.n = all.cpuS+cpu, all.steps+run.Config.Steps, all.n+1
	}
	e := Estimate{Left: len(left), Basis: all.n}
	var cpu float64
	for _, run := range left {
		steps := run.Config.Steps
		if _, m, err := rundir.LatestCheckpoint(run.Config.Out); err == nil {
			steps = max(steps-m.Step, 0)
		}
		e.StepsLeft += steps
		if a := byArm[run.Arm]; a != nil {
			cpu += a.cpuS / float64(a.steps) * float64(steps)
		} else if all.n > 0 {
			cpu += all.cpuS / float64(all.steps) * float64(steps)
		}
	}
	if all.n > 0 && e.StepsLeft > 0 {
		e.CPUSPerStep = cpu / float64(e.StepsLeft)
	} else if all.n > 0 {
		e.CPUSPerStep = all.cpuS / float64(all.steps)
	}
	return e
}

// execute trains todo on par workers of threads threads each, counting
// every outcome into sum, until all are tried or ctx is cancelled.
func (r *Runner) execute(ctx context.Context, todo []Run, par, threads int, sum *Summary) {
	var mu sync.Mutex
	r.prog = newTracker(len(todo), time.Now)
	r.logf("%d runs to try, %d at a time; each prints a line when it starts and when it ends", len(todo), par)
	jobs := make(chan Run)
	var wg sync.WaitGroup
	for w := 0; w < par; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for run := range jobs {
				a, out, err := r.attempt(ctx, run, threads)
				mu.Lock()
				r.count(ctx, sum, run, a, out, err)
				mu.Unlock()
			}
		}()
	}
	for _, run := range todo {
		if ctx.Err() != nil {
			break
		}
		select {
		case jobs <- run:
		case <-ctx.Done():
		}
	}
	close(jobs)
	wg.Wait()
}

// count records one attempt's outcome in sum and the log.
func (r *Runner) count(ctx context.Context, sum *Summary, run Run, a Attempt, out outcome, err error) {
	sum.CPUS += a.CPUS
	if r.prog != nil && (out != trained || ctx.Err() == nil) { // a stopped run is not through
		r.prog.add(a.CPUS, out == trained && err == nil)
	}
	switch {
	case out == skippedDone:
		sum.Skipped++
	case out == skippedHeld:
		sum.Skipped++
		r.logf("skip %s: %v", run.ID(), err)
	case err == nil:
		sum.Finished++
		r.logf("done %s (%.0f CPU-s); %s", run.ID(), a.CPUS, r.prog.line())
	case ctx.Err() != nil && a.stopped:
		r.logf("stopped %s at a checkpoint; rerun `study run` to resume it", run.ID())
	case ctx.Err() != nil:
		r.logf("stopped %s: %v", run.ID(), err)
	default:
		sum.Failed++
		sum.Errors = append(sum.Errors, fmt.Sprintf("%s: %v", run.ID(), err))
		r.logf("FAILED %s: %v; %s", run.ID(), err, r.prog.line())
	}
}

func (r *Runner) logf(format string, a ...any) {
	if r.Log != nil {
		_, _ = fmt.Fprintf(r.Log, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, a...)...)
	}
}

// checkConfig refuses to continue a run whose grid cell now resolves to a
// different config than the one it was started with: the seeds and
// settings of a study are fixed before it runs. The one change allowed is
// a raised `steps` (extended): a study continued to a longer budget, each
// run from its last checkpoint, everything else as it was.
func checkConfig(run Run) (extended bool, err error) {
	old, err := safefile.ReadFile(filepath.Join(run.Config.Out, configFile), rundir.MaxConfigBytes)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil // not started
	}
	if err != nil {
		return false, fmt.Errorf("study: run %s: %w", run.ID(), err)
	}
	now, err := encodeConfig(run.Config)
	if err != nil {
		return false, err
	}
	diff, raised, err := configDiff(old, now)
	if err != nil {
		return false, fmt.Errorf("study: run %s: %w", run.ID(), err)
	}
	if len(diff) == 0 || raised {
		return raised, nil
	}
	return false, fmt.Errorf("study: run %s was started with a different config (%s) than the study file now gives (%s); "+
		"restore the study file, or write the changed grid to a new --out directory (raising steps alone continues the runs)",
		run.ID(), filepath.Join(run.Config.Out, configFile), strings.Join(diff, "; "))
}

// checkEngine refuses to continue a study one of whose runs was trained
// on the tabletop's old engine sim (rundir.OldEngine on the run's own
// config.yaml): its other runs would train on the articulated engine, and
// the arms would mix two physics. Its records and reports stay as they
// are.
func checkEngine(run Run) error {
	var c rundir.Config
	err := rundir.LoadConfigFile(filepath.Join(run.Config.Out, "config.yaml"), &c)
	if errors.Is(err, os.ErrNotExist) {
		return nil // not started
	}
	if err != nil {
		return fmt.Errorf("study: run %s: %w", run.ID(), err)
	}
	if rundir.OldEngine(&c) {
		return fmt.Errorf("study: run %s was trained on the tabletop's old engine sim, which was removed; the study cannot go on "+
			"without mixing two physics (its records and reports stay as they are); run the study file again under a new --out", run.ID())
	}
	return nil
}

func encodeConfig(c rundir.Config) ([]byte, error) {
	f, err := os.CreateTemp("", "study-config-*.yaml")
	if err != nil {
		return nil, err
	}
	name := f.Name()
	f.Close()
	defer func() { _ = os.Remove(name) }()
	if err := rundir.SaveConfig(name, &c); err != nil {
		return nil, err
	}
	return safefile.ReadFile(name, rundir.MaxConfigBytes)
}
