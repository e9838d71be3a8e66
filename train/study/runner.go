package study

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"github.com/vlmrb/vlmrb/internal/runlock"
	"github.com/vlmrb/vlmrb/internal/safefile"
	"github.com/vlmrb/vlmrb/train"
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
	if _, _, err := train.LatestCheckpoint(dir); err == nil {
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

	core string // OPENBLAS_CORETYPE of every child (see BLASCoreFile)
}

// Summary counts what a Runner did.
type Summary struct {
	Total, Skipped, Finished, Failed int
	CPUS                             float64 // CPU seconds of the children started by this call
	Errors                           []string
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
		if err := checkConfig(run); err != nil {
			return nil, err
		}
	}
	if !r.DryRun {
		if err := atomicfile.WriteBytes(filepath.Join(r.Dir, SpecFile), r.Spec.src); err != nil {
			return nil, fmt.Errorf("study: %w", err)
		}
	}
	return runs, nil
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
	for _, run := range todo {
		switch RunState(run.Config.Out) {
		case Done:
			sum.Skipped++
		case Running:
			sum.Skipped++
			r.logf("skip %s: another process is running it", run.ID())
		case Partial:
			r.logf("would resume %s", run.ID())
		default:
			r.logf("would start %s", run.ID())
		}
	}
}

// execute trains todo on par workers of threads threads each, counting
// every outcome into sum, until all are tried or ctx is cancelled.
func (r *Runner) execute(ctx context.Context, todo []Run, par, threads int, sum *Summary) {
	var mu sync.Mutex
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
	switch {
	case out == skippedDone:
		sum.Skipped++
	case out == skippedHeld:
		sum.Skipped++
		r.logf("skip %s: %v", run.ID(), err)
	case err == nil:
		sum.Finished++
		r.logf("done %s (%.0f CPU-s)", run.ID(), a.CPUS)
	case ctx.Err() != nil && a.stopped:
		r.logf("stopped %s at a checkpoint; rerun `study run` to resume it", run.ID())
	case ctx.Err() != nil:
		r.logf("stopped %s: %v", run.ID(), err)
	default:
		sum.Failed++
		sum.Errors = append(sum.Errors, fmt.Sprintf("%s: %v", run.ID(), err))
		r.logf("FAILED %s: %v", run.ID(), err)
	}
}

func (r *Runner) logf(format string, a ...any) {
	if r.Log != nil {
		_, _ = fmt.Fprintf(r.Log, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, a...)...)
	}
}

// checkConfig refuses to continue a run whose grid cell now resolves to a
// different config than the one it was started with: the seeds and
// settings of a study are fixed before it runs.
func checkConfig(run Run) error {
	old, err := safefile.ReadFile(filepath.Join(run.Config.Out, configFile), train.MaxConfigBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil // not started
	}
	if err != nil {
		return fmt.Errorf("study: run %s: %w", run.ID(), err)
	}
	now, err := encodeConfig(run.Config)
	if err != nil {
		return err
	}
	diff, err := configDiff(old, now)
	if err != nil {
		return fmt.Errorf("study: run %s: %w", run.ID(), err)
	}
	if len(diff) > 0 {
		return fmt.Errorf("study: run %s was started with a different config (%s) than the study file now gives (%s); "+
			"restore the study file, or write the changed grid to a new --out directory", run.ID(), filepath.Join(run.Config.Out, configFile), strings.Join(diff, "; "))
	}
	return nil
}

func encodeConfig(c train.Config) ([]byte, error) {
	f, err := os.CreateTemp("", "study-config-*.yaml")
	if err != nil {
		return nil, err
	}
	name := f.Name()
	f.Close()
	defer func() { _ = os.Remove(name) }()
	if err := train.SaveConfig(name, &c); err != nil {
		return nil, err
	}
	return os.ReadFile(name)
}

