package main

import (
	"fmt"
	"io"

	"github.com/vlmrb/vlmrb/train"
)

// interruptedError is the message of a training stopped by SIGINT/SIGTERM:
// "saved" only when a complete checkpoint is on disk.
func interruptedError(res *train.Result, runDir string) error {
	step := int64(0)
	if res != nil {
		step = res.Step
	}
	if _, m, err := train.LatestCheckpoint(runDir); err == nil {
		return fmt.Errorf("%w at env step %d; the checkpoint at step %d is saved, continue with: robot-train train --resume %s", errInterrupted, step, m.Step, runDir)
	}
	return fmt.Errorf("%w at env step %d, before any checkpoint was saved; start again with the same command, or: robot-train train --resume %s (starts from step 0 with its stored config)", errInterrupted, step, runDir)
}

// reportCheckpoint says on stderr which checkpoint eval uses and why it
// passed over newer ones.
func reportCheckpoint(stderr io.Writer, ac *train.AgentCheckpoint) {
	for _, s := range ac.Skipped {
		_, _ = fmt.Fprintf(stderr, "eval: skipped a newer checkpoint: %s\n", s)
	}
	_, _ = fmt.Fprintf(stderr, "eval: using %s (env step %d)\n", ac.Dir, ac.Manifest.Step)
}
