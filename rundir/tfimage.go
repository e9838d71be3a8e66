package rundir

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image/gif"
	"math"
	"path/filepath"
	"time"

	"github.com/vlmrb/vlmrb/internal/safefile"
)

// TensorBoard's image summary (tensorflow/core/framework/summary.proto):
//
//	Value { string tag = 1; Image image = 4; }
//	Image { int32 height = 1; int32 width = 2; int32 colorspace = 3; bytes encoded_image_string = 4; }
//
// An animated GIF in encoded_image_string plays in TensorBoard's Images
// tab: that is how tensorboardX's add_video and SB3's Video output send
// videos.

// encodeImageEvent serialises one Event holding one image summary.
func encodeImageEvent(wall float64, step int64, tag string, w, h, colorspace int, data []byte) []byte {
	var img []byte
	img = pbKey(img, 1, 0)
	img = pbVarint(img, uint64(h))
	img = pbKey(img, 2, 0)
	img = pbVarint(img, uint64(w))
	img = pbKey(img, 3, 0)
	img = pbVarint(img, uint64(colorspace))
	img = pbBytes(img, 4, data)
	var v []byte
	v = pbBytes(v, 1, []byte(tag))
	v = pbBytes(v, 4, img)
	var ev []byte
	ev = pbKey(ev, 1, 1)
	ev = binary.LittleEndian.AppendUint64(ev, math.Float64bits(wall))
	ev = pbKey(ev, 2, 0)
	ev = pbVarint(ev, uint64(step))
	return pbBytes(ev, 5, pbBytes(nil, 1, v))
}

// WriteGIF records an animated GIF (an evaluation video) as the image
// summary tag at step. The GIF is checked to decode, and its size is read
// from it.
func (e *EventWriter) WriteGIF(step int64, tag string, data []byte) error {
	cfg, err := gif.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("TensorBoard video %s: not a GIF: %w", tag, err)
	}
	return e.write(encodeImageEvent(wallSeconds(time.Now()), step, tag, cfg.Width, cfg.Height, 3, data))
}

// maxTBVideo bounds an evaluation GIF copied into the event file; a larger
// one stays a file in videos/ only (event files are read whole).
const maxTBVideo = 32 << 20

// WriteVideo copies the GIF at path into the TensorBoard event file as the
// image summary tag at step (nothing without TensorBoard logging).
func (l *MetricsLog) WriteVideo(step int64, tag, path string) error {
	if l.tb == nil {
		return nil
	}
	b, err := safefile.ReadFile(path, maxTBVideo)
	if err != nil {
		return fmt.Errorf("TensorBoard gets GIFs up to %d MiB: %w", maxTBVideo>>20, err)
	}
	if err := l.tb.WriteGIF(step, tag, b); err != nil {
		return err
	}
	return l.tb.Flush()
}

// EvalVideoPath is where the evaluation at step writes its GIF.
func EvalVideoPath(out string, step int64) string {
	return filepath.Join(out, "videos", fmt.Sprintf("eval-%09d.gif", step))
}
