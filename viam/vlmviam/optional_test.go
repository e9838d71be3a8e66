package vlmviam

import (
	"context"
	"slices"
	"testing"

	"go.viam.com/rdk/components/arm"
	"go.viam.com/rdk/components/gripper"
	"go.viam.com/rdk/resource"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestValidateSplitsRequiredAndOptional: rdk v0.75+ Validate returns the
// dependencies a resource cannot be built without (the runner's arm and
// gripper, the scorer's camera) apart from those it can wait for (the
// runner's pose tracker and recorded camera).
func TestValidateSplitsRequiredAndOptional(t *testing.T) {
	c := &RunnerConfig{Checkpoint: "run", RigConfig: RigConfig{Arm: "arm", Gripper: "grip", Camera: "cam", PoseTracker: "poses"}}
	req, opt, err := c.Validate("x")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(req, []string{"arm", "grip"}) || !slices.Equal(opt, []string{"cam", "poses"}) {
		t.Fatalf("required %v, optional %v; want [arm grip], [cam poses]", req, opt)
	}
	// a name given twice is one dependency, required wins
	c.RigConfig = RigConfig{Arm: "arm", Camera: "arm", PoseTracker: "poses"}
	if req, opt, _ = c.Validate("x"); !slices.Equal(req, []string{"arm"}) || !slices.Equal(opt, []string{"poses"}) {
		t.Fatalf("required %v, optional %v; want [arm], [poses]", req, opt)
	}
	s := &ScorerConfig{Camera: "cam", Task: "reach"}
	if req, opt, err = s.Validate("x"); err != nil || !slices.Equal(req, []string{"cam"}) || len(opt) != 0 {
		t.Fatalf("scorer: required %v, optional %v, %v; want [cam], none", req, opt, err)
	}
}

// TestRigWaitsForOptionalPoseTracker: a rig built while its pose tracker
// and camera are missing (viam-server builds resources without optional
// dependencies) names them, records no frames, and fails the episode
// start with Unavailable, which the runner retries; with them it starts.
func TestRigWaitsForOptionalPoseTracker(t *testing.T) {
	ctx := context.Background()
	deps, _ := simRig(t, "optional", 0)
	partial := resource.Dependencies{arm.Named("arm"): deps[arm.Named("arm")], gripper.Named("gripper"): deps[gripper.Named("gripper")]}
	cfg := RigConfig{Arm: "arm", Gripper: "gripper", GripperMode: "proportional", PoseTracker: "poses", Camera: "cam"}
	rig, err := NewRig(ctx, partial, cfg)
	if err != nil {
		t.Fatalf("rig without its optional dependencies: %v", err)
	}
	if !slices.Equal(rig.Missing(), []string{"poses", "cam"}) || rig.Camera() != nil {
		t.Fatalf("missing %v, camera %v; want [poses cam], none", rig.Missing(), rig.Camera())
	}
	_, err = rig.Begin(ctx)
	if status.Code(err) != codes.Unavailable || !isTransient(err) {
		t.Fatalf("begin without the pose tracker: %v; want a transient Unavailable", err)
	}
	cfg.Camera = ""
	full, err := NewRig(ctx, deps, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Missing()) != 0 {
		t.Fatalf("missing %v with every dependency given", full.Missing())
	}
	if _, err := full.Begin(ctx); err != nil {
		t.Fatalf("begin with the pose tracker: %v", err)
	}
}
