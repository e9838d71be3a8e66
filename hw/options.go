package hw

import (
	"errors"
	"fmt"
	"image"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/vlmrb/vlmrb/internal/redact"
)

// Options configures a source. The zero value is usable: every zero field
// takes the default documented on it.
type Options struct {
	// Camera is the name written into Frame.Camera. Default: the spec with
	// any credentials removed.
	Camera string

	// Width and Height are the output size (pixels). Zero keeps the native
	// size; if only one is set the other follows the aspect ratio. When the
	// target aspect differs from the (cropped) source, the source is
	// centre-cropped to the target aspect before resizing, never stretched.
	Width, Height int
	// Crop selects a region of the native image (pixels) before resizing.
	// The empty rectangle means the whole image.
	Crop image.Rectangle

	// MaxFPS limits the delivered rate (frames/s): a frame arriving sooner
	// than 1/MaxFPS after the last kept one is skipped and counted in
	// Stats.Decimated. Zero means no limit.
	MaxFPS float64
	// Decimate keeps one frame in every Decimate (0 and 1 keep all).
	Decimate int

	// Buffer is how many undecoded frames a live source holds for a slow
	// consumer (default 1: only the newest, lowest latency). When it is
	// full the oldest is dropped and counted in Stats.Dropped. Raise it
	// when every frame matters more than latency (recording a rollout);
	// memory stays bounded by (Buffer+2) × MaxFrameBytes.
	Buffer int

	// MaxFrameBytes bounds one encoded frame or multipart part (bytes).
	// Larger parts are rejected with ErrFrameTooLarge. Default 8 MiB.
	MaxFrameBytes int
	// StallTimeout is how long a connected live stream may go without a
	// frame before it is treated as lost and reconnected. Default 5 s.
	StallTimeout time.Duration
	// FrameTimeout, when positive, bounds how long Next waits for a frame
	// from a live source (across reconnects): when none arrives it fails
	// with ErrFrameTimeout, naming the source and its last connection error
	// (too-large parts, a missing boundary, a stalled stream). Zero waits
	// as long as Next's ctx allows.
	FrameTimeout time.Duration
	// BackoffMin and BackoffMax bound the exponential reconnect backoff.
	// Defaults 100 ms and 5 s.
	BackoffMin, BackoffMax time.Duration
	// MaxReconnects is how many consecutive failed connection attempts a
	// live source makes before Next returns the last error. Zero means
	// retry forever; a negative value means never reconnect.
	MaxReconnects int

	// PixelFormat selects the V4L2 capture format: "mjpeg" (default, falls
	// back to yuyv when the device lacks it) or "yuyv".
	PixelFormat string
	// FPS is the frame rate requested from a V4L2 device (0: driver
	// default), and the frame period used to timestamp recorded image
	// folders (default 30).
	FPS float64
	// Loop restarts a recording at its end instead of returning
	// frame.ErrEndOfStream.
	Loop bool
	// RTSPTransport is "tcp" (default) or "udp".
	RTSPTransport string
	// FFmpeg is the ffmpeg executable (default: "ffmpeg" looked up in PATH).
	FFmpeg string

	// Logf, when set, receives one line per connection event. Messages never
	// contain credentials.
	Logf func(format string, args ...any)
}

const (
	defaultMaxFrameBytes = 8 << 20
	defaultStall         = 5 * time.Second
	defaultBackoffMin    = 100 * time.Millisecond
	defaultBackoffMax    = 5 * time.Second
	defaultRecordingFPS  = 30
	maxBuffer            = 256
)

func (o Options) withDefaults() Options {
	if o.MaxFrameBytes <= 0 {
		o.MaxFrameBytes = defaultMaxFrameBytes
	}
	if o.StallTimeout <= 0 {
		o.StallTimeout = defaultStall
	}
	if o.BackoffMin <= 0 {
		o.BackoffMin = defaultBackoffMin
	}
	if o.BackoffMax < o.BackoffMin {
		o.BackoffMax = max(defaultBackoffMax, o.BackoffMin)
	}
	if o.Buffer < 1 {
		o.Buffer = 1
	}
	if o.Buffer > maxBuffer {
		o.Buffer = maxBuffer
	}
	if o.Decimate < 1 {
		o.Decimate = 1
	}
	if o.FFmpeg == "" {
		o.FFmpeg = "ffmpeg"
	}
	return o
}

