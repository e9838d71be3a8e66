//go:build !unix

package tasks

// cpuSeconds is unavailable here; benchmarks then omit the CPU-time metric.
func cpuSeconds() float64 { return 0 }
