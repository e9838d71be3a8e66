package vlmprio

import (
	"context"
	"errors"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/replay"
)

// ClipSource cuts the frames of src (a camera or a recording) into clips
// of c on env 0, as one episode, and hands each batch of finished clips
// to take until take returns true. Frames get consecutive replay refs
// (slot 1, 2, …; generation 1) so that clips can name the steps they cover.
// At the end of a finite source the partial clip is flushed to take and
// ended is true. Errors other than the end of the stream are returned.
func ClipSource(ctx context.Context, src frame.Source, c *Clipper, take func([]*Clip) bool) (ended bool, err error) {
	var f frame.Frame
	slot := int32(0)
	for {
		err := src.Next(ctx, &f)
		if errors.Is(err, frame.ErrEndOfStream) {
			take(c.Flush(0))
			return true, nil
		}
		if err != nil {
			return false, err
		}
		slot++
		if take(c.Push(0, Step{Episode: 0, Frame: f, Ref: replay.Ref{Slot: slot, Gen: 1}})) {
			return false, nil
		}
	}
}
