package lerobot

import (
	"context"
	"image"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/frame"
)

// stampedSource replays frames at given capture times (s).
type stampedSource struct {
	times []float64
	i     int
}

func (s *stampedSource) Next(_ context.Context, dst *frame.Frame) error {
	if s.i >= len(s.times) {
		return frame.ErrEndOfStream
	}
	if dst.Image == nil {
		dst.Image = image.NewRGBA(image.Rect(0, 0, 65, 64))
	}
	for j := range dst.Image.Pix {
		dst.Image.Pix[j] = uint8(40 * s.i)
	}
	dst.Time = time.Unix(100, 0).Add(time.Duration(s.times[s.i] * float64(time.Second)))
	dst.Seq = uint64(s.i)
	s.i++
	return nil
}

func (s *stampedSource) Close() error { return nil }

// Irregular camera frames land on the fps grid as the newest frame at or
// before each tick: a gap repeats a frame, a burst drops frames.
func TestConvertResamplesOnTheGrid(t *testing.T) {
	t.Parallel()
	src := &stampedSource{times: []float64{0, 0.05, 0.25, 0.26, 0.30}}
	dir := filepath.Join(t.TempDir(), "ds")
	res, err := ConvertSource(context.Background(), src, dir, ConvertOptions{FPS: 10, Codec: CodecH264})
	if err != nil {
		t.Fatal(err)
	}
	if res.Width != 64 || res.Height != 64 || res.SourceFrames != 5 {
		t.Fatalf("result %+v", res)
	}
	d, err := Open(dir, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	var got []float64
	if err := d.ReadFrames(func(r *FrameRow) error { got = append(got, r.CameraTime); return nil }); err != nil {
		t.Fatal(err)
	}
	want := []float64{0, 0.05, 0.05, 0.30} // ticks 0, 0.1, 0.2, 0.3 s
	if len(got) != len(want) {
		t.Fatalf("camera times %v, want %v", got, want)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Fatalf("camera times %v, want %v", got, want)
		}
	}
	if d.Columns().State || d.Columns().Action {
		t.Fatal("a camera recording has no state or action")
	}
}

func TestEstimateFPS(t *testing.T) {
	t.Parallel()
	var fs []frame.Frame
	for i := range 10 {
		fs = append(fs, frame.Frame{Time: time.Unix(0, 0).Add(time.Duration(i) * (time.Second / 30))})
	}
	if got := estimateFPS(fs); got != 30 {
		t.Fatalf("fps %v, want 30", got)
	}
}
