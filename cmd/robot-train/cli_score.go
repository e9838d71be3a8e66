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
// task from seed, and each step's tile frame of the state it reached, in
// theme at about side px, becomes a clip step with the stage reached as
// its progress, as in training (gridScoring). The oracle needs no
// images; noImages skips drawing them. Bad names are a *train.ConfigError.
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
	img := image.NewRGBA(image.Rect(0, 0, px, px))
	slot := int32(0)
	for ep := 0; ; ep++ {
		env.Reset(control.EpisodeSeed(seed, 0, ep))
		for t := 1; ; t++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			_, term, trunc := env.StepIndex(next())
			f := frame.Frame{Camera: "grid", Seq: uint64(t)}
			if !noImages {
				env.Render(img, tile, th)
				f.Image = img
			}
			done := term || trunc
			slot++
			if take(c.Push(0, vlmprio.Step{Episode: int64(ep), Frame: f, Ref: replay.Ref{Slot: slot, Gen: 1},
				Progress: float64(env.Stage()) / float64(len(grid.Stages)-1), HasProgress: true, Done: done})) {
				return nil
			}
			if done {
				break
			}
		}
	}
}
