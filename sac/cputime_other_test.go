//go:build !unix

package sac

import "time"

func processCPU() time.Duration { return 0 }
