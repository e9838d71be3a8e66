package render

import (
	"image"

	"github.com/go-gl/mathgl/mgl64"
)

// ViewerConfig configures RunViewer (available when built with cgo and
// without the nogl/noglfw tags; otherwise RunViewer returns ErrUnavailable).
type ViewerConfig struct {
	Title string
	// Status, when set, is called every frame and its line is shown after
	// the title in the window's title bar (step, reward, success of the
	// episode on screen), refreshed at most 10 times a second.
	Status        func() string
	Width, Height int // window size (0: 800x600)
	// Target and Distance (m) set the free camera's initial orbit.
	Target   mgl64.Vec3
	Distance float64
	// Cameras are cycled with the C key after the free camera; their size
	// is replaced by the window's.
	Cameras []Camera
	// Resolve maps a body-attached camera to world coordinates each frame
	// (e.g. func(c Camera) Camera { c, _ = ResolveCamera(m, s, c); return c }).
	Resolve func(Camera) Camera
	// Options for the GL drawing (shadows, MSAA).
	Options     Options
	StartPaused bool
	// MaxFrames closes the viewer after that many frames (0: never); Hidden
	// keeps the window invisible. Both are for tests.
	MaxFrames int
	Hidden    bool

	// snapshot, when set, receives the window contents after each frame
	// (tests).
	snapshot func(*image.RGBA)
}
