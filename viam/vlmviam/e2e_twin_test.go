package vlmviam

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang/geo/r3"
	"go.viam.com/rdk/components/arm"
	"go.viam.com/rdk/services/generic"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/vlmrb/vlmrb/tasks"
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
	for i, v := range copyInputs(q) {
		if math.Abs(v-home[i]) > 1e-9 {
			t.Fatalf("joints %v at start, want the keyframe %v", q, home)
		}
	}
	km, err := a.Kinematics(ctx)
	if err != nil || km == nil || len(km.DoF()) != 6 {
		t.Fatalf("kinematics from the server (GetKinematics): %v, %v", km, err)
	}
	target := []float64{-1.2, -1.3, 1.9, -1.8, -1.4, 0.6}
	t0 := time.Now()
	if err := a.MoveToJointPositions(ctx, copyInputs(target), nil); err != nil {
		t.Fatal(err)
	}
	metric(t, "twin_move_wall_s", time.Since(t0).Seconds())
	q, _ = a.JointPositions(ctx, nil)
	for i, v := range copyInputs(q) {
		if math.Abs(v-target[i]) > 1e-5+1e-9 {
			t.Fatalf("joint %d at %v after the move, want %v ± 1e-5", i, v, target[i])
		}
	}
	// the served kinematics against the MJCF kinematics, on joints and end
	// read at one instant (the servo still creeps within its tolerance)
	stRes, err := a.DoCommand(ctx, map[string]any{"state": true})
	if err != nil {
		t.Fatal(err)
	}
	js, em := stRes["joints"].([]any), stRes["end_mm"].([]any)
	jf := make([]float64, len(js))
	for i, v := range js {
		jf[i] = v.(float64)
	}
	fk, err := fkPose(km, copyInputs(jf))
	if err != nil {
		t.Fatal(err)
	}
	mjEnd := r3.Vector{X: em[0].(float64), Y: em[1].(float64), Z: em[2].(float64)}
	if d := mjEnd.Sub(fk.Point()).Norm(); d > 1e-3 {
		t.Fatalf("MJCF end %v vs the served kinematics' FK %v: %.4f mm apart", mjEnd, fk.Point(), d)
	}
	if e, _ := a.EndPosition(ctx, nil); e.Point().Sub(fk.Point()).Norm() > 1 {
		t.Fatalf("EndPosition %v, %v at the state's instant", e.Point(), fk.Point())
	}
	goal, _ := fkPose(km, copyInputs([]float64{-1.3, -1.4, 1.6, -1.6, -1.5, 0.3}))
	if err := a.MoveToPosition(ctx, goal, nil); err != nil {
		t.Fatal(err)
	}
	end, _ := a.EndPosition(ctx, nil)
	if d := end.Point().Sub(goal.Point()).Norm(); d > 0.2 {
		t.Fatalf("MoveToPosition: end %v is %.3f mm from the goal %v", end.Point(), d, goal.Point())
	}
	gs, err := a.Geometries(ctx, nil)
	if err != nil || len(gs) != 6 {
		t.Fatalf("geometries: %d, %v; want 6", len(gs), err)
	}
	// out of the MJCF range (±π): refused and the arm stays. Since rdk v0.75
	// the arm client checks the target against the served kinematics'
	// limits before it calls (arm.CheckDesiredJointPositions), so the
	// refusal is the client's; the twin's own InvalidArgument for it is
	// TestTwinMoveToJointPositions'.
	before, err := a.JointPositions(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = a.MoveToJointPositions(ctx, copyInputs([]float64{0, 9, 0, 0, 0, 0}), nil)
	if err == nil || (status.Code(err) != codes.InvalidArgument && !strings.Contains(err.Error(), "needs to be within range")) {
		t.Fatalf("out-of-range target: %v, want it refused (InvalidArgument or the client's range check)", err)
	}
	after, err := a.JointPositions(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range before {
		if math.Abs(after[i]-before[i]) > 1e-3 {
			t.Fatalf("joints %v → %v after a refused target", before, after)
		}
	}

	// Stop from another client call during a move
	slow, err := arm.FromRobot(s.robot, "slow")
	if err != nil {
		t.Fatal(err)
	}
	far := []float64{1.5, -0.5, 0.5, -1.0, 1.0, 2.5}
	errc := make(chan error, 1)
	go func() { errc <- slow.MoveToJointPositions(ctx, copyInputs(far), nil) }()
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
	for i, v := range copyInputs(q) {
		if left, total := math.Abs(far[i]-v), math.Abs(far[i]-home[i]); left < 0.5*total {
			t.Fatalf("joint %d went on to %v after Stop (%.3f of %.3f rad to go)", i, v, left, total)
		}
	}
}

// TestE2EMJCFArmTwinJointPath: the policy runner drives the twin (real
// time, speed 1) through the joint control path (IK on the twin's served
// ModelFrame, then MoveToJointPositions, which blocks until the servo
// settles within tolerance_rad) on the reach task, its goal 100 mm from
// the start. Rate and tick latencies are metrics for bench/RESULTS.md,
// not asserted; asserted: every tick took the joint path and the arm's
// end (MJCF kinematics) holds the last commanded target to 1 mm.
func TestE2EMJCFArmTwinJointPath(t *testing.T) {
	requireE2E(t)
	run := trainedRun(t, 1, 10000)
	model, err := filepath.Abs(arm6)
	if err != nil {
		t.Fatal(err)
	}
	cfg := map[string]any{"components": []any{map[string]any{"name": "twin", "api": "rdk:component:arm", "model": TwinArmModel.String(),
		"attributes": map[string]any{"model": model, "keyframe": "home", "end_effector": "attachment_site", "tolerance_rad": 1e-3}}}}
	s := startViam(t, cfg, nil)
	tw, err := arm.FromRobot(s.robot, "twin")
	if err != nil {
		t.Fatal(err)
	}
	p0, _ := urStart(t, tw)
	o := p0.Point()
	m, err := tasks.Lookup("reach")
	if err != nil {
		t.Fatal(err)
	}
	off := []any{o.X - m.HandInit.X*1000, o.Y - m.HandInit.Y*1000, o.Z - m.HandInit.Z*1000}
	box := map[string]any{"low": []any{o.X - 150, o.Y - 150, o.Z - 150}, "high": []any{o.X + 150, o.Y + 150, o.Z + 150}}
	goal := []float64{o.X + 60, o.Y - 60, o.Z + 50}
	cfg["services"] = []any{map[string]any{"name": "free", "api": "rdk:service:generic", "model": RunnerModel.String(), "attributes": map[string]any{
		"checkpoint": run, "arm": "twin", "task_offset_mm": off, "workspace_mm": box, "goal_mm": []any{goal[0], goal[1], goal[2]}, "max_steps": 100,
		"control": "joints", "rate_hz": 0}}}
	s.writeConfig(t, cfg)
	r := s.resource(t, generic.Named("free"))
	t0 := time.Now()
	doCmd(t, r, map[string]any{"start": map[string]any{"episodes": 1, "seed": 1}})
	st := waitRunnerDone(t, r, 5*time.Minute)
	wall := time.Since(t0).Seconds()
	if st["stop_reason"] != "episodes done" || st["control_path"] != "joints" {
		t.Fatalf("runner: %v", st)
	}
	metric(t, "twin_joints_wall_s", wall)
	metric(t, "twin_joints_steps", st["total_steps"])
	metric(t, "twin_joints_hz", st["tick_hz"])
	metric(t, "twin_joints_tick_ms_median", st["tick_ms_median"])
	metric(t, "twin_joints_tick_ms_p99", st["tick_ms_p99"])
	hits := st["limit_hits"].(map[string]any)
	metric(t, "twin_joints_limit_hits", hits)
	if hits["ik_fallback"].(float64) != 0 {
		t.Fatalf("IK fell back to MoveToPosition %v times", hits["ik_fallback"])
	}
	end, _ := urStart(t, tw)
	tgt := st["last_target_mm"].([]any)
	e := end.Point()
	d := math.Sqrt(sq(e.X-tgt[0].(float64)) + sq(e.Y-tgt[1].(float64)) + sq(e.Z-tgt[2].(float64)))
	metric(t, "twin_joints_end_to_target_mm", d)
	metric(t, "twin_joints_end_to_goal_mm", math.Sqrt(sq(e.X-goal[0])+sq(e.Y-goal[1])+sq(e.Z-goal[2])))
	metric(t, "twin_joints_start_to_goal_mm", math.Sqrt(sq(o.X-goal[0])+sq(o.Y-goal[1])+sq(o.Z-goal[2])))
	if d > 1 {
		t.Fatalf("arm end %v is %.3f mm from the last target %v", e, d, tgt)
	}
}
