//go:build !unix

package safefile

const (
	oNonblock = 0
	oNoctty   = 0
	oNofollow = 0
)

func isLoop(error) bool { return false }
