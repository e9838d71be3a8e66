package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vlmrb/vlmrb/hw"
	"github.com/vlmrb/vlmrb/lerobot"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks"
)

// applyDemos sets demos (an integer) or demos_path (anything else) from
// train's --demos.
func applyDemos(cfg *rundir.Config, v string) error {
	if _, err := strconv.Atoi(v); err == nil {
		cfg.DemosPath = ""
		if err := rundir.SetConfigKey(cfg, "demos", v); err != nil {
			return usagef("--demos: %v", err)
		}
		return nil
	}
	if strings.TrimSpace(v) == "" {
		return usagef("--demos: give a number of scripted-expert episodes or a dataset directory")
	}
	cfg.Demos = 0
	return rundir.SetConfigKey(cfg, "demos_path", v)
}

// recordFlags is the table of robot-train record's flags.
var recordFlags = slices.Concat([]flagDef{
	{name: "task", help: "task `NAME` (default with a RUN_DIR policy: the run's task; with --model: reach, pick or push)"},
	{name: "engine", help: "tabletop tasks: physics engine articulated, the only one; a RUN_DIR policy trained on the removed engine sim needs --engine articulated (a transfer)"},
	{name: "model", help: "record task arm-reach, panda-pick or panda-push (--task reach|pick|push) over the MJCF arm `FILE.xml`, as train --model trains it"},
	{name: "policy", def: "expert", help: "`expert|random|RUN_DIR`: the task's scripted expert, uniform random actions, or a training run's newest checkpoint (deterministic)"},
	{name: "episodes", kind: "int", def: "10", help: "episodes `N` to record"},
	{name: "lerobot", help: "write a LeRobot v3.0 dataset to `DIR` (must not exist)"},
	{name: "seed", key: "seed", help: "seed `S`: the episodes are those a training run with this --seed starts with"},
	{name: "num-envs", key: "num_envs", help: "lay the episode seeds out as a training run with `N` envs (train's --num-envs)"},
	{name: "reward", def: trainReward, help: "reward stored in next.reward: dense|sparse (default: the one train trains on, so train --demos takes the dataset)"},
	{name: "max-episode-len", kind: "int", def: "0", help: "control steps per episode (0 = train's default max_episode_len, or the run's)"},
	{name: "cameras", def: render.TaskCamera, help: "comma-separated sim cameras, one video each (task, workspace, corner, topview, …; \"\" for none)"},
	{name: "size", def: scorerFrameSize, help: "video frame size `WxH` (default: the scorer's in training; even; AV1 needs ≥ 64x64, else H.264 is used)"},
	{name: "render-backend", def: "auto", help: "renderer: auto|egl|soft"},
	{name: "codec", def: "auto", help: "video codec: auto (AV1 via libsvtav1 when present, else H.264) | av1 | h264"},
	{name: "hw", help: "convert a camera recording instead: a folder of images, a video file, or a camera URL/device (`SPEC` as score --source takes it)"},
	{name: "fps", kind: "float", def: "0", help: "with --hw: the dataset's frame rate (default: the source's, else 30)"},
	{name: "frames", kind: "int", def: "0", help: "with --hw: stop after `N` frames (0: the whole recording; a live camera records until Ctrl-C)"},
	{name: "camera-name", def: "cam", help: "with --hw: the video key is observation.images.`NAME`"},
	{name: "instruction", def: "camera recording", help: "with --hw: the task text of the episode"},
	{name: "json", kind: "bool", help: "print what was written as one JSON object (episode lengths, frames, codec, bytes)"},
}, armFlagDefs)

