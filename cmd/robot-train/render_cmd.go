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
	"github.com/vlmrb/vlmrb/train"
)

// maxRenderBytes bounds the frames render keeps for a GIF, MP4 or sheet.
const maxRenderBytes = 1 << 30

func cmdRender(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("render", "--task NAME [--camera NAME] [--size WxH] [--policy expert|random] [--steps N] --out FILE.png|FILE.gif|FILE.mp4 [--depth FILE.png] [--seg FILE.png] [--sheet FILE.png]", stderr)
	task := fs.String("task", "", "task `NAME`")
	model := fs.String("model", "", "render an MJCF model `FILE.xml` instead of a task (--camera: one of its cameras, default a view of the whole model)")
	camera := fs.String("camera", train.TaskCamera, "camera: task (the task's scorer views), workspace, corner, corner2, corner3, corner4, topview, close, behindGripper, gripperPOV")
	size := fs.String("size", "256x256", "image size `WxH`")
	policy := fs.String("policy", "expert", "policy that moves the robot: expert|random")
	steps := fs.Int("steps", 0, "control steps to run (PNG: the frame after N steps; GIF/MP4: N+1 frames; default 0 for PNG, one episode otherwise)")
	seed := fs.Uint64("seed", 0, "episode seed `S`")
	out := fs.String("out", "", "output `FILE` (.png, .gif or .mp4)")
	backend := fs.String("render-backend", "auto", "renderer: auto|egl|soft")
	every := fs.Int("every", 2, "GIF/MP4: keep every k-th control step")
	theme := fs.String("theme", "standard", "appearance: standard|misleading|abstract")
	opts := train.DefaultCameraOptions()
	fs.BoolVar(&opts.Shadows, "shadows", opts.Shadows, "shadow map from the key light")
	fs.IntVar(&opts.MSAA, "msaa", opts.MSAA, "anti-aliasing samples per pixel `N` (0 or 1: off)")
	fs.BoolVar(&opts.Scenery, "scenery", opts.Scenery, "draw the robot arm, table legs, floor and backdrop")
	depthOut := fs.String("depth", "", "also write the last frame's linear depth as a 16-bit grey PNG in mm (0: nothing) to `FILE.png`")
	segOut := fs.String("seg", "", "also write the last frame's segmentation (one colour per body, black background) to `FILE.png`")
	sheetOut := fs.String("sheet", "", "also write a contact sheet of the episode (--sheet-frames frames, --sheet-cols per row) to `FILE.png`")
	sheetFrames := fs.Int("sheet-frames", 8, "frames in the contact sheet, evenly spread over the rendered ones")
	sheetCols := fs.Int("sheet-cols", 4, "contact sheet columns")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *model != "" {
		return renderModel(ctx, stdout, modelRender{file: *model, camera: *camera, out: *out, backend: *backend, size: *size, steps: *steps, every: *every})
	}
	if *task == "" {
		return usagef("--task NAME is required (robot-train tasks lists them)")
	}
	if *out == "" && *sheetOut == "" {
		return usagef("--out FILE.png|FILE.gif|FILE.mp4 (or --sheet FILE.png) is required")
	}
	ext := strings.ToLower(filepath.Ext(*out))
	if *out == "" {
		ext = ".sheet"
	} else if ext != ".png" && ext != ".gif" && ext != ".mp4" {
		return usagef("--out %s: the extension must be .png, .gif or .mp4", *out)
	}
	for _, f := range []struct{ flag, path string }{{"--depth", *depthOut}, {"--seg", *segOut}, {"--sheet", *sheetOut}} {
		if f.path != "" && strings.ToLower(filepath.Ext(f.path)) != ".png" {
			return usagef("%s %s: the extension must be .png", f.flag, f.path)
		}
	}
	if opts.MSAA < 0 || opts.MSAA > 16 || *sheetFrames < 1 || *sheetCols < 1 {
		return usagef("--msaa must be in 0..16, --sheet-frames and --sheet-cols ≥ 1")
	}
	w, h, err := parseSize(*size)
	if err != nil {
		return err
	}
	if *steps < 0 || *every < 1 {
		return usagef("--steps must be ≥ 0 and --every ≥ 1")
	}
	if train.IsGridTask(*task) { // tile frames of the grid tasks (render_grid.go)
		if *depthOut != "" || *segOut != "" {
			return usagef("--depth and --seg are for the simulator's cameras; %s renders tiles", *task)
		}
		return renderGrid(ctx, stdout, gridRender{task: *task, policy: *policy, theme: *theme, out: *out, ext: ext, sheet: *sheetOut,
			side: min(w, h), steps: *steps, every: *every, seed: *seed, sheetFrames: *sheetFrames, sheetCols: *sheetCols})
	}
	env, err := train.MakeTaskEnv(*task, "", 0) // unknown task: *train.ConfigError (exit 2)
	if err != nil {
		return err
	}
	defer func() { _ = env.Close() }()
	pol, err := train.ScriptedPolicy(*policy, env, *seed)
	if err != nil {
		return usagef("%v", err)
	}
	cam, err := train.NewSimCameraWith(*backend, *camera, *theme, w, h, env, opts)
	if err != nil {
		return err
	}
	defer cam.Close()
	n := *steps
	if n == 0 && ext != ".png" {
		n = env.Spec().MaxEpisodeSteps
	}
	// GIF, MP4 and contact sheets keep every --every-th frame, all in
	// memory until written: refuse a size and length that would not fit
	collect := ext != ".png" || *sheetOut != ""
	if collect {
		nf := int64(min(n, env.Spec().MaxEpisodeSteps)/(*every) + 2)
		if need := nf * int64(w) * int64(h) * 4; need > maxRenderBytes {
			return usagef("%d frames of %dx%d need %d MiB (limit %d MiB): use a smaller --size, a larger --every, or fewer --steps",
				nf, w, h, need>>20, maxRenderBytes>>20)
		}
	}
	ep := train.NewEpisodes(env, pol, *seed)
	ep.Reset()
	var frames []*image.RGBA
	grab := func() error {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		if err := cam.Render(env, img); err != nil {
			return err
		}
		frames = append(frames, img)
		return nil
	}
	if collect {
		if err := grab(); err != nil {
			return err
		}
	}
	success := false
	for t := 1; t <= n; t++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		term, trunc, ok, err := ep.Step()
		if err != nil {
			return err
		}
		success = success || ok
		if collect && (t%*every == 0 || term || trunc || t == n) {
			if err := grab(); err != nil {
				return err
			}
		}
		if term || trunc {
			break
		}
	}
	switch ext {
	case ".png":
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		if err := cam.Render(env, img); err != nil {
			return err
		}
		err = render.WritePNG(*out, img)
	case ".gif":
		err = render.WriteGIF(*out, frames, 4)
	case ".mp4":
		err = render.WriteMP4(*out, frames, 25)
	}
	if err != nil {
		return err
	}
	what := map[bool]string{true: "task succeeded", false: "no success"}[success]
	if *out != "" {
		nf := len(frames)
		if ext == ".png" {
			nf = 1
		}
		_, _ = fmt.Fprintf(stdout, "wrote %s (%d frame(s), %s camera, %dx%d, %s; %s)\n", *out, nf, *camera, w, h, cam.Describe(), what)
	}
	buffers := func(b render.Buffers) error { return cam.RenderBuffers(env.Model(), env.State(), b) }
	return writeExtras(stdout, buffers, cam.Width, cam.Height, frames, extraOutputs{depth: *depthOut, seg: *segOut, sheet: *sheetOut, sheetFrames: *sheetFrames, sheetCols: *sheetCols})
}

