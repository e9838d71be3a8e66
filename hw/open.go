package hw

import (
	"context"
	"fmt"
	"strings"

	"github.com/vlmrb/vlmrb/frame"
)

// Open opens the camera or recording named by spec:
//
//	http://… https://…       MJPEG over HTTP (user:pass@ for basic auth)
//	rtsp://… rtsps://…       RTSP (MJPEG decoded in Go, H.264 through ffmpeg)
//	v4l2:/dev/videoN, /dev/videoN, v4l2:N   a V4L2 device (Linux)
//	dir:PATH or a folder      PNG/JPEG images in name order
//	file:PATH or a video file decoded by ffmpeg (.mp4 .mkv .avi .mov .webm .mjpeg …)
//
// Live sources return once connected (transient failures are retried until
// ctx ends). Every returned source also implements StatsReporter.
func Open(ctx context.Context, spec string, opts Options) (frame.Source, error) {
	lower := strings.ToLower(spec)
	switch {
	case strings.HasPrefix(lower, "http://"), strings.HasPrefix(lower, "https://"):
		return OpenMJPEG(ctx, spec, opts)
	case strings.HasPrefix(lower, "rtsp://"), strings.HasPrefix(lower, "rtsps://"):
		return OpenRTSP(ctx, spec, opts)
	case strings.HasPrefix(lower, "v4l2:"):
		dev := spec[len("v4l2:"):]
		if dev != "" && !strings.HasPrefix(dev, "/") {
			dev = "/dev/video" + dev
		}
		return OpenV4L2(ctx, dev, opts)
	case strings.HasPrefix(spec, "/dev/video"):
		return OpenV4L2(ctx, spec, opts)
	case strings.HasPrefix(lower, "dir:"):
		return OpenDir(spec[len("dir:"):], opts)
	case strings.HasPrefix(lower, "file:"):
		return OpenVideo(ctx, spec[len("file:"):], opts)
	case strings.Contains(spec, "://"):
		return nil, fmt.Errorf("%w %q: scheme not supported (want http, https, rtsp, v4l2:, dir: or a path)", ErrUnknownSpec, redactSpec(spec))
	case spec == "":
		return nil, fmt.Errorf("%w: empty", ErrUnknownSpec)
	}
	return openPath(ctx, spec, opts)
}
