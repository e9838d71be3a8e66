package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/vlmrb/vlmrb/train"
)

func cmdEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("eval", "(--checkpoint RUN_DIR[/checkpoints/step-N|best] [--step N|--best] | --onnx FILE.onnx | --policy expert|random --task NAME) [--episodes N] [--seed S] [--video FILE.gif] [--json]", stderr)
	ckpt := fs.String("checkpoint", "", "evaluate a checkpoint of `RUN_DIR` (the newest; RUN_DIR/checkpoints/step-N or …/best name one), as the run's own evaluations did")
	step := fs.Int64("step", 0, "with --checkpoint: the checkpoint of env step `N`")
	best := fs.Bool("best", false, "with --checkpoint: the agent of the run's best evaluation (checkpoints/best)")
	onnxModel := fs.String("onnx", "", "evaluate an ONNX policy `FILE.onnx` (robot-train export) on its run's task, episodes and seed")
	policy := fs.String("policy", "", "evaluate a scripted policy instead: expert|random")
	task := fs.String("task", "", "task `NAME` (default: the checkpoint's task)")
	reward := fs.String("reward", "", "reward: dense|sparse (default: the checkpoint's, else dense)")
	episodes := fs.Int("episodes", 10, "episodes `N` (default with --checkpoint: the run's eval.episodes)")
	seed := fs.Uint64("seed", 0, "seed `S` of the evaluation episodes (default with --checkpoint: the run's evaluation seed)")
	video := fs.String("video", "", "record the first episode to `FILE.gif`")
	camera := fs.String("camera", train.WorkspaceCamera, "camera for --video")
	size := fs.Int("video-size", 160, "GIF frame size (px, square)")
	backend := fs.String("render-backend", "auto", "renderer for --video: auto|egl|soft")
	asJSON := fs.Bool("json", false, "print one JSON object on stdout")
	maxLen := fs.Int("max-episode-len", 0, fmt.Sprintf("control steps per episode (0: the checkpoint's, else training's default %d)", train.DefaultConfig().MaxEpisodeLen))
	eps := fs.Float64("epsilon", 0, "grid tasks: ε of the DQN checkpoint's ε-greedy evaluation (default with --checkpoint: the run's dqn.eval_eps)")
	if err := parse(fs, args); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *onnxModel != "" { // export_cmd.go
		return evalONNX(ctx, fs, set, *onnxModel, stdout, stderr)
	}
	if (*ckpt == "") == (*policy == "") {
		return usagef("give exactly one of --checkpoint RUN_DIR, --onnx FILE.onnx or --policy expert|random")
	}
	if *episodes <= 0 {
		return usagef("--episodes must be ≥ 1")
	}
	if *ckpt == "" && (set["step"] || set["best"]) {
		return usagef("--step and --best choose a checkpoint: give --checkpoint RUN_DIR")
	}
	if set["step"] && (*best || *step <= 0) {
		return usagef("--step N needs N > 0 and no --best")
	}
	if !(*eps >= 0 && *eps <= 1) {
		return usagef("--epsilon must be in [0, 1]")
	}
	if *video != "" && !strings.HasSuffix(strings.ToLower(*video), ".gif") {
		return usagef("--video %s: only .gif is supported here (robot-train render writes MP4)", *video)
	}
	if *maxLen < 0 || *maxLen > train.MaxEpisodeLen {
		return usagef("--max-episode-len %d: use 0 (the task's default) to %d control steps", *maxLen, train.MaxEpisodeLen)
	}
	if *video != "" {
		if *size < 16 || *size > 1024 {
			return usagef("--video-size %d: use 16 to 1024 px", *size)
		}
		// refuse a GIF that cannot land before the evaluation runs
		if st, err := os.Stat(filepath.Dir(*video)); err != nil || !st.IsDir() {
			return fmt.Errorf("--video %s: its directory %s does not exist or is not a directory; create it first", *video, filepath.Dir(*video))
		}
	}
	if *ckpt != "" {
		o := train.EvalRunOptions{Best: *best, Step: *step, Task: *task, Reward: *reward, MaxEpisodeLen: *maxLen,
			GIF: *video, GIFSize: *size, Camera: *camera, Backend: *backend,
			Warnf: func(f string, a ...any) { _, _ = fmt.Fprintf(stderr, "warning: "+f+"\n", a...) }}
		if set["episodes"] {
			o.Episodes = *episodes
		}
		if set["seed"] {
			o.Seed = seed
		}
		if set["epsilon"] {
			o.Epsilon = eps
		}
		if *video != "" && isDQNRun(*ckpt) {
			return usagef("--video is for the simulator's cameras; use robot-train render for grid GIFs")
		}
		res, err := train.EvalRun(ctx, *ckpt, o)
		if err != nil {
			return err
		}
		for _, s := range res.Skipped {
			_, _ = fmt.Fprintf(stderr, "eval: skipped a newer checkpoint: %s\n", s)
		}
		seedNote := "the run's evaluation episodes"
		if set["seed"] {
			seedNote = "given"
		}
		_, _ = fmt.Fprintf(stderr, "eval: using %s (env step %d), seed %d (%s)\n", res.Checkpoint, res.Step, res.Seed, seedNote)
		what := fmt.Sprintf("checkpoint %s (step %d)", res.RunDir, res.Step)
		return printEval(stdout, *asJSON, res.Task, what, res.Seed, res.EvalResult, *video)
	}
	if train.IsGridTask(*task) { // eval_grid.go
		if *video != "" {
			return usagef("--video is for the simulator's cameras; use robot-train render for grid GIFs")
		}
		return evalGrid(ctx, stdout, *policy, *task, *episodes, *seed, *asJSON)
	}
	if *task == "" {
		return usagef("--task NAME is required with --policy (robot-train tasks lists them)")
	}
	rew := *reward
	if rew == "" {
		rew = "dense"
	}
	env, err := train.MakeTaskEnv(*task, rew, *maxLen) // unknown task or reward: *train.ConfigError (exit 2)
	if err != nil {
		return err
	}
	defer func() { _ = env.Close() }()
	pol, err := train.ScriptedPolicy(*policy, env, *seed)
	if err != nil {
		return usagef("%v", err)
	}
	res, err := train.Evaluate(ctx, env, pol, train.EvalOptions{
		Episodes: *episodes, Seed: *seed, GIF: *video, GIFSize: *size, Camera: *camera, Backend: *backend,
		Warnf: func(f string, a ...any) { _, _ = fmt.Fprintf(stderr, "warning: "+f+"\n", a...) },
	})
	if err != nil {
		return err
	}
	return printEval(stdout, *asJSON, *task, *policy+" policy", *seed, res, *video)
}

