package train

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks"
)

var gripperArm = filepath.Join("..", "tasks", "testdata", "gripper_arm.xml")

// tinyArmObjectConfig is panda-push on the tasks' test arm at a budget of
// a few seconds.
func tinyArmObjectConfig(out string) rundir.Config {
	c := tinyArmConfig(out)
	c.Task, c.Arm.Model = tasks.ArmPushName, gripperArm
	c.MaxEpisodeLen = 60
	c.Steps, c.Demos = 200, 2
	c.SAC.LearningStarts = 150
	return c
}

// TestRunArmObject: train.Run over panda-push writes the run directory, its
// expert demonstrations push the cube (the first demo moves it toward the
// goal), VLM-RB replay scores clips of frames rendered from the scene with
// the pixel scorer, robot-train eval of the checkpoint repeats the run's
// final evaluation, and export writes its ONNX policy.
func TestRunArmObject(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	c := tinyArmObjectConfig(out)
	c.Replay, c.Scorer, c.VLM.Backend = "vlmrb", "pixel", "soft"
	c.VLM.Width, c.VLM.Height = 32, 32
	var first []float64 // obj_to_target over the first demo episode
	done := false
	hook := HookFuncs{Step: func(e StepEvent) error {
		if !done {
			first = append(first, e.Info["obj_to_target"])
			done = e.Done
		}
		return nil
	}}
	res, err := Run(context.Background(), valid(t, c), Options{Hooks: []Hook{hook}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Step != 200 || res.Updates == 0 || res.FinalEval == nil || res.Checkpoint == "" {
		t.Fatalf("result %+v", res)
	}
	if len(first) != 60 || first[len(first)-1] >= first[0]-0.03 {
		t.Errorf("the first expert demo moved the cube from %.3f to %.3f m of the goal in %d steps; want 3 cm closer in 60", first[0], first[len(first)-1], len(first))
	}
	ev, err := rundir.EvalRun(context.Background(), out, rundir.EvalRunOptions{})
	if err != nil || ev.Step != 200 || ev.MeanReturn != res.FinalEval.MeanReturn {
		t.Errorf("EvalRun %+v (%v) against the run's final evaluation %+v", ev, err, res.FinalEval)
	}
	onnxPath := filepath.Join(t.TempDir(), "push.onnx")
	if ex, err := rundir.ExportONNX(out, onnxPath, rundir.ExportOptions{}); err != nil || ex.Task != tasks.ArmPushName || ex.Bytes == 0 {
		t.Errorf("ExportONNX: %+v, %v", ex, err)
	}
}

// TestArtFramesSeeCube: the scorer's frames of panda-pick (its camera,
// ArmObjectCamera) show the red cube (pixels red above green and blue by
// 80 levels) and change when the arm moves.
func TestArtFramesSeeCube(t *testing.T) {
	env, err := tasks.LoadArmObject(gripperArm, tasks.ArmObjectOptions{Task: "pick"})
	if err != nil {
		t.Fatal(err)
	}
	env.Reset(4)
	rd, err := render.New("soft", render.Options{})
	if err != nil {
		t.Fatal(err)
	}
	src := newArtFrames(env.Model(), env.Data(), &artShared{rd: rd, users: 1}, 96, 96)
	cam := rundir.ArmObjectCamera(env, 96, 96)
	src.cam = &cam
	defer func() { _ = src.Close() }()
	var f0, f1 frame.Frame
	if err := src.Next(context.Background(), &f0); err != nil {
		t.Fatal(err)
	}
	red := 0
	for i := 0; i < len(f0.Image.Pix); i += 4 {
		r, g, b := int(f0.Image.Pix[i]), int(f0.Image.Pix[i+1]), int(f0.Image.Pix[i+2])
		if r > g+80 && r > b+80 {
			red++
		}
	}
	if red < 8 {
		t.Errorf("%d red pixels: the camera does not see the cube", red)
	}
	for range 10 {
		if _, _, _, _, _, err := env.Step([]float64{0, 1, 1, 0}); err != nil {
			t.Fatal(err)
		}
	}
	if err := src.Next(context.Background(), &f1); err != nil {
		t.Fatal(err)
	}
	diff := 0
	for i := range f0.Image.Pix {
		if f0.Image.Pix[i] != f1.Image.Pix[i] {
			diff++
		}
	}
	if diff == 0 || f1.Seq != 1 {
		t.Errorf("the frame after the arm moved is the same (%d bytes differ, seq %d)", diff, f1.Seq)
	}
}

// TestArmObjectConfigErrors: what panda-pick and panda-push cannot do is
// refused by Validate, naming the key.
func TestArmObjectConfigErrors(t *testing.T) {
	for want, edit := range map[string]func(*rundir.Config){
		"needs arm.model": func(c *rundir.Config) { c.Arm.Model = "" },
		"joint control":   func(c *rundir.Config) { c.Arm.Control = "joint" },
		"arm.goal_range":  func(c *rundir.Config) { c.Arm.GoalRange = 0.5 },
		"reward erlvlm":   func(c *rundir.Config) { c.Reward = "erlvlm" },
		"demos_path":      func(c *rundir.Config) { c.DemosPath = "x" },
		"drives no gripper": func(c *rundir.Config) {
			c.Task, c.Arm.Model, c.Arm.Grip = tasks.ArmReachName, arm6, "grip"
		},
	} {
		c := tinyArmObjectConfig(t.TempDir())
		edit(&c)
		err := checkConfig(&c)
		var ce *rundir.ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", want, err)
		}
	}
	c := tinyArmObjectConfig(filepath.Join(t.TempDir(), "r"))
	c.Arm.Grip = "a1x"
	if _, err := runConfig(context.Background(), c, Options{}); err == nil || !strings.Contains(err.Error(), `no actuator "a1x"`) {
		t.Errorf("a missing grip actuator: %v", err)
	}
}
