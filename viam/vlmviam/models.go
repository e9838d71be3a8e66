package vlmviam

import (
	"go.viam.com/rdk/components/arm"
	"go.viam.com/rdk/components/camera"
	"go.viam.com/rdk/components/gripper"
	"go.viam.com/rdk/components/posetracker"
	"go.viam.com/rdk/resource"
	"go.viam.com/rdk/services/generic"
	"go.viam.com/rdk/services/mlmodel"
	"go.viam.com/rdk/services/vision"
)

func init() {
	resource.RegisterService(generic.API, RunnerModel, resource.Registration[resource.Resource, *RunnerConfig]{Constructor: NewRunner})
	resource.RegisterService(mlmodel.API, MLModelModel, resource.Registration[mlmodel.Service, *MLModelConfig]{Constructor: NewMLModel})
	resource.RegisterService(vision.API, ScorerModel, resource.Registration[vision.Service, *ScorerConfig]{Constructor: NewScorer})
	resource.RegisterComponent(arm.API, SimArmModel, resource.Registration[arm.Arm, *SimConfig]{Constructor: newSimArm})
	resource.RegisterComponent(gripper.API, SimGripperModel, resource.Registration[gripper.Gripper, *SimConfig]{Constructor: newSimGripper})
	resource.RegisterComponent(camera.API, SimCameraModel, resource.Registration[camera.Camera, *SimConfig]{Constructor: newSimCamera})
	resource.RegisterComponent(posetracker.API, SimPoseTrackerModel, resource.Registration[posetracker.PoseTracker, *SimConfig]{Constructor: newSimPoseTracker})
}

// Models lists every model of the module with its API, for module.ModularMain.
func Models() []resource.APIModel {
	return []resource.APIModel{
		{API: generic.API, Model: RunnerModel},
		{API: mlmodel.API, Model: MLModelModel},
		{API: vision.API, Model: ScorerModel},
		{API: arm.API, Model: SimArmModel},
		{API: gripper.API, Model: SimGripperModel},
		{API: camera.API, Model: SimCameraModel},
		{API: posetracker.API, Model: SimPoseTrackerModel},
	}
}
