package vlmviam

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
)

// ErrNotIsolated is returned by CheckLoopbackOnly outside a loopback-only
// network namespace.
var ErrNotIsolated = errors.New("not in a loopback-only network namespace; run viam-server under `unshare -n` with `ip link set lo up` (make test-viam, scripts/viam-sandbox.sh)")

// CheckLoopbackOnly reports whether this process's network namespace has
// only the loopback interface and no IPv4 or IPv6 route off loopback. The
// tests and scripts that start viam-server call it first: viam-server
// contacts public STUN/TURN hosts at startup, and nothing may leave
// 127.0.0.0/8.
func CheckLoopbackOnly() error {
	ifs, err := net.Interfaces()
	if err != nil {
		return fmt.Errorf("list interfaces: %w", err)
	}
	up := false
	for _, i := range ifs {
		if i.Flags&net.FlagLoopback == 0 {
			return fmt.Errorf("%w (interface %s is present)", ErrNotIsolated, i.Name)
		}
		up = up || i.Flags&net.FlagUp != 0
	}
	if !up {
		return errors.New("loopback is down in this network namespace; run `ip link set lo up` first")
	}
	// IPv4: /proc/net/route lists the main table; loopback-only has none
	if err := eachRouteLine("/proc/self/net/route", true, func(f []string) error {
		return fmt.Errorf("%w (IPv4 route via %s)", ErrNotIsolated, f[0])
	}); err != nil {
		return err
	}
	return eachRouteLine("/proc/self/net/ipv6_route", false, func(f []string) error {
		if dev := f[len(f)-1]; dev != "lo" {
			return fmt.Errorf("%w (IPv6 route via %s)", ErrNotIsolated, dev)
		}
		return nil
	})
}

func eachRouteLine(path string, header bool, f func([]string) error) error {
	file, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) && strings.Contains(path, "ipv6") {
			return nil // IPv6 disabled
		}
		return fmt.Errorf("read routes: %w", err)
	}
	defer file.Close()
	s := bufio.NewScanner(file)
	first := true
	for s.Scan() {
		if first && header {
			first = false
			continue
		}
		fields := strings.Fields(s.Text())
		if len(fields) == 0 {
			continue
		}
		if err := f(fields); err != nil {
			return err
		}
	}
	return s.Err()
}
