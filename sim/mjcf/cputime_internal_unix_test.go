//go:build unix

package mjcf

import "syscall"

// procCPUSeconds returns the CPU time (user + system, s) this process has used,
// so benchmarks can report cost per step that other load on a shared
// machine does not inflate as much as wall time.
func procCPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + 1e-6*float64(ru.Utime.Usec+ru.Stime.Usec)
}
