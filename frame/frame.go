package frame

import (
	"context"
	"errors"
	"image"
	"time"
)

// Frame is one camera image with the metadata a scorer or recorder needs.
type Frame struct {
	// Image holds the colour pixels. Sources reuse it when its bounds
	// already match, so a caller that keeps a frame must Clone it.
	Image *image.RGBA
	// Depth is optional linear depth (m), row-major, len = width*height,
	// or nil when the source has no depth.
	Depth []float32
	// Time is when the frame was captured: wall clock for real cameras,
	// simulated time since the Unix epoch for simulated ones.
	Time time.Time
	// Camera names the camera that produced the frame.
	Camera string
	// Seq counts frames produced by the source, starting at 0.
	Seq uint64
}

// Clone returns a deep copy of f that shares no memory with it.
func (f *Frame) Clone() Frame {
	c := *f
	if f.Image != nil {
		img := image.NewRGBA(f.Image.Rect)
		copy(img.Pix, f.Image.Pix)
		c.Image = img
	}
	if f.Depth != nil {
		c.Depth = append([]float32(nil), f.Depth...)
	}
	return c
}

// Source yields frames from one camera.
//
// Next blocks until a frame is available or ctx is done, and writes it into
// dst, reusing dst.Image when its size matches. Errors are returned, never
// panicked: ErrClosed after Close, ctx.Err() on cancellation, and a
// descriptive error for device and stream failures. Close releases the
// device; it is safe to call more than once.
type Source interface {
	Next(ctx context.Context, dst *Frame) error
	Close() error
}

// ErrClosed is returned by Next after the source has been closed.
var ErrClosed = errors.New("frame: source is closed")

// ErrEndOfStream is returned by Next when a finite source (a recording) has
// no more frames.
var ErrEndOfStream = errors.New("frame: end of stream")

// EnsureRGBA returns dst if it is non-nil with bounds r, else a new image of
// bounds r. Sources use it to reuse the caller's pixel storage.
func EnsureRGBA(dst *image.RGBA, r image.Rectangle) *image.RGBA {
	if dst != nil && dst.Rect == r {
		return dst
	}
	return image.NewRGBA(r)
}
