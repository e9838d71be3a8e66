package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/vlmrb/vlmrb/hw"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/tasks/grid"
	"github.com/vlmrb/vlmrb/train"
	"github.com/vlmrb/vlmrb/vlmprio"
)

// scoreLine is one JSON line of robot-train score.
type scoreLine struct {
	Clip      int      `json:"clip"`
	Score     *float64 `json:"score"` // null when scoring failed
	LatencyMS float64  `json:"latency_ms"`
	Error     string   `json:"error"`
	Method    string   `json:"method,omitempty"`
	Episode   int64    `json:"episode"`
	Start     int      `json:"start"`
	End       int      `json:"end"`
	Frames    int      `json:"frames"`
}

func cmdScore(ctx context.Context, args []string, stdout, stderr io.Writer) (retErr error) {
	def := train.DefaultConfig()
	fs := newFlags("score", "--source sim:TASK|dir:PATH|URL --scorer pixel|oracle|openai [--clips N] [--policy expert|random] [--seed S] [--json]", stderr)
	source := fs.String("source", "", "frames to score: sim:TASK, dir:PATH (images), a video file, or a camera URL (http MJPEG, rtsp)")
	scorer := fs.String("scorer", "pixel", "scorer: pixel|oracle|openai")
	clips := fs.Int("clips", 8, "clips `N` to score")
	policy := fs.String("policy", "expert", "policy driving a sim source: expert|random")
	seed := fs.Uint64("seed", 0, "seed `S` of the sim episodes")
	task := fs.String("task", "", "task whose colours/prompt apply to a camera or folder source (default reach)")
	length := fs.Int("clip-len", def.VLM.ClipLen, "frames per clip")
	stride := fs.Int("stride", def.VLM.Stride, "frames between clip starts")
	camera := fs.String("camera", def.VLM.Camera, "sim camera name")
	size := fs.String("size", "160x120", "frame size `WxH` (sim render size; grid tiles fill the smaller side; camera frames are resized)")
	backend := fs.String("render-backend", "auto", "renderer for sim sources: auto|egl|soft")
	theme := fs.String("theme", "standard", "appearance of a sim source's frames: standard|misleading|abstract (the agent's scene is unchanged)")
	baseURL := fs.String("vlm-base-url", "", sharedFlag("vlm-base-url").help) // train's flag
	model := fs.String("vlm-model", "", sharedFlag("vlm-model").help)
	asJSON := fs.Bool("json", false, "one JSON line per clip (clip, score, latency_ms, error)")
	timeout := fs.Duration("timeout", 30*time.Second, "deadline `D` for scoring one clip, retries included (0: none)")
	frameTimeout := fs.Duration("frame-timeout", 10*time.Second, "a camera source that yields no frame for `D` fails (0: wait forever)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *timeout < 0 || *frameTimeout < 0 {
		return usagef("--timeout and --frame-timeout must be ≥ 0")
	}
	if *source == "" {
		return usagef("--source is required: sim:TASK, dir:PATH or a camera URL")
	}
	if err := oneOf("scorer", *scorer, train.ScorerChoices...); err != nil {
		return err
	}
	if *clips <= 0 || *length <= 0 || *stride <= 0 {
		return usagef("--clips, --clip-len and --stride must be ≥ 1")
	}
	w, h, err := parseSize(*size)
	if err != nil {
		return err
	}
	simTask, isSim := strings.CutPrefix(*source, "sim:")
	if err := oneOf("theme", *theme, render.ThemeNames...); err != nil {
		return err
	}
	if !isSim && *theme != "standard" {
		return usagef("--theme %s recolours a simulated scene; %s is not sim:TASK", *theme, *source)
	}
	taskName := *task
	if isSim {
		taskName = simTask
	} else if *scorer == "oracle" {
		return usagef("--scorer oracle needs privileged progress, which only sim:TASK sources have; use pixel or openai for %s", *source)
	}
	if taskName == "" {
		taskName = "reach"
	}
	isGrid := isSim && train.IsGridTask(taskName)
	var meta tasks.Meta
	if isGrid {
		gm, _ := grid.Lookup(taskName)
		meta = tasks.Meta{Description: gm.Description, Family: gm.Family}
	} else if meta, err = train.TaskMeta(taskName); err != nil { // unknown task: *train.ConfigError (exit 2)
		return err
	}
	vc := def.VLM
	vc.BaseURL, vc.Model, vc.APIKey = *baseURL, *model, os.Getenv("OPENAI_API_KEY")
	if *timeout > 0 {
		vc.Timeout = min(vc.Timeout, timeout.Seconds()) // per HTTP request
	}
	if vc.BaseURL == "" {
		vc.BaseURL = os.Getenv("OPENAI_BASE_URL")
	}
	if *scorer == "openai" && (vc.BaseURL == "" || vc.Model == "") {
		return usagef("--scorer openai needs --vlm-base-url URL (or $OPENAI_BASE_URL) and --vlm-model NAME")
	}
	var sc vlmprio.Scorer
	if isGrid {
		sc, err = train.NewGridScorer(*scorer, vc)
	} else {
		sc, err = train.NewScorer(*scorer, meta, vc)
	}
	if err != nil {
		return err
	}
	clipper := vlmprio.NewClipper(vlmprio.ClipperConfig{Length: *length, Stride: *stride, Task: meta.Description, Family: meta.Family})

	var tally scoreTally
	defer func() {
		if retErr == nil {
			retErr = tally.result(stderr)
		}
	}()
	emit := func(i int, c *vlmprio.Clip) {
		t0 := time.Now()
		sctx, cancel := ctx, context.CancelFunc(func() {})
		if *timeout > 0 {
			sctx, cancel = context.WithTimeout(ctx, *timeout)
		}
		s, err := sc.Score(sctx, c)
		cancel()
		tally.add(err)
		line := scoreLine{Clip: i, LatencyMS: float64(time.Since(t0).Microseconds()) / 1000,
			Episode: c.Episode, Start: c.Start, End: c.End, Frames: c.Len()}
		if err != nil {
			line.Error = err.Error()
		} else {
			v := s.Value
			line.Score, line.Method = &v, s.Method
		}
		if *asJSON {
			_ = json.NewEncoder(stdout).Encode(line)
			return
		}
		if err != nil {
			_, _ = fmt.Fprintf(stdout, "clip %d (episode %d, steps %d–%d): error: %v\n", i, c.Episode, c.Start, c.End, err)
		} else {
			_, _ = fmt.Fprintf(stdout, "clip %d (episode %d, steps %d–%d): score %.3f (%s, %.1f ms)\n", i, c.Episode, c.Start, c.End, *line.Score, s.Method, line.LatencyMS)
		}
	}
	n := 0
	var pending []*vlmprio.Clip
	take := func(cs []*vlmprio.Clip) bool {
		pending = append(pending, cs...)
		for len(pending) > 0 && n < *clips {
			emit(n, pending[0])
			pending = pending[1:]
			n++
		}
		return n >= *clips
	}

	if isGrid {
		// square tiles: the frame side is the smaller of --size's two
		return train.GridClips(ctx, taskName, *policy, *theme, min(w, h), *seed, *scorer == "oracle", clipper, take)
	}
	if isSim {
		env, err := train.MakeTaskEnv(taskName, "", 0)
		if err != nil {
			return err
		}
		defer func() { _ = env.Close() }()
		pol, err := train.ScriptedPolicy(*policy, env, *seed)
		if err != nil {
			return usagef("%v", err)
		}
		var cam *train.SimCamera
		if *scorer != "oracle" {
			if cam, err = train.NewSimCamera(*backend, *camera, *theme, w, h, env); err != nil {
				return err
			}
			defer cam.Close()
		}
		return train.SimClips(ctx, train.NewEpisodes(env, pol, *seed), cam, *camera, w, h, clipper, take)
	}

	octx, ocancel := ctx, context.CancelFunc(func() {})
	if *frameTimeout > 0 {
		octx, ocancel = context.WithTimeout(ctx, *frameTimeout)
	}
	src, err := hw.Open(octx, *source, hw.Options{Width: w, Height: h, FrameTimeout: *frameTimeout})
	ocancel()
	if err != nil {
		return fmt.Errorf("open %s: %w", hw.Redact(*source), err)
	}
	defer func() { _ = src.Close() }()
	ended, err := vlmprio.ClipSource(ctx, src, clipper, take)
	if err != nil {
		return err
	}
	if ended && n == 0 {
		return fmt.Errorf("%s ended before one clip of %d frames (pass a smaller --clip-len)", *source, *length)
	}
	if ended && n < *clips {
		_, _ = fmt.Fprintf(stderr, "warning: %s ended after %d of the %d clips asked for (a clip is --clip-len %d frames, one every --stride %d): pass a smaller --stride or --clip-len for more\n",
			hw.Redact(*source), n, *clips, *length, *stride)
	}
	return nil
}

func parseSize(s string) (int, int, error) {
	ws, hs, ok := strings.Cut(s, "x")
	w, err1 := strconv.Atoi(ws)
	h, err2 := strconv.Atoi(hs)
	if !ok || err1 != nil || err2 != nil || w <= 0 || h <= 0 || w > 4096 || h > 4096 {
		return 0, 0, usagef("--size %q: want WxH in pixels, e.g. 128x128 (at most 4096x4096)", s)
	}
	return w, h, nil
}
