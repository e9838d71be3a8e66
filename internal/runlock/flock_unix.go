//go:build unix

package runlock

import (
	"errors"
	"os"
	"syscall"
)

// tryLock takes an exclusive flock without blocking; held reports that
// another open file description holds it.
func tryLock(f *os.File) (held bool, err error) {
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}

const (
	oNofollow = syscall.O_NOFOLLOW
	oNonblock = syscall.O_NONBLOCK
)

func unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
