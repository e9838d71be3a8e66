//go:build cgo && !nogl && !noglfw

package render

import (
	"errors"
	"fmt"
	"image"
	"math"
	"os"
	"sync"
	"time"
	"unsafe"

	"github.com/go-gl/gl/v3.3-core/gl"
	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/go-gl/mathgl/mgl64"
)

func init() { register("glfw", func(o Options) (Renderer, error) { return newGLFW(o) }) }

// All GLFW calls run on one process-wide locked thread (GLFW is not thread
// safe); every GLFW window, hidden renderer or viewer, lives there.
var (
	glfwMu     sync.Mutex
	glfwTh     *glThread
	glfwUsers  int
	glfwLoaded bool
)

// glfwAcquire starts the GLFW thread and initialises GLFW if needed.
func glfwAcquire() (*glThread, error) {
	if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return nil, ErrNoDisplay
	}
	glfwMu.Lock()
	defer glfwMu.Unlock()
	if glfwTh == nil {
		th, err := startGLThread(func() error {
			if err := glfw.Init(); err != nil {
				return fmt.Errorf("render: glfw init: %w", err)
			}
			// Init logs and returns nil when the display cannot be
			// opened; the next call then panics (turned into an error).
			if err := protect(func() error { glfw.DefaultWindowHints(); return nil }); err != nil {
				return fmt.Errorf("%w: cannot open display %q: %v", ErrNoDisplay, os.Getenv("DISPLAY"), err)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		glfwTh = th
	}
	glfwUsers++
	return glfwTh, nil
}

func glfwRelease() {
	glfwMu.Lock()
	defer glfwMu.Unlock()
	glfwUsers--
	if glfwUsers == 0 && glfwTh != nil {
		_ = glfwTh.stop(func() error { glfw.Terminate(); return nil })
		glfwTh = nil
	}
}

// glfwWindow opens a window with a 3.3 core context and loads GL. Runs on
// the GLFW thread.
func glfwWindow(w, h int, title string, visible bool) (*glfw.Window, error) {
	glfw.DefaultWindowHints()
	glfw.WindowHint(glfw.ContextVersionMajor, 3)
	glfw.WindowHint(glfw.ContextVersionMinor, 3)
	glfw.WindowHint(glfw.OpenGLProfile, glfw.OpenGLCoreProfile)
	glfw.WindowHint(glfw.OpenGLForwardCompatible, glfw.True)
	if !visible {
		glfw.WindowHint(glfw.Visible, glfw.False)
	}
	win, err := glfw.CreateWindow(w, h, title, nil, nil)
	if err != nil {
		return nil, fmt.Errorf("render: glfw window: %w", err)
	}
	win.MakeContextCurrent()
	glfw.SwapInterval(0)
	glOnce.Do(func() {
		glErr = gl.InitWithProcAddrFunc(func(name string) unsafe.Pointer { return glfw.GetProcAddress(name) })
	})
	if glErr != nil {
		win.Destroy()
		return nil, fmt.Errorf("render: glfw: loading GL functions: %w", glErr)
	}
	return win, nil
}

// glfwRenderer renders offscreen through a hidden GLFW window's context.
type glfwRenderer struct {
	mu     sync.Mutex
	th     *glThread
	win    *glfw.Window
	g      *glScene
	info   Info
	closed bool
}

func newGLFW(opts Options) (*glfwRenderer, error) {
	th, err := glfwAcquire()
	if err != nil {
		return nil, err
	}
	r := &glfwRenderer{th: th}
	err = th.call(func() error {
		win, err := glfwWindow(16, 16, "vlmrb render", false)
		if err != nil {
			return err
		}
		g, err := newGLScene(opts)
		if err != nil {
			win.Destroy()
			return err
		}
		r.win, r.g, r.info = win, g, g.info("glfw", "x11")
		if opts.RequireGPU && r.info.Software {
			g.destroy()
			win.Destroy()
			return fmt.Errorf("%w (GL_RENDERER %q)", ErrSoftwareGL, r.info.Renderer)
		}
		return nil
	})
	if err != nil {
		glfwRelease()
		return nil, err
	}
	return r, nil
}

func (r *glfwRenderer) Info() Info { return r.info }

func (r *glfwRenderer) Render(sc *Scene, cam Camera, dst *image.RGBA) error {
	return r.RenderBuffers(sc, cam, Buffers{RGB: dst})
}

func (r *glfwRenderer) RenderBuffers(sc *Scene, cam Camera, dst Buffers) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := checkCall(r.closed, sc, cam, dst); err != nil {
		return err
	}
	return r.th.call(func() error {
		r.win.MakeContextCurrent()
		return r.g.draw(sc, cam, dst)
	})
}

func (r *glfwRenderer) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	err := r.th.call(func() error {
		r.win.MakeContextCurrent()
		r.g.destroy()
		r.win.Destroy()
		return nil
	})
	glfwRelease()
	return err
}

// RunViewer opens an interactive window and runs until it is closed (or
// cfg.MaxFrames frames were shown). Every frame it calls step when the
// simulation is running (or once per single-step key press) and then scene
// to get what to draw, so train or a command can advance its sim:
//
//	err := render.RunViewer(render.ViewerConfig{Title: "push"},
//		func() error { return env.StepOnce() },
//		func() *render.Scene { sc.UpdateFromModel(a, d, nil); return sc })
//
// Controls: left drag orbits, right (or shift+left) drag pans, the wheel
// zooms; Space pauses, N or → steps once while paused, C cycles through the
// free camera and cfg.Cameras, R resets the view, Esc or Q closes. It
// returns ErrNoDisplay without a display, and the first error from step.
// The callbacks run on the viewer's GL thread and must not call a glfw
// Renderer.
func RunViewer(cfg ViewerConfig, step func() error, scene func() *Scene) error {
	th, err := glfwAcquire()
	if err != nil {
		return err
	}
	defer glfwRelease()
	return th.call(func() error { return runViewer(cfg, step, scene) })
}

