package train

import (
	"fmt"
	"image"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/tasks"
)

// WorkspaceCamera is a fixed camera that frames MetaWorld's hand workspace
// (x ∈ [−0.5, 0.5] m, y ∈ [0.4, 0.9] m) from the front and above, so that
// the gripper, objects and goal markers cover many pixels even in small
// scorer frames. The named MetaWorld cameras show the whole table instead.
const WorkspaceCamera = "workspace"

var (
	workspaceEye    = mgl64.Vec3{0.3, 0.35, 0.7} // m
	workspaceTarget = mgl64.Vec3{0, 0.75, 0.02}  // m
)

const workspaceFovY = 42 // degrees

// SimCamera renders a task env's live state from a named camera. It owns
// its renderer; use it from one goroutine (between env steps).
type SimCamera struct {
	Width, Height int
	r             render.Renderer
	cam           render.Camera
	sc            render.Scene
	style         *render.Style
}

// NewSimCamera opens a renderer (backend auto|egl|soft) and a named camera
// (corner, corner2, corner3, corner4, topview, behindGripper, gripperPOV)
// of w×h pixels for env's scene, drawn in theme (standard|misleading|abstract;
// "" is standard).
func NewSimCamera(backend, camera, theme string, w, h int, env *tasks.Env) (*SimCamera, error) {
	th, err := render.ParseTheme(theme)
	if err != nil {
		return nil, &ConfigError{Msg: err.Error()}
	}
	var cam render.Camera
	if camera == WorkspaceCamera {
		cam = render.LookAt(workspaceEye, workspaceTarget, mgl64.Vec3{0, 0, 1}, workspaceFovY, w, h)
		cam.Name = WorkspaceCamera
	} else if cam, err = render.NamedCamera(camera, render.MetaWorldCenter, w, h); err != nil {
		return nil, &ConfigError{Msg: err.Error() + " (or " + WorkspaceCamera + ")"}
	}
	if err := cam.CheckSize(); err != nil {
		return nil, &ConfigError{Msg: err.Error()}
	}
	if cam.Body != "" {
		if _, ok := env.Model().Body(cam.Body); !ok {
			return nil, &ConfigError{Msg: fmt.Sprintf("camera %s follows body %q, which task %s does not have", camera, cam.Body, env.Name())}
		}
	}
	r, err := render.New(backend, render.Options{Logf: func(string, ...any) {}})
	if err != nil {
		return nil, fmt.Errorf("open renderer %q: %w", backend, err)
	}
	return &SimCamera{Width: w, Height: h, r: r, cam: cam, style: &render.Style{Theme: th}}, nil
}

// Render draws env's current state into dst (bounds Width×Height).
func (c *SimCamera) Render(env *tasks.Env, dst *image.RGBA) error {
	return c.RenderState(env.Model(), env.State(), dst)
}

// RenderState draws state s of model m (a task env's model) into dst.
func (c *SimCamera) RenderState(m *sim.Model, s *sim.State, dst *image.RGBA) error {
	c.sc.UpdateFromSim(m, s, c.style)
	cam, _ := render.ResolveCamera(m, s, c.cam)
	return c.r.Render(&c.sc, cam, dst)
}

// Describe names the renderer in use.
func (c *SimCamera) Describe() string { return c.r.Info().String() }

// Close releases the renderer.
func (c *SimCamera) Close() { _ = c.r.Close() }
