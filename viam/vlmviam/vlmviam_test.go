package vlmviam

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.viam.com/rdk/components/arm"
	"go.viam.com/rdk/components/camera"
	"go.viam.com/rdk/components/gripper"
	"go.viam.com/rdk/components/posetracker"
	"go.viam.com/rdk/ml"
	"go.viam.com/rdk/resource"
	"go.viam.com/rdk/services/generic"
	"go.viam.com/rdk/services/mlmodel"
	"go.viam.com/rdk/services/vision"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"gorgonia.org/tensor"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/hw"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks"
)

func TestValidateRejectsBadAttributes(t *testing.T) {
	cases := []struct {
		name  string
		check func() error
		want  string
	}{
		{"sim unknown key", func() error {
			_, err := mkConf[*SimConfig](t, arm.API, SimArmModel, "a", map[string]any{"task": "reach", "tsak": 1})
			return err
		}, `unknown attribute "tsak"`},
		{"sim no task", func() error { _, err := mkConf[*SimConfig](t, arm.API, SimArmModel, "a", map[string]any{}); return err }, `"task" is required`},
		{"sim grid task", func() error {
			_, err := mkConf[*SimConfig](t, arm.API, SimArmModel, "a", map[string]any{"task": "doorkey-5x5"})
			return err
		}, "grid task"},
		{"sim bad reward", func() error {
			_, err := mkConf[*SimConfig](t, arm.API, SimArmModel, "a", map[string]any{"task": "reach", "reward": "erlvlm"})
			return err
		}, `"reward"`},
		{"runner no checkpoint", func() error {
			_, err := mkConf[*RunnerConfig](t, generic.API, RunnerModel, "r", map[string]any{"arm": "arm"})
			return err
		}, `"checkpoint" is required`},
		{"runner no arm", func() error {
			_, err := mkConf[*RunnerConfig](t, generic.API, RunnerModel, "r", map[string]any{"checkpoint": "x"})
			return err
		}, `"arm" is required`},
		{"runner inverted box", func() error {
			_, err := mkConf[*RunnerConfig](t, generic.API, RunnerModel, "r", map[string]any{"checkpoint": "x", "arm": "a",
				"workspace_mm": map[string]any{"low": []any{0, 0, 0}, "high": []any{10, -1, 10}}})
			return err
		}, `"workspace_mm"`},
		{"runner proportional without gripper", func() error {
			_, err := mkConf[*RunnerConfig](t, generic.API, RunnerModel, "r", map[string]any{"checkpoint": "x", "arm": "a", "gripper_mode": "proportional"})
			return err
		}, `needs a "gripper"`},
		{"scorer bad scorer", func() error {
			_, err := mkConf[*ScorerConfig](t, vision.API, ScorerModel, "v", map[string]any{"camera": "c", "task": "reach", "scorer": "clip"})
			return err
		}, `"scorer" is "clip"`},
		{"mlmodel typo", func() error {
			_, err := mkConf[*MLModelConfig](t, mlmodel.API, MLModelModel, "m", map[string]any{"checkpont": "x"})
			return err
		}, `unknown attribute "checkpont"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.check()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// simRig builds in-process sim components of world and returns their deps.
func simRig(t testing.TB, world string, maxSteps int) (resource.Dependencies, *SimArm) {
	t.Helper()
	ctx := context.Background()
	attrs := map[string]any{"task": "reach", "world": world, "max_steps": maxSteps}
	a, err := newSimArm(ctx, nil, mustConf[*SimConfig](t, arm.API, SimArmModel, "arm", attrs), testLogger)
	if err != nil {
		t.Fatal(err)
	}
	g, err := newSimGripper(ctx, nil, mustConf[*SimConfig](t, gripper.API, SimGripperModel, "gripper", attrs), testLogger)
	if err != nil {
		t.Fatal(err)
	}
	p, err := newSimPoseTracker(ctx, nil, mustConf[*SimConfig](t, posetracker.API, SimPoseTrackerModel, "poses", attrs), testLogger)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(ctx); g.Close(ctx); p.Close(ctx) })
	return resource.Dependencies{arm.Named("arm"): a, gripper.Named("gripper"): g, posetracker.Named("poses"): p}, a.(*SimArm)
}

func TestRigLimitsActBeforeMotion(t *testing.T) {
	ctx := context.Background()
	deps, sa := simRig(t, "limits", 0)
	w := sa.world()
	w.Reset(7)
	h := w.Hand()
	box := &Box{Low: [3]float64{h[0] - 50, h[1] - 50, h[2] - 50}, High: [3]float64{h[0] + 50, h[1] + 50, h[2] + 4}}
	rig, err := NewRig(context.Background(), deps, RigConfig{Arm: "arm", Gripper: "gripper", GripperMode: "proportional", PoseTracker: "poses", Workspace: box, MaxStep: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rig.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	start := rig.Target()
	// a full-scale action asks for 10·√3 mm; the step cap allows 3 mm along it
	tg, err := rig.Act(ctx, []float64{1, 1, 1, -1})
	if err != nil {
		t.Fatal(err)
	}
	d := math.Sqrt(sq(tg[0]-start[0]) + sq(tg[1]-start[1]) + sq(tg[2]-start[2]))
	if math.Abs(d-3) > 1e-9 || rig.Counts().Step != 1 {
		t.Fatalf("capped step moved %.6f mm (want 3) with %d step hits", d, rig.Counts().Step)
	}
	// upward moves stop at the box's top, 4 mm above the start
	for range 5 {
		if tg, err = rig.Act(ctx, []float64{0, 0, 1, -1}); err != nil {
			t.Fatal(err)
		}
	}
	if tg[2] != box.High[2] || rig.Counts().Workspace == 0 {
		t.Fatalf("target z %.3f, box top %.3f, %d workspace hits", tg[2], box.High[2], rig.Counts().Workspace)
	}
	// a non-finite action holds the target
	before := rig.Target()
	if tg, err = rig.Act(ctx, []float64{math.NaN(), 0, 0, 0}); err != nil {
		t.Fatal(err)
	}
	if tg != before || rig.Counts().NonFinite != 1 {
		t.Fatalf("NaN action moved the target %v → %v (non-finite hits %d)", before, tg, rig.Counts().NonFinite)
	}
	// the simulated hand follows the target (mocap weld; within 2 mm after settling)
	for range 20 {
		if _, err := rig.Act(ctx, []float64{0, 0, 0, -1}); err != nil {
			t.Fatal(err)
		}
	}
	got := w.Hand()
	tgt := rig.Target()
	if e := math.Sqrt(sq(got[0]-tgt[0]) + sq(got[1]-tgt[1]) + sq(got[2]-tgt[2])); e > 2 {
		t.Fatalf("hand %v is %.2f mm from target %v", got, e, tgt)
	}
	// a joint outside its limit stops the arm before any motion
	moves := w.moves
	jl, err := NewRig(context.Background(), deps, RigConfig{Arm: "arm", JointLimits: [][2]float64{{got[0] + 100, got[0] + 200}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := jl.Begin(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := jl.Act(ctx, []float64{1, 0, 0, 0}); !errors.Is(err, ErrJointLimit) {
		t.Fatalf("act with joint 0 outside its limits: %v, want ErrJointLimit", err)
	}
	if w.moves != moves || jl.Counts().Joint != 1 {
		t.Fatalf("joint-limit stop moved the sim %d times (joint hits %d)", w.moves-moves, jl.Counts().Joint)
	}
}

func sq(x float64) float64 { return x * x }

// runEpisodes starts r for n episodes from seed and waits for it to finish.
func runEpisodes(t *testing.T, r *Runner, n int, seed uint64) RunnerStatus {
	t.Helper()
	if err := r.start(n, seed); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Minute)
	for r.State().Running {
		if time.Now().After(deadline) {
			t.Fatal("runner did not finish")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return r.State()
}

// TestRunnerMatchesInProcessEval: the runner driving the sim through the
// Rig (mm, poses, the gripper's openness) reproduces robot-train eval's
// episodes of the same checkpoint and seeds: the same successes and the
// same returns (to 1e-6 relative: the mm round trip is not bit-exact).
func TestRunnerMatchesInProcessEval(t *testing.T) {
	run := trainedRun(t, 1, 3000)
	const episodes, seed = 6, 42
	deps, sa := simRig(t, "parity", 100)
	r, err := NewRunner(context.Background(), deps, mustConf[*RunnerConfig](t, generic.API, RunnerModel, "runner", map[string]any{
		"checkpoint": run, "arm": "arm", "gripper": "gripper", "gripper_mode": "proportional", "pose_tracker": "poses", "sim_reset": true,
	}), testLogger)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close(context.Background())
	st := runEpisodes(t, r.(*Runner), episodes, seed)
	if st.Reason != "episodes done" {
		t.Fatalf("runner ended with %q: %s", st.Reason, st.LastError)
	}
	sa.world().Reset(0) // closes the last episode's record
	got, _, _ := sa.world().Results()
	got = got[len(got)-episodes:]
	want := inProcessEval(t, run, episodes, seed)
	compareEpisodes(t, got, want)
}

func inProcessEval(t *testing.T, run string, episodes int, seed uint64) *rundir.EvalResult {
	t.Helper()
	pol, err := LoadPolicy(run)
	if err != nil {
		t.Fatal(err)
	}
	defer pol.Close()
	env, err := tasks.MakeEnv(pol.Config.Task, pol.Config.EnvReward(), pol.EpisodeLen())
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	res, err := rundir.Evaluate(context.Background(), env, control.PolicyFunc(func(o, d []float64) { _ = pol.Act(o, d) }), rundir.EvalOptions{Episodes: episodes, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func compareEpisodes(t *testing.T, got []EpisodeResult, want *rundir.EvalResult) {
	t.Helper()
	compareEpisodesTol(t, got, want, 1e-6)
}

// compareEpisodesTol checks per-episode successes for equality and
// returns to rel (relative); it returns the largest relative difference.
func compareEpisodesTol(t *testing.T, got []EpisodeResult, want *rundir.EvalResult, rel float64) float64 {
	t.Helper()
	worst := 0.0
	if len(got) != want.Episodes {
		t.Fatalf("%d episodes through the runner, %d in process", len(got), want.Episodes)
	}
	for k, g := range got {
		w := want.Returns[k]
		d := math.Abs(g.Return-w) / math.Max(1, math.Abs(w))
		worst = max(worst, d)
		if g.Success != want.Successes[k] || d > rel {
			t.Errorf("episode %d (seed %d): runner success %v return %.9g, in process %v %.9g", k, g.Seed, g.Success, g.Return, want.Successes[k], w)
		}
	}
	return worst
}

func TestMLModelInferIsThePolicy(t *testing.T) {
	run := trainedRun(t, 1, 3000)
	ctx := context.Background()
	m, err := NewMLModel(ctx, nil, mustConf[*MLModelConfig](t, mlmodel.API, MLModelModel, "policy", map[string]any{"checkpoint": run}), testLogger)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(ctx)
	env, err := tasks.Make("reach", tasks.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	obs, _ := env.Reset(3)
	o32 := make([]float32, 2*tasks.ObsDim)
	for i, v := range obs {
		o32[i], o32[tasks.ObsDim+i] = float32(v), float32(v)
	}
	out, err := m.Infer(ctx, ml.Tensors{TensorObservation: tensor.New(tensor.WithShape(2, tasks.ObsDim), tensor.WithBacking(o32))})
	if err != nil {
		t.Fatal(err)
	}
	act := out[TensorAction].Data().([]float32)
	pol, err := LoadPolicy(run)
	if err != nil {
		t.Fatal(err)
	}
	defer pol.Close()
	in := make([]float64, tasks.ObsDim)
	for i, v := range o32[:tasks.ObsDim] {
		in[i] = float64(v)
	}
	want := make([]float64, tasks.ActDim)
	if err := pol.Act(in, want); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		for j, w := range want {
			if g := float64(act[i*tasks.ActDim+j]); math.Abs(g-w) > 1e-6 {
				t.Fatalf("row %d action %d: %g, policy %g", i, j, g, w)
			}
		}
	}
	md, err := m.Metadata(ctx)
	if err != nil || md.Inputs[0].Shape[1] != tasks.ObsDim || md.Outputs[0].Shape[1] != tasks.ActDim {
		t.Fatalf("metadata %+v, %v", md, err)
	}
	if _, err := m.Infer(ctx, ml.Tensors{TensorObservation: tensor.New(tensor.WithShape(3), tensor.WithBacking([]float32{1, 2, 3}))}); err == nil || !strings.Contains(err.Error(), "shape") {
		t.Fatalf("wrong shape: %v", err)
	}
}

// TestNoGoroutineLeakAfterClose starts a runner and a vision service on a
// sim camera, stops and closes everything, and checks the goroutines end.
func TestNoGoroutineLeakAfterClose(t *testing.T) {
	run := trainedRun(t, 1, 3000)
	ctx := context.Background()
	base := runtime.NumGoroutine()
	recDir := t.TempDir()
	func() {
		deps, _ := simRig(t, "leak", 0)
		c, err := newSimCamera(ctx, nil, mustConf[*SimConfig](t, camera.API, SimCameraModel, "cam", map[string]any{"task": "reach", "world": "leak", "backend": "soft", "width": 64, "height": 48}), testLogger)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		deps[camera.Named("cam")] = c
		r, err := NewRunner(ctx, deps, mustConf[*RunnerConfig](t, generic.API, RunnerModel, "runner", map[string]any{
			"checkpoint": run, "arm": "arm", "gripper": "gripper", "pose_tracker": "poses", "camera": "cam", "record_dir": recDir, "auto_start": true, "rate_hz": 200,
		}), testLogger)
		if err != nil {
			t.Fatal(err)
		}
		v, err := NewScorer(ctx, deps, mustConf[*ScorerConfig](t, vision.API, ScorerModel, "scorer", map[string]any{"camera": "cam", "task": "reach", "fps": 50, "clip_len": 4}), testLogger)
		if err != nil {
			t.Fatal(err)
		}
		for r.(*Runner).State().TotalSteps < 5 {
			time.Sleep(10 * time.Millisecond)
		}
		// the scorer's first frame arrives asynchronously: until then it
		// answers Unavailable, which a client retries
		cls, err := v.ClassificationsFromCamera(ctx, "cam", 1, nil)
		for wait := time.Now().Add(10 * time.Second); err != nil && status.Code(err) == codes.Unavailable && time.Now().Before(wait); {
			time.Sleep(20 * time.Millisecond)
			cls, err = v.ClassificationsFromCamera(ctx, "cam", 1, nil)
		}
		if err != nil || len(cls) != 1 || !(cls[0].Score() >= 0 && cls[0].Score() <= 1) {
			t.Fatalf("classifications %v, %v", cls, err)
		}
		if err := v.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if err := r.Close(ctx); err != nil {
			t.Fatal(err)
		}
		if r.(*Runner).State().Running {
			t.Fatal("runner still running after Close")
		}
	}()
	// the interrupted episode was recorded in the hw layout
	ep := filepath.Join(recDir, "episode-000000")
	src, err := hw.OpenDir(ep, hw.Options{})
	if err != nil {
		t.Fatal(err)
	}
	steps, err := os.ReadFile(filepath.Join(ep, "steps.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ep, "episode.json")); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(steps), "\n"); src.Len() < n || n < 5 {
		t.Fatalf("recorded %d frames for %d steps", src.Len(), n)
	}
	src.Close()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > base && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > base {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines after close, %d before:\n%s", n, base, buf[:runtime.Stack(buf, true)])
	}
}
