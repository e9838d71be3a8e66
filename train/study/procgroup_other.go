//go:build !unix

package study

import "syscall"

func procGroup() *syscall.SysProcAttr { return nil }
