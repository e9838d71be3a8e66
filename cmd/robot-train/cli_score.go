package main

import (
	"context"
	"image"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks/grid"
	"github.com/vlmrb/vlmrb/vlmprio"
)

// SimClips runs ep.Policy on ep.Env episode after episode and cuts what
// the camera saw into clips of c (env 0) by training's frame rule
// (vlmprio.EpisodeClips), handing each batch of finished clips to take
// until take returns true. A step's frame is rendered before the step,
// with the task progress of that moment; cam nil renders no image (the
// oracle scorer needs only progress). Frames are w×h and named camera.
func SimClips(ctx context.Context, ep *Episodes, cam *render.SimCamera, camera string, w, h int, c *vlmprio.Clipper, take func([]*vlmprio.Clip) bool) error {
	return vlmprio.EpisodeClips(ctx, &simPlayer{ep: ep, cam: cam, camera: camera, w: w, h: h}, c, take)
}

// simPlayer is a tabletop task under a policy, seen by a sim camera.
type simPlayer struct {
	ep     *Episodes
	cam    *render.SimCamera
	camera string
	w, h   int
}

func (p *simPlayer) Reset(int) error { p.ep.Reset(); return nil }

func (p *simPlayer) Observe(dst *frame.Frame) (float64, error) {
	prog, _ := p.ep.Env.Progress()
	*dst = frame.Frame{Camera: p.camera, Seq: uint64(p.ep.T), Image: dst.Image}
	if p.cam == nil {
		dst.Image = nil
		return prog, nil
	}
	dst.Image = frame.EnsureRGBA(dst.Image, image.Rect(0, 0, p.w, p.h))
	return prog, p.cam.Render(p.ep.Env, dst.Image)
}

func (p *simPlayer) Act() (bool, bool, error) {
	term, trunc, _, err := p.ep.Step()
	return term, trunc, err
}

// GridClips is SimClips for a grid task (robot-train score --source
// sim:doorkey-N): policy (expert|random) plays episode after episode of
// task from seed, and the tile frame of each state an action is taken in
// (o_t), in theme at about side px, becomes a clip step with that state's
// stage as its progress; a terminated episode's final state o_T closes its
// clips. The oracle needs no images; noImages skips drawing them. Bad
// names are a *rundir.ConfigError.
func GridClips(ctx context.Context, task, policy, theme string, side int, seed uint64, noImages bool, c *vlmprio.Clipper, take func([]*vlmprio.Clip) bool) error {
	th, err := grid.ParseTheme(theme)
	if err != nil {
		return &rundir.ConfigError{Msg: err.Error()}
	}
	env, err := grid.Make(task, grid.Options{})
	if err != nil {
		return &rundir.ConfigError{Msg: err.Error()}
	}
	next, err := gridActions(policy, env, seed)
	if err != nil {
		return err
	}
	return vlmprio.EpisodeClips(ctx, &gridPlayer{env: env, next: next, seed: seed, theme: th, tile: env.TileFor(side), noImages: noImages}, c, take)
}

// gridPlayer is a grid task under a scripted policy, drawn as tiles.
type gridPlayer struct {
	env      *grid.Env
	next     func() grid.Action
	seed     uint64
	theme    grid.Theme
	tile     int
	noImages bool
}

func (p *gridPlayer) Reset(ep int) error {
	p.env.Reset(control.EpisodeSeed(p.seed, 0, ep))
	return nil
}

func (p *gridPlayer) Observe(dst *frame.Frame) (float64, error) {
	*dst = frame.Frame{Camera: "grid", Seq: uint64(p.env.StepCount()), Image: dst.Image}
	if p.noImages {
		dst.Image = nil
	} else {
		px := p.env.FrameSize(p.tile)
		dst.Image = frame.EnsureRGBA(dst.Image, image.Rect(0, 0, px, px))
		p.env.Render(dst.Image, p.tile, p.theme)
	}
	return float64(p.env.Stage()) / float64(len(grid.Stages)-1), nil
}

func (p *gridPlayer) Act() (bool, bool, error) {
	_, term, trunc := p.env.StepIndex(p.next())
	return term, trunc, nil
}
