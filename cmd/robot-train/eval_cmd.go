package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks"
)

// evalFlags is the table of robot-train eval's flags.
var evalFlags = slices.Concat([]flagDef{
	{name: "checkpoint", help: "evaluate a checkpoint of `RUN_DIR` (the newest; RUN_DIR/checkpoints/step-N or …/best name one), as the run's own evaluations did"},
	{name: "step", kind: "int", def: "0", help: "with --checkpoint: the checkpoint of env step `N`"},
	{name: "best", kind: "bool", help: "with --checkpoint: the agent of the run's best evaluation (checkpoints/best)"},
	{name: "onnx", help: "evaluate an ONNX policy `FILE.onnx` (robot-train export) on its run's task, episodes and seed"},
	{name: "policy", help: "evaluate a scripted policy instead: expert|random"},
	{name: "task", help: "task `NAME` (default: the checkpoint's task)"},
	{name: "reward", help: "reward: dense|sparse (default: the checkpoint's, else dense)"},
	{name: "engine", help: "tabletop tasks: physics engine articulated, the only one; a checkpoint trained on the removed engine sim needs --engine articulated (a transfer)"},
	{name: "episodes", kind: "int", def: "10", help: "episodes `N` (default with --checkpoint: the run's eval.episodes)"},
	{name: "seed", kind: "uint", def: "0", help: "seed `S` of the evaluation episodes (default with --checkpoint: the run's evaluation seed)"},
	{name: "video", help: "record the first episode to `FILE.gif`"},
	{name: "camera", def: render.WorkspaceCamera, help: "camera for --video"},
	{name: "video-size", kind: "int", def: evalGIFSize, help: "GIF frame size (px, square; default: training's eval.gif_size)"},
	{name: "render-backend", def: "auto", help: "renderer for --video: auto|egl|soft"},
	{name: "model", help: "with --policy: evaluate it on task arm-reach (--task pick|push: panda-pick, panda-push) over the MJCF arm `FILE.xml` (as train --model trains it); with --onnx: the arm instead of the one the model's metadata names"},
}, armFlagDefs, []flagDef{
	{name: "json", kind: "bool", help: "print one JSON object on stdout"},
	{name: "max-episode-len", kind: "int", def: "0", help: fmt.Sprintf("control steps per episode (0: the checkpoint's, else training's default %d)", rundir.DefaultConfig().MaxEpisodeLen)},
	{name: "epsilon", kind: "float", def: "0", help: "grid tasks: ε of the DQN checkpoint's ε-greedy evaluation (default with --checkpoint: the run's dqn.eval_eps)"},
})

// armFlagDefs describe an imported arm beside --model (eval, record).
var armFlagDefs = []flagDef{
	{name: "site", help: "--model: end-effector site `NAME` (default ee, or the model's only site), or a body's name for its origin"},
	{name: "actuators", help: "--model: comma-separated position actuators to drive (default every position servo)"},
	{name: "grip", help: "--model with --task pick|push: the gripper's position actuator `NAME` (default the servo on a slide joint)"},
	{name: "keyframe", help: "--model: the model's keyframe `NAME` episodes start from (default qpos0)"},
	{name: "control", help: "--model: action space joint or ee (default ee, as train --model)"},
}

func cmdEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	b, err := commandFlags("eval", "(--checkpoint RUN_DIR[/checkpoints/step-N|best] [--step N|--best] | --onnx FILE.onnx | --policy expert|random --task NAME) [--episodes N] [--seed S] [--video FILE.gif] [--json]", evalFlags, args, stderr)
	if err != nil {
		return err
	}
	ckpt, policy, video := b.str("checkpoint"), b.str("policy"), b.str("video")
	if m := b.str("onnx"); m != "" { // export_cmd.go
		return evalONNX(ctx, b, m, stdout, stderr)
	}
	if (ckpt == "") == (policy == "") {
		return usagef("give exactly one of --checkpoint RUN_DIR, --onnx FILE.onnx or --policy expert|random")
	}
	if b.int("episodes") <= 0 {
		return usagef("--episodes must be ≥ 1")
	}
	if b.str("model") == "" && (b.given("site") || b.given("actuators") || b.given("control") || b.given("keyframe") || b.given("grip")) {
		return usagef("--site, --actuators, --grip, --control and --keyframe describe an imported arm: give --model FILE.xml")
	}
	if ckpt != "" && b.given("model") {
		return usagef("--model is for --policy; a checkpoint of task arm-reach evaluates on the model it trained on")
	}
	if ckpt == "" && (b.given("step") || b.given("best")) {
		return usagef("--step and --best choose a checkpoint: give --checkpoint RUN_DIR")
	}
	if b.given("step") && (b.on("best") || b.int("step") <= 0) {
		return usagef("--step N needs N > 0 and no --best")
	}
	if eps := b.f64("epsilon"); !(eps >= 0 && eps <= 1) {
		return usagef("--epsilon must be in [0, 1]")
	}
	if video != "" && !strings.HasSuffix(strings.ToLower(video), ".gif") {
		return usagef("--video %s: only .gif is supported here (robot-train render writes MP4)", video)
	}
	if err := checkEvalLimits(b); err != nil {
		return err
	}
	if ckpt != "" {
		return evalCheckpoint(ctx, b, stdout, stderr)
	}
	return evalPolicy(ctx, b, stdout, stderr)
}

