package dqn

import "golang.org/x/sys/cpu"

// setAVX turns the AVX kernel on or off and reports whether the machine
// has it (so that turning it off tested something).
func setAVX(on bool) bool {
	had := cpu.X86.HasAVX
	hasAVX = on && had
	return had
}
