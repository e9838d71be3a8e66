package vlmviam

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/golang/geo/r3"
	"go.viam.com/rdk/components/arm"
	"go.viam.com/rdk/resource"
	"go.viam.com/rdk/services/generic"
	"go.viam.com/rdk/spatialmath"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The runner is a resource.Actuator.
var _ resource.Actuator = (*Runner)(nil)

// TestRunnerStopIsAnActuatorStop: Stop halts a running runner before its
// next command: at most the tick in flight completes after the stop was
// asked for, IsMoving turns false, the steps stay frozen afterwards and
// the sim arm takes no further move.
func TestRunnerStopIsAnActuatorStop(t *testing.T) {
	run := trainedRun(t, 1, 3000)
	ctx := context.Background()
	deps, sa := simRig(t, "actuator", 0)
	res, err := NewRunner(ctx, deps, mustConf[*RunnerConfig](t, generic.API, RunnerModel, "runner", map[string]any{
		"checkpoint": run, "arm": "arm", "gripper": "gripper", "gripper_mode": "proportional", "pose_tracker": "poses",
		"sim_reset": true, "rate_hz": 100,
	}), testLogger)
	if err != nil {
		t.Fatal(err)
	}
	r := res.(*Runner)
	defer r.Close(ctx)
	if moving, _ := r.IsMoving(ctx); moving {
		t.Fatal("IsMoving before start")
	}
	if err := r.start(0, 7); err != nil {
		t.Fatal(err)
	}
	for r.State().TotalSteps < 10 {
		time.Sleep(5 * time.Millisecond)
	}
	if moving, _ := r.IsMoving(ctx); !moving {
		t.Fatal("IsMoving false while running")
	}
	if err := r.Stop(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if moving, _ := r.IsMoving(ctx); moving {
		t.Fatal("IsMoving true after Stop returned")
	}
	st := r.State()
	if st.Running || st.Reason != "stopped" {
		t.Fatalf("after Stop: running %v, reason %q", st.Running, st.Reason)
	}
	if extra := st.TotalSteps - st.StoppedAtStep; extra < 0 || extra > 1 {
		t.Fatalf("%d steps after the stop was asked for; at most the tick in flight may finish", extra)
	}
	moves := sa.world().moves
	time.Sleep(100 * time.Millisecond) // ten ticks at 100 Hz
	if st2 := r.State(); st2.TotalSteps != st.TotalSteps {
		t.Fatalf("steps moved on after Stop: %d → %d", st.TotalSteps, st2.TotalSteps)
	}
	if m := sa.world().moves; m != moves {
		t.Fatalf("the sim moved %d times after Stop", m-moves)
	}
	// a second Stop is a no-op; a start afterwards runs again
	if err := r.Stop(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if err := r.start(1, 8); err != nil {
		t.Fatal(err)
	}
	_ = r.Stop(ctx, nil)
}

// TestRecordDirNeverOverwritten: a second start (as after a module
// restart) numbers its episodes on from what record_dir holds; the
// first start's recordings stay byte for byte.
func TestRecordDirNeverOverwritten(t *testing.T) {
	run := trainedRun(t, 1, 3000)
	ctx := context.Background()
	rec := t.TempDir()
	deps, _ := simRig(t, "record", 5)
	conf := mustConf[*RunnerConfig](t, generic.API, RunnerModel, "runner", map[string]any{
		"checkpoint": run, "arm": "arm", "gripper": "gripper", "gripper_mode": "proportional", "pose_tracker": "poses",
		"sim_reset": true, "record_dir": rec, "max_steps": 5,
	})
	read := func(ep string) []byte {
		b, err := os.ReadFile(filepath.Join(rec, ep, "episode.json"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	startRunner := func() *Runner {
		res, err := NewRunner(ctx, deps, conf, testLogger)
		if err != nil {
			t.Fatal(err)
		}
		return res.(*Runner)
	}
	r1 := startRunner()
	if st := runEpisodes(t, r1, 2, 1); st.Reason != "episodes done" {
		t.Fatalf("first start: %q %s", st.Reason, st.LastError)
	}
	r1.Close(ctx)
	first := [][]byte{read("episode-000000"), read("episode-000001")}
	r2 := startRunner() // a new runner, as after a restart
	defer r2.Close(ctx)
	if st := runEpisodes(t, r2, 2, 2); st.Reason != "episodes done" {
		t.Fatalf("second start: %q %s", st.Reason, st.LastError)
	}
	for i, ep := range []string{"episode-000000", "episode-000001"} {
		if string(read(ep)) != string(first[i]) {
			t.Fatalf("%s was rewritten by the second start", ep)
		}
	}
	for i, ep := range []string{"episode-000002", "episode-000003"} {
		var m map[string]any
		if err := json.Unmarshal(read(ep), &m); err != nil {
			t.Fatal(err)
		}
		if m["episode"] != float64(i) { // the second start's episodes 0 and 1
			t.Fatalf("%s holds episode %v of its start, want %d", ep, m["episode"], i)
		}
	}
	ents, _ := os.ReadDir(rec)
	if len(ents) != 4 {
		t.Fatalf("record_dir holds %d entries, want 4 episodes", len(ents))
	}
}

// TestRateHzBounds: rate_hz below MinRateHz is refused; at MinRateHz the
// tick period is a positive 10 s (a period from 1e-12 Hz would overflow
// time.Duration's int64 nanoseconds to a negative number).
func TestRateHzBounds(t *testing.T) {
	for _, hz := range []float64{1e-12, 0.05, -1, 1001} {
		_, err := mkConf[*RunnerConfig](t, generic.API, RunnerModel, "r", map[string]any{"checkpoint": "x", "arm": "a", "rate_hz": hz})
		if err == nil || !strings.Contains(err.Error(), `"rate_hz"`) {
			t.Fatalf("rate_hz %g: error %v, want one naming rate_hz", hz, err)
		}
	}
	for _, hz := range []float64{0, MinRateHz, 80, MaxRateHz} {
		if _, err := mkConf[*RunnerConfig](t, generic.API, RunnerModel, "r", map[string]any{"checkpoint": "x", "arm": "a", "rate_hz": hz}); err != nil {
			t.Fatalf("rate_hz %g refused: %v", hz, err)
		}
	}
	if p := time.Duration(float64(time.Second) / MinRateHz); p != 10*time.Second {
		t.Fatalf("period at MinRateHz %v, want 10 s", p)
	}
}

// TestSimWorldRebuiltWhenComponentsChangeTogether: changing max_steps on
// every component of a world (one config write) rebuilds the world with
// the new episode length instead of refusing the first reconfigure.
func TestSimWorldRebuiltWhenComponentsChangeTogether(t *testing.T) {
	ctx := context.Background()
	deps, sa := simRig(t, "rebuild", 3)
	old := sa.world()
	conf := func(name string, api resource.API, model resource.Model) resource.Config {
		return mustConf[*SimConfig](t, api, model, name, map[string]any{"task": "reach", "world": "rebuild", "max_steps": 5})
	}
	for name, res := range deps {
		var err error
		switch c := res.(type) {
		case *SimArm:
			err = c.Reconfigure(ctx, nil, conf(name.Name, arm.API, SimArmModel))
		case *SimGripper:
			err = c.Reconfigure(ctx, nil, conf(name.Name, name.API, SimGripperModel))
		case *SimPoseTracker:
			err = c.Reconfigure(ctx, nil, conf(name.Name, name.API, SimPoseTrackerModel))
		}
		if err != nil {
			t.Fatalf("reconfigure %s: %v", name, err)
		}
	}
	w := sa.world()
	if w == old || !w.current() || w.cfg.MaxSteps != 5 {
		t.Fatalf("world after reconfigure: same %v, current %v, max_steps %d", w == old, w.current(), w.cfg.MaxSteps)
	}
	if old.refs != 0 {
		t.Fatalf("old world still has %d users", old.refs)
	}
	for _, res := range deps {
		if b, ok := res.(interface{ world() *World }); ok && b.world() != w {
			t.Fatal("a component stayed on the old world")
		}
	}
	// the new episode length holds: 5 one-step moves end the episode
	w.Reset(1)
	for range 5 {
		h := w.Hand()
		if _, err := w.Move([3]float64{h[0] + 1, h[1], h[2]}); err != nil {
			t.Fatal(err)
		}
	}
	h := w.Hand()
	if _, err := w.Move([3]float64{h[0] + 1, h[1], h[2]}); err == nil {
		t.Fatal("a sixth move in a 5-step episode succeeded")
	}
}

// TestErrorsCarryGRPCCodes: clients see InvalidArgument for a bad
// command and FailedPrecondition for a start while running.
func TestErrorsCarryGRPCCodes(t *testing.T) {
	r := &Runner{Named: generic.Named("r").AsNamed(), logger: testLogger}
	_, err := r.DoCommand(context.Background(), map[string]any{"strat": true})
	if status.Code(err) != codes.InvalidArgument {
		t.Fatalf("unknown command: %v (code %v), want InvalidArgument", err, status.Code(err))
	}
	r.cancel = func() {}
	if err := r.start(1, 1); status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("start while running: %v, want FailedPrecondition", err)
	}
	if !isTransient(notFound("arm %q", "arm")) || isTransient(errors.New("joint limit")) {
		t.Fatal("isTransient misclassifies")
	}
}

// TestSimArmStopEndsAMoveInFlight: a 2 m MoveToPosition (200 control
// steps of 10 mm) is moving (IsMoving) until Stop; it then returns
// Aborted before its end, the hand short of the target, and IsMoving is
// false.
func TestSimArmStopEndsAMoveInFlight(t *testing.T) {
	ctx := context.Background()
	_, sa := simRig(t, "armstop", 1000)
	w := sa.world()
	w.Reset(3)
	h := w.Hand()
	target := spatialmath.NewPoseFromPoint(r3.Vector{X: h[0] + 2000, Y: h[1], Z: h[2]})
	done := make(chan error, 1)
	go func() { done <- sa.MoveToPosition(ctx, target, nil) }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if moving, _ := sa.IsMoving(ctx); moving {
			break
		}
		select {
		case err := <-done:
			t.Skipf("the 200-step move finished (%v) before it was seen moving", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the move never started")
		}
	}
	if err := sa.Stop(ctx, nil); err != nil {
		t.Fatal(err)
	}
	err := <-done
	if status.Code(err) != codes.Aborted {
		t.Fatalf("stopped move returned %v, want Aborted", err)
	}
	if moving, _ := sa.IsMoving(ctx); moving {
		t.Fatal("IsMoving after the stopped move returned")
	}
	if got := w.Hand(); got[0]-h[0] > 1900 {
		t.Fatalf("hand moved %.0f mm of 2000 despite Stop", got[0]-h[0])
	}
}

// TestSimArmMoveToPositionIsAbsolute: MoveToPosition returns with the
// hand (EndPosition, the simulated hand itself) within
// SimMoveToleranceMM of the target, for a 5 mm move (which used to reach
// 3.3 mm) and a longer one; repeating a target leaves the hand there.
func TestSimArmMoveToPositionIsAbsolute(t *testing.T) {
	ctx := context.Background()
	_, sa := simRig(t, "absolute", 1000)
	w := sa.world()
	w.Reset(4)
	h := w.Hand()
	for _, d := range [][3]float64{{5, 0, 0}, {5, 0, 0}, {20, -10, 5}, {-15, 12, -8}} {
		target := r3.Vector{X: h[0] + d[0], Y: h[1] + d[1], Z: h[2] + d[2]}
		if err := sa.MoveToPosition(ctx, spatialmath.NewPoseFromPoint(target), nil); err != nil {
			t.Fatalf("move to %v: %v", target, err)
		}
		end, err := sa.EndPosition(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if dist := end.Point().Sub(target).Norm(); dist > SimMoveToleranceMM {
			t.Fatalf("hand %.2f mm from the target %v after MoveToPosition", dist, target)
		}
	}
}

// TestSimArmGeometriesAreTheHand: Geometries holds the hand's collision
// shapes: the palm, a 40 × 130 × 20 mm box (the scene's half extents
// 0.02, 0.065, 0.01 m), and the two finger pads; they move with the hand
// (a 20 mm move in x moves the palm 20 ± 1 mm in x).
func TestSimArmGeometriesAreTheHand(t *testing.T) {
	ctx := context.Background()
	_, sa := simRig(t, "geoms", 1000)
	w := sa.world()
	w.Reset(6)
	palm := func() spatialmath.Geometry {
		gs, err := sa.Geometries(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var p spatialmath.Geometry
		pads := 0
		for _, g := range gs {
			switch {
			case g.Label() == "gripper palm":
				p = g
			case strings.HasSuffix(g.Label(), "finger pad"):
				pads++
			}
		}
		if p == nil || pads != 2 {
			t.Fatalf("geometries %v: want the palm and two finger pads", gs)
		}
		return p
	}
	p0 := palm()
	box := p0.ToProtobuf().GetBox()
	if box == nil {
		t.Fatalf("palm geometry %v is not a box", p0)
	}
	dims := r3.Vector{X: box.GetDimsMm().GetX(), Y: box.GetDimsMm().GetY(), Z: box.GetDimsMm().GetZ()}
	if d := dims.Sub(r3.Vector{X: 40, Y: 130, Z: 20}).Norm(); d > 1e-6 {
		t.Fatalf("palm dims %v mm, want 40 × 130 × 20", dims)
	}
	h := w.Hand()
	if err := sa.MoveToPosition(ctx, spatialmath.NewPoseFromPoint(r3.Vector{X: h[0] + 20, Y: h[1], Z: h[2]}), nil); err != nil {
		t.Fatal(err)
	}
	moved := palm().Pose().Point().Sub(p0.Pose().Point())
	if math.Abs(moved.X-20) > 1 || math.Abs(moved.Y) > 1 || math.Abs(moved.Z) > 1 {
		t.Fatalf("palm moved %v mm for a 20 mm move of the hand in x", moved)
	}
}

// TestStopAllWatchEndsWithTheRun: with a viam-server address set (here
// one nobody listens on, so the watch keeps retrying its dial), a run
// that ends by itself ends its StopAll watch: no goroutine outlives it.
func TestStopAllWatchEndsWithTheRun(t *testing.T) {
	run := trainedRun(t, 1, 3000)
	ctx := context.Background()
	deps, _ := simRig(t, "watchend", 5)
	SetParentAddress(filepath.Join(t.TempDir(), "parent.sock"))
	defer SetParentAddress("")
	base := runtime.NumGoroutine()
	res, err := NewRunner(ctx, deps, mustConf[*RunnerConfig](t, generic.API, RunnerModel, "runner", map[string]any{
		"checkpoint": run, "arm": "arm", "gripper": "gripper", "gripper_mode": "proportional", "pose_tracker": "poses",
		"sim_reset": true, "max_steps": 5,
	}), testLogger)
	if err != nil {
		t.Fatal(err)
	}
	r := res.(*Runner)
	if st := runEpisodes(t, r, 2, 1); st.Reason != "episodes done" {
		t.Fatalf("run: %q %s", st.Reason, st.LastError)
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines after the run ended, %d before:\n%s", n, base, buf[:runtime.Stack(buf, true)])
	}
	r.Close(ctx)
}
