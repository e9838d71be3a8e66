// Command viam-server is viam-server built from rdk's own source for the
// vlmrb module's tests and local development. Build it with -tags no_cgo:
// the builtin models that need cgo (motion planning, the real arm drivers)
// are left out, and the APIs and fake models the tests use are registered
// explicitly below.
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
	_ "go.viam.com/rdk/services/mlmodel"
	_ "go.viam.com/rdk/services/register"
	"go.viam.com/rdk/logging"
	"go.viam.com/rdk/web/server"
)

func main() {
	utils.ContextualMain(server.RunServer, logging.NewLogger("viam-server"))
}