func cmdView(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("view", "--task NAME [--policy expert|random | --checkpoint RUN_DIR]", stderr)
	task := fs.String("task", "", "task `NAME` (default: the checkpoint's task)")
	policy := fs.String("policy", "expert", "policy: expert|random")
	ckpt := fs.String("checkpoint", "", "watch the newest checkpoint of `RUN_DIR`")
	seed := fs.Uint64("seed", 0, "seed `S` of the first episode")
	maxFrames := fs.Int("max-frames", 0, "close after N frames (0: run until the window is closed)")
	flagUsage := fs.Usage
	fs.Usage = func() {
		flagUsage()
		_, _ = fmt.Fprintf(stderr, "\nwindow controls:\n%s", render.ViewerControls)
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	name := *task
	var pol train.Policy
	if *ckpt != "" {
		agent, cfg, _, err := train.LoadAgent(*ckpt)
		if err != nil {
			return err
		}
		defer agent.Close()
		if name == "" {
			name = cfg.Task
		}
		pol = train.AgentPolicy(agent)
	}
	if name == "" {
		return usagef("--task NAME is required (robot-train tasks lists them)")
	}
	env, err := train.MakeTaskEnv(name, "", 0) // unknown task: *train.ConfigError (exit 2)
	if err != nil {
		return err
	}
	defer func() { _ = env.Close() }()
	if pol == nil {
		if pol, err = train.ScriptedPolicy(*policy, env, *seed); err != nil {
			return usagef("%v", err)
		}
	}
	var cams []render.Camera
	for _, n := range []string{"corner", "topview", "behindGripper"} {
		if c, err := render.NamedCamera(n, render.MetaWorldCenter, 800, 600); err == nil {
			cams = append(cams, c)
		}
	}
	ep := train.NewEpisodes(env, pol, *seed)
	ep.Reset()
	var sc render.Scene
	_, _ = fmt.Fprintf(stdout, "viewing %s; window controls:\n%s", name, render.ViewerControls)
	err = render.RunViewer(render.ViewerConfig{
		Title: "robot-train view " + name, Target: render.MetaWorldCenter, Distance: 1.2, Cameras: cams,
		Resolve: func(c render.Camera) render.Camera {
			c, _ = render.ResolveCamera(env.Model(), env.State(), c)
			return c
		},
		Status:    ep.Status,
		MaxFrames: *maxFrames,
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
		sc.UpdateFromSim(env.Model(), env.State(), nil)
		return &sc
	})
	if errors.Is(err, render.ErrNoDisplay) {
		return fmt.Errorf("%w: view needs a display; set DISPLAY, run it under xvfb-run, or use robot-train render --out FILE.gif", err)
	}
	return err
}
