//go:build unix

package hw

import (
	"syscall"
	"time"
)

// cpuTime returns user+system CPU time of this process (self) or of its
// waited-for children (children=true).
func cpuTime(children bool) time.Duration {
	who := syscall.RUSAGE_SELF
	if children {
		who = syscall.RUSAGE_CHILDREN
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
