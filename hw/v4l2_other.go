//go:build !(linux && (amd64 || arm64))

package hw

import (
	"context"
	"fmt"
	"runtime"
)

// V4L2Source is a frame.Source over a Linux V4L2 capture device. On this
// platform it cannot be opened.
type V4L2Source struct{ *live }

// OpenV4L2 reports that V4L2 capture is only built for 64-bit Linux.
func OpenV4L2(ctx context.Context, dev string, opts Options) (*V4L2Source, error) {
	return nil, fmt.Errorf("%w: V4L2 capture is only supported on linux/amd64 and linux/arm64, not %s/%s", ErrNoDevice, runtime.GOOS, runtime.GOARCH)
}
