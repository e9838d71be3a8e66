package render

import (
	"errors"
	"fmt"
	"image"
	"log"
	"os"
	"sort"
	"strings"
	"sync"
)

// Buffers are the caller-owned outputs of one render. Nil fields are skipped.
type Buffers struct {
	// RGB receives the colour image; its bounds must be the camera size
	// (origin may be anywhere).
	RGB *image.RGBA
	// Depth receives linear depth along the view axis in m, row-major from
	// the top-left, len Width*Height; 0 where nothing was drawn.
	Depth []float32
	// Seg receives Object.ID per pixel (row-major, 0 for background).
	Seg []int32
}

// Renderer draws scenes. Implementations are safe for use from several
// goroutines (calls are serialised).
type Renderer interface {
	// Render draws sc seen from cam into dst (bounds = cam size).
	Render(sc *Scene, cam Camera, dst *image.RGBA) error
	// RenderBuffers draws colour, depth and segmentation in one pass.
	RenderBuffers(sc *Scene, cam Camera, dst Buffers) error
	// Info describes the backend, e.g. "egl/surfaceless: Mesa llvmpipe ...".
	Info() Info
	// Close releases the context; later calls return ErrClosed.
	Close() error
}

// Info identifies what a renderer runs on.
type Info struct {
	Backend    string // egl, glfw, soft
	Platform   string // EGL platform (device, surfaceless, ...) or ""
	Vendor     string // GL_VENDOR
	Renderer   string // GL_RENDERER
	Version    string // GL_VERSION
	Software   bool   // a CPU rasterizer (llvmpipe, softpipe, soft)
	ShadowSize int    // shadow map side in texels, 0 when shadows are off
	MSAA       int    // samples per pixel, 1 when anti-aliasing is off
}

func (i Info) String() string {
	s := i.Backend
	if i.Platform != "" {
		s += "/" + i.Platform
	}
	if i.Renderer != "" {
		s += ": " + i.Vendor + " | " + i.Renderer + " | " + i.Version
	}
	return s
}

// Options configure New.
type Options struct {
	// Shadows turns on a shadow map for the first light with Shadow set.
	Shadows bool
	// ShadowSize is the shadow map side in texels (0 means 256). The light
	// frustum is fitted to the non-plane objects, so 256 gives texels of a
	// few mm on a tabletop.
	ShadowSize int
	// MSAA is the number of anti-aliasing samples per pixel (0 or 1: off;
	// GL uses multisampling, soft uses 2x2 supersampling for any value > 1).
	MSAA int
	// PixelLighting evaluates Blinn-Phong per pixel instead of per vertex
	// (textures and shadows are per pixel either way). Per-vertex lighting
	// is exact for diffuse light on flat faces from directional lights and
	// is about twice as fast on llvmpipe.
	PixelLighting bool
	// RequireGPU refuses software rasterizers: egl fails on llvmpipe or
	// softpipe, and auto does not fall back to soft.
	RequireGPU bool
	// Logf receives warnings such as the auto fallback (default log.Printf).
	Logf func(format string, args ...any)
}

func (o Options) logf(format string, args ...any) {
	if o.Logf != nil {
		o.Logf(format, args...)
		return
	}
	log.Printf(format, args...)
}

func (o Options) shadowSize() int {
	if !o.Shadows {
		return 0
	}
	if o.ShadowSize <= 0 {
		return 256
	}
	return min(o.ShadowSize, 4096)
}

// ErrNoDisplay is returned by the glfw backend and RunViewer when there is
// no X11 or Wayland display (run under xvfb-run for a virtual one).
var ErrNoDisplay = errors.New("render: glfw: no display ($DISPLAY and $WAYLAND_DISPLAY are empty; use the egl backend headless, or xvfb-run)")

// Errors returned by renderers.
var (
	ErrClosed      = errors.New("render: renderer is closed")
	ErrUnavailable = errors.New("render: backend unavailable")
	ErrContextLost = errors.New("render: GL context lost")
	ErrSoftwareGL  = errors.New("render: only a software rasterizer is available and RequireGPU is set")
)

type factory func(Options) (Renderer, error)

var (
	regMu    sync.Mutex
	backends = map[string]factory{}
)

// register adds a backend; called from init functions.
func register(name string, f factory) {
	regMu.Lock()
	defer regMu.Unlock()
	backends[name] = f
}

// Backends lists the backends compiled into this binary.
func Backends() []string {
	regMu.Lock()
	defer regMu.Unlock()
	var n []string
	for k := range backends {
		n = append(n, k)
	}
	sort.Strings(n)
	return n
}

// New opens a renderer. backend is auto (or ""), egl, glfw or soft; "" also
// consults $VLMRB_RENDER.
func New(backend string, opts Options) (Renderer, error) {
	if backend == "" {
		backend = os.Getenv("VLMRB_RENDER")
	}
	backend = strings.ToLower(backend)
	if backend == "" || backend == "auto" {
		return newAuto(opts)
	}
	regMu.Lock()
	f, ok := backends[backend]
	regMu.Unlock()
	if !ok {
		return nil, fmt.Errorf("%w: %q is not compiled in (have %v; egl and glfw need cgo and no nogl tag)", ErrUnavailable, backend, Backends())
	}
	return f(opts)
}

func newAuto(opts Options) (Renderer, error) {
	regMu.Lock()
	egl := backends["egl"]
	regMu.Unlock()
	var eglErr error
	if egl != nil {
		r, err := egl(opts)
		if err == nil {
			return r, nil
		}
		eglErr = err
	} else {
		eglErr = fmt.Errorf("%w: egl not compiled in", ErrUnavailable)
	}
	if opts.RequireGPU {
		return nil, fmt.Errorf("render: auto: no GPU renderer: %w", eglErr)
	}
	opts.logf("render: egl unavailable (%v); falling back to the pure-Go soft renderer", eglErr)
	return newSoft(opts)
}

// checkCall is what every backend checks before drawing: the renderer is
// open, the destination fits the camera and the scene is valid.
func checkCall(closed bool, sc *Scene, cam Camera, dst Buffers) error {
	if closed {
		return ErrClosed
	}
	if err := checkDst(cam, dst); err != nil {
		return err
	}
	return sc.Validate()
}

func checkDst(cam Camera, dst Buffers) error {
	if err := cam.CheckSize(); err != nil {
		return err
	}
	n := cam.Width * cam.Height
	if dst.RGB != nil {
		b := dst.RGB.Rect
		if b.Dx() != cam.Width || b.Dy() != cam.Height {
			return fmt.Errorf("render: destination image is %dx%d, camera %q is %dx%d", b.Dx(), b.Dy(), cam.Name, cam.Width, cam.Height)
		}
	}
	if dst.Depth != nil && len(dst.Depth) != n {
		return fmt.Errorf("render: depth buffer has %d values, want %d", len(dst.Depth), n)
	}
	if dst.Seg != nil && len(dst.Seg) != n {
		return fmt.Errorf("render: segmentation buffer has %d values, want %d", len(dst.Seg), n)
	}
	return nil
}

func init() { register("soft", func(o Options) (Renderer, error) { return newSoft(o) }) }