// childEnv is a run's environment: environ with BLAS, OpenMP and Go
// threads set to threads. With one thread it also sets Mesa's
// LP_NUM_THREADS=0 unless environ sets it: llvmpipe then rasterizes the
// scorer's frames on the calling thread instead of waking one helper per
// core, which costs CPU when every core already runs a training. The
// pixels are the same either way.
func childEnv(environ []string, threads int) []string {
	t := strconv.Itoa(threads)
	env := append(environ[:len(environ):len(environ)], "OPENBLAS_NUM_THREADS="+t, "OMP_NUM_THREADS="+t, "GOMAXPROCS="+t)
	if threads == 1 && !slices.ContainsFunc(environ, func(kv string) bool { return strings.HasPrefix(kv, "LP_NUM_THREADS=") }) {
		env = append(env, "LP_NUM_THREADS=0")
	}
	return env
}

// outcome of an attempt that did not train.
type outcome int

const (
	trained     outcome = iota // a child ran (err says how it ended)
	skippedDone                // found done under its lock
	skippedHeld                // another process holds its lock
)

// attempt takes run's lock and, holding it, decides what to do there and
// does it: nothing when the run is done, finish the record of a run whose
// last child died before recording, resume, or start over.
func (r *Runner) attempt(ctx context.Context, run Run, threads int) (Attempt, outcome, error) {
	dir := run.Config.Out
	host, _ := os.Hostname()
	a := Attempt{Host: host, BLASCore: r.core}
	if err := safefile.CheckDir(r.Dir, dir); err != nil {
		return a, trained, err
	}
	// done is final: a finished run is skipped without taking (or
	// creating) its lock, so a finished study's directories stay as they
	// are; everything else is decided under the lock
	if _, err := os.Lstat(filepath.Join(dir, doneFile)); err == nil {
		return a, skippedDone, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return a, trained, err
	}
	lk, err := runlock.Acquire(dir, "robot-train study run ("+run.ID()+")")
	var held *runlock.HeldError
	if errors.As(err, &held) {
		return a, skippedHeld, fmt.Errorf("another process is running it (%s)", held.Holder)
	}
	if err != nil {
		return a, trained, err
	}
	defer func() { _ = lk.Release() }()
	// the study's own files are appended to or kept: never links
	for _, name := range []string{attemptsFile, "study.log", doneFile, runningFile, configFile} {
		if st, err := os.Lstat(filepath.Join(dir, name)); err == nil && !st.Mode().IsRegular() {
			return a, trained, fmt.Errorf("%s is %s, not a regular file; remove it (the study never writes through links)", filepath.Join(dir, name), safefile.Kind(st.Mode()))
		}
	}
	// decided under the lock, on what is there now
	if _, err := os.Lstat(filepath.Join(dir, doneFile)); err == nil {
		return a, skippedDone, nil
	}
	if err := checkConfig(run); err != nil {
		return a, trained, err
	}
	// a mark left by a process on another host that has not heartbeaten
	// lately is stale; a live one on shared storage without flock
	// support still excludes
	if b, err := safefile.ReadFile(filepath.Join(dir, runningFile), maxSmallFile); err == nil {
		var m runningMark
		if st, serr := os.Stat(filepath.Join(dir, runningFile)); json.Unmarshal(b, &m) == nil && serr == nil &&
			m.Host != host && alive(m, st.ModTime()) {
			return a, skippedHeld, fmt.Errorf("pid %d on %s is running it (%s)", m.PID, m.Host, filepath.Join(dir, runningFile))
		}
	}
	var args []string
	_, m, ckErr := train.LatestCheckpoint(dir)
	switch {
	case ckErr == nil && m.Step >= run.Config.Steps:
		// finished, but the process that ran it died before recording that
		return a, trained, markDone(dir)
	case ckErr == nil:
		a.Resumed = true
		args = []string{"train", "--resume", dir, "--quiet"}
	default:
		// nothing resumable: start over (a run killed before its first
		// checkpoint leaves only files train would refuse to overwrite)
		if err := clearRun(dir); err != nil {
			return a, trained, err
		}
		cfgPath := filepath.Join(dir, configFile)
		b, err := encodeConfig(run.Config)
		if err != nil {
			return a, trained, err
		}
		if err := atomicfile.WriteBytes(cfgPath, b); err != nil {
			return a, trained, err
		}
		args = []string{"train", "--config", cfgPath, "--out", dir, "--quiet"}
	}
	err = r.exec(ctx, dir, args, threads, lk, &a)
	if err != nil {
		return a, trained, err
	}
	if _, m, err := train.LatestCheckpoint(dir); err != nil || m.Step < run.Config.Steps {
		return a, trained, fmt.Errorf("exited 0 without a checkpoint at step %d (see %s)", run.Config.Steps, filepath.Join(dir, "study.log"))
	}
	return a, trained, markDone(dir)
}

