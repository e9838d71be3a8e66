package hw

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/frame"
)

// writePNGs writes n 8×6 PNGs whose red channel is 10*i, named so that
// lexical and natural order differ (f2.png < f10.png naturally).
func writePNGs(t testing.TB, dir string, n int) {
	t.Helper()
	for i := 0; i < n; i++ {
		img := image.NewRGBA(image.Rect(0, 0, 8, 6))
		for p := 0; p < len(img.Pix); p += 4 {
			img.Pix[p], img.Pix[p+1], img.Pix[p+2], img.Pix[p+3] = uint8(10*i), 7, 9, 255
		}
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("f%d.png", i)))
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
}

func TestDirSource(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writePNGs(t, dir, 12)
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("ignored"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	src, err := Open(ctx, "dir:"+dir, Options{FPS: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = src.Close() }()
	var f frame.Frame
	var t0 time.Time
	for i := 0; i < 12; i++ {
		if err := src.Next(ctx, &f); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if got := f.Image.RGBAAt(3, 3).R; got != uint8(10*i) {
			t.Fatalf("frame %d has R=%d, want %d (natural name order)", i, got, 10*i)
		}
		if i == 0 {
			t0 = f.Time
		}
		if want := t0.Add(time.Duration(i) * 100 * time.Millisecond); !f.Time.Equal(want) || f.Seq != uint64(i) {
			t.Fatalf("frame %d: time %v seq %d, want %v seq %d", i, f.Time, f.Seq, want, i)
		}
	}
	if err := src.Next(ctx, &f); !errors.Is(err, frame.ErrEndOfStream) {
		t.Fatalf("after the last image: %v, want ErrEndOfStream", err)
	}
	_ = src.Close()
	if err := src.Next(ctx, &f); !errors.Is(err, frame.ErrClosed) {
		t.Fatalf("after Close: %v, want ErrClosed", err)
	}
}

func TestDirSourceLoopDecimateResize(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writePNGs(t, dir, 5)
	src, err := OpenDir(dir, Options{Loop: true, Decimate: 2, Width: 4, Height: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = src.Close() }()
	var f frame.Frame
	var reds []uint8
	for i := 0; i < 6; i++ {
		if err := src.Next(context.Background(), &f); err != nil {
			t.Fatal(err)
		}
		if f.Image.Rect != image.Rect(0, 0, 4, 3) {
			t.Fatalf("size %v, want 4x3", f.Image.Rect)
		}
		reds = append(reds, f.Image.RGBAAt(1, 1).R)
	}
	// source frames 0..4 looped, every second kept: 0 2 4 | 1 3 | 0 …
	// (decimation counts source frames across the loop)
	if want := []uint8{0, 20, 40, 10, 30, 0}; !slices.Equal(reds, want) {
		t.Fatalf("reds %v, want %v", reds, want)
	}
}

func TestVideoSource(t *testing.T) {
	t.Parallel()
	needFFmpeg(t)
	path := filepath.Join(t.TempDir(), "clip.mp4")
	done, stderr := startFFmpeg(t, "-f", "lavfi", "-i", "smptebars=size=320x240:rate=20", "-frames:v", "25",
		"-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", path)
	<-done
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("ffmpeg made no video: %s", stderr)
	}
	ctx := context.Background()
	src, err := Open(ctx, path, Options{Width: 160, Height: 120})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = src.Close() }()
	var f frame.Frame
	n := 0
	var t0 time.Time
	for {
		err := src.Next(ctx, &f)
		if errors.Is(err, frame.ErrEndOfStream) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if f.Image.Rect.Dx() != 160 || f.Image.Rect.Dy() != 120 {
			t.Fatalf("size %v", f.Image.Rect)
		}
		if n == 0 {
			checkSMPTEBars(t, f.Image)
			t0 = f.Time
		}
		// 20 fps from ffprobe: 50 ms per frame
		if want := t0.Add(time.Duration(n) * 50 * time.Millisecond); !f.Time.Equal(want) {
			t.Fatalf("frame %d time %v, want %v", n, f.Time.Sub(t0), want.Sub(t0))
		}
		n++
	}
	if n != 25 {
		t.Fatalf("decoded %d frames, want 25", n)
	}
}

func TestVideoSourceBadFile(t *testing.T) {
	t.Parallel()
	needFFmpeg(t)
	path := filepath.Join(t.TempDir(), "junk.mp4")
	if err := os.WriteFile(path, []byte("this is not a video"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(context.Background(), path, Options{}); err == nil {
		t.Fatal("Open of a junk video succeeded")
	}
	if _, err := Open(context.Background(), path, Options{FFmpeg: "/nonexistent/ffmpeg"}); !errors.Is(err, ErrNoFFmpeg) {
		t.Fatalf("Open without ffmpeg = %v, want ErrNoFFmpeg", err)
	}
}

func TestOpenSpecs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, spec := range []string{"", "ftp://user:pw@host/cam", "/no/such/path", "gopher://x"} {
		_, err := Open(ctx, spec, Options{})
		if !errors.Is(err, ErrUnknownSpec) {
			t.Errorf("Open(%q) = %v, want ErrUnknownSpec", spec, err)
		}
		if err != nil && strings.Contains(err.Error(), "pw@") {
			t.Errorf("Open(%q) error leaks credentials: %v", spec, err)
		}
	}
	if _, err := Open(ctx, "v4l2:/dev/video-none", Options{}); !errors.Is(err, ErrNoDevice) {
		t.Errorf("missing V4L2 device: %v, want ErrNoDevice", err)
	}
	if _, err := Open(ctx, "http://x", Options{Width: -1}); err == nil {
		t.Error("negative width accepted")
	}
	// a single image file opens as a one-frame recording
	dir := t.TempDir()
	writePNGs(t, dir, 2)
	src, err := Open(ctx, filepath.Join(dir, "f1.png"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var f frame.Frame
	if err := src.Next(ctx, &f); err != nil || f.Image.RGBAAt(0, 0).R != 10 {
		t.Fatalf("single image: %v, R=%d", err, f.Image.RGBAAt(0, 0).R)
	}
	if err := src.Next(ctx, &f); !errors.Is(err, frame.ErrEndOfStream) {
		t.Fatalf("single image, second Next: %v", err)
	}
}

func TestNaturalCompare(t *testing.T) {
	t.Parallel()
	names := []string{"f10.png", "f2.png", "f1.png", "a.png", "f02.png", "f1b.png"}
	slices.SortFunc(names, naturalCompare)
	want := []string{"a.png", "f1.png", "f1b.png", "f2.png", "f02.png", "f10.png"}
	if !slices.Equal(names, want) {
		t.Fatalf("%v, want %v", names, want)
	}
}
