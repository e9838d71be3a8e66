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
	Resumed  bool      `json:"resumed"`
	Host     string    `json:"host"`
	BLASCore string    `json:"openblas_coretype,omitempty"` // the kernel the runner pinned (BLASCoreFile)
}

type runningMark struct {
	PID   int       `json:"pid"`
	Host  string    `json:"host"`
	Start time.Time `json:"start"`
}

// RunState reports the state of the run in dir.
func RunState(dir string) State {
	if _, err := os.Stat(filepath.Join(dir, doneFile)); err == nil {
		return Done
	}
	mark := filepath.Join(dir, runningFile)
	if b, err := os.ReadFile(mark); err == nil {
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
	b, err := os.ReadFile(filepath.Join(dir, attemptsFile))
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
// all are done or ctx is cancelled (children get SIGINT, checkpoint and
// stop; they resume on the next call).
func (r *Runner) Run(ctx context.Context) (Summary, error) {
	var sum Summary
	if !r.DryRun {
		if err := os.MkdirAll(r.Dir, 0o755); err != nil {
			return sum, fmt.Errorf("study: %w", err)
		}
	}
	if err := r.unpackForRun(); err != nil { // runs kept in DIR/runs.tar.gz
		return sum, err
	}
	if err := r.Spec.freezeDefaults(r.Dir, !r.DryRun); err != nil {
		return sum, err
	}
	core, err := r.Spec.pinBLASCore(r.Dir, !r.DryRun)
	if err != nil {
		return sum, err
	}
	r.core = core
	runs, err := r.Spec.Runs(r.Dir)
	if err != nil {
		return sum, err
	}
	if err := r.Only.Check(r.Spec); err != nil {
		return sum, err
	}
	runs = r.Spec.dropRetired(r.Shard.Select(r.Only.Select(runs)), r.logf)
	sum.Total = len(runs)
	if !r.DryRun {
		if err := atomicfile.WriteBytes(filepath.Join(r.Dir, SpecFile), r.Spec.src); err != nil {
			return sum, fmt.Errorf("study: %w", err)
		}
	}
	par := max(1, r.Parallel)
	cpus := r.CPUs
	if cpus <= 0 {
		cpus = runtime.NumCPU()
	}
	threads := max(1, cpus/par)

	var todo []Run
	for _, run := range runs {
		if err := checkConfig(run); err != nil {
			return sum, err
		}
		switch RunState(run.Config.Out) {
		case Done:
			sum.Skipped++
		case Running:
			sum.Skipped++
			r.logf("skip %s: another process is running it (%s)", run.ID(), filepath.Join(run.Config.Out, runningFile))
		default:
			todo = append(todo, run)
		}
	}

	// seed-major order: every arm of every task gets its first seed before
	// any gets its second, so a study stopped part-way has comparable arms
	seedIdx := map[uint64]int{}
	for i, sd := range r.Spec.Seeds {
		seedIdx[sd] = i
	}
	sort.SliceStable(todo, func(i, j int) bool { return seedIdx[todo[i].Seed] < seedIdx[todo[j].Seed] })
	if r.DryRun {
		for _, run := range todo {
			what := "start"
			if RunState(run.Config.Out) == Partial {
				what = "resume"
			}
			r.logf("would %s %s", what, run.ID())
		}
		return sum, nil
	}

	var mu sync.Mutex
	jobs := make(chan Run)
	var wg sync.WaitGroup
	for w := 0; w < par; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for run := range jobs {
				a, err := r.exec(ctx, run, threads)
				mu.Lock()
				sum.CPUS += a.CPUS
				switch {
				case err == nil:
					sum.Finished++
					r.logf("done %s (%.0f CPU-s)", run.ID(), a.CPUS)
				case ctx.Err() != nil:
					r.logf("stopped %s at a checkpoint; rerun `study run` to resume it", run.ID())
				default:
					sum.Failed++
					sum.Errors = append(sum.Errors, fmt.Sprintf("%s: %v", run.ID(), err))
					r.logf("FAILED %s: %v", run.ID(), err)
				}
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
	if ctx.Err() != nil {
		return sum, ctx.Err()
	}
	return sum, nil
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
	old, err := os.ReadFile(filepath.Join(run.Config.Out, configFile))
	if err != nil {
		return nil // not started
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

// exec runs (or resumes) one run in a child process and records the attempt.
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

func (r *Runner) exec(ctx context.Context, run Run, threads int) (Attempt, error) {
	dir := run.Config.Out
	host, _ := os.Hostname()
	a := Attempt{Start: time.Now().UTC(), Host: host, BLASCore: r.core}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return a, err
	}
	var args []string
	if _, m, err := train.LatestCheckpoint(dir); err == nil && m.Step >= run.Config.Steps {
		// finished, but the process that ran it died before recording that
		return a, markDone(dir)
	}
	if RunState(dir) == Partial {
		a.Resumed = true
		args = []string{"train", "--resume", dir, "--quiet"}
	} else {
		// nothing resumable: start over (a run killed before its first
		// checkpoint leaves only files train would refuse to overwrite)
		if err := clearRun(dir); err != nil {
			return a, err
		}
		cfgPath := filepath.Join(dir, configFile)
		b, err := encodeConfig(run.Config)
		if err != nil {
			return a, err
		}
		if err := atomicfile.WriteBytes(cfgPath, b); err != nil {
			return a, err
		}
		args = []string{"train", "--config", cfgPath, "--out", dir, "--quiet"}
	}
	logf, err := os.OpenFile(filepath.Join(dir, "study.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return a, err
	}
	defer logf.Close()
	cmd := exec.Command(r.Binary, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = withBLASCore(childEnv(os.Environ(), threads), r.core)
	cmd.SysProcAttr = childAttr() // the child checkpoints and stops if the study process dies
	if err := cmd.Start(); err != nil {
		return a, fmt.Errorf("start %s: %w", r.Binary, err)
	}
	mark, _ := json.Marshal(runningMark{PID: cmd.Process.Pid, Host: host, Start: a.Start})
	_ = atomicfile.WriteBytes(filepath.Join(dir, runningFile), mark)
	done := make(chan struct{})
	go func() {
		tick := time.NewTicker(heartbeat)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				_ = cmd.Process.Signal(os.Interrupt) // train checkpoints and exits 130
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
	}
	if line, err := json.Marshal(a); err == nil {
		if f, err := os.OpenFile(filepath.Join(dir, attemptsFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err == nil {
			_, _ = f.Write(append(line, '\n'))
			_ = f.Close()
		}
	}
	if werr != nil {
		return a, fmt.Errorf("%s exited with %v (its output: %s)", r.Binary, werr, filepath.Join(dir, "study.log"))
	}
	if _, m, err := train.LatestCheckpoint(dir); err != nil || m.Step < run.Config.Steps {
		return a, fmt.Errorf("exited 0 without a checkpoint at step %d (see %s)", run.Config.Steps, filepath.Join(dir, "study.log"))
	}
	return a, markDone(dir)
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
// checkpoint, keeping the study's own attempt log and output log.
func clearRun(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	for _, e := range ents {
		switch e.Name() {
		case attemptsFile, "study.log":
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return fmt.Errorf("study: clear %s: %w", dir, err)
		}
	}
	return nil
}
