//go:build unix && !linux

package study

import "syscall"

func procGroup() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
