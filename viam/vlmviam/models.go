package vlmviam

import (
	"context"

	"go.viam.com/rdk/components/arm"
	"go.viam.com/rdk/components/camera"
	"go.viam.com/rdk/components/gripper"
	"go.viam.com/rdk/components/posetracker"
	"go.viam.com/rdk/logging"
	"go.viam.com/rdk/resource"
	"go.viam.com/rdk/services/generic"
	"go.viam.com/rdk/services/mlmodel"
	"go.viam.com/rdk/services/vision"
)

// Model names follow Viam's namespace:module-name:model.
const (
	Namespace  = "vlmrb"
	ModuleName = "vlmrb"
)

// The model names before they followed Viam's convention (the API type
// stood where the module name goes). They still work, with a warning.
var (
	DeprecatedRunnerModel         = resource.NewModel("vlmrb", "service", "policy-runner")
	DeprecatedMLModelModel        = resource.NewModel("vlmrb", "mlmodel", "policy")
	DeprecatedScorerModel         = resource.NewModel("vlmrb", "vision", "vlm-scorer")
	DeprecatedSimArmModel         = resource.NewModel("vlmrb", "arm", "sim")
	DeprecatedSimGripperModel     = resource.NewModel("vlmrb", "gripper", "sim")
	DeprecatedSimCameraModel      = resource.NewModel("vlmrb", "camera", "sim")
	DeprecatedSimPoseTrackerModel = resource.NewModel("vlmrb", "pose_tracker", "sim")
)

// deprecated wraps a constructor so a resource configured under an old
// model name logs which name to use instead.
func deprecated[T resource.Resource](newName resource.Model, f func(context.Context, resource.Dependencies, resource.Config, logging.Logger) (T, error)) func(context.Context, resource.Dependencies, resource.Config, logging.Logger) (T, error) {
	return func(ctx context.Context, deps resource.Dependencies, conf resource.Config, logger logging.Logger) (T, error) {
		logger.Warnw("this model name is deprecated; use the new one in the config", "model", conf.Model.String(), "use", newName.String())
		return f(ctx, deps, conf, logger)
	}
}

func init() {
	resource.RegisterService(generic.API, RunnerModel, resource.Registration[resource.Resource, *RunnerConfig]{Constructor: NewRunner})
	resource.RegisterService(mlmodel.API, MLModelModel, resource.Registration[mlmodel.Service, *MLModelConfig]{Constructor: NewMLModel})
	resource.RegisterService(vision.API, ScorerModel, resource.Registration[vision.Service, *ScorerConfig]{Constructor: NewScorer})
	resource.RegisterComponent(arm.API, SimArmModel, resource.Registration[arm.Arm, *SimConfig]{Constructor: newSimArm})
	resource.RegisterComponent(gripper.API, SimGripperModel, resource.Registration[gripper.Gripper, *SimConfig]{Constructor: newSimGripper})
	resource.RegisterComponent(camera.API, SimCameraModel, resource.Registration[camera.Camera, *SimConfig]{Constructor: newSimCamera})
	resource.RegisterComponent(posetracker.API, SimPoseTrackerModel, resource.Registration[posetracker.PoseTracker, *SimConfig]{Constructor: newSimPoseTracker})
	resource.RegisterComponent(arm.API, TwinArmModel, resource.Registration[arm.Arm, *TwinConfig]{Constructor: NewTwinArm})

	resource.RegisterService(generic.API, DeprecatedRunnerModel, resource.Registration[resource.Resource, *RunnerConfig]{Constructor: deprecated(RunnerModel, NewRunner)})
	resource.RegisterService(mlmodel.API, DeprecatedMLModelModel, resource.Registration[mlmodel.Service, *MLModelConfig]{Constructor: deprecated(MLModelModel, NewMLModel)})
	resource.RegisterService(vision.API, DeprecatedScorerModel, resource.Registration[vision.Service, *ScorerConfig]{Constructor: deprecated(ScorerModel, NewScorer)})
	resource.RegisterComponent(arm.API, DeprecatedSimArmModel, resource.Registration[arm.Arm, *SimConfig]{Constructor: deprecated(SimArmModel, newSimArm)})
	resource.RegisterComponent(gripper.API, DeprecatedSimGripperModel, resource.Registration[gripper.Gripper, *SimConfig]{Constructor: deprecated(SimGripperModel, newSimGripper)})
	resource.RegisterComponent(camera.API, DeprecatedSimCameraModel, resource.Registration[camera.Camera, *SimConfig]{Constructor: deprecated(SimCameraModel, newSimCamera)})
	resource.RegisterComponent(posetracker.API, DeprecatedSimPoseTrackerModel, resource.Registration[posetracker.PoseTracker, *SimConfig]{Constructor: deprecated(SimPoseTrackerModel, newSimPoseTracker)})
}

// Models lists every model of the module with its API, for
// module.ModularMain: the current names first, then the deprecated ones.
func Models() []resource.APIModel {
	return append(CurrentModels(), []resource.APIModel{
		{API: generic.API, Model: DeprecatedRunnerModel},
		{API: mlmodel.API, Model: DeprecatedMLModelModel},
		{API: vision.API, Model: DeprecatedScorerModel},
		{API: arm.API, Model: DeprecatedSimArmModel},
		{API: gripper.API, Model: DeprecatedSimGripperModel},
		{API: camera.API, Model: DeprecatedSimCameraModel},
		{API: posetracker.API, Model: DeprecatedSimPoseTrackerModel},
	}...)
}

// CurrentModels lists the models under their current names (what
// meta.json declares).
func CurrentModels() []resource.APIModel {
	return []resource.APIModel{
		{API: generic.API, Model: RunnerModel},
		{API: mlmodel.API, Model: MLModelModel},
		{API: vision.API, Model: ScorerModel},
		{API: arm.API, Model: SimArmModel},
		{API: gripper.API, Model: SimGripperModel},
		{API: camera.API, Model: SimCameraModel},
		{API: posetracker.API, Model: SimPoseTrackerModel},
		{API: arm.API, Model: TwinArmModel},
	}
}
