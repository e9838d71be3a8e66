package train

import (
	"context"
	"image"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/vlmprio"
)

// SimClips runs ep.Policy on ep.Env episode after episode and cuts what
// the camera saw into clips of c (env 0), handing each batch of finished
// clips to take until take returns true. A step's frame is rendered
// before the step, with the task progress of that moment (HasProgress);
// cam nil renders no image (the oracle scorer needs only progress).
// Frames are w×h and named camera.
func SimClips(ctx context.Context, ep *Episodes, cam *SimCamera, camera string, w, h int, c *vlmprio.Clipper, take func([]*vlmprio.Clip) bool) error {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	slot := int32(0)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		ep.Reset()
		for t := 0; ; t++ {
			prog, _ := ep.Env.Progress()
			f := frame.Frame{Camera: camera, Seq: uint64(t)}
			if cam != nil {
				if err := cam.Render(ep.Env, img); err != nil {
					return err
				}
				f.Image = img
			}
			term, trunc, _, err := ep.Step()
			if err != nil {
				return err
			}
			done := term || trunc
			slot++
			if take(c.Push(0, vlmprio.Step{Episode: int64(ep.Episode()), Frame: f, Ref: replay.Ref{Slot: slot, Gen: 1},
				Progress: prog, HasProgress: true, Done: done})) {
				return nil
			}
			if done {
				break
			}
		}
	}
}
