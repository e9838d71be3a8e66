//go:build unix

package nn

import (
	"syscall"
	"time"
)

// processCPU returns the user+system CPU time of the whole process (all
// threads, OpenBLAS's included). On a shared machine updates per CPU-second
// is a steadier figure than wall-clock rate.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
