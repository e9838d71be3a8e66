//go:build !unix

package vlmprio

import "time"

// processCPU is unavailable here; the benchmark then reports wall rates only.
func processCPU() time.Duration { return 0 }
