package study

import "syscall"

// childAttr puts the training child in its own process group, so a
// terminal's Ctrl-C (sent to the foreground group) reaches only the study
// process, which forwards exactly one SIGINT; and asks the kernel to send
// the child SIGINT when the study process dies, so it checkpoints and
// exits instead of running on unrecorded (it records its own attempt
// then: RecordOrphan).
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGINT}
}
