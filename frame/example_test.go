package frame_test

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"time"

	"github.com/vlmrb/vlmrb/frame"
)

// testPattern is a minimal Source: a finite run of solid frames whose
// grey level counts up. Simulated cameras (package render) and real ones
// (package hw) implement the same two methods.
type testPattern struct {
	n, seq int
	closed bool
}

func (s *testPattern) Next(ctx context.Context, dst *frame.Frame) error {
	switch {
	case s.closed:
		return frame.ErrClosed
	case ctx.Err() != nil:
		return ctx.Err()
	case s.seq == s.n:
		return frame.ErrEndOfStream
	}
	dst.Image = frame.EnsureRGBA(dst.Image, image.Rect(0, 0, 4, 3)) // reuse the caller's pixels
	g := uint8(40 * s.seq)
	for i := 0; i < len(dst.Image.Pix); i += 4 {
		dst.Image.Pix[i], dst.Image.Pix[i+1], dst.Image.Pix[i+2], dst.Image.Pix[i+3] = g, g, g, 255
	}
	dst.Camera, dst.Seq = "pattern", uint64(s.seq)
	dst.Time = time.Unix(0, 0).Add(time.Duration(s.seq) * 100 * time.Millisecond)
	s.seq++
	return nil
}

func (s *testPattern) Close() error { s.closed = true; return nil }

// A consumer reads a Source until it ends, reusing one Frame; what it
// keeps it clones, because the source writes the next frame into the same
// pixels.
func Example() {
	var src frame.Source = &testPattern{n: 3}
	defer func() { _ = src.Close() }()
	var f frame.Frame
	var kept []frame.Frame
	for {
		err := src.Next(context.Background(), &f)
		if errors.Is(err, frame.ErrEndOfStream) {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		kept = append(kept, f.Clone())
	}
	for _, k := range kept {
		fmt.Printf("%s #%d at %v: %v\n", k.Camera, k.Seq, k.Time.Sub(time.Unix(0, 0)), k.Image.RGBAAt(0, 0) == color.RGBA{uint8(40 * k.Seq), uint8(40 * k.Seq), uint8(40 * k.Seq), 255})
	}
	_ = src.Close()
	fmt.Println(src.Next(context.Background(), &f))
	// Output:
	// pattern #0 at 0s: true
	// pattern #1 at 100ms: true
	// pattern #2 at 200ms: true
	// frame: source is closed
}
