package main

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"path/filepath"
	"strings"

	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks"
)

// maxRenderBytes bounds the frames render keeps for a GIF, MP4 or sheet.
const maxRenderBytes = 1 << 30

// renderFlags is the table of robot-train render's flags.
var renderFlags = []flagDef{
	{name: "task", help: "task `NAME`"},
	{name: "model", help: "render an MJCF model `FILE.xml` instead of a task (--camera: one of its cameras, default a view of the whole model)"},
	{name: "camera", def: render.TaskCamera, help: "camera: task (the task's scorer views), workspace, corner, corner2, corner3, corner4, topview, close, behindGripper, gripperPOV"},
	{name: "size", def: scorerFrameSize, help: "image size `WxH` (default: the scorer's frames in training)"},
	{name: "policy", def: "expert", help: "policy that moves the robot: expert|random"},
	{name: "steps", kind: "int", def: "0", help: "control steps to run (PNG: the frame after N steps; GIF/MP4: N+1 frames; default 0 for PNG, one episode otherwise)"},
	{name: "seed", kind: "uint", def: "0", help: "episode seed `S`"},
	{name: "out", help: "output `FILE` (.png, .gif or .mp4)"},
	{name: "checkpoint", help: "not render's: a trained policy is drawn by robot-train eval --checkpoint `RUN_DIR` --video FILE.gif (render moves the robot with the scripted expert or random actions)"},
	{name: "render-backend", def: "auto", help: "renderer: auto|egl|soft"},
	{name: "engine", help: "the task's physics engine: articulated, the only one (MuJoCo's equations on the task's MJCF scene; sim, the old engine, was removed)"},
	{name: "every", kind: "int", def: "2", help: "GIF/MP4: keep every k-th control step"},
	{name: "theme", def: "standard", help: "appearance: standard|misleading|abstract"},
	{name: "shadows", kind: "bool", def: fmt.Sprint(render.DefaultCameraOptions().Shadows), help: "shadow map from the key light"},
	{name: "msaa", kind: "int", def: fmt.Sprint(render.DefaultCameraOptions().MSAA), help: "anti-aliasing samples per pixel `N` (0 or 1: off)"},
	{name: "scenery", kind: "bool", def: fmt.Sprint(render.DefaultCameraOptions().Scenery), help: "draw the robot arm, table legs, floor and backdrop"},
	{name: "depth", help: "also write the last frame's linear depth as a 16-bit grey PNG in mm (0: nothing) to `FILE.png`"},
	{name: "seg", help: "also write the last frame's segmentation (one colour per body, black background) to `FILE.png`"},
	{name: "sheet", help: "also write a contact sheet of the episode (--sheet-frames frames, --sheet-cols per row) to `FILE.png`"},
	{name: "sheet-frames", kind: "int", def: "8", help: "frames in the contact sheet, evenly spread over the rendered ones"},
	{name: "sheet-cols", kind: "int", def: "4", help: "contact sheet columns"},
}

// renderJob is one robot-train render command, checked.
type renderJob struct {
	task, camera, policy, out, ext, backend, theme string
	engine                                         string
	w, h, steps, every                             int
	seed                                           uint64
	opts                                           render.CameraOptions
	extras                                         extraOutputs
	model                                          *modelRender // --model: an MJCF file instead of a task
}

