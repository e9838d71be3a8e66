package rundir

import (
	"errors"

	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/tasks"
)

// NewSimCamera is render.OpenTaskCamera on env with the default drawing
// options; a bad camera, theme or size is a *ConfigError (a renderer that
// fails to start stays a *render.RendererError).
func NewSimCamera(backend, camera, theme string, w, h int, env *tasks.Env) (*render.SimCamera, error) {
	return NewSimCameraWith(backend, camera, theme, w, h, env, render.DefaultCameraOptions())
}

// NewSimCameraWith is NewSimCamera with explicit drawing options.
func NewSimCameraWith(backend, camera, theme string, w, h int, env *tasks.Env, opts render.CameraOptions) (*render.SimCamera, error) {
	c, err := render.OpenTaskCamera(backend, camera, theme, w, h, render.FilmedOf(env.Name(), env.Model(), env.Data(), env.Meta().Views), opts)
	var rerr *render.RendererError
	if err != nil && !errors.As(err, &rerr) {
		return nil, asConfigError(err)
	}
	return c, err
}
