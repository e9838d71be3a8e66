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
