//go:build !unix

package hw

import "time"

// cpuTime is unavailable here; benchmarks report 0 cpu-ms/frame.
func cpuTime(children bool) time.Duration { return 0 }
