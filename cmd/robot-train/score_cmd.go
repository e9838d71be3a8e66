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
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/tasks/grid"
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

// scoreFlags is the table of robot-train score's flags.
var scoreFlags = []flagDef{
	{name: "source", help: "frames to score: sim:TASK, dir:PATH (images), a video file, or a camera URL (http MJPEG, rtsp)"},
	{name: "scorer", def: "pixel", help: "scorer: pixel|oracle|openai"},
	{name: "clips", kind: "int", def: "8", help: "clips `N` to score"},
	{name: "policy", def: "expert", help: "policy driving a sim source: expert|random"},
	{name: "seed", kind: "uint", def: "0", help: "seed `S` of the sim episodes"},
	{name: "engine", help: "physics engine of a sim:TASK source (tabletop tasks): articulated, the only one (sim, the old engine, was removed)"},
	{name: "task", help: "task whose colours/prompt apply to a camera or folder source (default reach)"},
	{name: "clip-len", key: "vlm.clip_len", help: "frames per clip"},
	{name: "stride", key: "vlm.stride", help: "frames between clip starts"},
	{name: "camera", key: "vlm.camera", help: "sim camera name"},
	{name: "size", def: scorerFrameSize, help: "frame size `WxH` (sim render size, default the scorer's in training; grid tiles fill the smaller side; camera frames are resized)"},
	{name: "render-backend", def: "auto", help: "renderer for sim sources: auto|egl|soft"},
	{name: "theme", def: "standard", help: "appearance of a sim source's frames: standard|misleading|abstract (the agent's scene is unchanged)"},
	optionRow("vlm-base-url"),
	optionRow("vlm-model"),
	{name: "json", kind: "bool", help: "one JSON line per clip (clip, score, latency_ms, error)"},
	{name: "timeout", kind: "duration", def: "30s", help: "deadline `D` for scoring one clip, retries included (0: none)"},
	{name: "frame-timeout", kind: "duration", def: "10s", help: "a camera source that yields no frame for `D` fails (0: wait forever)"},
}

// scoreJob is one robot-train score command, checked.
type scoreJob struct {
	source, scorer, policy, camera, backend, theme string
	engine                                         string // a sim source's physics engine ("" is articulated)
	task                                           string // the task whose colours and prompt apply
	clips, length, stride, w, h                    int
	seed                                           uint64
	sim, grid, asJSON                              bool
	timeout, frameTimeout                          time.Duration
	meta                                           tasks.Meta
	vc                                             rundir.VLMConfig
}

func cmdScore(ctx context.Context, args []string, stdout, stderr io.Writer) (retErr error) {
	j, err := parseScore(args, stderr)
	if err != nil {
		return err
	}
	sc, err := j.newScorer()
	if err != nil {
		return err
	}
	clipper := vlmprio.NewClipper(vlmprio.ClipperConfig{Length: j.length, Stride: j.stride, Task: j.meta.Description, Family: j.meta.Family})
	var tally scoreTally
	defer func() {
		if retErr == nil {
			retErr = tally.result(stderr)
		}
	}()
	n := 0
	var pending []*vlmprio.Clip
	take := func(cs []*vlmprio.Clip) bool {
		pending = append(pending, cs...)
		for len(pending) > 0 && n < j.clips {
			j.emit(ctx, stdout, sc, &tally, n, pending[0])
			pending = pending[1:]
			n++
		}
		return n >= j.clips
	}
	switch {
	case j.grid: // square tiles: the frame side is the smaller of --size's two
		return GridClips(ctx, j.task, j.policy, j.theme, min(j.w, j.h), j.seed, j.scorer == "oracle", clipper, take)
	case j.sim:
		return j.simClips(ctx, clipper, take)
	}
	return j.cameraClips(ctx, stderr, clipper, take, func() int { return n })
}

// parseScore reads and checks score's flags.
func parseScore(args []string, stderr io.Writer) (*scoreJob, error) {
	b, err := commandFlags("score", "--source sim:TASK|dir:PATH|URL --scorer pixel|oracle|openai [--engine articulated] [--clips N] [--policy expert|random] [--seed S] [--json]", scoreFlags, args, stderr)
	if err != nil {
		return nil, err
	}
	j := &scoreJob{source: b.str("source"), scorer: b.str("scorer"), policy: b.str("policy"), camera: b.str("camera"),
		backend: b.str("render-backend"), theme: b.str("theme"), engine: b.str("engine"), clips: b.int("clips"), length: b.int("clip-len"),
		stride: b.int("stride"), seed: b.u64("seed"), asJSON: b.on("json"), timeout: b.dur("timeout"), frameTimeout: b.dur("frame-timeout")}
	if j.timeout < 0 || j.frameTimeout < 0 {
		return nil, usagef("--timeout and --frame-timeout must be ≥ 0")
	}
	if j.source == "" {
		return nil, usagef("--source is required: sim:TASK, dir:PATH or a camera URL")
	}
	if err := oneOf("scorer", j.scorer, rundir.ScorerChoices...); err != nil {
		return nil, err
	}
	if j.clips <= 0 || j.length <= 0 || j.stride <= 0 {
		return nil, usagef("--clips, --clip-len and --stride must be ≥ 1")
	}
	if j.w, j.h, err = parseSize(b.str("size")); err != nil {
		return nil, err
	}
	var simTask string
	simTask, j.sim = strings.CutPrefix(j.source, "sim:")
	if err := oneOf("theme", j.theme, render.ThemeNames...); err != nil {
		return nil, err
	}
	if !j.sim && j.theme != "standard" {
		return nil, usagef("--theme %s recolours a simulated scene; %s is not sim:TASK", j.theme, j.source)
	}
	if !j.sim && j.engine != "" {
		return nil, usagef("--engine %s picks the physics of a sim:TASK source; %s is not one", j.engine, j.source)
	}
	j.task = b.str("task")
	if j.sim {
		j.task = simTask
	} else if j.scorer == "oracle" {
		return nil, usagef("--scorer oracle needs privileged progress, which only sim:TASK sources have; use pixel or openai for %s", j.source)
	}
	if j.task == "" {
		j.task = "reach"
	}
	return j, j.resolve(b.str("vlm-base-url"), b.str("vlm-model"))
}