func (o Options) validate() error {
	switch {
	case o.Width < 0 || o.Height < 0 || o.Width > maxDim || o.Height > maxDim:
		return fmt.Errorf("hw: output size %dx%d out of range [0, %d]", o.Width, o.Height, maxDim)
	case o.FrameTimeout < 0:
		return errors.New("hw: FrameTimeout must not be negative")
	case o.MaxFPS < 0 || o.FPS < 0:
		return errors.New("hw: MaxFPS and FPS must not be negative")
	case o.Crop.Dx() < 0 || o.Crop.Dy() < 0:
		return fmt.Errorf("hw: bad crop %v", o.Crop)
	}
	return nil
}

// maxDim bounds any image side this package accepts or produces (pixels).
const maxDim = 16384

// maxPixels bounds the pixel count of a decoded image (8K UHD is 33 M).
const maxPixels = 40 << 20

// Stats counts what a source has done since it was opened.
type Stats struct {
	// Frames counts frames received from the device or stream.
	Frames uint64
	// Delivered counts frames returned by Next.
	Delivered uint64
	// Dropped counts frames overwritten in the latest-frame slot because
	// the consumer was slower than the camera.
	Dropped uint64
	// Decimated counts frames skipped by MaxFPS or Decimate.
	Decimated uint64
	// DecodeErrors counts frames that failed to decode (Next returned an
	// error for them).
	DecodeErrors uint64
	// Reconnects counts connection attempts after the first.
	Reconnects uint64
	// TooLarge counts connections dropped for a part or frame larger than
	// MaxFrameBytes (or headers over their cap).
	TooLarge uint64
	// LastError is the most recent connection error (redacted), or "".
	LastError string
}

// StatsReporter is implemented by every source this package returns.
type StatsReporter interface {
	Stats() Stats
}

type counters struct {
	frames, delivered, dropped, decimated, decodeErrors, reconnects, tooLarge atomic.Uint64
	lastErr                                                                   atomic.Pointer[string]
}

func (c *counters) snapshot() Stats {
	s := Stats{
		Frames:       c.frames.Load(),
		Delivered:    c.delivered.Load(),
		Dropped:      c.dropped.Load(),
		Decimated:    c.decimated.Load(),
		DecodeErrors: c.decodeErrors.Load(),
		Reconnects:   c.reconnects.Load(),
		TooLarge:     c.tooLarge.Load(),
	}
	if p := c.lastErr.Load(); p != nil {
		s.LastError = *p
	}
	return s
}

// Errors callers may test for with errors.Is.
var (
	// ErrFrameTooLarge reports a frame or multipart part larger than
	// Options.MaxFrameBytes.
	ErrFrameTooLarge = errors.New("hw: frame larger than MaxFrameBytes")
	// ErrFrameTimeout reports a live source that yielded no frame within
	// Options.FrameTimeout.
	ErrFrameTimeout = errors.New("hw: frame timeout")
	// ErrStalled reports a live stream that delivered no frame within
	// Options.StallTimeout.
	ErrStalled = errors.New("hw: stream stalled")
	// ErrNoFFmpeg reports that a source needs ffmpeg and none was found.
	ErrNoFFmpeg = errors.New("hw: ffmpeg not found (install it, e.g. `apt-get install ffmpeg`, or set Options.FFmpeg)")
	// ErrUnknownSpec reports a spec Open cannot dispatch.
	ErrUnknownSpec = errors.New("hw: unknown source spec")
	// ErrNoDevice reports a missing V4L2 device.
	ErrNoDevice = errors.New("hw: no such camera device")
)

// permanentError marks errors that reconnecting cannot fix (bad
// credentials, wrong content type, missing stream format).
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

func permanent(err error) error { return &permanentError{err} }

func isPermanent(err error) bool {
	var p *permanentError
	return errors.As(err, &p)
}

// redactURL returns u as a string with any userinfo, and the values of
// query parameters that look like credentials (many IP cameras take
// ?user=…&pwd=…), masked (internal/redact). It is the only form in which
// this package prints a URL.
func redactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	return redact.URL(u.String())
}

// urlSecrets lists the strings of u that must never be printed: the
// password and the credential-like query values, raw and escaped.
func urlSecrets(u *url.URL) []string {
	_, c := redact.StripURL(u.String())
	var out []string
	for _, v := range c.Secrets() {
		out = append(out, v, url.QueryEscape(v), url.PathEscape(v))
	}
	return out
}

// redactSpec removes credentials from a spec string that may be a URL
// (an unparsable one is masked by pattern).
func redactSpec(spec string) string {
	if strings.Contains(spec, "://") {
		return redact.URL(spec)
	}
	return spec
}

// scrub masks the given secrets (and anything credential-like) in err's
// message; errors from libraries may embed the URL they were given.
// errors.Is and errors.As still reach the original.
func scrub(err error, secrets ...string) error { return redact.Error(err, secrets...) }
