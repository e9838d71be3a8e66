package train

import (
	"errors"
	"image"

	"github.com/vlmrb/vlmrb/tasks"
)

// errRenderNotAvailable is returned until render's sim bridge (FromSim) lands.
var errRenderNotAvailable = errors.New("rendering simulator frames is not available yet in this build (render.FromSim missing); use --replay uniform|per|relo or --scorer oracle")

// SimCamera renders a task env's live state from a named camera.
type SimCamera struct {
	Width, Height int
}

// NewSimCamera opens a renderer (backend auto|egl|soft) and a named camera
// (corner, topview, behindGripper, ...) of w×h pixels for env's scene.
func NewSimCamera(backend, camera string, w, h int, env *tasks.Env) (*SimCamera, error) {
	return nil, errRenderNotAvailable
}

// Render draws env's current state into dst (bounds w×h).
func (c *SimCamera) Render(env *tasks.Env, dst *image.RGBA) error { return errRenderNotAvailable }

// Describe names the backend in use.
func (c *SimCamera) Describe() string { return "none" }

// Close releases the renderer.
func (c *SimCamera) Close() {}