func cmdRender(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	j, err := parseRender(args, stderr)
	if err != nil || j.model != nil {
		if err == nil { // render_model.go
			err = renderModel(ctx, stdout, *j.model)
		}
		return err
	}
	if IsGridTask(j.task) { // tile frames of the grid tasks (render_grid.go)
		if err := rundir.CheckEngine(j.task, j.engine); err != nil { // train's refusal
			return err
		}
		if j.extras.depth != "" || j.extras.seg != "" {
			return usagef("--depth and --seg are for the simulator's cameras; %s renders tiles", j.task)
		}
		return renderGrid(ctx, stdout, gridRender{task: j.task, policy: j.policy, theme: j.theme, out: j.out, ext: j.ext, sheet: j.extras.sheet,
			side: min(j.w, j.h), steps: j.steps, every: j.every, seed: j.seed, sheetFrames: j.extras.sheetFrames, sheetCols: j.extras.sheetCols})
	}
	env, err := makeTaskEnv(j.task, "", 0, j.engine) // unknown task or engine: *rundir.ConfigError (exit 2)
	if err != nil {
		return err
	}
	defer func() { _ = env.Close() }()
	pol, err := scriptedPolicy(j.policy, env, j.seed)
	if err != nil {
		return usagef("%v", err)
	}
	cam, err := openTaskCamera(j.backend, j.camera, j.theme, j.w, j.h, env, j.opts)
	if err != nil {
		return err
	}
	defer func() { _ = cam.Close() }()
	frames, success, err := j.episode(ctx, env, pol, cam)
	if err != nil {
		return err
	}
	if err := j.write(stdout, env, cam, frames, success); err != nil {
		return err
	}
	buffers := func(b render.Buffers) error { return cam.RenderBuffers(env.Model(), env.Data(), b) }
	return writeExtras(stdout, buffers, j.w, j.h, frames, j.extras)
}

// parseRender reads and checks render's flags.
func parseRender(args []string, stderr io.Writer) (*renderJob, error) {
	b, err := commandFlags("render", "--task NAME [--camera NAME] [--size WxH] [--policy expert|random] [--steps N] --out FILE.png|FILE.gif|FILE.mp4 [--depth FILE.png] [--seg FILE.png] [--sheet FILE.png]", renderFlags, args, stderr)
	if err != nil {
		return nil, err
	}
	j := &renderJob{task: b.str("task"), camera: b.str("camera"), policy: b.str("policy"), out: b.str("out"),
		backend: b.str("render-backend"), theme: b.str("theme"), engine: b.str("engine"), steps: b.int("steps"), every: b.int("every"), seed: b.u64("seed"),
		opts:   render.CameraOptions{Shadows: b.on("shadows"), MSAA: b.int("msaa"), Scenery: b.on("scenery")},
		extras: extraOutputs{depth: b.str("depth"), seg: b.str("seg"), sheet: b.str("sheet"), sheetFrames: b.int("sheet-frames"), sheetCols: b.int("sheet-cols")}}
	if ck := b.str("checkpoint"); ck != "" {
		return nil, usagef("render draws the scripted expert or random actions; a trained policy is drawn by eval: robot-train eval --checkpoint %s --video policy.gif (--camera, --video-size as here)", ck)
	}
	if m := b.str("model"); m != "" {
		j.model = &modelRender{file: m, camera: j.camera, out: j.out, backend: j.backend, size: b.str("size"), steps: j.steps, every: j.every,
			task: j.task, policy: j.policy, seed: j.seed}
		return j, nil
	}
	if j.task == "" {
		return nil, usagef("--task NAME is required (robot-train tasks lists them)")
	}
	if j.out == "" && j.extras.sheet == "" {
		return nil, usagef("--out FILE.png|FILE.gif|FILE.mp4 (or --sheet FILE.png) is required")
	}
	j.ext = strings.ToLower(filepath.Ext(j.out))
	if j.out == "" {
		j.ext = ".sheet"
	} else if j.ext != ".png" && j.ext != ".gif" && j.ext != ".mp4" {
		return nil, usagef("--out %s: the extension must be .png, .gif or .mp4", j.out)
	}
	for _, f := range []struct{ flag, path string }{{"--depth", j.extras.depth}, {"--seg", j.extras.seg}, {"--sheet", j.extras.sheet}} {
		if f.path != "" && strings.ToLower(filepath.Ext(f.path)) != ".png" {
			return nil, usagef("%s %s: the extension must be .png", f.flag, f.path)
		}
	}
	if j.opts.MSAA < 0 || j.opts.MSAA > 16 || j.extras.sheetFrames < 1 || j.extras.sheetCols < 1 {
		return nil, usagef("--msaa must be in 0..16, --sheet-frames and --sheet-cols ≥ 1")
	}
	if j.w, j.h, err = parseSize(b.str("size")); err != nil {
		return nil, err
	}
	if j.steps < 0 || j.every < 1 {
		return nil, usagef("--steps must be ≥ 0 and --every ≥ 1")
	}
	return j, nil
}

