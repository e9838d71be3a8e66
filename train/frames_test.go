package train

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/hw"
	"github.com/vlmrb/vlmrb/rundir"
)

// countingSource counts a source's frames and closes.
type countingSource struct {
	frame.Source
	next, closed *atomic.Int64
}

func (c countingSource) Next(ctx context.Context, dst *frame.Frame) error {
	c.next.Add(1)
	return c.Source.Next(ctx, dst)
}

func (c countingSource) Close() error {
	c.closed.Add(1)
	return c.Source.Close()
}

// A recorded camera (package hw, a folder of images) stands in for the
// simulated one: the scorer's frames come from Options.Frames, one Next
// per env step, the clips are scored, and the run closes the sources.
func TestRunFramesFromHWSource(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for k, c := range []color.RGBA{{200, 30, 30, 255}, {30, 200, 30, 255}, {30, 30, 200, 255}} {
		img := image.NewRGBA(image.Rect(0, 0, 32, 24))
		for i := 0; i < len(img.Pix); i += 4 {
			img.Pix[i], img.Pix[i+1], img.Pix[i+2], img.Pix[i+3] = c.R, c.G, c.B, c.A
		}
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("frame%d.png", k)))
		if err != nil {
			t.Fatal(err)
		}
		if err := png.Encode(f, img); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	c := tinyConfig(filepath.Join(t.TempDir(), "run"), "vlmrb")
	c.Scorer = "pixel"
	c.VLM.Clip.Length, c.VLM.Clip.Stride, c.VLM.Scoring.Workers = 4, 2, 1
	var next, closed atomic.Int64
	res, err := Run(context.Background(), valid(t, c), Options{Frames: func(i int) (frame.Source, error) {
		src, err := hw.OpenDir(dir, hw.Options{Loop: true, Camera: fmt.Sprintf("arm%d", i)})
		if err != nil {
			return nil, err
		}
		return countingSource{src, &next, &closed}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := next.Load(), res.Step; got != want {
		t.Errorf("%d frames read for %d env steps (one per env per step)", got, want)
	}
	if closed.Load() != int64(c.NumEnvs) {
		t.Errorf("%d sources closed, want %d", closed.Load(), c.NumEnvs)
	}
	rows, err := rundir.ReadMetricsJSONL(filepath.Join(c.Out, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	scored := 0.0
	for _, r := range rows {
		scored = max(scored, r.Values["vlm/clips_scored"])
	}
	if scored == 0 {
		t.Error("no clip of the recorded frames was scored")
	}
}
