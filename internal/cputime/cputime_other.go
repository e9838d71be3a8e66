//go:build !unix

package cputime

import "time"

// Process is unavailable here: it returns 0, and benchmarks then report
// no per-CPU-second rates.
func Process() time.Duration { return 0 }
