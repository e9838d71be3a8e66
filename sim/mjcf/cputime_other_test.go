//go:build !unix

package mjcf_test

// cpuSeconds is unavailable here; benchmarks then omit the CPU-time metric.
func cpuSeconds() float64 { return 0 }