// checkEvalLimits refuses an episode length or GIF that cannot work
// before anything runs.
func checkEvalLimits(b *boundFlags) error {
	maxLen, video, size := b.int("max-episode-len"), b.str("video"), b.int("video-size")
	if maxLen < 0 || maxLen > rundir.MaxEpisodeLen {
		return usagef("--max-episode-len %d: use 0 (the task's default) to %d control steps", maxLen, rundir.MaxEpisodeLen)
	}
	if video != "" {
		if size < 16 || size > 1024 {
			return usagef("--video-size %d: use 16 to 1024 px", size)
		}
		// refuse a GIF that cannot land before the evaluation runs
		if st, err := os.Stat(filepath.Dir(video)); err != nil || !st.IsDir() {
			return fmt.Errorf("--video %s: its directory %s does not exist or is not a directory; create it first", video, filepath.Dir(video))
		}
	}
	return nil
}

func warnTo(stderr io.Writer) func(string, ...any) {
	return func(f string, a ...any) { _, _ = fmt.Fprintf(stderr, "warning: "+f+"\n", a...) }
}

// evalCheckpoint evaluates a run's checkpoint as its own evaluations did.
func evalCheckpoint(ctx context.Context, b *boundFlags, stdout, stderr io.Writer) error {
	ckpt, video := b.str("checkpoint"), b.str("video")
	o := rundir.EvalRunOptions{Best: b.on("best"), Step: int64(b.int("step")), Task: b.str("task"), Reward: b.str("reward"), Engine: b.str("engine"),
		MaxEpisodeLen: b.int("max-episode-len"), GIF: video, GIFSize: b.int("video-size"), Camera: b.str("camera"),
		Backend: b.str("render-backend"), Warnf: warnTo(stderr)}
	if b.given("episodes") {
		o.Episodes = b.int("episodes")
	}
	if b.given("seed") {
		seed := b.u64("seed")
		o.Seed = &seed
	}
	if b.given("epsilon") {
		eps := b.f64("epsilon")
		o.Epsilon = &eps
	}
	if video != "" && isDQNRun(ckpt) {
		return usagef("--video is for the simulator's cameras; use robot-train render for grid GIFs")
	}
	res, err := rundir.EvalRun(ctx, ckpt, o)
	if err != nil {
		return err
	}
	for _, s := range res.Skipped {
		_, _ = fmt.Fprintf(stderr, "eval: skipped a newer checkpoint: %s\n", s)
	}
	if res.Transfer != "" {
		_, _ = fmt.Fprintf(stderr, "eval: %s\n", res.Transfer)
	}
	seedNote := "the run's evaluation episodes"
	if b.given("seed") {
		seedNote = "given"
	}
	_, _ = fmt.Fprintf(stderr, "eval: using %s (env step %d), seed %d (%s)\n", res.Checkpoint, res.Step, res.Seed, seedNote)
	what := fmt.Sprintf("checkpoint %s (step %d)", res.RunDir, res.Step)
	return printEval(stdout, b.on("json"), res.Task, what, res.Seed, res.EvalResult, video)
}

// evalPolicy evaluates a scripted policy on a task.
func evalPolicy(ctx context.Context, b *boundFlags, stdout, stderr io.Writer) error {
	task, policy, video, seed, episodes := b.str("task"), b.str("policy"), b.str("video"), b.u64("seed"), b.int("episodes")
	if b.str("model") != "" {
		return evalArmPolicy(ctx, b, stdout)
	}
	if IsGridTask(task) { // eval_grid.go
		if err := rundir.CheckEngine(task, b.str("engine")); err != nil { // train's refusal
			return err
		}
		if video != "" {
			return usagef("--video is for the simulator's cameras; use robot-train render for grid GIFs")
		}
		return evalGrid(ctx, stdout, policy, task, episodes, seed, b.on("json"))
	}
	if task == "" {
		return usagef("--task NAME is required with --policy (robot-train tasks lists them)")
	}
	rew := b.str("reward")
	if rew == "" {
		rew = "dense"
	}
	env, err := makeTaskEnv(task, rew, b.int("max-episode-len"), b.str("engine")) // unknown task or reward: *rundir.ConfigError (exit 2)
	if err != nil {
		return err
	}
	defer func() { _ = env.Close() }()
	pol, err := scriptedPolicy(policy, env, seed)
	if err != nil {
		return usagef("%v", err)
	}
	res, err := rundir.Evaluate(ctx, env, pol, rundir.EvalOptions{
		Episodes: episodes, Seed: seed, GIF: video, GIFSize: b.int("video-size"), Camera: b.str("camera"),
		Backend: b.str("render-backend"), Warnf: warnTo(stderr),
	})
	if err != nil {
		return err
	}
	return printEval(stdout, b.on("json"), task, policy+" policy", seed, res, video)
}

