package hw

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/frame"
)

// TestMJPEGFromFFmpeg reads a real ffmpeg mpjpeg stream on loopback and
// checks frame count, size, timestamps and the SMPTE bar colours.
func TestMJPEGFromFFmpeg(t *testing.T) {
	t.Parallel()
	needFFmpeg(t)
	const (
		fps = 15
		dur = 3 * time.Second
		n   = 45 // fps × dur frames sent
	)
	port := freePort(t)
	serveMJPEG(t, port, fmt.Sprintf("smptebars=size=160x120:rate=%d", fps), dur)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Buffer: this test wants every frame (not the newest), and the
	// race detector on a loaded machine can stall the consumer for seconds
	src, err := Open(ctx, fmt.Sprintf("http://127.0.0.1:%d/cam.mjpg", port), Options{MaxReconnects: -1, BackoffMin: 20 * time.Millisecond, Buffer: maxBuffer})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = src.Close() }()
	var f frame.Frame
	got := 0
	var last time.Time
	for {
		err := src.Next(ctx, &f)
		if err != nil {
			if got == 0 {
				t.Fatalf("no frame: %v", err)
			}
			break
		}
		if f.Image.Rect.Dx() != 160 || f.Image.Rect.Dy() != 120 {
			t.Fatalf("frame size %v, want 160x120", f.Image.Rect)
		}
		if f.Time.IsZero() || f.Time.Before(last) {
			t.Fatalf("frame %d time %v not after %v", f.Seq, f.Time, last)
		}
		last = f.Time
		if got == 0 {
			checkSMPTEBars(t, f.Image)
		}
		got++
	}
	st := src.(StatsReporter).Stats()
	t.Logf("delivered %d of %d frames; stats %+v", got, n, st)
	if got < n*9/10 {
		t.Fatalf("delivered %d frames, want ≥ 90%% of %d", got, n)
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if err := src.Next(ctx, &f); !errors.Is(err, frame.ErrClosed) {
		t.Fatalf("Next after Close = %v, want ErrClosed", err)
	}
}

// TestMJPEGReconnect kills the stream mid-way (ffmpeg -listen serves one
// client and exits) and starts a new one on the same port: the source must
// reconnect and keep delivering.
func TestMJPEGReconnect(t *testing.T) {
	t.Parallel()
	needFFmpeg(t)
	port := freePort(t)
	first := serveMJPEG(t, port, "testsrc=size=160x120:rate=20", time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	src, err := Open(ctx, fmt.Sprintf("http://127.0.0.1:%d/cam.mjpg", port), Options{BackoffMin: 20 * time.Millisecond, BackoffMax: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = src.Close() }()
	go func() {
		<-first
		serveMJPEG(t, port, "testsrc=size=160x120:rate=20", time.Second)
	}()
	var f frame.Frame
	for {
		if err := src.Next(ctx, &f); err != nil {
			t.Fatalf("Next: %v (stats %+v)", err, src.(StatsReporter).Stats())
		}
		st := src.(StatsReporter).Stats()
		// frames after a reconnect: the first stream has 20 at most
		if st.Reconnects > 0 && st.Frames > 25 {
			t.Logf("stats after reconnect: %+v", st)
			break
		}
	}
}
