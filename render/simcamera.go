package render

import (
	"context"
	"fmt"
	"image"
	"sync"
	"time"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

// SimCamera renders a live simulation, an MJCF model compiled for the
// articulated engine (mjcf.Model) and its articulated.Data, drawn as
// UpdateFromModel draws them: one camera, or several views tiled side by
// side into one frame (NewTiledSimCamera). It is a frame.Source over the
// (a, d) it was opened on — each Next renders d's current poses — and it
// draws any other Data of a model on request (RenderState, RenderBuffers)
// and through Source, so one renderer serves several environments. It
// reads d, so the caller must not step d while it draws (call it between
// steps, as a real camera's exposure would be).
type SimCamera struct {
	mu     sync.Mutex
	r      Renderer
	a      *mjcf.Model
	d      *articulated.Data
	name   string
	w, h   int
	cams   []Camera          // one per tile, each the size of its tile
	tiles  []image.Rectangle // where each camera's image goes in the frame
	style  *Style
	depth  bool
	owns   bool
	sc     Scene
	dbuf   []float32 // one tile's depth while tiling
	sbuf   []int32   // one tile's segmentation while tiling
	seq    uint64
	closed bool
}

// SimCameraOptions configure NewSimCamera.
type SimCameraOptions struct {
	Style *Style // appearance and theme (nil: defaults)
	// Depth also fills frame.Frame.Depth (linear depth in m) in Next.
	Depth bool
	// CloseRenderer makes Close also close the renderer.
	CloseRenderer bool
}

// NewSimCamera returns a camera that renders (a, d) with r from cam. A
// body-attached cam (Body set) follows that body.
func NewSimCamera(r Renderer, a *mjcf.Model, d *articulated.Data, cam Camera, opts SimCameraOptions) (*SimCamera, error) {
	return NewTiledSimCamera(r, a, d, []Camera{cam}, cam.Width, cam.Height, opts)
}

// NewTiledSimCamera returns a camera of w×h pixels whose frame holds the
// views side by side, in order, each in a tile of w/len(views) columns (the
// views' own Width and Height are replaced by their tile's). The frame is
// named after the first view.
func NewTiledSimCamera(r Renderer, a *mjcf.Model, d *articulated.Data, views []Camera, w, h int, opts SimCameraOptions) (*SimCamera, error) {
	if r == nil || a == nil || a.Model == nil || d == nil || len(views) == 0 {
		return nil, fmt.Errorf("render: NewSimCamera needs a renderer, model, data and at least one camera")
	}
	if err := (Camera{Name: views[0].Name, Width: w, Height: h}).CheckSize(); err != nil {
		return nil, err
	}
	if w < len(views) {
		return nil, fmt.Errorf("render: %d views side by side need a frame at least %d px wide (got %d)", len(views), len(views), w)
	}
	c := &SimCamera{r: r, a: a, d: d, name: views[0].Name, w: w, h: h, style: opts.Style, depth: opts.Depth, owns: opts.CloseRenderer}
	for i, v := range views {
		x0, x1 := i*w/len(views), (i+1)*w/len(views)
		v.Width, v.Height = x1-x0, h
		if _, ok := ResolveCamera(a, d, v); !ok {
			return nil, fmt.Errorf("render: camera %q is attached to unknown body %q", v.Name, v.Body)
		}
		c.cams = append(c.cams, v)
		c.tiles = append(c.tiles, image.Rect(x0, 0, x1, h))
	}
	return c, nil
}

// SetState points the camera at another model and data (after an episode
// reset that rebuilt the scene).
func (c *SimCamera) SetState(a *mjcf.Model, d *articulated.Data) {
	c.mu.Lock()
	c.a, c.d = a, d
	c.mu.Unlock()
}

// Camera returns the camera description (the first view's, at the frame's
// size).
func (c *SimCamera) Camera() Camera {
	cam := c.cams[0]
	cam.Width, cam.Height = c.w, c.h
	return cam
}

// Size returns the frame's width and height in pixels.
func (c *SimCamera) Size() (w, h int) { return c.w, c.h }

// Describe names the renderer in use (its GL_RENDERER and backend).
func (c *SimCamera) Describe() string { return c.r.Info().String() }

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
	dst.Image = frame.EnsureRGBA(dst.Image, image.Rect(0, 0, c.w, c.h))
	buf := Buffers{RGB: dst.Image}
	if c.depth {
		n := c.w * c.h
		if cap(dst.Depth) < n {
			dst.Depth = make([]float32, n)
		}
		dst.Depth = dst.Depth[:n]
		buf.Depth = dst.Depth
	} else {
		dst.Depth = nil
	}
	if err := c.draw(c.a, c.d, buf); err != nil {
		return err
	}
	c.stamp(dst, c.d, c.name)
	return nil
}

