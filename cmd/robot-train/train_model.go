package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/train"
)

// hasModelFlag reports whether train's arguments name an MJCF model.
func hasModelFlag(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--model" || a == "-model" || strings.HasPrefix(a, "--model=") || strings.HasPrefix(a, "-model=") {
			return true
		}
	}
	return false
}

// cmdTrainModel is `train --model FILE.xml --task reach`: SAC on the
// arm-reach task over an imported arm (train.RunArmReach).
// trainModelFlags is the table of train --model's flags (defaults from
// train.DefaultArmReachConfig).
var trainModelFlags = func() []flagDef {
	def := train.DefaultArmReachConfig()
	n := func(v int) string { return fmt.Sprint(v) }
	return []flagDef{
		{name: "model", help: "MJCF `FILE.xml` of the arm"},
		{name: "task", def: "reach", help: "task on the model: reach"},
		{name: "site", help: "end-effector site `NAME` (default ee, or the model's only site)"},
		{name: "actuators", help: "comma-separated position actuators to drive (default all position servos)"},
		{name: "control", def: "joint", help: "action space: joint (position-target deltas) or ee (end-effector deltas through IK)"},
		{name: "reward", def: "dense", help: "dense or sparse"},
		{name: "steps", kind: "int", def: n(def.Steps), help: "env steps `N`"},
		{name: "learning-starts", kind: "int", def: n(def.LearningStarts), help: "random-action steps before learning"},
		{name: "eval-every", kind: "int", def: n(def.EvalEvery), help: "evaluate every `N` steps"},
		{name: "eval-episodes", kind: "int", def: n(def.EvalEpisodes), help: "episodes per evaluation"},
		{name: "max-episode-len", kind: "int", def: "100", help: "control steps per episode"},
		{name: "seed", kind: "uint", def: fmt.Sprint(def.Seed), help: "seed `S`"},
		{name: "out", help: "run directory (metrics.jsonl, summary.json, agent.bin)"},
		{name: "quiet", kind: "bool", help: "no per-evaluation lines"},
	}
}()

func cmdTrainModel(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	def := train.DefaultArmReachConfig()
	b, err := commandFlags("train", "--model FILE.xml --task reach [--site NAME] [--actuators A,B,...] [--control joint|ee] [--reward dense|sparse] --steps N --seed S --out RUN_DIR", trainModelFlags, args, stderr)
	if err != nil {
		return err
	}
	model, task, acts := b.str("model"), b.str("task"), b.str("actuators")
	if model == "" {
		return usagef("--model FILE.xml is required")
	}
	if task != "reach" && task != tasks.ArmReachName {
		return usagef("--task %q: imported models support reach", task)
	}
	cfg := def
	cfg.Model, cfg.Steps, cfg.LearningStarts = model, b.int("steps"), b.int("learning-starts")
	cfg.EvalEvery, cfg.EvalEpisodes, cfg.Seed, cfg.Out = b.int("eval-every"), b.int("eval-episodes"), b.u64("seed"), b.str("out")
	cfg.Task = tasks.ArmReachOptions{Site: b.str("site"), Control: b.str("control"), Reward: b.str("reward"), MaxSteps: b.int("max-episode-len")}
	if acts != "" {
		cfg.Task.Actuators = strings.Split(acts, ",")
	}
	if !b.on("quiet") {
		cfg.Log = stdout
	}
	res, err := train.RunArmReach(ctx, cfg)
	if err != nil {
		return err
	}
	last := res.Evals[len(res.Evals)-1]
	_, _ = fmt.Fprintf(stdout, "arm-reach on %s (%s control, %s reward): success %.2f after %d steps, %.0f s CPU (expert %.2f)\n",
		res.Model, res.Control, res.Reward, last.SuccessRate, res.Steps, last.CPUSeconds, res.Expert)
	return nil
}
