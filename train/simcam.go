package train

import (
	"context"
	"fmt"
	"image"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/tasks"
)

// WorkspaceCamera is a fixed camera that frames MetaWorld's hand workspace
// (x ∈ [−0.5, 0.5] m, y ∈ [0.4, 0.9] m) from the front and above, so that
// the gripper, objects and goal markers cover many pixels even in small
// scorer frames. The named MetaWorld cameras show the whole table instead.
const WorkspaceCamera = "workspace"

// TaskCamera is the task's own scorer view(s) (tasks.Meta.Views): chosen so
// the gripper, the object and the goal stay in frame and unoccluded through
// the expert episode; a task with two views gets them tiled side by side.
// It is the default camera of scorer frames, evaluation GIFs and renders.
const TaskCamera = "task"

var (
	workspaceEye    = mgl64.Vec3{0.3, 0.35, 0.7} // m
	workspaceTarget = mgl64.Vec3{0, 0.75, 0.02}  // m
)

const workspaceFovY = 42 // degrees

// CameraOptions say how a SimCamera draws. DefaultCameraOptions is what
// scorer frames use.
type CameraOptions struct {
	Scenery bool // robot arm, table legs, floor and backdrop (render.Style.Scenery)
	Shadows bool // shadow map from the key light
	MSAA    int  // anti-aliasing samples per pixel (0 or 1: off)
}

// DefaultCameraOptions: scenery, shadows and 4× MSAA on.
func DefaultCameraOptions() CameraOptions {
	return CameraOptions{Scenery: true, Shadows: true, MSAA: 4}
}

// SimCamera renders a task env's live state from a named camera. It owns
// its renderer; use it from one goroutine (between env steps).
type SimCamera struct {
	Width, Height int
	r             render.Renderer
	cams          []render.Camera   // one per tile
	tiles         []image.Rectangle // where each camera's image goes in the frame
	sc            render.Scene
	style         *render.Style
	depth         []float32
	seg           []int32
}

// NewSimCamera opens a renderer (backend auto|egl|soft) and a camera of w×h
// pixels for env's scene, drawn in theme (standard|misleading|abstract; ""
// is standard) with DefaultCameraOptions. camera is task (the task's scorer
// views), workspace, or a named MetaWorld camera (corner, corner2, corner3,
// corner4, topview, close, behindGripper, gripperPOV).
func NewSimCamera(backend, camera, theme string, w, h int, env *tasks.Env) (*SimCamera, error) {
	return NewSimCameraWith(backend, camera, theme, w, h, env, DefaultCameraOptions())
}

// NewSimCameraWith is NewSimCamera with explicit drawing options.
func NewSimCameraWith(backend, camera, theme string, w, h int, env *tasks.Env, opts CameraOptions) (*SimCamera, error) {
	th, err := render.ParseTheme(theme)
	if err != nil {
		return nil, &ConfigError{Msg: err.Error()}
	}
	if err := (render.Camera{Name: camera, Width: w, Height: h}).CheckSize(); err != nil {
		return nil, &ConfigError{Msg: err.Error()}
	}
	c := &SimCamera{Width: w, Height: h, style: &render.Style{Theme: th, Scenery: opts.Scenery}}
	switch camera {
	case TaskCamera, "":
		vs := env.Meta().Views
		if len(vs) == 0 {
			return nil, &ConfigError{Msg: fmt.Sprintf("task %s has no scorer view; pick a camera such as %s", env.Name(), WorkspaceCamera)}
		}
		if w < len(vs) {
			return nil, &ConfigError{Msg: fmt.Sprintf("camera %s tiles %d views side by side; width %d is too small", TaskCamera, len(vs), w)}
		}
		for i, v := range vs {
			x0, x1 := i*w/len(vs), (i+1)*w/len(vs)
			cam := render.LookAt(mgl64.Vec3{v.Eye.X, v.Eye.Y, v.Eye.Z}, mgl64.Vec3{v.Target.X, v.Target.Y, v.Target.Z},
				mgl64.Vec3{0, 0, 1}, v.FovY, x1-x0, h)
			cam.Name = TaskCamera
			c.cams = append(c.cams, cam)
			c.tiles = append(c.tiles, image.Rect(x0, 0, x1, h))
		}
	case WorkspaceCamera:
		cam := render.LookAt(workspaceEye, workspaceTarget, mgl64.Vec3{0, 0, 1}, workspaceFovY, w, h)
		cam.Name = WorkspaceCamera
		c.cams, c.tiles = []render.Camera{cam}, []image.Rectangle{image.Rect(0, 0, w, h)}
	default:
		cam, err := render.NamedCamera(camera, render.MetaWorldCenter, w, h)
		if err != nil {
			return nil, &ConfigError{Msg: err.Error() + " (or " + TaskCamera + ", " + WorkspaceCamera + ")"}
		}
		if cam.Body != "" {
			if _, ok := env.Model().Body(cam.Body); !ok {
				return nil, &ConfigError{Msg: fmt.Sprintf("camera %s follows body %q, which task %s does not have", camera, cam.Body, env.Name())}
			}
		}
		c.cams, c.tiles = []render.Camera{cam}, []image.Rectangle{image.Rect(0, 0, w, h)}
	}
	r, err := render.New(backend, render.Options{Shadows: opts.Shadows, MSAA: opts.MSAA, Logf: func(string, ...any) {}})
	if err != nil {
		return nil, fmt.Errorf("open renderer %q: %w", backend, err)
	}
	c.r = r
	return c, nil
}

