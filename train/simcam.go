package train

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/vlmrb/vlmrb/render"
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

// NewSimCamera opens a renderer (backend auto|egl|soft) and a
// render.SimCamera of w×h pixels on env's scene (closing the camera closes
// the renderer), drawn in theme (standard|misleading|abstract; ""
// is standard) with DefaultCameraOptions. camera is task (the task's scorer
// views), workspace, or a named MetaWorld camera (corner, corner2, corner3,
// corner4, topview, close, behindGripper, gripperPOV).
func NewSimCamera(backend, camera, theme string, w, h int, env *tasks.Env) (*render.SimCamera, error) {
	return NewSimCameraWith(backend, camera, theme, w, h, env, DefaultCameraOptions())
}

// NewSimCameraWith is NewSimCamera with explicit drawing options.
func NewSimCameraWith(backend, camera, theme string, w, h int, env *tasks.Env, opts CameraOptions) (*render.SimCamera, error) {
	th, err := render.ParseTheme(theme)
	if err != nil {
		return nil, &ConfigError{Msg: err.Error()}
	}
	if err := (render.Camera{Name: camera, Width: w, Height: h}).CheckSize(); err != nil {
		return nil, &ConfigError{Msg: err.Error()}
	}
	style := &render.Style{Theme: th, Scenery: opts.Scenery}
	var views []render.Camera
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
			views = append(views, cam)
		}
	case WorkspaceCamera:
		cam := render.LookAt(workspaceEye, workspaceTarget, mgl64.Vec3{0, 0, 1}, workspaceFovY, w, h)
		cam.Name = WorkspaceCamera
		views = []render.Camera{cam}
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
		views = []render.Camera{cam}
	}
	r, err := render.New(backend, render.Options{Shadows: opts.Shadows, MSAA: opts.MSAA, Logf: func(string, ...any) {}})
	if err != nil {
		return nil, fmt.Errorf("open renderer %q: %w", backend, err)
	}
	c, err := render.NewTiledSimCamera(r, env.Model(), env.State(), views, w, h, render.SimCameraOptions{Style: style, CloseRenderer: true})
	if err != nil {
		_ = r.Close()
		return nil, &ConfigError{Msg: err.Error()}
	}
	return c, nil
}
