//go:build unix

package safefile

import (
	"errors"
	"syscall"
)

const (
	oNonblock = syscall.O_NONBLOCK
	oNoctty   = syscall.O_NOCTTY
	oNofollow = syscall.O_NOFOLLOW
)

func isLoop(err error) bool { return errors.Is(err, syscall.ELOOP) }
