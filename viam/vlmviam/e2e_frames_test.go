package vlmviam

import (
	"math"
	"testing"
	"time"

	"github.com/golang/geo/r3"
	"go.viam.com/rdk/components/arm"
	"go.viam.com/rdk/services/generic"
	"go.viam.com/rdk/spatialmath"
)

// TestE2EPosesThroughTheFrameSystem: two identical sim worlds under one
// viam-server, each driven by a policy runner with the same checkpoint
// and seeds. In world "a" nothing has a frame: the pose tracker reports
// in "world", which is then the arm's base. In world "b" the arm is
// mounted at a translated, rotated frame, and the pose tracker is a
// second frame elsewhere (translated and rotated about an oblique axis)
// that reports the objects and the goal in its own frame (report_frame:
// the tracker's pose relative to the arm's base, as the robot config's
// frames put it). The runner of "b" puts every pose through viam-server's
// frame system (TransformPose to "arm_b_origin"); if it does that right,
// its policy sees what "a"'s sees, so both arms end every episode at the
// same place, with the same returns and successes. A transform left out
// or applied the wrong way round moves the goal by up to ~0.5 m.
func TestE2EPosesThroughTheFrameSystem(t *testing.T) {
	requireE2E(t)
	run := trainedRun(t, 1, 10000)
	armAt := spatialmath.NewPose(r3.Vector{X: 300, Y: -200, Z: 50}, &spatialmath.OrientationVectorDegrees{OZ: 1, Theta: 90})
	trackerAt := spatialmath.NewPose(r3.Vector{X: -100, Y: 400, Z: 250}, &spatialmath.OrientationVectorDegrees{OX: 0.3, OY: 0.2, OZ: 0.9, Theta: 40})
	// where the tracker sits in the arm's base frame (the sim world)
	rel := spatialmath.Compose(spatialmath.PoseInverse(armAt), trackerAt)
	ov := rel.Orientation().OrientationVectorDegrees()
	frame := func(p spatialmath.Pose) map[string]any {
		o := p.Orientation().OrientationVectorDegrees()
		return map[string]any{"parent": "world",
			"translation": map[string]any{"x": p.Point().X, "y": p.Point().Y, "z": p.Point().Z},
			"orientation": map[string]any{"type": "ov_degrees", "value": map[string]any{"x": o.OX, "y": o.OY, "z": o.OZ, "th": o.Theta}}}
	}
	comp := func(name, api, model, world string, extra map[string]any) map[string]any {
		attrs := map[string]any{"task": "reach", "max_steps": 100, "world": world}
		for k, v := range extra {
			attrs[k] = v
		}
		return map[string]any{"name": name, "api": api, "model": model, "attributes": attrs}
	}
	armB := comp("arm_b", "rdk:component:arm", "vlmrb:vlmrb:sim-arm", "b", nil)
	armB["frame"] = frame(armAt)
	posesB := comp("poses_b", "rdk:component:pose_tracker", "vlmrb:vlmrb:sim-pose-tracker", "b", map[string]any{"report_frame": map[string]any{
		"name": "poses_b", "translation_mm": []any{rel.Point().X, rel.Point().Y, rel.Point().Z},
		"orientation_vector_degrees": []any{ov.OX, ov.OY, ov.OZ, ov.Theta}}})
	posesB["frame"] = frame(trackerAt)
	runner := func(name, sfx string) map[string]any {
		return map[string]any{"name": name, "api": "rdk:service:generic", "model": RunnerModel.String(), "attributes": map[string]any{
			"checkpoint": run, "arm": "arm_" + sfx, "gripper": "gripper_" + sfx, "gripper_mode": "proportional",
			"pose_tracker": "poses_" + sfx, "sim_reset": true}}
	}
	s := startViam(t, map[string]any{
		"components": []any{
			comp("arm_a", "rdk:component:arm", "vlmrb:vlmrb:sim-arm", "a", nil),
			comp("gripper_a", "rdk:component:gripper", "vlmrb:vlmrb:sim-gripper", "a", nil),
			comp("poses_a", "rdk:component:pose_tracker", "vlmrb:vlmrb:sim-pose-tracker", "a", nil),
			armB,
			comp("gripper_b", "rdk:component:gripper", "vlmrb:vlmrb:sim-gripper", "b", nil),
			posesB,
		},
		"services": []any{runner("runner_a", "a"), runner("runner_b", "b")},
	}, nil)
	const episodes, seed = 5, 3
	type result struct {
		eps []EpisodeResult
		st  map[string]any
		end r3.Vector
	}
	res := map[string]result{}
	for _, sfx := range []string{"a", "b"} {
		r := s.resource(t, generic.Named("runner_"+sfx))
		doCmd(t, r, map[string]any{"start": map[string]any{"episodes": episodes, "seed": seed}})
		st := waitRunnerDone(t, r, 5*time.Minute)
		if st["stop_reason"] != "episodes done" {
			t.Fatalf("runner_%s: %v", sfx, st)
		}
		a := s.resource(t, arm.Named("arm_"+sfx))
		end, err := a.(arm.Arm).EndPosition(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		doCmd(t, a, map[string]any{"reset": map[string]any{"seed": "0"}}) // closes the last episode's record
		eps := episodesOf(t, doCmd(t, a, map[string]any{"episodes": true}))
		res[sfx] = result{eps: eps[len(eps)-episodes:], st: st, end: end.Point()}
	}
	a, b := res["a"], res["b"]
	if n := a.st["poses_transformed"].(float64); n != 0 {
		t.Fatalf("world a has no frames, yet %v poses went through the frame system", n)
	}
	// at least the goal in each of an episode's 101 observations (the
	// start's and one per step)
	if n := b.st["poses_transformed"].(float64); n < episodes*101 {
		t.Fatalf("world b: %v poses through the frame system, want ≥ %d", n, episodes*101)
	}
	metric(t, "frames_poses_transformed", b.st["poses_transformed"])
	worst := 0.0
	for k := range a.eps {
		ea, eb := a.eps[k], b.eps[k]
		if ea.Seed != eb.Seed || ea.Success != eb.Success || ea.Steps != eb.Steps {
			t.Fatalf("episode %d: world a %+v, world b %+v", k, ea, eb)
		}
		worst = math.Max(worst, math.Abs(ea.Return-eb.Return)/math.Max(1, math.Abs(ea.Return)))
	}
	d := a.end.Sub(b.end).Norm()
	metric(t, "frames_max_return_rel_diff", worst)
	metric(t, "frames_final_hand_diff_mm", d)
	// poses cross viam-server as orientation vectors in degrees and go
	// through three composed transforms: ~1e-9 mm of rounding per pose
	if worst > 1e-3 || d > 1e-3 {
		t.Fatalf("world b's arm ended %.3g mm from world a's (returns differ by %.3g relative)", d, worst)
	}
	mt := func(st map[string]any) []any { return st["last_target_mm"].([]any) }
	for i := range 3 {
		if dd := math.Abs(mt(a.st)[i].(float64) - mt(b.st)[i].(float64)); dd > 1e-3 {
			t.Fatalf("last targets %v and %v differ by %.3g mm", mt(a.st), mt(b.st), dd)
		}
	}
}
