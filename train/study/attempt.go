package study

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"github.com/vlmrb/vlmrb/internal/runlock"
	"github.com/vlmrb/vlmrb/internal/safefile"
	"github.com/vlmrb/vlmrb/rundir"
)

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
	if extended, err := checkConfig(run); err != nil {
		return a, trained, err
	} else if extended {
		// a run stopped part-way before its study's steps was raised:
		// record the budget it now trains to (a finished one was reopened)
		b, err := encodeConfig(run.Config)
		if err != nil {
			return a, trained, err
		}
		if err := atomicfile.WriteBytes(filepath.Join(dir, configFile), b); err != nil {
			return a, trained, err
		}
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
	_, m, ckErr := rundir.LatestCheckpoint(dir)
	switch {
	case ckErr == nil && m.Step >= run.Config.Steps:
		// finished, but the process that ran it died before recording that
		return a, trained, markDone(dir)
	case ckErr == nil:
		a.Resumed = true
		// the study's budget, which a raised steps moved past the run's own
		args = []string{"train", "--resume", dir, "--steps", strconv.FormatInt(run.Config.Steps, 10), "--quiet"}
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
	verb := "start"
	if a.Resumed {
		verb = "resume"
	}
	r.logf("%s %s (%d steps)", verb, run.ID(), run.Config.Steps)
	err = r.exec(ctx, dir, args, threads, lk, &a)
	if err != nil {
		return a, trained, err
	}
	if _, m, err := rundir.LatestCheckpoint(dir); err != nil || m.Step < run.Config.Steps {
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
