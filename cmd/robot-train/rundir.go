package main

import (
	"fmt"

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
