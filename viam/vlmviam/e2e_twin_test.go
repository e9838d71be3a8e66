package vlmviam

import (
	"context"
	"math"
	"path/filepath"
	"testing"
	"time"

	"go.viam.com/rdk/components/arm"
	"go.viam.com/rdk/referenceframe"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// TestE2EMJCFArmTwin: viam-server (loopback-only namespace) runs the
// module's mjcf-arm on testdata/arm6.xml. Through Viam's arm client:
// JointPositions starts at the keyframe; the kinematics the client gets
// from the server (GetKinematics) put the end where the module's MJCF
// kinematics do (EndPosition) to ≤ 1e-3 mm; MoveToJointPositions reaches
// the target within the tolerance; MoveToPosition reaches an absolute
// pose to ≤ 0.2 mm; Geometries come back; Stop during a move aborts it
// and the arm stays near where it stopped; a bad target is InvalidArgument.
func TestE2EMJCFArmTwin(t *testing.T) {
	requireE2E(t)
	model, err := filepath.Abs(arm6)
	if err != nil {
		t.Fatal(err)
	}
	cfg := map[string]any{"components": []any{
		map[string]any{"name": "twin", "api": "rdk:component:arm", "model": TwinArmModel.String(),
			"attributes": map[string]any{"model": model, "keyframe": "home", "end_effector": "attachment_site", "speed": 5, "tolerance_rad": 1e-5}},
		map[string]any{"name": "slow", "api": "rdk:component:arm", "model": TwinArmModel.String(),
			"attributes": map[string]any{"model": model, "keyframe": "home", "speed": 0.1}},
	}}
	s := startViam(t, cfg, nil)
	ctx := context.Background()
	a, err := arm.FromRobot(s.robot, "twin")
	if err != nil {
		t.Fatal(err)
	}
	home := []float64{-1.5708, -1.5708, 1.5708, -1.5708, -1.5708, 0}
	q, err := a.JointPositions(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range referenceframe.InputsToFloats(q) {
		if math.Abs(v-home[i]) > 1e-9 {
			t.Fatalf("joints %v at start, want the keyframe %v", q, home)
		}
	}
	km := a.ModelFrame()
	if km == nil || len(km.DoF()) != 6 {
		t.Fatalf("kinematics from the server (GetKinematics): %v", km)
	}
	target := []float64{-1.2, -1.3, 1.9, -1.8, -1.4, 0.6}
	t0 := time.Now()
	if err := a.MoveToJointPositions(ctx, referenceframe.FloatsToInputs(target), nil); err != nil {
		t.Fatal(err)
	}
	metric(t, "twin_move_wall_s", time.Since(t0).Seconds())
	q, _ = a.JointPositions(ctx, nil)
	for i, v := range referenceframe.InputsToFloats(q) {
		if math.Abs(v-target[i]) > 1e-5+1e-9 {
			t.Fatalf("joint %d at %v after the move, want %v ± 1e-5", i, v, target[i])
		}
	}
	end, err := a.EndPosition(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	fk, err := referenceframe.ComputeOOBPosition(km, q)
	if err != nil {
		t.Fatal(err)
	}
	if d := end.Point().Sub(fk.Point()).Norm(); d > 1e-3 {
		t.Fatalf("EndPosition %v vs the served kinematics' FK %v: %.4f mm apart", end.Point(), fk.Point(), d)
	}
	goal, _ := referenceframe.ComputeOOBPosition(km, referenceframe.FloatsToInputs([]float64{-1.3, -1.4, 1.6, -1.6, -1.5, 0.3}))
	if err := a.MoveToPosition(ctx, goal, nil); err != nil {
		t.Fatal(err)
	}
	end, _ = a.EndPosition(ctx, nil)
	if d := end.Point().Sub(goal.Point()).Norm(); d > 0.2 {
		t.Fatalf("MoveToPosition: end %v is %.3f mm from the goal %v", end.Point(), d, goal.Point())
	}
	gs, err := a.Geometries(ctx, nil)
	if err != nil || len(gs) != 6 {
		t.Fatalf("geometries: %d, %v; want 6", len(gs), err)
	}
	err = a.MoveToJointPositions(ctx, referenceframe.FloatsToInputs([]float64{0, 9, 0, 0, 0, 0}), nil)
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("out-of-range target: %v, want InvalidArgument", err)
	}

	// Stop from another client call during a move
	slow, err := arm.FromRobot(s.robot, "slow")
	if err != nil {
		t.Fatal(err)
	}
	far := []float64{1.5, -0.5, 0.5, -1.0, 1.0, 2.5}
	errc := make(chan error, 1)
	go func() { errc <- slow.MoveToJointPositions(ctx, referenceframe.FloatsToInputs(far), nil) }()
	time.Sleep(300 * time.Millisecond)
	if moving, _ := slow.IsMoving(ctx); !moving {
		t.Fatal("IsMoving false during a move")
	}
	if err := slow.Stop(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err == nil {
		t.Fatal("the stopped move returned no error")
	}
	for t0 := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		if moving, _ := slow.IsMoving(ctx); !moving {
			break
		}
		if time.Since(t0) > 20*time.Second {
			t.Fatal("still moving 20 s after Stop")
		}
	}
	q, _ = slow.JointPositions(ctx, nil)
	for i, v := range referenceframe.InputsToFloats(q) {
		if left, total := math.Abs(far[i]-v), math.Abs(far[i]-home[i]); left < 0.5*total {
			t.Fatalf("joint %d went on to %v after Stop (%.3f of %.3f rad to go)", i, v, left, total)
		}
	}
}