// episode runs the policy for the job's steps (one episode by default for
// GIF and MP4), keeping every --every-th frame for GIF, MP4 and sheets.
func (j *renderJob) episode(ctx context.Context, env *tasks.Env, pol Policy, cam *render.SimCamera) ([]*image.RGBA, bool, error) {
	n := j.steps
	if n == 0 && j.ext != ".png" {
		n = env.Spec().MaxEpisodeSteps
	}
	// GIF, MP4 and contact sheets keep every --every-th frame, all in
	// memory until written: refuse a size and length that would not fit
	collect := j.ext != ".png" || j.extras.sheet != ""
	if collect {
		nf := int64(min(n, env.Spec().MaxEpisodeSteps)/j.every + 2)
		if need := nf * int64(j.w) * int64(j.h) * 4; need > maxRenderBytes {
			return nil, false, usagef("%d frames of %dx%d need %d MiB (limit %d MiB): use a smaller --size, a larger --every, or fewer --steps",
				nf, j.w, j.h, need>>20, maxRenderBytes>>20)
		}
	}
	ep := NewEpisodes(env, pol, j.seed)
	ep.Reset()
	var frames []*image.RGBA
	grab := func() error {
		img := image.NewRGBA(image.Rect(0, 0, j.w, j.h))
		if err := cam.Render(env, img); err != nil {
			return err
		}
		frames = append(frames, img)
		return nil
	}
	if collect {
		if err := grab(); err != nil {
			return nil, false, err
		}
	}
	success := false
	for t := 1; t <= n; t++ {
		if err := ctx.Err(); err != nil {
			return nil, false, err
		}
		term, trunc, ok, err := ep.Step()
		if err != nil {
			return nil, false, err
		}
		success = success || ok
		if collect && (t%j.every == 0 || term || trunc || t == n) {
			if err := grab(); err != nil {
				return nil, false, err
			}
		}
		if term || trunc {
			break
		}
	}
	return frames, success, nil
}

// write saves --out: the current frame as PNG, or the frames as GIF/MP4.
func (j *renderJob) write(stdout io.Writer, env *tasks.Env, cam *render.SimCamera, frames []*image.RGBA, success bool) error {
	var err error
	switch j.ext {
	case ".png":
		img := image.NewRGBA(image.Rect(0, 0, j.w, j.h))
		if err := cam.Render(env, img); err != nil {
			return err
		}
		err = render.WritePNG(j.out, img)
	case ".gif":
		err = render.WriteGIF(j.out, frames, 4)
	case ".mp4":
		err = render.WriteMP4(j.out, frames, 25)
	}
	if err != nil || j.out == "" {
		return err
	}
	what := map[bool]string{true: "task succeeded", false: "no success"}[success]
	nf := len(frames)
	if j.ext == ".png" {
		nf = 1
	}
	_, _ = fmt.Fprintf(stdout, "wrote %s (%d frame(s), %s camera, %dx%d, %s; %s)\n", j.out, nf, j.camera, j.w, j.h, cam.Describe(), what)
	return nil
}

