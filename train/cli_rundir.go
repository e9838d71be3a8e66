package train

import (
	"fmt"

	"github.com/vlmrb/vlmrb/internal/runlock"
)

// RunExistsError reports a run directory that already holds a run with a
// complete checkpoint: a new run there would mix two runs.
type RunExistsError struct {
	Dir  string
	Step int64 // env step of its newest complete checkpoint
}

func (e *RunExistsError) Error() string {
	return fmt.Sprintf("run directory %s already holds a run (newest checkpoint at env step %d)", e.Dir, e.Step)
}

// CheckNewRunDir says, without writing anything, whether Run may start a
// new run (Options.Resume false) in dir, so a caller can refuse before it
// prints anything: nil when dir is absent, empty or holds a run that
// stopped before its first checkpoint (Run starts that again); the lock's
// *runlock.HeldError when a live process trains there; a *RunExistsError
// when dir holds a run with a complete checkpoint (continue it with
// Resume, or pick another directory).
func CheckNewRunDir(dir string) error {
	_, m, err := LatestCheckpoint(dir)
	if err != nil {
		return nil
	}
	if err := runlock.Probe(dir); err != nil {
		return err
	}
	return &RunExistsError{Dir: dir, Step: m.Step}
}
