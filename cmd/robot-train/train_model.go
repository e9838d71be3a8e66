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
func cmdTrainModel(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	def := train.DefaultArmReachConfig()
	fs := newFlags("train", "--model FILE.xml --task reach [--site NAME] [--actuators A,B,...] [--control joint|ee] [--reward dense|sparse] --steps N --seed S --out RUN_DIR", stderr)
	model := fs.String("model", "", "MJCF `FILE.xml` of the arm")
	task := fs.String("task", "reach", "task on the model: reach")
	site := fs.String("site", "", "end-effector site `NAME` (default ee, or the model's only site)")
	acts := fs.String("actuators", "", "comma-separated position actuators to drive (default all position servos)")
	ctrl := fs.String("control", "joint", "action space: joint (position-target deltas) or ee (end-effector deltas through IK)")
	reward := fs.String("reward", "dense", "dense or sparse")
	steps := fs.Int("steps", def.Steps, "env steps `N`")
	starts := fs.Int("learning-starts", def.LearningStarts, "random-action steps before learning")
	evalEvery := fs.Int("eval-every", def.EvalEvery, "evaluate every `N` steps")
	evalEps := fs.Int("eval-episodes", def.EvalEpisodes, "episodes per evaluation")
	maxLen := fs.Int("max-episode-len", 100, "control steps per episode")
	seed := fs.Uint64("seed", def.Seed, "seed `S`")
	out := fs.String("out", "", "run directory (metrics.jsonl, summary.json, agent.bin)")
	quiet := fs.Bool("quiet", false, "no per-evaluation lines")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *model == "" {
		return usagef("--model FILE.xml is required")
	}
	if *task != "reach" && *task != tasks.ArmReachName {
		return usagef("--task %q: imported models support reach", *task)
	}
	cfg := def
	cfg.Model, cfg.Steps, cfg.LearningStarts, cfg.EvalEvery, cfg.EvalEpisodes, cfg.Seed, cfg.Out = *model, *steps, *starts, *evalEvery, *evalEps, *seed, *out
	cfg.Task = tasks.ArmReachOptions{Site: *site, Control: *ctrl, Reward: *reward, MaxSteps: *maxLen}
	if *acts != "" {
		cfg.Task.Actuators = strings.Split(*acts, ",")
	}
	if !*quiet {
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
