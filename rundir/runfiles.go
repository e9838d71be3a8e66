package rundir

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

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

// RemoveEmptyRunDir removes dir when it holds nothing but what a start
// writes before it can be refused — its lock file, config.yaml,
// platform.json and empty directories — for a directory that start made
// (the lock is released by then). Anything else in it is kept.
func RemoveEmptyRunDir(dir string) {
	only := true
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if filepath.Dir(p) != filepath.Clean(dir) || !d.Type().IsRegular() || !startFiles[d.Name()] {
			only = false
			return fs.SkipAll
		}
		return nil
	})
	if err == nil && only {
		_ = os.RemoveAll(dir)
	}
}

// startFiles are the files a run writes before its setup can refuse it.
var startFiles = map[string]bool{runlock.FileName: true, "config.yaml": true, "platform.json": true}
