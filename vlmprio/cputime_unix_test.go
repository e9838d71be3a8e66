//go:build unix

package vlmprio

import (
	"syscall"
	"time"
)

// processCPU returns the process's user+system CPU time. The overhead
// benchmark reports samples per CPU second beside wall-clock rates because
// the development machine is shared and wall time includes time spent
// descheduled.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
