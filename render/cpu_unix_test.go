//go:build unix

package render

import "syscall"

// cpuSeconds returns the process's user+system CPU time, including
// llvmpipe's rasterizer threads.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
