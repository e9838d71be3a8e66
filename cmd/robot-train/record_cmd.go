package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/vlmrb/vlmrb/hw"
	"github.com/vlmrb/vlmrb/lerobot"
	"github.com/vlmrb/vlmrb/train"
)

// applyDemos sets demos (an integer) or demos_path (anything else) from
// train's --demos.
func applyDemos(cfg *train.Config, v string) error {
	if _, err := strconv.Atoi(v); err == nil {
		cfg.DemosPath = ""
		if err := train.SetConfigKey(cfg, "demos", v); err != nil {
			return usagef("--demos: %v", err)
		}
		return nil
	}
	if strings.TrimSpace(v) == "" {
		return usagef("--demos: give a number of scripted-expert episodes or a dataset directory")
	}
	cfg.Demos = 0
	return train.SetConfigKey(cfg, "demos_path", v)
}

func cmdRecord(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("record", "--task NAME --policy expert|random|RUN_DIR --episodes N --lerobot DIR [--seed S] [--num-envs N] [--cameras task,workspace] [--size WxH]\n       robot-train record --hw SPEC --lerobot DIR [--fps F] [--frames N] [--camera-name NAME] [--instruction TEXT]", stderr)
	task := fs.String("task", "", "task `NAME` (default with a RUN_DIR policy: the run's task)")
	policy := fs.String("policy", "expert", "`expert|random|RUN_DIR`: the task's scripted expert, uniform random actions, or a training run's newest checkpoint (deterministic)")
	episodes := fs.Int("episodes", 10, "episodes `N` to record")
	out := fs.String("lerobot", "", "write a LeRobot v3.0 dataset to `DIR` (must not exist)")
	def := train.DefaultConfig()
	seed := fs.Uint64("seed", def.Seed, "seed `S`: the episodes are those a training run with this --seed starts with")
	numEnvs := fs.Int("num-envs", def.NumEnvs, "lay the episode seeds out as a training run with `N` envs (train's --num-envs)")
	reward := fs.String("reward", "sparse", "reward stored in next.reward: dense|sparse")
	maxLen := fs.Int("max-episode-len", 0, "control steps per episode (0 = train's default max_episode_len, or the run's)")
	cameras := fs.String("cameras", train.TaskCamera, "comma-separated sim cameras, one video each (task, workspace, corner, topview, …; \"\" for none)")
	size := fs.String("size", "128x128", "video frame size `WxH` (even; AV1 needs ≥ 64x64, else H.264 is used)")
	backend := fs.String("render-backend", "auto", "renderer: auto|egl|soft")
	codec := fs.String("codec", "auto", "video codec: auto (AV1 via libsvtav1 when present, else H.264) | av1 | h264")
	hwSpec := fs.String("hw", "", "convert a camera recording instead: a folder of images, a video file, or a camera URL/device (`SPEC` as score --source takes it)")
	fps := fs.Float64("fps", 0, "with --hw: the dataset's frame rate (default: the source's, else 30)")
	frames := fs.Int("frames", 0, "with --hw: stop after `N` frames (0: the whole recording; a live camera records until Ctrl-C)")
	camName := fs.String("camera-name", "cam", "with --hw: the video key is observation.images.`NAME`")
	instruction := fs.String("instruction", "camera recording", "with --hw: the task text of the episode")
	asJSON := fs.Bool("json", false, "print what was written as one JSON object (episode lengths, frames, codec, bytes)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *out == "" {
		return usagef("--lerobot DIR is required: where the dataset goes")
	}
	if *hwSpec != "" {
		return recordHW(ctx, stdout, *hwSpec, *out, *fps, *frames, *camName, *instruction, *codec, *asJSON)
	}
	if *task == "" && (*policy == "expert" || *policy == "random") {
		return usagef("--task NAME is required with --policy %s (robot-train tasks lists them)", *policy)
	}
	if err := oneOf("reward", *reward, "dense", "sparse"); err != nil {
		return err
	}
	var cams []string
	for _, c := range strings.Split(*cameras, ",") {
		if c = strings.TrimSpace(c); c != "" {
			cams = append(cams, c)
		}
	}
	w, h, err := parseSize(*size)
	if err != nil {
		return err
	}
	res, err := train.Record(ctx, *out, train.RecordOptions{
		Task: *task, Policy: *policy, Episodes: *episodes, Seed: *seed, NumEnvs: *numEnvs,
		MaxEpisodeLen: *maxLen, Reward: *reward, Cameras: cams, Width: w, Height: h,
		Backend: *backend, Codec: *codec,
	})
	if err != nil {
		return err
	}
	if *asJSON {
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