// evalArmPolicy is eval --policy expert|random --model FILE.xml: the
// scripted policy on task arm-reach over an imported arm.
func evalArmPolicy(ctx context.Context, b *boundFlags, stdout io.Writer) error {
	task := tasks.ArmReachName
	if t := b.str("task"); t != "" {
		task = armTask(tasks.Canonical(t))
	}
	if task != tasks.ArmReachName && task != tasks.ArmPickName && task != tasks.ArmPushName {
		return usagef("--model evaluates task %s, %s or %s (--task reach, pick or push; none: reach), not %s", tasks.ArmReachName, tasks.ArmPickName, tasks.ArmPushName, b.str("task"))
	}
	if err := rundir.CheckEngine(task, b.str("engine")); err != nil { // train's refusal
		return err
	}
	if b.str("video") != "" {
		return usagef("--video is not supported with --model; robot-train render --model FILE.xml --policy %s films the arm", b.str("policy"))
	}
	arm := armFlags(b)
	res, extra, err := rundir.EvalArmTaskPolicy(ctx, task, arm, b.str("reward"), b.int("max-episode-len"), b.str("policy"), b.int("episodes"), b.u64("seed"))
	if err != nil {
		return err
	}
	what := b.str("policy") + " policy, " + filepath.Base(arm.Model)
	return printArmEval(stdout, b.on("json"), task, what, b.u64("seed"), res, extra)
}

// armFlags is the arm section that --model and the arm's flags give.
func armFlags(b *boundFlags) rundir.ArmConfig {
	return rundir.ArmConfig{Model: b.str("model"), Site: b.str("site"), Actuators: b.str("actuators"), Control: b.str("control"), Keyframe: b.str("keyframe"), Grip: b.str("grip")}
}

// printArmEval prints an evaluation on a task over an imported arm with
// EvalArm's extras: success at any step and the final distance.
func printArmEval(stdout io.Writer, asJSON bool, task, what string, seed uint64, res *rundir.EvalResult, extra map[string]float64) error {
	if asJSON {
		return json.NewEncoder(stdout).Encode(struct {
			Task   string `json:"task"`
			Policy string `json:"policy"`
			Seed   uint64 `json:"seed"`
			*rundir.EvalResult
			SuccessAnyStep float64 `json:"success_any_step"`
			FinalDistance  float64 `json:"final_distance_m"`
		}{task, what, seed, res, extra["eval/success_any_step"], extra["eval/final_distance_m"]})
	}
	if err := printEval(stdout, false, task, what, seed, res, ""); err != nil {
		return err
	}
	radius, of := tasks.ArmReachSuccess, "the site"
	switch task {
	case tasks.ArmPickName:
		radius, of = tasks.ArmPickSuccess, "the held cube"
	case tasks.ArmPushName:
		radius, of = tasks.ArmPushSuccess, "the cube"
	}
	_, err := fmt.Fprintf(stdout, "  success at any step %.2f, final distance %.1f cm (success: %s within %.0f cm of the goal at the last step)\n",
		extra["eval/success_any_step"], 100*extra["eval/final_distance_m"], of, 100*radius)
	return err
}

// printEval prints one evaluation: a line, or one JSON object.
// A requested GIF that was not written is an error after the result is
// printed (without the video).
func printEval(stdout io.Writer, asJSON bool, task, what string, seed uint64, res *rundir.EvalResult, video string) error {
	gerr := gifFailed(res, video)
	if gerr != nil {
		video = ""
	}
	if err := printEvalResult(stdout, asJSON, task, what, seed, res, video); err != nil {
		return err
	}
	return gerr
}

func printEvalResult(stdout io.Writer, asJSON bool, task, what string, seed uint64, res *rundir.EvalResult, video string) error {
	if asJSON {
		out := struct {
			Task   string `json:"task"`
			Policy string `json:"policy"`
			Seed   uint64 `json:"seed"`
			*rundir.EvalResult
			Video string `json:"video,omitempty"`
		}{task, what, seed, res, video}
		return json.NewEncoder(stdout).Encode(out)
	}
	_, _ = fmt.Fprintf(stdout, "%s on %s: success rate %.2f, mean return %.2f ± %.2f, mean length %.0f over %d episodes\n",
		what, task, res.SuccessRate, res.MeanReturn, res.StdReturn, res.MeanLength, res.Episodes)
	if s := res.Stochastic; s != nil {
		_, _ = fmt.Fprintf(stdout, "stochastic policy, same episodes: success rate %.2f, mean return %.2f ± %.2f\n", s.SuccessRate, s.MeanReturn, s.StdReturn)
	}
	if video != "" {
		_, _ = fmt.Fprintf(stdout, "video: %s\n", video)
	}
	return nil
}

// gifFailed turns a requested GIF that was not written into an error
// (the evaluation itself is still printed).
func gifFailed(res *rundir.EvalResult, video string) error {
	if video != "" && res.GIFErr != nil {
		return fmt.Errorf("--video %s was not written: %w", video, res.GIFErr)
	}
	return nil
}
