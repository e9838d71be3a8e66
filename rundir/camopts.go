package rundir

import "github.com/vlmrb/vlmrb/render"

// CameraOptions returns the drawing options of scorer and reward frames
// (vlm.scenery, vlm.shadows, vlm.msaa).
func (v VLMConfig) CameraOptions() render.CameraOptions {
	return render.CameraOptions{Scenery: v.Scenery, Shadows: v.Shadows, MSAA: v.MSAA}
}
