package train

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/sim/mjcf"
	"github.com/vlmrb/vlmrb/tasks"
)

var arm6 = filepath.Join("..", "sim", "mjcf", "testdata", "arm6.xml")

// tinyArmConfig is task arm-reach on arm6.xml at a budget of about a second.
func tinyArmConfig(out string) rundir.Config {
	c := rundir.DefaultConfig()
	rundir.ApplyArmDefaults(&c)
	c.Arm.Model, c.Out = arm6, out
	c.Steps, c.Demos = 300, 2
	c.SAC.LearningStarts, c.SAC.BatchSize, c.SAC.Hidden = 200, 16, []int{8, 8}
	c.Eval.Every, c.Eval.Episodes = 0, 2
	c.Log.Every, c.Ckpt.Every = 100, 100
	return c
}

// TestRunArmReach: train.Run over the imported arm writes the usual run
// directory, its IK-expert demonstration episodes end on the goal, and a
// resume continues from the checkpoint (per replay, to use a sampler other
// than uniform).
func TestRunArmReach(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	c := tinyArmConfig(out)
	c.Replay = "per"
	var ends []float64 // final-step success of each finished training episode
	hook := HookFuncs{Step: func(e StepEvent) error {
		if e.Done {
			ends = append(ends, e.Info["success"])
		}
		return nil
	}}
	res, err := Run(context.Background(), valid(t, c), Options{Hooks: []Hook{hook}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Step != 300 || res.Updates == 0 || res.FinalEval == nil || res.Checkpoint == "" {
		t.Fatalf("result %+v", res)
	}
	if len(ends) != 3 || ends[0] != 1 || ends[1] != 1 {
		t.Errorf("episode-end successes %v: the two expert demos must end within 5 cm", ends)
	}
	for _, f := range []string{"config.yaml", "platform.json", "metrics.jsonl"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	var back rundir.Config
	if err := rundir.LoadConfigFile(filepath.Join(out, "config.yaml"), &back); err != nil || back.Task != tasks.ArmReachName || back.Arm.Model != arm6 {
		t.Fatalf("config.yaml: %v, task %q model %q", err, back.Task, back.Arm.Model)
	}
	// robot-train eval of the checkpoint: the run's own evaluation episodes
	ev, err := rundir.EvalRun(context.Background(), out, rundir.EvalRunOptions{})
	if err != nil || ev.Step != 300 || ev.Episodes != 2 || ev.SuccessRate != res.FinalEval.SuccessRate ||
		ev.MeanReturn != res.FinalEval.MeanReturn {
		t.Errorf("EvalRun %+v (%v) against the run's final evaluation %+v", ev, err, res.FinalEval)
	}
	back.Steps = 400
	res2, err := Run(context.Background(), valid(t, back), Options{Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res2.Resumed || res2.ResumedFrom != 300 || res2.Step != 400 || res2.Updates <= res.Updates {
		t.Fatalf("resumed %+v after %+v", res2, res)
	}
}

// TestEvalArmExpert: the IK expert holds the goal at the end of every
// evaluation episode; a zero action does not.
func TestEvalArmExpert(t *testing.T) {
	t.Parallel()
	m, err := mjcf.Load(arm6, mjcf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"ee", "joint"} {
		env, err := tasks.NewArmReach(m, tasks.ArmReachOptions{Control: mode})
		if err != nil {
			t.Fatal(err)
		}
		res, extra, err := rundir.EvalArm(context.Background(), env, env.Expert(), 10, 3)
		if err != nil {
			t.Fatal(err)
		}
		if res.SuccessRate != 1 || extra["eval/success_any_step"] != 1 || extra["eval/final_distance_m"] > tasks.ArmReachSuccess {
			t.Errorf("%s control: expert %+v %v", mode, res, extra)
		}
		zero, _, err := rundir.EvalArm(context.Background(), env, control.RandomPolicy(1), 10, 3)
		if err != nil || zero.SuccessRate > 0.3 {
			t.Errorf("%s control: random actions reach %v (%v)", mode, zero.SuccessRate, err)
		}
	}
}

// TestArmConfigErrors: what task arm-reach cannot do is refused by
// Validate, naming the key.
func TestArmConfigErrors(t *testing.T) {
	t.Parallel()
	for want, edit := range map[string]func(*rundir.Config){
		"needs arm.model": func(c *rundir.Config) { c.Arm.Model = "" },
		"arm.control":     func(c *rundir.Config) { c.Arm.Control = "torque" },
		"reward erlvlm":   func(c *rundir.Config) { c.Reward = "erlvlm" },
		"oracle scorer":   func(c *rundir.Config) { c.Replay, c.Scorer = "vlmrb", "pixel" },
		"is for task":     func(c *rundir.Config) { c.Task = "push" },
	} {
		c := tinyArmConfig(t.TempDir())
		edit(&c)
		err := checkConfig(&c)
		var ce *rundir.ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", want, err)
		}
	}
	c := tinyArmConfig(filepath.Join(t.TempDir(), "r"))
	c.Arm.Site = "nope"
	if _, err := runConfig(context.Background(), c, Options{}); err == nil || !strings.Contains(err.Error(), "no site") {
		t.Errorf("a missing site: %v", err)
	}
}
