//go:build !cgo || nogl || noglfw

package render

import "fmt"

// RunViewer is unavailable in this build (it needs cgo and GLFW).
func RunViewer(cfg ViewerConfig, step func() error, scene func() *Scene) error {
	return fmt.Errorf("%w: the viewer needs a cgo build without the nogl/noglfw tags", ErrUnavailable)
}
