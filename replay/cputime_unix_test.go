//go:build unix

package replay

import (
	"syscall"
	"time"
)

// cpuTime returns the process's user+system CPU time. Benchmarks report
// rates per CPU second beside wall-clock rates because the development
// machine is shared: wall time there includes time spent descheduled.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