// exec runs one training child in dir, handing it the run's lock, and
// records the attempt.
func (r *Runner) exec(ctx context.Context, dir string, args []string, threads int, lk *runlock.Lock, a *Attempt) error {
	logf, err := safefile.OpenAppend(filepath.Join(dir, "study.log"), 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(r.Binary, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.ExtraFiles = []*os.File{lk.File()} // descriptor 3 in the child
	cmd.Env = append(withBLASCore(childEnv(os.Environ(), threads), r.core), lk.ChildEnv(3), EnvAttempts+"="+filepath.Join(dir, attemptsFile))
	// its own process group (a terminal's Ctrl-C reaches only the study,
	// which forwards one SIGINT); SIGINT from the kernel if the study dies
	cmd.SysProcAttr = childAttr()
	// Pdeathsig is tied to the thread that forks: keep that thread alive
	// (and this goroutine on it) until the child is reaped
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	a.Start = time.Now().UTC() // under the lock: attempts of one run never overlap
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", r.Binary, err)
	}
	mark, _ := json.Marshal(runningMark{PID: cmd.Process.Pid, Host: a.Host, Start: a.Start})
	_ = atomicfile.WriteBytes(filepath.Join(dir, runningFile), mark)
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		tick := time.NewTicker(heartbeat)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				// one stop, once: train checkpoints and exits 130
				_ = cmd.Process.Signal(os.Interrupt)
				close(stopped)
				return
			case now := <-tick.C:
				_ = os.Chtimes(filepath.Join(dir, runningFile), now, now)
			case <-done:
				return
			}
		}
	}()
	werr := cmd.Wait()
	close(done)
	_ = os.Remove(filepath.Join(dir, runningFile))
	a.WallS = time.Since(a.Start).Seconds()
	if ps := cmd.ProcessState; ps != nil {
		a.CPUS = (ps.UserTime() + ps.SystemTime()).Seconds()
		a.ExitCode = ps.ExitCode()
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			a.Signal = ws.Signal().String()
		}
	}
	select {
	case <-stopped:
		a.stopped = a.ExitCode == 130
	default:
	}
	if err := appendAttempt(dir, *a); err != nil {
		r.logf("cannot record the attempt on %s: %v", dir, err)
	}
	if werr != nil {
		return fmt.Errorf("%s exited with %v (its output: %s)", r.Binary, werr, filepath.Join(dir, "study.log"))
	}
	return nil
}

// appendAttempt adds a to dir's attempt log (never through a link).
func appendAttempt(dir string, a Attempt) error {
	line, err := json.Marshal(a)
	if err != nil {
		return err
	}
	f, err := safefile.OpenAppend(filepath.Join(dir, attemptsFile), 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// markDone records a finished run with the CPU time of all its attempts.
func markDone(dir string) error {
	var cpu float64
	at := Attempts(dir)
	for _, a := range at {
		cpu += a.CPUS
	}
	b, _ := json.Marshal(map[string]any{"finished": time.Now().UTC(), "cpu_s": cpu, "attempts": len(at)})
	return atomicfile.WriteBytes(filepath.Join(dir, doneFile), b)
}

// clearRun removes what train wrote into a run directory that has no
// checkpoint, keeping the study's own attempt log and output log and the
// lock file (held by this process: see runlock). The directory and the
// entries are never followed through links.
func clearRun(dir string) error {
	err := safefile.ClearDir(dir, func(name string) bool {
		return name == attemptsFile || name == "study.log" || name == runlock.FileName
	})
	if err != nil {
		return fmt.Errorf("study: clear %s: %w", dir, err)
	}
	return nil
}
