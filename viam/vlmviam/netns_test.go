package vlmviam

import (
	"errors"
	"net"
	"testing"
)

// TestCheckLoopbackOnlyMatchesInterfaces: the guard refuses exactly when a
// non-loopback interface exists (the host), and passes in `unshare -n`.
func TestCheckLoopbackOnlyMatchesInterfaces(t *testing.T) {
	ifs, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	other := false
	for _, i := range ifs {
		other = other || i.Flags&net.FlagLoopback == 0
	}
	err = CheckLoopbackOnly()
	if other && !errors.Is(err, ErrNotIsolated) {
		t.Fatalf("a non-loopback interface exists but the guard said %v", err)
	}
	if !other && err != nil {
		t.Logf("loopback-only namespace, guard: %v", err)
	}
}
