package main

import (
	"context"
	"fmt"
	"image"
	"io"
	"path/filepath"
	"strings"

	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

// modelRender is `render --model FILE.xml`: an imported MJCF model on the
// articulated engine (mjcf.Load, sim/articulated), at qpos0 or
// stepped with zero controls, from one of its cameras.
type modelRender struct {
	file, camera, out, backend, size string
	steps, every                     int
	task, policy                     string // --task pick|push: the object task's scene (render_armtask.go)
	seed                             uint64
}

func renderModel(ctx context.Context, stdout io.Writer, r modelRender) error {
	if r.out == "" {
		return usagef("--out FILE.png|FILE.gif|FILE.mp4 is required")
	}
	ext := strings.ToLower(filepath.Ext(r.out))
	if ext != ".png" && ext != ".gif" && ext != ".mp4" {
		return usagef("--out %s: the extension must be .png, .gif or .mp4", r.out)
	}
	w, h, err := parseSize(r.size)
	if err != nil {
		return err
	}
	if r.task != "" {
		return renderArmTask(ctx, stdout, r, ext, w, h)
	}
	a, err := mjcf.Load(r.file, mjcf.Options{})
	if err != nil {
		return err
	}
	m := a.Model
	for _, wmsg := range a.Warnings {
		_, _ = fmt.Fprintln(stdout, "warning:", wmsg)
	}
	cam := -1
	if r.camera != "" && r.camera != render.TaskCamera {
		for i := range a.Cameras {
			if a.Cameras[i].Name == r.camera {
				cam = i
			}
		}
		if cam < 0 {
			names := []string{}
			for _, c := range a.Cameras {
				names = append(names, c.Name)
			}
			return usagef("--camera %q: the model's cameras are %v (omit --camera for a view of the whole model)", r.camera, names)
		}
	}
	rd, err := render.New(r.backend, render.Options{})
	if err != nil {
		return err
	}
	defer func() { _ = rd.Close() }()
	d := articulated.NewData(m)
	sc := render.NewModelScene(a)
	n := r.steps
	if ext != ".png" {
		every := max(r.every, 1)
		limit := maxModelFrames(w, h)
		if n == 0 {
			n = int(2 / (m.Opt.Timestep * 10)) // 2 s at 10 steps per frame
			if n/every+1 > limit {
				n = (limit - 1) * every
				_, _ = fmt.Fprintf(stdout, "note: 2 s of this model at a %g s timestep is more than %d frames of %dx%d; rendering the first %d control steps\n", m.Opt.Timestep, limit, w, h, n)
			}
		} else if f := n/every + 1; f > limit {
			return usagef("--steps %d with --every %d makes %d frames of %dx%d, over the cap of %d (at most %d frames, as eval --video, and %d MiB of frames): raise --every or lower --steps", n, every, f, w, h, limit, render.MaxClipFrames, maxFrameBytes>>20)
		}
	}
	var frames []*image.RGBA
	grab := func() error {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		frames = append(frames, img)
		articulated.Forward(m, d) // the kinematics of the current qpos
		return rd.Render(sc.Update(d), render.ModelCamera(a, d, cam, w, h), img)
	}
	for t := 0; t <= n; t++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if t > 0 {
			for k := 0; k < 10; k++ { // a control step is 10 physics steps
				articulated.Step(m, d)
			}
		}
		if ext != ".png" && t%r.every == 0 {
			if err := grab(); err != nil {
				return err
			}
		}
	}
	if wn := d.Warnings; wn.Total() > 0 {
		_, _ = fmt.Fprintf(stdout, "warning: the simulation needed help: %d resets for bad qpos, %d for bad qvel, %d for bad qacc, %d times over the contact buffer; the model may be unstable\n",
			wn.BadQpos, wn.BadQvel, wn.BadQacc, wn.Contacts)
	}
	if err := writeModelClip(r.out, ext, &frames, grab); err != nil {
		return err
	}
	_, _ = fmt.Fprintf(stdout, "wrote %s: %s (%d bodies, %d geoms) on the articulated engine with %s\n", r.out, filepath.Base(r.file), len(m.Bodies), len(a.Geoms), rd.Info())
	return nil
}

// maxFrameBytes bounds the memory of the frames a GIF or MP4 of `render
// --model` holds before encoding.
const maxFrameBytes = 256 << 20

// maxModelFrames is the most frames of w×h a GIF or MP4 of `render
// --model` keeps: render.MaxClipFrames (eval --video's cap), fewer when
// they would pass maxFrameBytes.
func maxModelFrames(w, h int) int {
	return max(1, min(render.MaxClipFrames, maxFrameBytes/max(1, 4*w*h)))
}

// writeModelClip writes a --model render to out by its extension: a PNG of
// one last frame that grab appends to *frames, or the frames so far as a
// GIF or an MP4.
func writeModelClip(out, ext string, frames *[]*image.RGBA, grab func() error) error {
	switch ext {
	case ".png":
		if err := grab(); err != nil {
			return err
		}
		return render.WritePNG(out, (*frames)[len(*frames)-1])
	case ".gif":
		return render.WriteGIF(out, *frames, 4)
	case ".mp4":
		return render.WriteMP4(out, *frames, 25)
	}
	return nil
}
