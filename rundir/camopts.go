package rundir

// CameraOptions returns the drawing options of scorer and reward frames
// (vlm.scenery, vlm.shadows, vlm.msaa).
func (v VLMConfig) CameraOptions() CameraOptions {
	return CameraOptions{Scenery: v.Scenery, Shadows: v.Shadows, MSAA: v.MSAA}
}
