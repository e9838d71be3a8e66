// Command viam-server is viam-server built from rdk's own source for the
// vlmrb module's tests and local development. The cgo build (Debian:
// libnlopt-dev libx264-dev) has motion planning, which Viam's fake UR5e
// needs for MoveToPosition; with -tags no_cgo it builds pure Go (libc
// only) but arms cannot plan. The APIs and fake models the tests use are
// registered explicitly below, so both builds have them.
//
// viam-server contacts public STUN/TURN hosts at startup; run it only
// through scripts/viam-netns.sh (a loopback-only network namespace).
package main

import (
	"go.viam.com/utils"

	// the APIs and models a pure-Go (no_cgo) build leaves out
	_ "go.viam.com/rdk/components/arm"
	_ "go.viam.com/rdk/components/arm/fake"
	_ "go.viam.com/rdk/components/camera/fake"
	_ "go.viam.com/rdk/components/gripper/fake"
	_ "go.viam.com/rdk/components/register"
	"go.viam.com/rdk/logging"
	_ "go.viam.com/rdk/services/mlmodel"
	_ "go.viam.com/rdk/services/register"
	"go.viam.com/rdk/web/server"
)

func main() {
	utils.ContextualMain(server.RunServer, logging.NewLogger("viam-server"))
}
