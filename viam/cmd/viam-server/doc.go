// Command viam-server is viam-server built from rdk's own source for the
// vlmrb module's tests and local development. The cgo build (Debian:
// libnlopt-dev libx264-dev) has motion planning, which Viam's fake UR5e
// needs for MoveToPosition; with -tags no_cgo it builds pure Go (libc
// only) but arms cannot plan. The APIs and fake models the tests use are
// registered explicitly in main.go, so both builds have them.
//
// viam-server contacts public STUN/TURN hosts at startup; run it only
// inside a loopback-only network namespace (scripts/viam-sandbox.sh,
// make test-viam).
package main
