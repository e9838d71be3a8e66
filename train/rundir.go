package train

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vlmrb/vlmrb/internal/runlock"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks"
)

// A run directory is always in one of three states, and Run moves it only
// forward:
//
//	empty or new                  train starts it
//	config.yaml, no checkpoint    killed (or failed) before its first
//	                              checkpoint: train --out starts it again,
//	                              train --resume starts it from step 0 with
//	                              the stored config
//	config.yaml and checkpoints   train --resume continues it; train --out
//	                              refuses (it would mix two runs)
//
// A run whose newest checkpoint reached the step budget is finished:
// resuming it without a larger budget says so and writes nothing.
//
// Every process that writes a run directory holds its lock (runlock) for
// as long as it writes.

// errFinished stops setup before anything is written: the run is done.
var errFinished = errors.New("run already finished")

// lockRunDir takes the run directory's lock or names the process that
// holds it.
func lockRunDir(dir string, warnf func(string, ...any)) (*runlock.Lock, error) {
	what := filepath.Base(os.Args[0])
	if len(os.Args) > 1 && !strings.HasPrefix(os.Args[1], "-") {
		what += " " + os.Args[1] // the subcommand; never the flags (they may hold URLs with credentials)
	}
	lk, err := runlock.Acquire(dir, what+" (run "+dir+")")
	if err != nil {
		return nil, err
	}
	if lk.Stale != nil && warnf != nil {
		warnf("%s was locked by %s, which is no longer running; taking it over", dir, lk.Stale)
	}
	return lk, nil
}

// hasCheckpoints reports whether runDir has any checkpoint directory,
// complete or not.
func hasCheckpoints(runDir string) bool {
	steps, err := rundir.ListCheckpoints(rundir.CheckpointRoot(runDir))
	return err == nil && len(steps) > 0
}

// openRunDir decides how this run uses cfg.Out: it returns the checkpoint
// to restore (nil man for a fresh start), errFinished for a finished run,
// or a *ConfigError. It writes nothing.
func (r *core) openRunDir() (ckptDir string, man *rundir.Manifest, err error) {
	cfg := &r.cfg
	_, statErr := os.Stat(filepath.Join(cfg.Out, "config.yaml"))
	hasConfig := statErr == nil
	if r.opts.Resume {
		if !hasConfig && !hasCheckpoints(cfg.Out) {
			return "", nil, &rundir.ConfigError{Msg: fmt.Sprintf("cannot resume: %s holds no run (no config.yaml); start it without --resume", cfg.Out)}
		}
		if !hasCheckpoints(cfg.Out) {
			// stopped before its first checkpoint: nothing to continue,
			// so start again from step 0 with the stored config
			r.warnf("%s has no checkpoint yet (the run stopped before its first one); starting it again from step 0 with its stored config", cfg.Out)
			r.freshCapacity()
			r.freshEngine()
			return "", nil, nil
		}
		ckptDir, man, err = rundir.LatestCheckpoint(cfg.Out)
		if err != nil {
			return "", nil, &rundir.ConfigError{Msg: fmt.Sprintf("cannot resume: %v; start the run again without --resume (or pick the right RUN_DIR)", err)}
		}
		if man.Step >= cfg.Steps {
			r.res.Step, r.res.Updates, r.res.Episodes = man.Step, man.Updates, man.Episodes
			r.res.Checkpoint, r.res.AlreadyFinished = ckptDir, true
			return "", nil, errFinished
		}
		// the buffer is restored into storage of the size it was saved with
		saved := rundir.DefaultConfig()
		if err := rundir.LoadConfigFile(filepath.Join(cfg.Out, "config.yaml"), &saved); err != nil {
			return "", nil, &rundir.ConfigError{Msg: fmt.Sprintf("cannot resume: %v", err)}
		}
		if rundir.OldEngine(&saved) {
			return "", nil, &rundir.ConfigError{Msg: fmt.Sprintf("cannot resume: %s was trained on the tabletop's old engine sim, which was removed; its policy and replay buffer come from other physics. Start a new run (another --out), or evaluate this one with robot-train eval --checkpoint %s --engine articulated", cfg.Out, cfg.Out)}
		}
		if saved.Buffer.Capacity < 1 || saved.Buffer.Capacity > rundir.MaxBufferCapacity {
			return "", nil, &rundir.ConfigError{Msg: fmt.Sprintf("cannot resume: %s gives buffer.capacity %d (1 to %d)", filepath.Join(cfg.Out, "config.yaml"), saved.Buffer.Capacity, rundir.MaxBufferCapacity)}
		}
		if c := saved.Buffer.Capacity; c != cfg.Buffer.Capacity {
			r.derived, cfg.Buffer.Capacity = append(r.derived, fmt.Sprintf("buffer.capacity %d (from the run's config.yaml: a resumed buffer keeps the size it was saved with; configured %d)", c, cfg.Buffer.Capacity)), c
		}
		return ckptDir, man, nil
	}
	if hasConfig || hasCheckpoints(cfg.Out) {
		if _, _, err := rundir.LatestCheckpoint(cfg.Out); err == nil {
			return "", nil, &rundir.ConfigError{Msg: fmt.Sprintf("run directory %s already holds a run; continue it with --resume %s, or choose another --out", cfg.Out, cfg.Out)}
		}
		// nothing there can be resumed: a restart loses nothing
		r.warnf("%s holds a run without a complete checkpoint (it stopped before its first one); starting it again", cfg.Out)
	}
	r.freshCapacity()
	r.freshEngine()
	return "", nil, nil
}

// freshEngine records a new tabletop run's engine as articulated, so that
// its config.yaml tells it from runs of the old engine sim, which recorded
// "" (rundir.OldEngine).
func (r *core) freshEngine() {
	if r.cfg.Engine == "" && rundir.OldEngine(&r.cfg) {
		r.cfg.Engine = tasks.EngineArticulated
	}
}

// freshCapacity sizes a new run's buffer: it never needs more slots than
// the run has steps. A smaller capacity than configured is derived, and
// the console's start says so (config.yaml keeps the derived value).
func (r *core) freshCapacity() {
	cfg := &r.cfg
	batch := cfg.SAC.BatchSize
	if cfg.ResolvedAlgo() == "dqn" {
		batch = cfg.DQN.BatchSize
	}
	configured := cfg.Buffer.Capacity
	cfg.Buffer.Capacity = int(min(int64(configured), max(cfg.Steps, int64(batch))))
	if cfg.Buffer.Capacity != configured {
		r.derived = append(r.derived, fmt.Sprintf("buffer.capacity %d (derived from steps %d: the run stores no more transitions; configured %d)", cfg.Buffer.Capacity, cfg.Steps, configured))
	}
}
