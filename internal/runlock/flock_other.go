//go:build !unix

package runlock

import "os"

// tryLock records the holder but cannot exclude on this system.
func tryLock(*os.File) (bool, error) { return false, nil }

const (
	oNofollow = 0
	oNonblock = 0
)

func unlock(*os.File) error { return nil }
