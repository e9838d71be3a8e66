package main

import (
	"context"
	"fmt"
	"image"
	"io"
	"path/filepath"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks"
)

// renderArmTask is render --model FILE.xml --task pick|push: the scene
// that panda-pick or panda-push composes around the arm (table and cube),
// after Reset(--seed), moved by --policy expert|random for --steps control
// steps (PNG: the last frame; GIF/MP4: every --every-th), seen from the
// scorer's view in training (rundir.ArmObjectCamera).
func renderArmTask(ctx context.Context, stdout io.Writer, r modelRender, ext string, w, h int) error {
	task := armTask(tasks.Canonical(r.task))
	var obj string
	switch task {
	case tasks.ArmPickName:
		obj = "pick"
	case tasks.ArmPushName:
		obj = "push"
	default:
		return usagef("--model with --task renders the scene of %s or %s (--task pick or push), not %s; without --task it renders the model alone", tasks.ArmPickName, tasks.ArmPushName, r.task)
	}
	if r.camera != "" && r.camera != render.TaskCamera {
		return usagef("--camera %q: the %s scene is filmed from its default view (omit --camera)", r.camera, task)
	}
	env, err := tasks.LoadArmObject(r.file, tasks.ArmObjectOptions{Task: obj})
	if err != nil {
		return err
	}
	var pol control.Policy
	switch r.policy {
	case "", "expert":
		pol = env.Expert()
	case "random":
		pol = control.RandomPolicy(r.seed)
	default:
		return usagef("--policy %q is not one of expert|random", r.policy)
	}
	n := r.steps
	every := max(r.every, 1)
	if ext != ".png" {
		if n == 0 {
			n = env.Spec().MaxEpisodeSteps
		}
		if f := n/every + 1; f > maxModelFrames(w, h) {
			return usagef("--steps %d with --every %d makes %d frames of %dx%d, over the cap of %d: raise --every or lower --steps", n, every, f, w, h, maxModelFrames(w, h))
		}
	}
	rd, err := render.New(r.backend, render.Options{})
	if err != nil {
		return err
	}
	defer func() { _ = rd.Close() }()
	a := env.Model()
	sc := render.NewModelScene(a)
	obs, _ := env.Reset(r.seed)
	d := env.Data()
	cam := rundir.ArmObjectCamera(env, w, h) // the scorer's view
	var frames []*image.RGBA
	grab := func() error {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		frames = append(frames, img)
		return rd.Render(sc.Update(d), cam, img)
	}
	act := make([]float64, env.Spec().ActDim)
	for t := 0; t <= n; t++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if t > 0 {
			pol.Act(obs, act)
			var term, trunc bool
			if obs, _, term, trunc, _, err = env.Step(act); err != nil {
				return err
			}
			if term || trunc {
				n = t
			}
		}
		if ext != ".png" && t%every == 0 {
			if err := grab(); err != nil {
				return err
			}
		}
	}
	if err := writeModelClip(r.out, ext, &frames, grab); err != nil {
		return err
	}
	_, _ = fmt.Fprintf(stdout, "wrote %s: %s scene around %s after %d control steps of the %s policy (seed %d) with %s\n", r.out, task, filepath.Base(r.file), n, r.policy, r.seed, rd.Info())
	return nil
}
