package study

import "syscall"

// childAttr asks the kernel to send the training child SIGINT when the
// study process dies, so it checkpoints and exits instead of running on
// unrecorded.
func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGINT} }
