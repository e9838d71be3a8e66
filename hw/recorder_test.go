package hw

import (
	"context"
	"errors"
	"image"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/frame"
)

// chanSource is a frame.Source fed by the test through a channel, so the
// Recorder's pairing logic can be checked without timing assumptions.
type chanSource struct {
	ch     chan frame.Frame
	closed chan struct{}
	seq    uint64
}

func newChanSource() *chanSource {
	return &chanSource{ch: make(chan frame.Frame), closed: make(chan struct{})}
}

func (c *chanSource) Next(ctx context.Context, dst *frame.Frame) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-c.closed:
		return frame.ErrClosed
	case f := <-c.ch:
		dst.Image = frame.EnsureRGBA(dst.Image, f.Image.Rect)
		copy(dst.Image.Pix, f.Image.Pix)
		dst.Time, dst.Seq, dst.Camera = f.Time, c.seq, "chan"
		c.seq++
		return nil
	}
}

func (c *chanSource) Close() error {
	select {
	case <-c.closed:
	default:
		close(c.closed)
	}
	return nil
}

func solidFrame(r uint8, t time.Time) frame.Frame {
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	for i := 0; i < len(img.Pix); i += 4 {
		img.Pix[i], img.Pix[i+3] = r, 255
	}
	return frame.Frame{Image: img, Time: t}
}

func waitFrames(t *testing.T, r *Recorder, n uint64) {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // bounds a hang only
	for r.Stats().Frames < n {
		if time.Now().After(deadline) {
			t.Fatalf("recorder has %d frames, want %d", r.Stats().Frames, n)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestRecorderPairsStepsWithNewestFrame(t *testing.T) {
	t.Parallel()
	src := newChanSource()
	rec := NewRecorder(src, RecorderOptions{MaxAge: time.Minute})
	defer func() { _ = rec.Close() }()
	var f frame.Frame
	if _, err := rec.Mark(0, &f); !errors.Is(err, ErrNoFrame) {
		t.Fatalf("Mark before any frame = %v, want ErrNoFrame", err)
	}
	src.ch <- solidFrame(10, time.Now())
	if err := rec.WaitFrame(context.Background()); err != nil {
		t.Fatal(err)
	}
	m0, err := rec.Mark(0, &f)
	if err != nil || m0.FrameSeq != 0 || m0.Repeated || f.Image.Pix[0] != 10 {
		t.Fatalf("Mark 0 = %+v, %v, R=%d", m0, err, f.Image.Pix[0])
	}
	m1, err := rec.Mark(1, &f)
	if err != nil || m1.FrameSeq != 0 || !m1.Repeated {
		t.Fatalf("Mark 1 without a new frame = %+v, %v; want the same frame, Repeated", m1, err)
	}
	kept := f.Image
	src.ch <- solidFrame(20, time.Now())
	src.ch <- solidFrame(30, time.Now())
	waitFrames(t, rec, 3)
	m2, err := rec.Mark(2, &f)
	if err != nil || m2.FrameSeq != 2 || m2.Repeated || f.Image.Pix[0] != 30 || m2.Age < 0 {
		t.Fatalf("Mark 2 = %+v, %v, R=%d; want the newest frame (seq 2)", m2, err, f.Image.Pix[0])
	}
	if f.Image != kept {
		t.Fatal("Mark did not reuse dst.Image")
	}
	marks := rec.Marks()
	if len(marks) != 3 || marks[0].Step != 0 || marks[2].Step != 2 {
		t.Fatalf("marks %+v", marks)
	}
	// a frame older than MaxAge is refused
	src.ch <- solidFrame(40, time.Now().Add(-time.Hour))
	waitFrames(t, rec, 4)
	if _, err := rec.Mark(3, &f); !errors.Is(err, ErrStaleFrame) {
		t.Fatalf("stale frame: %v, want ErrStaleFrame", err)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-src.closed:
	default:
		t.Fatal("Close did not close the source")
	}
}

func TestRecorderHistoryRing(t *testing.T) {
	t.Parallel()
	src := newChanSource()
	rec := NewRecorder(src, RecorderOptions{History: 4})
	defer func() { _ = rec.Close() }()
	src.ch <- solidFrame(1, time.Now())
	waitFrames(t, rec, 1)
	var f frame.Frame
	for s := int64(0); s < 10; s++ {
		if _, err := rec.Mark(s, &f); err != nil {
			t.Fatal(err)
		}
	}
	marks := rec.Marks()
	if len(marks) != 4 {
		t.Fatalf("%d marks, want 4", len(marks))
	}
	for i, m := range marks {
		if m.Step != int64(6+i) {
			t.Fatalf("marks %+v, want steps 6..9 oldest first", marks)
		}
	}
}

// TestRecorderOverRecording runs the Recorder over a finite folder source:
// it stops at the end of the stream and keeps the last frame.
func TestRecorderOverRecording(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writePNGs(t, dir, 3)
	src, err := OpenDir(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec := NewRecorder(src, RecorderOptions{})
	defer func() { _ = rec.Close() }()
	deadline := time.Now().Add(time.Minute) // bounds a hang only
	for rec.Stats().Err == nil && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if st := rec.Stats(); !errors.Is(st.Err, frame.ErrEndOfStream) || st.Frames != 3 {
		t.Fatalf("stats %+v, want 3 frames then ErrEndOfStream", st)
	}
	var f frame.Frame
	if m, err := rec.Mark(7, &f); err != nil || m.FrameSeq != 2 || f.Image.RGBAAt(0, 0).R != 20 {
		t.Fatalf("Mark after the end = %+v, %v", m, err)
	}
}
