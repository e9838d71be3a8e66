//go:build cgo && !nogl

package render

/*
#cgo pkg-config: egl
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <stdlib.h>
#include <string.h>

#ifndef EGL_PLATFORM_SURFACELESS_MESA
#define EGL_PLATFORM_SURFACELESS_MESA 0x31DD
#endif

static PFNEGLQUERYDEVICESEXTPROC pQueryDevices;
static PFNEGLQUERYDEVICESTRINGEXTPROC pQueryDeviceString;
static PFNEGLGETPLATFORMDISPLAYEXTPROC pGetPlatformDisplay;

static void vlmrbLoadExt(void) {
	pQueryDevices = (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
	pQueryDeviceString = (PFNEGLQUERYDEVICESTRINGEXTPROC)eglGetProcAddress("eglQueryDeviceStringEXT");
	pGetPlatformDisplay = (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
}

static int vlmrbQueryDevices(EGLDeviceEXT *devs, int max) {
	EGLint n = 0;
	if (!pQueryDevices || !pQueryDevices(max, devs, &n)) return 0;
	return n;
}

static const char *vlmrbDeviceExts(EGLDeviceEXT d) {
	if (!pQueryDeviceString) return "";
	const char *s = pQueryDeviceString(d, EGL_EXTENSIONS);
	return s ? s : "";
}

static EGLDisplay vlmrbPlatformDisplay(EGLenum plat, void *native) {
	if (!pGetPlatformDisplay) return EGL_NO_DISPLAY;
	return pGetPlatformDisplay(plat, native, NULL);
}

static EGLDisplay vlmrbDefaultDisplay(void) { return eglGetDisplay(EGL_DEFAULT_DISPLAY); }

static EGLConfig vlmrbChooseConfig(EGLDisplay d) {
	EGLint a[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
		EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8, EGL_NONE};
	EGLConfig c = NULL;
	EGLint n = 0;
	if (!eglChooseConfig(d, a, &c, 1, &n) || n < 1) return NULL;
	return c;
}

static EGLContext vlmrbCreateContext(EGLDisplay d, EGLConfig c, int maj, int min) {
	EGLint a[] = {EGL_CONTEXT_MAJOR_VERSION, maj, EGL_CONTEXT_MINOR_VERSION, min,
		EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
	return eglCreateContext(d, c, EGL_NO_CONTEXT, a);
}

static EGLSurface vlmrbPbuffer(EGLDisplay d, EGLConfig c) {
	EGLint a[] = {EGL_WIDTH, 1, EGL_HEIGHT, 1, EGL_NONE};
	return eglCreatePbufferSurface(d, c, a);
}

static int vlmrbHasExt(const char *list, const char *ext) {
	if (!list) return 0;
	size_t n = strlen(ext);
	const char *p = list;
	while ((p = strstr(p, ext)) != NULL) {
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0)) return 1;
		p += n;
	}
	return 0;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"image"
	"os"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/go-gl/gl/v3.3-core/gl"
)

func init() { register("egl", func(o Options) (Renderer, error) { return newEGL(o) }) }

// eglDisplay is the process-wide EGL display shared by every context.
type eglDisplay struct {
	dpy         C.EGLDisplay
	cfg         C.EGLConfig
	platform    string
	surfaceless bool
}

// eglMu serialises the GL work of every EGL context in the process:
// context set-up, drawing and teardown. Mesa 22.3's llvmpipe crashed
// (SIGSEGV inside glDrawArrays, at a context's first draw with a new
// program) while other contexts of the same process drew in parallel: a
// CI run of the parallel vlmprio tests under the race detector, with two
// trainings loading the machine. A training process draws with one
// context at a time anyway (the scorer's and the evaluation's cameras take
// turns in the loop), so the lock costs it nothing; parallel tests and
// benchmarks draw one frame at a time.
var eglMu sync.Mutex

var (
	eglOnce sync.Once
	eglDpy  *eglDisplay
	eglErr  error
	glOnce  sync.Once
	glErr   error
)

func hasExt(list *C.char, ext string) bool {
	cs := C.CString(ext)
	defer C.free(unsafe.Pointer(cs))
	return C.vlmrbHasExt(list, cs) != 0
}

func eglError(what string) error {
	return fmt.Errorf("render: egl: %s failed: 0x%x", what, int(C.eglGetError()))
}

// openEGLDisplay tries, in order: hardware EGL devices, Mesa surfaceless,
// software devices, the default display. $VLMRB_EGL_PLATFORM
// (device|surfaceless|default) restricts the choice and $VLMRB_EGL_DEVICE
// picks a device index.
func openEGLDisplay() (*eglDisplay, error) {
	C.vlmrbLoadExt()
	clientExts := C.eglQueryString(0, C.EGL_EXTENSIONS)
	type cand struct {
		name string
		get  func() C.EGLDisplay
	}
	var hw, sw []cand
	if hasExt(clientExts, "EGL_EXT_platform_device") &&
		hasExt(clientExts, "EGL_EXT_device_enumeration") {
		var devs [16]C.EGLDeviceEXT
		n := int(C.vlmrbQueryDevices(&devs[0], 16))
		want := -1
		if s := os.Getenv("VLMRB_EGL_DEVICE"); s != "" {
			if v, err := strconv.Atoi(s); err == nil {
				want = v
			}
		}
		for i := 0; i < n; i++ {
			if want >= 0 && i != want {
				continue
			}
			d := devs[i]
			exts := C.GoString(C.vlmrbDeviceExts(d))
			c := cand{fmt.Sprintf("device%d", i), func() C.EGLDisplay {
				return C.vlmrbPlatformDisplay(C.EGL_PLATFORM_DEVICE_EXT, unsafe.Pointer(d))
			}}
			if strings.Contains(exts, "EGL_MESA_device_software") {
				sw = append(sw, c)
			} else {
				hw = append(hw, c)
			}
		}
	}
	var order []cand
	order = append(order, hw...)
	if hasExt(clientExts, "EGL_MESA_platform_surfaceless") {
		order = append(order, cand{"surfaceless", func() C.EGLDisplay {
			return C.vlmrbPlatformDisplay(C.EGL_PLATFORM_SURFACELESS_MESA, nil)
		}})
	}
	order = append(order, sw...)
	order = append(order, cand{"default", func() C.EGLDisplay { return C.vlmrbDefaultDisplay() }})
	if p := os.Getenv("VLMRB_EGL_PLATFORM"); p != "" {
		var keep []cand
		for _, c := range order {
			if strings.HasPrefix(c.name, p) {
				keep = append(keep, c)
			}
		}
		order = keep
	}
	var errs []string
	for _, c := range order {
		d := c.get()
		if d == 0 {
			errs = append(errs, c.name+": no display")
			continue
		}
		var maj, min C.EGLint
		if C.eglInitialize(d, &maj, &min) == 0 {
			errs = append(errs, fmt.Sprintf("%s: eglInitialize 0x%x", c.name, int(C.eglGetError())))
			continue
		}
		if C.eglBindAPI(C.EGL_OPENGL_API) == 0 {
			errs = append(errs, c.name+": no desktop OpenGL")
			C.eglTerminate(d)
			continue
		}
		cfg := C.vlmrbChooseConfig(d)
		if cfg == 0 {
			errs = append(errs, c.name+": no RGBA8 OpenGL config")
			C.eglTerminate(d)
			continue
		}
		dexts := C.eglQueryString(d, C.EGL_EXTENSIONS)
		sl := hasExt(dexts, "EGL_KHR_surfaceless_context")
		return &eglDisplay{dpy: d, cfg: cfg, platform: c.name, surfaceless: sl}, nil
	}
	if len(order) == 0 {
		return nil, fmt.Errorf("%w: egl: no platform matches VLMRB_EGL_PLATFORM=%q", ErrUnavailable, os.Getenv("VLMRB_EGL_PLATFORM"))
	}
	return nil, fmt.Errorf("%w: egl: no usable display (%s); on Debian install libegl1 libgl1-mesa-dri", ErrUnavailable, strings.Join(errs, "; "))
}

type eglRenderer struct {
	mu     sync.Mutex
	th     *glThread
	g      *glScene
	ctx    C.EGLContext
	surf   C.EGLSurface
	info   Info
	closed bool
	broken error
}

func newEGL(opts Options) (*eglRenderer, error) {
	eglOnce.Do(func() { eglDpy, eglErr = openEGLDisplay() })
	if eglErr != nil {
		return nil, eglErr
	}
	d := eglDpy
	r := &eglRenderer{}
	eglMu.Lock()
	defer eglMu.Unlock()
	th, err := startGLThread(func() error {
		if C.eglBindAPI(C.EGL_OPENGL_API) == 0 { // per-thread state
			return eglError("eglBindAPI")
		}
		ctx := C.vlmrbCreateContext(d.dpy, d.cfg, 4, 1)
		if ctx == nil {
			ctx = C.vlmrbCreateContext(d.dpy, d.cfg, 3, 3)
		}
		if ctx == nil {
			return fmt.Errorf("%w: %v (need OpenGL 3.3 core)", ErrUnavailable, eglError("eglCreateContext"))
		}
		var surf C.EGLSurface
		if !d.surfaceless {
			surf = C.vlmrbPbuffer(d.dpy, d.cfg)
			if surf == nil {
				C.eglDestroyContext(d.dpy, ctx)
				return eglError("eglCreatePbufferSurface")
			}
		}
		if C.eglMakeCurrent(d.dpy, surf, surf, ctx) == 0 {
			err := eglError("eglMakeCurrent")
			C.eglDestroyContext(d.dpy, ctx)
			return err
		}
		glOnce.Do(func() {
			glErr = gl.InitWithProcAddrFunc(func(name string) unsafe.Pointer {
				cs := C.CString(name)
				defer C.free(unsafe.Pointer(cs))
				return unsafe.Pointer(C.eglGetProcAddress(cs))
			})
		})
		if glErr != nil {
			C.eglMakeCurrent(d.dpy, nil, nil, nil)
			C.eglDestroyContext(d.dpy, ctx)
			return fmt.Errorf("render: egl: loading GL functions: %w", glErr)
		}
		r.ctx, r.surf = ctx, surf
		g, err := newGLScene(opts)
		if err != nil {
			r.release(d)
			return err
		}
		r.g = g
		r.info = g.info("egl", d.platform)
		if opts.RequireGPU && r.info.Software {
			g.destroy()
			r.release(d)
			return fmt.Errorf("%w (GL_RENDERER %q)", ErrSoftwareGL, r.info.Renderer)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	r.th = th
	return r, nil
}

func (r *eglRenderer) release(d *eglDisplay) {
	C.eglMakeCurrent(d.dpy, nil, nil, nil)
	if r.surf != nil {
		C.eglDestroySurface(d.dpy, r.surf)
	}
	C.eglDestroyContext(d.dpy, r.ctx)
}

func (r *eglRenderer) Info() Info { return r.info }

func (r *eglRenderer) Render(sc *Scene, cam Camera, dst *image.RGBA) error {
	return r.RenderBuffers(sc, cam, Buffers{RGB: dst})
}

func (r *eglRenderer) RenderBuffers(sc *Scene, cam Camera, dst Buffers) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.broken != nil && !r.closed {
		return r.broken
	}
	if err := checkCall(r.closed, sc, cam, dst); err != nil {
		return err
	}
	eglMu.Lock()
	err := r.th.call(func() error { return r.g.draw(sc, cam, dst) })
	eglMu.Unlock()
	if errors.Is(err, ErrContextLost) {
		r.broken = err
	}
	return err
}

func (r *eglRenderer) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	eglMu.Lock()
	defer eglMu.Unlock()
	return r.th.stop(func() error {
		r.g.destroy()
		r.release(eglDpy)
		return nil
	})
}
