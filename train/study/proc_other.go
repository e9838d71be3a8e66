//go:build !linux

package study

import "syscall"

// childAttr: only Linux can tie a child's life to its parent's; the child
// still gets its own process group where the system has them.
func childAttr() *syscall.SysProcAttr { return procGroup() }