// Render draws env's current state into dst (bounds Width×Height).
func (c *SimCamera) Render(env *tasks.Env, dst *image.RGBA) error {
	return c.RenderState(env.Model(), env.State(), dst)
}

// RenderState draws state s of model m (a task env's model) into dst.
func (c *SimCamera) RenderState(m *sim.Model, s *sim.State, dst *image.RGBA) error {
	return c.RenderBuffers(m, s, render.Buffers{RGB: dst})
}

// RenderBuffers draws state s of model m into the buffers of a
// Width×Height frame (see render.Buffers; nil fields are skipped): colour,
// linear depth (m) and segmentation ids (body index + 1, scenery ids from
// render.SegFloor on).
func (c *SimCamera) RenderBuffers(m *sim.Model, s *sim.State, dst render.Buffers) error {
	if dst.RGB != nil && (dst.RGB.Rect.Dx() != c.Width || dst.RGB.Rect.Dy() != c.Height) {
		return fmt.Errorf("render: destination is %v, camera is %dx%d", dst.RGB.Rect.Size(), c.Width, c.Height)
	}
	n := c.Width * c.Height
	if (dst.Depth != nil && len(dst.Depth) != n) || (dst.Seg != nil && len(dst.Seg) != n) {
		return fmt.Errorf("render: depth/segmentation buffers must hold %d values", n)
	}
	c.sc.UpdateFromSim(m, s, c.style)
	for i, cam0 := range c.cams {
		cam, _ := render.ResolveCamera(m, s, cam0)
		tile := c.tiles[i]
		var b render.Buffers
		if dst.RGB != nil {
			b.RGB = dst.RGB.SubImage(tile.Add(dst.RGB.Rect.Min)).(*image.RGBA)
		}
		k := tile.Dx() * tile.Dy()
		if dst.Depth != nil {
			if len(c.cams) == 1 {
				b.Depth = dst.Depth
			} else {
				c.depth = grow(c.depth, k)
				b.Depth = c.depth
			}
		}
		if dst.Seg != nil {
			if len(c.cams) == 1 {
				b.Seg = dst.Seg
			} else {
				c.seg = grow(c.seg, k)
				b.Seg = c.seg
			}
		}
		if err := c.r.RenderBuffers(&c.sc, cam, b); err != nil {
			return err
		}
		if len(c.cams) > 1 {
			for y := 0; y < tile.Dy(); y++ {
				o := y*c.Width + tile.Min.X
				if dst.Depth != nil {
					copy(dst.Depth[o:o+tile.Dx()], c.depth[y*tile.Dx():(y+1)*tile.Dx()])
				}
				if dst.Seg != nil {
					copy(dst.Seg[o:o+tile.Dx()], c.seg[y*tile.Dx():(y+1)*tile.Dx()])
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

// Describe names the renderer in use.
func (c *SimCamera) Describe() string { return c.r.Info().String() }

// Close releases the renderer.
func (c *SimCamera) Close() { _ = c.r.Close() }

// Source is the camera bound to one env as a frame.Source: each Next
// renders env's current state, stamped with the simulated time and the
// camera's name. Several Sources may share one SimCamera (they render in
// turn, on one goroutine); closing a Source leaves the camera open.
func (c *SimCamera) Source(env *tasks.Env, name string) frame.Source {
	return &envSource{cam: c, env: env, name: name}
}

type envSource struct {
	cam    *SimCamera
	env    *tasks.Env
	name   string
	seq    uint64
	closed bool
}

func (s *envSource) Next(ctx context.Context, dst *frame.Frame) error {
	if s.closed {
		return frame.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	dst.Image = frame.EnsureRGBA(dst.Image, image.Rect(0, 0, s.cam.Width, s.cam.Height))
	if err := s.cam.Render(s.env, dst.Image); err != nil {
		return err
	}
	dst.Depth = nil
	dst.Camera, dst.Seq = s.name, s.seq
	dst.Time = time.Unix(0, 0).Add(time.Duration(s.env.State().Time * float64(time.Second)))
	s.seq++
	return nil
}

func (s *envSource) Close() error { s.closed = true; return nil }
