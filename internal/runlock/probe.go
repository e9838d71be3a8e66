package runlock

import (
	"errors"
	"os"
	"path/filepath"
)

// Probe reports whether another live process holds dir's lock, without
// creating or writing anything: it returns a *HeldError naming the holder
// when the lock is held, nil when it is free or dir has no lock file.
// The answer can be stale by the time the caller acts; Acquire decides.
func Probe(dir string) error {
	if handedDown(dir) {
		return nil // this process's parent holds it for this process
	}
	f, err := openLockFile(filepath.Join(dir, FileName), false)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	held, err := tryLock(f)
	if err != nil {
		return err
	}
	if !held {
		return unlock(f)
	}
	h, _ := readHolder(f)
	return &HeldError{Dir: dir, Holder: h}
}