func cmdRecord(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	b, err := commandFlags("record", "--task NAME --policy expert|random|RUN_DIR --episodes N --lerobot DIR [--engine articulated] [--seed S] [--num-envs N] [--cameras task,workspace] [--size WxH]\n       robot-train record --model FILE.xml --task reach|pick|push --policy expert|random|RUN_DIR --episodes N --lerobot DIR [--site NAME] [--grip NAME]\n       robot-train record --hw SPEC --lerobot DIR [--fps F] [--frames N] [--camera-name NAME] [--instruction TEXT]", recordFlags, args, stderr)
	if err != nil {
		return err
	}
	task, policy, out, reward, hwSpec, asJSON := b.str("task"), b.str("policy"), b.str("lerobot"), b.str("reward"), b.str("hw"), b.on("json")
	if out == "" {
		return usagef("--lerobot DIR is required: where the dataset goes")
	}
	if hwSpec != "" {
		if e := b.str("engine"); e != "" {
			return usagef("--engine %s picks the physics of a simulated task; --hw records a camera", e)
		}
		return recordHW(ctx, stdout, hwSpec, out, b.f64("fps"), b.int("frames"), b.str("camera-name"), b.str("instruction"), b.str("codec"), asJSON)
	}
	arm := armFlags(b)
	if arm.Model == "" && arm != (rundir.ArmConfig{}) {
		return usagef("--site, --actuators, --grip, --control and --keyframe describe an imported arm: give --model FILE.xml")
	}
	if task != "" {
		task = tasks.Canonical(task) // MetaWorld's reach-v3
		if arm.Model != "" {
			task = armTask(task) // reach|pick|push over the arm
		}
		if err := tasks.CheckName(task); err != nil {
			return &usageError{err.Error()}
		}
	}
	if task == "" && arm.Model != "" && (policy == "expert" || policy == "random") {
		return usagef("--model needs --task reach, pick or push")
	}
	if task == "" && (policy == "expert" || policy == "random") {
		return usagef("--task NAME is required with --policy %s (robot-train tasks lists them)", policy)
	}
	if err := oneOf("reward", reward, "dense", "sparse"); err != nil {
		return err
	}
	var cams []string
	for _, c := range strings.Split(b.str("cameras"), ",") {
		if c = strings.TrimSpace(c); c != "" {
			cams = append(cams, c)
		}
	}
	w, h, err := parseSize(b.str("size"))
	if err != nil {
		return err
	}
	numEnvs := b.int("num-envs")
	if arm.Model != "" && !b.given("num-envs") { // train --model's default
		d := rundir.DefaultConfig()
		rundir.ApplyArmDefaults(&d)
		numEnvs = d.NumEnvs
	}
	res, err := rundir.Record(ctx, out, rundir.RecordOptions{
		Task: task, Engine: b.str("engine"), Arm: arm, Policy: policy, Episodes: b.int("episodes"), Seed: b.u64("seed"), NumEnvs: numEnvs,
		MaxEpisodeLen: b.int("max-episode-len"), Reward: reward, Cameras: cams, Width: w, Height: h,
		Backend: b.str("render-backend"), Codec: b.str("codec"),
	})
	if err != nil {
		return err
	}
	if res.Transfer != "" {
		_, _ = fmt.Fprintf(stderr, "record: %s\n", res.Transfer)
	}
	if asJSON {
		return printJSON(stdout, recordReport{Dir: res.Dir, Episodes: res.Episodes, Frames: res.Frames, Lengths: res.Lengths,
			Successes: res.Successes, Cameras: cams, Width: w, Height: h, Codec: res.Codec, Bytes: res.Bytes, Files: res.Files,
			Seconds: res.Elapsed.Seconds(), FPS: res.FPS})
	}
	_, _ = fmt.Fprintf(stdout, "wrote %s: %d episodes (%d successful), %d frames, %d camera(s) %s, %.1f MB in %.1fs (%.0f frames/s incl. encoding)\n",
		res.Dir, res.Episodes, res.Successes, res.Frames, len(cams), codecName(res.Codec), float64(res.Bytes)/1e6, res.Elapsed.Seconds(), res.FPS)
	return nil
}

func codecName(c string) string {
	if c == "" {
		return "(no video)"
	}
	return c
}

// recordHW converts a camera recording (or a bounded stretch of a live
// camera) into a one-episode dataset with one video.
func recordHW(ctx context.Context, stdout io.Writer, spec, out string, fps float64, frames int, name, instruction, codec string, asJSON bool) error {
	src, err := hw.Open(ctx, spec, hw.Options{Camera: name, FPS: fps}) // a folder's frames are stamped at FPS
	if err != nil {
		return err
	}
	defer func() { _ = src.Close() }()
	t0 := time.Now()
	res, err := lerobot.ConvertSource(ctx, src, out, lerobot.ConvertOptions{
		FPS: fps, MaxFrames: frames, Camera: name, Task: instruction, Codec: codec,
	})
	if err != nil {
		return err
	}
	el := time.Since(t0)
	if asJSON {
		return printJSON(stdout, recordReport{Dir: res.Dir, Episodes: 1, Frames: res.Frames, Lengths: []int{int(res.Frames)},
			Cameras: []string{name}, Width: res.Width, Height: res.Height, Codec: res.Codec, Bytes: res.Bytes, Files: res.Files,
			Seconds: el.Seconds(), FPS: float64(res.Frames) / el.Seconds(), SourceFrames: res.SourceFrames, DatasetFPS: res.FPS})
	}
	_, _ = fmt.Fprintf(stdout, "wrote %s: 1 episode, %d frames (%d source frames), %dx%d %s at %g fps, %.1f MB in %.1fs\n",
		res.Dir, res.Frames, res.SourceFrames, res.Width, res.Height, res.Codec, res.FPS, float64(res.Bytes)/1e6, el.Seconds())
	return nil
}

// recordReport is record --json's output.
type recordReport struct {
	Dir          string           `json:"dir"`
	Episodes     int              `json:"episodes"`
	Frames       int64            `json:"frames"`
	Lengths      []int            `json:"lengths"`
	Successes    int              `json:"successes"`
	Cameras      []string         `json:"cameras"`
	Width        int              `json:"width"`
	Height       int              `json:"height"`
	Codec        string           `json:"codec"`
	Bytes        int64            `json:"bytes"`
	Files        map[string]int64 `json:"files"`
	Seconds      float64          `json:"seconds"`
	FPS          float64          `json:"frames_per_s"`
	SourceFrames int              `json:"source_frames,omitempty"`
	DatasetFPS   float64          `json:"dataset_fps,omitempty"`
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
