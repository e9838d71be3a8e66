package grid

import (
	"context"
	"image"
	"time"

	"github.com/vlmrb/vlmrb/frame"
)

// Source returns e as a camera: each Next renders e's current state with
// tiles of tile pixels in theme, named "grid" and stamped with the episode
// step as seconds since the Unix epoch (step t at t s), so a frame says
// which state of the episode it shows. Use it from the goroutine that
// steps e; Close leaves e open.
func (e *Env) Source(tile int, theme Theme) frame.Source {
	return &source{env: e, tile: max(tile, 1), theme: theme}
}

type source struct {
	env    *Env
	tile   int
	theme  Theme
	seq    uint64
	closed bool
}

func (s *source) Next(ctx context.Context, dst *frame.Frame) error {
	if s.closed {
		return frame.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	side := s.env.FrameSize(s.tile)
	dst.Image = frame.EnsureRGBA(dst.Image, image.Rect(0, 0, side, side))
	s.env.Render(dst.Image, s.tile, s.theme)
	dst.Depth = nil
	dst.Camera, dst.Seq = "grid", s.seq
	dst.Time = time.Unix(0, 0).Add(time.Duration(s.env.StepCount()) * time.Second)
	s.seq++
	return nil
}

func (s *source) Close() error { s.closed = true; return nil }
