//go:build !amd64

package dqn

func setAVX(bool) bool { return false }
