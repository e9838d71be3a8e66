package main

import (
	"context"
	"image"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/tasks/grid"
	"github.com/vlmrb/vlmrb/train"
	"github.com/vlmrb/vlmrb/vlmprio"
)

// SimClips runs ep.Policy on ep.Env episode after episode and cuts what
// the camera saw into clips of c (env 0), handing each batch of finished
// clips to take until take returns true. A step's frame is rendered
// before the step, with the task progress of that moment (HasProgress);
// cam nil renders no image (the oracle scorer needs only progress).
// Frames are w×h and named camera.
func SimClips(ctx context.Context, ep *Episodes, cam *render.SimCamera, camera string, w, h int, c *vlmprio.Clipper, take func([]*vlmprio.Clip) bool) error {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	slot := int32(0)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		ep.Reset()
		for t := 0; ; t++ {
			prog, _ := ep.Env.Progress()
			f := frame.Frame{Camera: camera, Seq: uint64(t)}
			if cam != nil {
				if err := cam.Render(ep.Env, img); err != nil {
					return err
				}
				f.Image = img
			}
			term, trunc, _, err := ep.Step()
			if err != nil {
				return err
			}
			done := term || trunc
			slot++
			if take(c.Push(0, vlmprio.Step{Episode: int64(ep.Episode()), Frame: f, Ref: replay.Ref{Slot: slot, Gen: 1},
				Progress: prog, HasProgress: true, Done: done})) {
				return nil
			}
			if done {
				break
			}
		}
	}
}

// GridClips is SimClips for a grid task (robot-train score --source
// sim:doorkey-N): policy (expert|random) plays episode after episode of
// task from seed, and the tile frame of each state an action is taken in
// (o_t), in theme at about side px, becomes a clip step with that state's
// stage as its progress; a terminated episode's final state o_T closes its
// clips — the frame rule of training (vlmprio.Pipeline). The oracle needs
// no images; noImages skips drawing them. Bad names are a
// *train.ConfigError.
func GridClips(ctx context.Context, task, policy, theme string, side int, seed uint64, noImages bool, c *vlmprio.Clipper, take func([]*vlmprio.Clip) bool) error {
	th, err := grid.ParseTheme(theme)
	if err != nil {
		return &train.ConfigError{Msg: err.Error()}
	}
	env, err := grid.Make(task, grid.Options{})
	if err != nil {
		return &train.ConfigError{Msg: err.Error()}
	}
	next, err := gridActions(policy, env, seed)
	if err != nil {
		return err
	}
	tile := env.TileFor(side)
	px := env.FrameSize(tile)
	img, last := image.NewRGBA(image.Rect(0, 0, px, px)), image.NewRGBA(image.Rect(0, 0, px, px))
	snap := func(dst *image.RGBA) (frame.Frame, float64) {
		f := frame.Frame{Camera: "grid", Seq: uint64(env.StepCount())}
		if !noImages {
			env.Render(dst, tile, th)
			f.Image = dst
		}
		return f, float64(env.Stage()) / float64(len(grid.Stages)-1)
	}
	slot := int32(0)
	for ep := 0; ; ep++ {
		env.Reset(control.EpisodeSeed(seed, 0, ep))
		for {
			if err := ctx.Err(); err != nil {
				return err
			}
			f, prog := snap(img) // o_t
			_, term, trunc := env.StepIndex(next())
			st := vlmprio.Step{Episode: int64(ep), Frame: f, Ref: replay.Ref{Slot: slot + 1, Gen: 1},
				Progress: prog, HasProgress: true, Done: term || trunc}
			if term {
				ft, pt := snap(last) // o_T
				st.Terminal, st.TerminalProgress = &ft, pt
			}
			slot++
			if take(c.Push(0, st)) {
				return nil
			}
			if st.Done {
				break
			}
		}
	}
}