func (c *SimCamera) stamp(dst *frame.Frame, d *articulated.Data, name string) {
	dst.Time = time.Unix(0, 0).Add(time.Duration(d.Time * float64(time.Second)))
	dst.Camera = name
	dst.Seq = c.seq
	c.seq++
}

// Render draws live's current state into dst (the frame's size).
func (c *SimCamera) Render(live Live, dst *image.RGBA) error {
	return c.RenderState(live.Model(), live.Data(), dst)
}

// RenderState draws data d of model a (a model like the camera's) into
// dst, which must be the frame's size.
func (c *SimCamera) RenderState(a *mjcf.Model, d *articulated.Data, dst *image.RGBA) error {
	return c.RenderBuffers(a, d, Buffers{RGB: dst})
}

// RenderBuffers draws data d of model a into the buffers of a frame (see
// Buffers; nil fields are skipped): colour, linear depth (m) and
// segmentation ids (body index + 1, scenery ids from SegFloor on).
func (c *SimCamera) RenderBuffers(a *mjcf.Model, d *articulated.Data, dst Buffers) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return frame.ErrClosed
	}
	return c.draw(a, d, dst)
}

// draw renders every tile; the caller holds mu.
func (c *SimCamera) draw(a *mjcf.Model, d *articulated.Data, dst Buffers) error {
	if dst.RGB != nil && (dst.RGB.Rect.Dx() != c.w || dst.RGB.Rect.Dy() != c.h) {
		return fmt.Errorf("render: destination is %v, camera is %dx%d", dst.RGB.Rect.Size(), c.w, c.h)
	}
	n := c.w * c.h
	if (dst.Depth != nil && len(dst.Depth) != n) || (dst.Seg != nil && len(dst.Seg) != n) {
		return fmt.Errorf("render: depth/segmentation buffers must hold %d values", n)
	}
	c.sc.UpdateFromModel(a, d, c.style)
	tiled := len(c.cams) > 1
	for i, cam0 := range c.cams {
		cam, ok := ResolveCamera(a, d, cam0)
		if !ok {
			return fmt.Errorf("render: camera %q is attached to unknown body %q", cam0.Name, cam0.Body)
		}
		tile := c.tiles[i]
		var b Buffers
		if dst.RGB != nil {
			b.RGB = dst.RGB.SubImage(tile.Add(dst.RGB.Rect.Min)).(*image.RGBA)
		}
		k := tile.Dx() * tile.Dy()
		b.Depth, b.Seg = dst.Depth, dst.Seg
		if tiled && dst.Depth != nil {
			c.dbuf = grow(c.dbuf, k)
			b.Depth = c.dbuf
		}
		if tiled && dst.Seg != nil {
			c.sbuf = grow(c.sbuf, k)
			b.Seg = c.sbuf
		}
		if err := c.r.RenderBuffers(&c.sc, cam, b); err != nil {
			return err
		}
		if tiled {
			for y := 0; y < tile.Dy(); y++ {
				o := y*c.w + tile.Min.X
				if dst.Depth != nil {
					copy(dst.Depth[o:o+tile.Dx()], c.dbuf[y*tile.Dx():(y+1)*tile.Dx()])
				}
				if dst.Seg != nil {
					copy(dst.Seg[o:o+tile.Dx()], c.sbuf[y*tile.Dx():(y+1)*tile.Dx()])
				}
			}
		}
	}
	return nil
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// Live is a simulation whose current model and data a Source renders (a
// task environment, whose data changes at every step and reset).
type Live interface {
	Model() *mjcf.Model
	Data() *articulated.Data
}

// Source is the camera bound to one simulation as a frame.Source: each
// Next renders live's current state, stamped with its simulated time and
// name. Several Sources may share one SimCamera (they render in turn, on
// one goroutine); closing a Source leaves the camera open.
func (c *SimCamera) Source(live Live, name string) frame.Source {
	return &liveSource{cam: c, live: live, name: name}
}

type liveSource struct {
	cam    *SimCamera
	live   Live
	name   string
	seq    uint64
	closed bool
}

func (s *liveSource) Next(ctx context.Context, dst *frame.Frame) error {
	if s.closed {
		return frame.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	dst.Image = frame.EnsureRGBA(dst.Image, image.Rect(0, 0, s.cam.w, s.cam.h))
	st := s.live.Data()
	if err := s.cam.RenderState(s.live.Model(), st, dst.Image); err != nil {
		return err
	}
	dst.Depth = nil
	dst.Camera, dst.Seq = s.name, s.seq
	dst.Time = time.Unix(0, 0).Add(time.Duration(st.Time * float64(time.Second)))
	s.seq++
	return nil
}

func (s *liveSource) Close() error { s.closed = true; return nil }

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
