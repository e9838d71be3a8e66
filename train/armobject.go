package train

// Tasks panda-pick and panda-push on train.Run: the object tasks over an
// imported MJCF arm with its own gripper (tasks.ArmObject), in the SAC
// runner beside arm-reach (armrun.go), with frames for the scorer
// rendered from the articulated scene (render.ModelScene).

import (
	"context"
	"fmt"
	"image"
	"sync"
	"time"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
	"github.com/vlmrb/vlmrb/tasks"
)

// armFrameSources renders each arm env's scene for the scorer: one
// renderer (vlm.backend) shared by the envs' sources, a fixed camera per
// env (rundir.ArmObjectCamera; for other arm tasks the whole model from the
// front-right above, fixed at the first frame), vlm.width × vlm.height.
func (r *runner) armFrameSources() ([]frame.Source, error) {
	cfg := &r.cfg
	rd, err := render.New(cfg.VLM.Backend, render.Options{})
	if err != nil {
		return nil, fmt.Errorf("scorer frames: %w", err)
	}
	sh := &artShared{rd: rd, users: len(r.arm)}
	srcs := make([]frame.Source, len(r.arm))
	for i, e := range r.arm {
		f := newArtFrames(e.Model(), e.Data(), sh, cfg.VLM.Width, cfg.VLM.Height)
		if o, ok := e.(*tasks.ArmObject); ok {
			c := rundir.ArmObjectCamera(o, cfg.VLM.Width, cfg.VLM.Height)
			f.cam = &c
		}
		srcs[i] = f
	}
	return srcs, nil
}

// artShared is a renderer shared by frame sources, closed with the last.
type artShared struct {
	mu    sync.Mutex
	rd    render.Renderer
	users int
}

// artFrames is a frame.Source that renders an articulated scene's current
// state (the env's Data, read at each Next) from a fixed camera.
type artFrames struct {
	sh     *artShared
	a      *mjcf.Model
	d      *articulated.Data
	sc     *render.ModelScene
	cam    *render.Camera
	w, h   int
	seq    uint64
	closed bool
}

// newArtFrames returns a frame source of model a in state d (read at each
// Next; the caller keeps its kinematics current) through sh's renderer,
// w × h, from the default view of render.ModelCamera fixed at the first
// frame.
func newArtFrames(a *mjcf.Model, d *articulated.Data, sh *artShared, w, h int) *artFrames {
	return &artFrames{sh: sh, a: a, d: d, sc: render.NewModelScene(a), w: w, h: h}
}

func (s *artFrames) Next(ctx context.Context, dst *frame.Frame) error {
	if s.closed {
		return frame.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.cam == nil {
		c := render.ModelCamera(s.a, s.d, -1, s.w, s.h)
		s.cam = &c
	}
	dst.Image = frame.EnsureRGBA(dst.Image, image.Rect(0, 0, s.w, s.h))
	s.sh.mu.Lock()
	err := s.sh.rd.Render(s.sc.Update(s.d), *s.cam, dst.Image)
	s.sh.mu.Unlock()
	if err != nil {
		return err
	}
	dst.Depth = nil
	dst.Camera, dst.Seq = "scene", s.seq
	dst.Time = time.Unix(0, 0).Add(time.Duration(s.d.Time * float64(time.Second)))
	s.seq++
	return nil
}

func (s *artFrames) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.sh.mu.Lock()
	defer s.sh.mu.Unlock()
	if s.sh.users--; s.sh.users == 0 {
		return s.sh.rd.Close()
	}
	return nil
}
