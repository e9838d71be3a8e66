package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/vlmrb/vlmrb/train"
)

func cmdEval(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("eval", "(--checkpoint RUN_DIR | --policy expert|random) --task NAME --episodes N [--seed S] [--video FILE.gif] [--json]", stderr)
	ckpt := fs.String("checkpoint", "", "evaluate the newest checkpoint of `RUN_DIR`")
	policy := fs.String("policy", "", "evaluate a scripted policy instead: expert|random")
	task := fs.String("task", "", "task `NAME` (default: the checkpoint's task)")
	reward := fs.String("reward", "", "reward: dense|sparse (default: the checkpoint's, else dense)")
	episodes := fs.Int("episodes", 10, "episodes `N`")
	seed := fs.Uint64("seed", 0, "seed `S` of the evaluation episodes")
	video := fs.String("video", "", "record the first episode to `FILE.gif`")
	camera := fs.String("camera", train.WorkspaceCamera, "camera for --video")
	size := fs.Int("video-size", 160, "GIF frame size (px, square)")
	backend := fs.String("render-backend", "auto", "renderer for --video: auto|egl|soft")
	asJSON := fs.Bool("json", false, "print one JSON object on stdout")
	maxLen := fs.Int("max-episode-len", 0, "control steps per episode (0 = the checkpoint's or task default)")
	eps := fs.Float64("epsilon", 0, "grid tasks: ε of the DQN checkpoint's ε-greedy evaluation (0: greedy)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if (*ckpt == "") == (*policy == "") {
		return usagef("give exactly one of --checkpoint RUN_DIR or --policy expert|random")
	}
	if *episodes <= 0 {
		return usagef("--episodes must be ≥ 1")
	}
	if (*ckpt != "" && isDQNRun(*ckpt)) || train.IsGridTask(*task) { // eval_grid.go
		if *video != "" {
			return usagef("--video is for the simulator's cameras; use robot-train render for grid GIFs")
		}
		if !(*eps >= 0 && *eps <= 1) {
			return usagef("--epsilon must be in [0, 1]")
		}
		return evalGrid(ctx, stdout, stderr, *ckpt, *policy, *task, *episodes, *seed, *eps, *asJSON)
	}
	if *video != "" && !strings.HasSuffix(strings.ToLower(*video), ".gif") {
		return usagef("--video %s: only .gif is supported here (robot-train render writes MP4)", *video)
	}
	maxSteps := *maxLen
	var pol train.Policy
	var what string
	var closeFn func()
	name, rew := *task, *reward
	if *ckpt != "" {
		agent, cfg, ac, err := train.LoadAgentCheckpoint(*ckpt)
		if err != nil {
			return err
		}
		man := ac.Manifest
		reportCheckpoint(stderr, ac)
		closeFn = func() { agent.Close() }
		if name == "" {
			name = cfg.Task
		} else if name != cfg.Task {
			_, _ = fmt.Fprintf(stderr, "note: evaluating a %s policy on task %s\n", cfg.Task, name)
		}
		if rew == "" {
			rew = cfg.EnvReward()
		}
		if maxSteps == 0 {
			maxSteps = cfg.MaxEpisodeLen
		}
		pol = train.AgentPolicy(agent)
		what = fmt.Sprintf("checkpoint %s (step %d)", *ckpt, man.Step)
	}
	if name == "" {
		return usagef("--task NAME is required with --policy (robot-train tasks lists them)")
	}
	if rew == "" {
		rew = "dense"
	}
	env, err := train.MakeTaskEnv(name, rew, maxSteps) // unknown task or reward: *train.ConfigError (exit 2)
	if err != nil {
		return err
	}
	defer func() { _ = env.Close() }()
	if closeFn != nil {
		defer closeFn()
	}
	if *policy != "" {
		if pol, err = train.ScriptedPolicy(*policy, env, *seed); err != nil {
			return usagef("%v", err)
		}
		what = *policy + " policy"
	}
	res, err := train.Evaluate(ctx, env, pol, train.EvalOptions{
		Episodes: *episodes, Seed: *seed, GIF: *video, GIFSize: *size, Camera: *camera, Backend: *backend,
		Warnf: func(f string, a ...any) { _, _ = fmt.Fprintf(stderr, "warning: "+f+"\n", a...) },
	})
	if err != nil {
		return err
	}
	if *asJSON {
		out := struct {
			Task   string `json:"task"`
			Policy string `json:"policy"`
			Seed   uint64 `json:"seed"`
			*train.EvalResult
			Video string `json:"video,omitempty"`
		}{name, what, *seed, res, *video}
		return json.NewEncoder(stdout).Encode(out)
	}
	_, _ = fmt.Fprintf(stdout, "%s on %s: success rate %.2f, mean return %.1f ± %.1f, mean length %.0f over %d episodes\n",
		what, name, res.SuccessRate, res.MeanReturn, res.StdReturn, res.MeanLength, res.Episodes)
	if *video != "" {
		_, _ = fmt.Fprintf(stdout, "video: %s\n", *video)
	}
	return nil
}
