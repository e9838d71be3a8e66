package render

import (
	"context"
	"fmt"
	"image"
	"sync"
	"time"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/sim"
)

// SimCamera is a frame.Source over a live simulation: each Next renders the
// current (m, s) from its camera. It reads s, so the caller must not Step s
// while Next runs (call Next between steps, as a real camera's exposure
// would be).
type SimCamera struct {
	mu     sync.Mutex
	r      Renderer
	m      *sim.Model
	s      *sim.State
	cam    Camera
	style  *Style
	depth  bool
	owns   bool
	sc     Scene
	seq    uint64
	closed bool
}

// SimCameraOptions configure NewSimCamera.
type SimCameraOptions struct {
	Style *Style // appearance and theme (nil: defaults)
	// Depth also fills frame.Frame.Depth (linear depth in m).
	Depth bool
	// CloseRenderer makes Close also close the renderer.
	CloseRenderer bool
}

// NewSimCamera returns a camera that renders (m, s) with r from cam. A
// body-attached cam (Body set) follows that body.
func NewSimCamera(r Renderer, m *sim.Model, s *sim.State, cam Camera, opts SimCameraOptions) (*SimCamera, error) {
	if r == nil || m == nil || s == nil {
		return nil, fmt.Errorf("render: NewSimCamera needs a renderer, model and state")
	}
	if err := cam.CheckSize(); err != nil {
		return nil, err
	}
	if _, ok := ResolveCamera(m, s, cam); !ok {
		return nil, fmt.Errorf("render: camera %q is attached to unknown body %q", cam.Name, cam.Body)
	}
	return &SimCamera{r: r, m: m, s: s, cam: cam, style: opts.Style, depth: opts.Depth, owns: opts.CloseRenderer}, nil
}

// SetState points the camera at another model and state (after an episode
// reset that rebuilt the scene).
func (c *SimCamera) SetState(m *sim.Model, s *sim.State) {
	c.mu.Lock()
	c.m, c.s = m, s
	c.mu.Unlock()
}

// Camera returns the camera description.
func (c *SimCamera) Camera() Camera { return c.cam }

// Next renders the current state into dst. Time is the simulated time since
// the Unix epoch.
func (c *SimCamera) Next(ctx context.Context, dst *frame.Frame) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return frame.ErrClosed
	}
	cam, ok := ResolveCamera(c.m, c.s, c.cam)
	if !ok {
		return fmt.Errorf("render: camera %q is attached to unknown body %q", c.cam.Name, c.cam.Body)
	}
	c.sc.UpdateFromSim(c.m, c.s, c.style)
	dst.Image = frame.EnsureRGBA(dst.Image, image.Rect(0, 0, cam.Width, cam.Height))
	buf := Buffers{RGB: dst.Image}
	if c.depth {
		n := cam.Width * cam.Height
		if cap(dst.Depth) < n {
			dst.Depth = make([]float32, n)
		}
		dst.Depth = dst.Depth[:n]
		buf.Depth = dst.Depth
	} else {
		dst.Depth = nil
	}
	if err := c.r.RenderBuffers(&c.sc, cam, buf); err != nil {
		return err
	}
	dst.Time = time.Unix(0, 0).Add(time.Duration(c.s.Time * float64(time.Second)))
	dst.Camera = c.cam.Name
	dst.Seq = c.seq
	c.seq++
	return nil
}

// Close stops the camera (and its renderer when CloseRenderer was set). It
// is safe to call more than once.
func (c *SimCamera) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	if c.owns {
		return c.r.Close()
	}
	return nil
}

var _ frame.Source = (*SimCamera)(nil)