// printEval prints one evaluation: a line, or one JSON object.
// A requested GIF that was not written is an error after the result is
// printed (without the video).
func printEval(stdout io.Writer, asJSON bool, task, what string, seed uint64, res *train.EvalResult, video string) error {
	gerr := gifFailed(res, video)
	if gerr != nil {
		video = ""
	}
	if err := printEvalResult(stdout, asJSON, task, what, seed, res, video); err != nil {
		return err
	}
	return gerr
}

func printEvalResult(stdout io.Writer, asJSON bool, task, what string, seed uint64, res *train.EvalResult, video string) error {
	if asJSON {
		out := struct {
			Task   string `json:"task"`
			Policy string `json:"policy"`
			Seed   uint64 `json:"seed"`
			*train.EvalResult
			Video string `json:"video,omitempty"`
		}{task, what, seed, res, video}
		return json.NewEncoder(stdout).Encode(out)
	}
	_, _ = fmt.Fprintf(stdout, "%s on %s: success rate %.2f, mean return %.2f ± %.2f, mean length %.0f over %d episodes\n",
		what, task, res.SuccessRate, res.MeanReturn, res.StdReturn, res.MeanLength, res.Episodes)
	if video != "" {
		_, _ = fmt.Fprintf(stdout, "video: %s\n", video)
	}
	return nil
}

// gifFailed turns a requested GIF that was not written into an error
// (the evaluation itself is still printed).
func gifFailed(res *train.EvalResult, video string) error {
	if video != "" && res.GIFErr != nil {
		return fmt.Errorf("--video %s was not written: %w", video, res.GIFErr)
	}
	return nil
}
