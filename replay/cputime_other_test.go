//go:build !unix

package replay

import "time"

// cpuTime is unavailable here; CPU-second rates are then not reported.
func cpuTime() time.Duration { return 0 }