// viewFlags is the table of robot-train view's flags.
var viewFlags = []flagDef{
	{name: "task", help: "task `NAME` (default: the checkpoint's task)"},
	{name: "engine", help: "tabletop tasks: physics engine articulated, the only one; a checkpoint trained on the removed engine sim needs --engine articulated (a transfer)"},
	{name: "policy", def: "expert", help: "policy: expert|random"},
	{name: "checkpoint", help: "watch the newest checkpoint of `RUN_DIR`"},
	{name: "seed", kind: "uint", def: "0", help: "seed `S` of the first episode"},
	{name: "max-frames", kind: "int", def: "0", help: "close after N frames (0: run until the window is closed)"},
}

func cmdView(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("view", "--task NAME [--engine articulated] [--policy expert|random | --checkpoint RUN_DIR]", stderr)
	def := rundir.DefaultConfig()
	b, err := bindFlags(fs, viewFlags, &def)
	if err != nil {
		return err
	}
	flagUsage := fs.Usage
	fs.Usage = func() {
		flagUsage()
		_, _ = fmt.Fprintf(stderr, "\nwindow controls:\n%s", render.ViewerControls)
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	task, policy, ckpt, seed, maxFrames := b.str("task"), b.str("policy"), b.str("checkpoint"), b.u64("seed"), b.int("max-frames")
	name, engine, transfer := task, "", false
	var pol Policy
	if ckpt != "" {
		agent, cfg, _, err := rundir.LoadAgent(ckpt)
		if err != nil {
			return err
		}
		defer agent.Close()
		if name == "" {
			name = cfg.Task
		}
		engine = cfg.Engine
		if rundir.OldEngine(&cfg) {
			if b.str("engine") == "" {
				return rundir.OldEngineError(ckpt, "watch")
			}
			transfer = true // said once --engine has passed its check
		}
		pol = rundir.AgentPolicy(agent)
	}
	if name == "" {
		return usagef("--task NAME is required (robot-train tasks lists them)")
	}
	if e := b.str("engine"); e != "" {
		engine = e // the checkpoint's policy on another engine, as eval --engine
	}
	if err := rundir.CheckEngine(tasks.Canonical(name), engine); err != nil {
		return err
	}
	if transfer {
		_, _ = fmt.Fprintf(stderr, "view: %s\n", rundir.TransferNote)
	}
	env, err := makeTaskEnv(name, "", 0, engine) // unknown task or engine: *rundir.ConfigError (exit 2)
	if err != nil {
		return err
	}
	defer func() { _ = env.Close() }()
	if pol == nil {
		if pol, err = scriptedPolicy(policy, env, seed); err != nil {
			return usagef("%v", err)
		}
	}
	var cams []render.Camera
	for _, n := range []string{"corner", "topview", "behindGripper"} {
		if c, err := render.NamedCamera(n, render.MetaWorldCenter, 800, 600); err == nil {
			cams = append(cams, c)
		}
	}
	ep := NewEpisodes(env, pol, seed)
	ep.Reset()
	var sc render.Scene
	_, _ = fmt.Fprintf(stdout, "viewing %s; window controls:\n%s", name, render.ViewerControls)
	err = render.RunViewer(render.ViewerConfig{
		Title: "robot-train view " + name, Target: render.MetaWorldCenter, Distance: 1.2, Cameras: cams,
		Resolve: func(c render.Camera) render.Camera {
			c, _ = render.ResolveCamera(env.Model(), env.Data(), c)
			return c
		},
		Status:    ep.Status,
		MaxFrames: maxFrames,
	}, func() error {
		if err := ctx.Err(); err != nil {
			return err
		}
		term, trunc, _, err := ep.Step()
		if err != nil {
			return err
		}
		if term || trunc {
			ep.Reset()
		}
		return nil
	}, func() *render.Scene {
		sc.UpdateFromModel(env.Model(), env.Data(), nil)
		return &sc
	})
	if errors.Is(err, render.ErrNoDisplay) {
		return fmt.Errorf("%w: view needs a display; set DISPLAY, run it under xvfb-run, or use robot-train render --out FILE.gif", err)
	}
	return err
}
