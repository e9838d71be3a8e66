package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/train"
)

// interruptedError is the message of a training stopped by SIGINT/SIGTERM:
// "saved" only when a complete checkpoint is on disk.
func interruptedError(res *train.Result, runDir string) error {
	step := int64(0)
	if res != nil {
		step = res.Step
	}
	if _, m, err := rundir.LatestCheckpoint(runDir); err == nil {
		return fmt.Errorf("%w at env step %d; the checkpoint at step %d is saved, continue with: robot-train train --resume %s", errInterrupted, step, m.Step, runDir)
	}
	return fmt.Errorf("%w at env step %d, before any checkpoint was saved; start again with the same command, or: robot-train train --resume %s (starts from step 0 with its stored config)", errInterrupted, step, runDir)
}

// reportCheckpoint says on stderr which checkpoint eval uses and why it
// passed over newer ones.
func reportCheckpoint(stderr io.Writer, ac *rundir.AgentCheckpoint) {
	for _, s := range ac.Skipped {
		_, _ = fmt.Fprintf(stderr, "eval: skipped a newer checkpoint: %s\n", s)
	}
	_, _ = fmt.Fprintf(stderr, "eval: using %s (env step %d)\n", ac.Dir, ac.Manifest.Step)
}

// freshRunDir returns the directory a new run writes to: dir itself when
// rundir.CheckNewRunDir allows it. A dir that holds a run is refused with
// what to do instead, unless auto (the name was derived, not given with
// --out or in a --config file): then the first of dir_2, dir_3, … that
// allows a new run. A live run's lock is reported as train.Run would.
func freshRunDir(dir string, auto bool) (string, error) {
	err := rundir.CheckNewRunDir(dir)
	var re *rundir.RunExistsError
	switch {
	case err == nil:
		return dir, nil
	case !errors.As(err, &re):
		return "", err
	case !auto:
		return "", usagef("%v; nothing was started or written. To continue it: robot-train train --resume %s [--steps N]; to start a new run: pass another --out RUN_DIR", err, dir)
	}
	for i := 2; i <= maxAutoSuffix; i++ {
		next := fmt.Sprintf("%s_%d", dir, i)
		if rundir.CheckNewRunDir(next) == nil {
			return next, nil
		}
	}
	return "", usagef("%s and %s_2 … %s_%d all hold runs; pass --out RUN_DIR", dir, dir, dir, maxAutoSuffix)
}

// maxAutoSuffix bounds the search for a free derived run directory.
const maxAutoSuffix = 999
