package rundir

import (
	"errors"

	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/tasks"
)

// WorkspaceCamera is render.WorkspaceCamera.
//
// Deprecated: use render.WorkspaceCamera.
const WorkspaceCamera = render.WorkspaceCamera

// TaskCamera is render.TaskCamera.
//
// Deprecated: use render.TaskCamera.
const TaskCamera = render.TaskCamera

// CameraOptions say how a SimCamera draws.
//
// Deprecated: use render.CameraOptions.
type CameraOptions = render.CameraOptions

// DefaultCameraOptions: scenery, shadows and 4× MSAA on.
//
// Deprecated: use render.DefaultCameraOptions.
func DefaultCameraOptions() CameraOptions { return render.DefaultCameraOptions() }

// NewSimCamera is render.OpenTaskCamera on env with DefaultCameraOptions;
// a bad camera, theme or size is a *ConfigError.
//
// Deprecated: use render.OpenTaskCamera and render.FilmedOf.
func NewSimCamera(backend, camera, theme string, w, h int, env *tasks.Env) (*render.SimCamera, error) {
	return NewSimCameraWith(backend, camera, theme, w, h, env, DefaultCameraOptions())
}

// NewSimCameraWith is NewSimCamera with explicit drawing options.
//
// Deprecated: use render.OpenTaskCamera and render.FilmedOf.
func NewSimCameraWith(backend, camera, theme string, w, h int, env *tasks.Env, opts CameraOptions) (*render.SimCamera, error) {
	c, err := render.OpenTaskCamera(backend, camera, theme, w, h, render.FilmedOf(env.Name(), env.Model(), env.State(), env.Meta().Views), opts)
	var rerr *render.RendererError
	if err != nil && !errors.As(err, &rerr) {
		return nil, asConfigError(err)
	}
	return c, err
}