// resolve looks the task up and fills the scorer's VLM settings.
func (j *scoreJob) resolve(baseURL, model string) error {
	j.grid = j.sim && IsGridTask(j.task)
	if err := rundir.CheckEngine(j.task, j.engine); err != nil { // grid tasks: train's refusal
		return err
	}
	if j.grid {
		gm, _ := grid.Lookup(j.task)
		j.meta = tasks.Meta{Description: gm.Description, Family: gm.Family}
	} else {
		var err error
		if j.meta, err = describeTask(j.task); err != nil { // unknown task: *rundir.ConfigError (exit 2)
			return err
		}
	}
	j.vc = rundir.DefaultConfig().VLM
	j.vc.BaseURL, j.vc.Model, j.vc.APIKey = baseURL, model, os.Getenv("OPENAI_API_KEY")
	if j.timeout > 0 {
		j.vc.Timeout = min(j.vc.Timeout, j.timeout.Seconds()) // per HTTP request
	}
	if j.vc.BaseURL == "" {
		j.vc.BaseURL = os.Getenv("OPENAI_BASE_URL")
	}
	if j.scorer == "openai" && (j.vc.BaseURL == "" || j.vc.Model == "") {
		return usagef("--scorer openai needs --vlm-base-url URL (or $OPENAI_BASE_URL) and --vlm-model NAME")
	}
	return nil
}

func (j *scoreJob) newScorer() (vlmprio.Scorer, error) {
	if j.grid {
		return rundir.NewGridScorer(j.scorer, j.vc)
	}
	return rundir.NewScorer(j.scorer, j.meta, j.vc)
}

// emit scores clip i and prints its line.
func (j *scoreJob) emit(ctx context.Context, stdout io.Writer, sc vlmprio.Scorer, tally *scoreTally, i int, c *vlmprio.Clip) {
	t0 := time.Now()
	sctx, cancel := ctx, context.CancelFunc(func() {})
	if j.timeout > 0 {
		sctx, cancel = context.WithTimeout(ctx, j.timeout)
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
	switch {
	case j.asJSON:
		_ = json.NewEncoder(stdout).Encode(line)
	case err != nil:
		_, _ = fmt.Fprintf(stdout, "clip %d (episode %d, steps %d–%d): error: %v\n", i, c.Episode, c.Start, c.End, err)
	default:
		_, _ = fmt.Fprintf(stdout, "clip %d (episode %d, steps %d–%d): score %.3f (%s, %.1f ms)\n", i, c.Episode, c.Start, c.End, *line.Score, s.Method, line.LatencyMS)
	}
}

// simClips drives a sim:TASK source's episodes with the scripted policy.
func (j *scoreJob) simClips(ctx context.Context, clipper *vlmprio.Clipper, take func([]*vlmprio.Clip) bool) error {
	env, err := makeTaskEnv(j.task, "", 0, j.engine)
	if err != nil {
		return err
	}
	defer func() { _ = env.Close() }()
	pol, err := scriptedPolicy(j.policy, env, j.seed)
	if err != nil {
		return usagef("%v", err)
	}
	var cam *render.SimCamera
	if j.scorer != "oracle" {
		if cam, err = openTaskCamera(j.backend, j.camera, j.theme, j.w, j.h, env, render.DefaultCameraOptions()); err != nil {
			return err
		}
		defer func() { _ = cam.Close() }()
	}
	return SimClips(ctx, NewEpisodes(env, pol, j.seed), cam, j.camera, j.w, j.h, clipper, take)
}

// cameraClips cuts a camera, folder or video source into clips; scored
// reports how many have been scored so far.
func (j *scoreJob) cameraClips(ctx context.Context, stderr io.Writer, clipper *vlmprio.Clipper, take func([]*vlmprio.Clip) bool, scored func() int) error {
	octx, ocancel := ctx, context.CancelFunc(func() {})
	if j.frameTimeout > 0 {
		octx, ocancel = context.WithTimeout(ctx, j.frameTimeout)
	}
	src, err := hw.Open(octx, j.source, hw.Options{Width: j.w, Height: j.h, FrameTimeout: j.frameTimeout})
	ocancel()
	if err != nil {
		return fmt.Errorf("open %s: %w", hw.Redact(j.source), err)
	}
	defer func() { _ = src.Close() }()
	ended, err := vlmprio.ClipSource(ctx, src, clipper, take)
	if err != nil {
		return err
	}
	n := scored()
	if ended && n == 0 {
		return fmt.Errorf("%s ended before one clip of %d frames (pass a smaller --clip-len)", j.source, j.length)
	}
	if ended && n < j.clips {
		_, _ = fmt.Fprintf(stderr, "warning: %s ended after %d of the %d clips asked for (a clip is --clip-len %d frames, one every --stride %d): pass a smaller --stride or --clip-len for more\n",
			hw.Redact(j.source), n, j.clips, j.length, j.stride)
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
