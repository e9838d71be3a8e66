//go:build !unix

package mjcf

// procCPUSeconds is unavailable here; benchmarks then omit the CPU-time metric.
func procCPUSeconds() float64 { return 0 }