func runViewer(cfg ViewerConfig, step func() error, scene func() *Scene) error {
	w, h := cfg.Width, cfg.Height
	if w <= 0 || h <= 0 {
		w, h = 800, 600
	}
	title := cfg.Title
	if title == "" {
		title = "vlmrb viewer"
	}
	win, err := glfwWindow(w, h, title, !cfg.Hidden)
	if err != nil {
		return err
	}
	defer win.Destroy()
	g, err := newGLScene(cfg.Options)
	if err != nil {
		return err
	}
	defer g.destroy()

	v := &viewerState{cfg: cfg, paused: cfg.StartPaused}
	v.resetView()
	win.SetKeyCallback(func(_ *glfw.Window, key glfw.Key, _ int, action glfw.Action, _ glfw.ModifierKey) {
		if action != glfw.Press && action != glfw.Repeat {
			return
		}
		switch key {
		case glfw.KeySpace:
			v.paused = !v.paused
		case glfw.KeyN, glfw.KeyRight:
			v.stepOnce = true
		case glfw.KeyC:
			v.camIdx = (v.camIdx + 1) % (len(cfg.Cameras) + 1)
		case glfw.KeyR:
			v.resetView()
		case glfw.KeyEscape, glfw.KeyQ:
			win.SetShouldClose(true)
		}
	})
	var lastX, lastY float64
	win.SetCursorPosCallback(func(win *glfw.Window, x, y float64) {
		dx, dy := x-lastX, y-lastY
		lastX, lastY = x, y
		left := win.GetMouseButton(glfw.MouseButtonLeft) == glfw.Press
		right := win.GetMouseButton(glfw.MouseButtonRight) == glfw.Press
		shift := win.GetKey(glfw.KeyLeftShift) == glfw.Press
		switch {
		case right || (left && shift):
			v.pan(dx, dy)
		case left:
			v.azimuth -= 0.3 * dx
			v.elevation = math.Max(-89, math.Min(89, v.elevation+0.3*dy))
			v.camIdx = 0
		}
	})
	win.SetScrollCallback(func(_ *glfw.Window, _, dy float64) {
		v.distance = math.Max(0.05, math.Min(20, v.distance*math.Pow(0.9, dy)))
		v.camIdx = 0
	})

	var shown string
	var lastTitle time.Time
	for frames := 0; !win.ShouldClose(); frames++ {
		if cfg.MaxFrames > 0 && frames >= cfg.MaxFrames {
			break
		}
		if cfg.Status != nil && time.Since(lastTitle) >= 100*time.Millisecond {
			lastTitle = time.Now()
			if st := cfg.Status(); st != shown {
				shown = st
				win.SetTitle(title + " — " + st)
			}
		}
		glfw.PollEvents()
		if !v.paused || v.stepOnce {
			v.stepOnce = false
			if step != nil {
				if err := step(); err != nil {
					return err
				}
			}
		}
		sc := scene()
		if sc == nil {
			return errors.New("render: viewer scene callback returned nil")
		}
		fw, fh := win.GetFramebufferSize()
		if fw <= 0 || fh <= 0 { // minimised
			continue
		}
		cam := v.camera(fw, fh)
		if err := sc.Validate(); err != nil {
			return err
		}
		if err := g.drawScreen(sc, cam); err != nil {
			return err
		}
		if cfg.snapshot != nil {
			img := image.NewRGBA(image.Rect(0, 0, fw, fh))
			gl.BindFramebuffer(gl.READ_FRAMEBUFFER, 0)
			gl.ReadBuffer(gl.BACK)
			g.readRows(img.Pix, img.Stride, fw, fh, 4, gl.RGBA, gl.UNSIGNED_BYTE)
			cfg.snapshot(img)
		}
		win.SwapBuffers()
	}
	return nil
}

type viewerState struct {
	cfg                          ViewerConfig
	paused, stepOnce             bool
	camIdx                       int
	target                       mgl64.Vec3
	azimuth, elevation, distance float64
}

func (v *viewerState) resetView() {
	v.target = v.cfg.Target
	v.azimuth, v.elevation, v.distance = -40, 35, 1.0
	if v.cfg.Distance > 0 {
		v.distance = v.cfg.Distance
	}
	v.camIdx = 0
}

func (v *viewerState) pan(dx, dy float64) {
	c := Orbit(v.target, v.azimuth, v.elevation, v.distance, 45, 1, 1)
	right := c.Rot.Rotate(mgl64.Vec3{1, 0, 0})
	up := c.Rot.Rotate(mgl64.Vec3{0, 1, 0})
	s := 0.0015 * v.distance
	v.target = v.target.Sub(right.Mul(dx * s)).Add(up.Mul(dy * s))
	v.camIdx = 0
}

func (v *viewerState) camera(w, h int) Camera {
	if v.camIdx > 0 {
		c := v.cfg.Cameras[v.camIdx-1]
		if v.cfg.Resolve != nil {
			c = v.cfg.Resolve(c)
		}
		c.Width, c.Height = w, h
		return c
	}
	c := Orbit(v.target, v.azimuth, v.elevation, v.distance, 45, w, h)
	c.Name = "free"
	return c
}
