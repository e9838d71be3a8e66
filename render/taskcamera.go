package render

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

// WorkspaceCamera is a fixed camera that frames MetaWorld's hand workspace
// (x ∈ [−0.5, 0.5] m, y ∈ [0.4, 0.9] m) from the front and above, so that
// the gripper, objects and goal markers cover many pixels even in small
// scorer frames. The named MetaWorld cameras show the whole table instead.
const WorkspaceCamera = "workspace"

// TaskCamera is the task's own scorer view(s) (Filmed.Views): chosen so
// the gripper, the object and the goal stay in frame and unoccluded through
// the expert episode; a task with two views gets them tiled side by side.
// It is the default camera of scorer frames, evaluation GIFs and renders.
const TaskCamera = "task"

var (
	workspaceEye    = mgl64.Vec3{0.3, 0.35, 0.7} // m
	workspaceTarget = mgl64.Vec3{0, 0.75, 0.02}  // m
)

const workspaceFovY = 42 // degrees

// CameraOptions say how a task camera draws. DefaultCameraOptions is what
// scorer frames use.
type CameraOptions struct {
	Scenery bool // robot arm, table legs, floor and backdrop (Style.Scenery)
	Shadows bool // shadow map from the key light
	MSAA    int  // anti-aliasing samples per pixel (0 or 1: off)
}

// DefaultCameraOptions: scenery, shadows and 4× MSAA on.
func DefaultCameraOptions() CameraOptions {
	return CameraOptions{Scenery: true, Shadows: true, MSAA: 4}
}

// View is a look-at camera pose (m, degrees), the shape of a task's
// scorer view (tasks.View converts to it).
type View struct {
	Eye, Target sim.Vec3
	FovY        float64
}

// Filmed is what a task camera films: an environment's MJCF model and live
// articulated data, its name (for messages), and its own scorer views
// (TaskCamera).
type Filmed struct {
	Name  string
	Model *mjcf.Model
	Data  *articulated.Data
	Views []View
}

// OpenTaskCamera opens a renderer (backend auto|egl|soft) and a SimCamera
// of w×h pixels on env (closing the camera closes the renderer), drawn in
// theme (standard|misleading|abstract; "" is standard) with opts. camera is
// task (env's scorer views), workspace, or a named MetaWorld camera
// (corner, corner2, corner3, corner4, topview, close, behindGripper,
// gripperPOV). A bad name or size is an error saying what to pass.
func OpenTaskCamera(backend, camera, theme string, w, h int, env Filmed, opts CameraOptions) (*SimCamera, error) {
	th, err := ParseTheme(theme)
	if err != nil {
		return nil, err
	}
	if err := (Camera{Name: camera, Width: w, Height: h}).CheckSize(); err != nil {
		return nil, err
	}
	style := &Style{Theme: th, Scenery: opts.Scenery}
	var views []Camera
	switch camera {
	case TaskCamera, "":
		vs := env.Views
		if len(vs) == 0 {
			return nil, fmt.Errorf("task %s has no scorer view; pick a camera such as %s", env.Name, WorkspaceCamera)
		}
		if w < len(vs) {
			return nil, fmt.Errorf("camera %s tiles %d views side by side; width %d is too small", TaskCamera, len(vs), w)
		}
		for i, v := range vs {
			x0, x1 := i*w/len(vs), (i+1)*w/len(vs)
			cam := LookAt(mgl64.Vec3{v.Eye.X, v.Eye.Y, v.Eye.Z}, mgl64.Vec3{v.Target.X, v.Target.Y, v.Target.Z},
				mgl64.Vec3{0, 0, 1}, v.FovY, x1-x0, h)
			cam.Name = TaskCamera
			views = append(views, cam)
		}
	case WorkspaceCamera:
		cam := LookAt(workspaceEye, workspaceTarget, mgl64.Vec3{0, 0, 1}, workspaceFovY, w, h)
		cam.Name = WorkspaceCamera
		views = []Camera{cam}
	default:
		cam, err := NamedCamera(camera, MetaWorldCenter, w, h)
		if err != nil {
			return nil, fmt.Errorf("%w (or %s, %s)", err, TaskCamera, WorkspaceCamera)
		}
		if cam.Body != "" {
			if _, ok := artBody(env.Model, cam.Body); !ok {
				return nil, fmt.Errorf("camera %s follows body %q, which task %s does not have", camera, cam.Body, env.Name)
			}
		}
		views = []Camera{cam}
	}
	r, err := New(backend, Options{Shadows: opts.Shadows, MSAA: opts.MSAA, Logf: func(string, ...any) {}})
	if err != nil {
		return nil, &RendererError{Backend: backend, Err: err}
	}
	c, err := NewTiledSimCamera(r, env.Model, env.Data, views, w, h, SimCameraOptions{Style: style, CloseRenderer: true})
	if err != nil {
		_ = r.Close()
		return nil, err
	}
	return c, nil
}

// RendererError is OpenTaskCamera's failure to open a renderer (no GL
// context, an unknown backend): an environment problem rather than a bad
// camera request.
type RendererError struct {
	Backend string
	Err     error
}

func (e *RendererError) Error() string { return fmt.Sprintf("open renderer %q: %v", e.Backend, e.Err) }
func (e *RendererError) Unwrap() error { return e.Err }

// FilmedOf describes an environment for OpenTaskCamera from its name, model,
// live data and scorer views of any type shaped like View (tasks.View):
//
//	render.FilmedOf(env.Name(), env.Model(), env.Data(), env.Meta().Views)
func FilmedOf[V ~struct {
	Eye, Target sim.Vec3
	FovY        float64
}](name string, a *mjcf.Model, d *articulated.Data, views []V) Filmed {
	out := make([]View, len(views))
	for i, v := range views {
		out[i] = View(v)
	}
	return Filmed{Name: name, Model: a, Data: d, Views: out}
}
