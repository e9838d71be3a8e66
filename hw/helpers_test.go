package hw

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"net"
	"os/exec"
	"testing"
	"time"
)

// needFFmpeg skips the test when ffmpeg is not installed.
func needFFmpeg(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Skip("ffmpeg not installed (make deps installs it): skipping a test that needs a real stream producer")
	}
	return p
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}

// startFFmpeg runs ffmpeg with args, killed and reaped at test cleanup.
// done is closed when the process exits.
func startFFmpeg(t testing.TB, args ...string) (done chan struct{}, stderr *bytes.Buffer) {
	t.Helper()
	bin := needFFmpeg(t)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, append([]string{"-hide_banner", "-loglevel", "error", "-nostdin"}, args...)...)
	stderr = new(bytes.Buffer)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("start ffmpeg: %v", err)
	}
	done = make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return done, stderr
}

// serveMJPEG starts ffmpeg serving one MJPEG-over-HTTP client on port with
// the lavfi pattern src (e.g. "smptebars=size=320x240:rate=15") for dur.
func serveMJPEG(t testing.TB, port int, src string, dur time.Duration) chan struct{} {
	done, _ := startFFmpeg(t, "-re", "-f", "lavfi", "-i", src, "-t", fmt.Sprintf("%.3f", dur.Seconds()),
		"-c:v", "mjpeg", "-q:v", "5", "-f", "mpjpeg",
		"-content_type", "multipart/x-mixed-replace;boundary=ffmpeg",
		"-listen", "1", fmt.Sprintf("http://127.0.0.1:%d/cam.mjpg", port))
	return done
}

// smpteBars are the seven 75% bars of SMPTE EG 1 (ffmpeg's smptebars top
// two thirds), left to right, in 8-bit RGB: 0.75*255 ≈ 191.
var smpteBars = []color.RGBA{
	{191, 191, 191, 255}, // grey (75% white)
	{191, 191, 0, 255},   // yellow
	{0, 191, 191, 255},   // cyan
	{0, 191, 0, 255},     // green
	{191, 0, 191, 255},   // magenta
	{191, 0, 0, 255},     // red
	{0, 0, 191, 255},     // blue
}

// barTolerance allows for JPEG/H.264 quantisation and limited-range
// rounding (8-bit levels per channel).
const barTolerance = 28

// checkSMPTEBars asserts that img shows the seven bars at 30% height.
func checkSMPTEBars(t testing.TB, img *image.RGBA) {
	t.Helper()
	w, h := img.Rect.Dx(), img.Rect.Dy()
	y := h * 3 / 10
	for i, want := range smpteBars {
		x := (2*i + 1) * w / 14
		got := img.RGBAAt(img.Rect.Min.X+x, img.Rect.Min.Y+y)
		for c, d := range [3]int{int(got.R) - int(want.R), int(got.G) - int(want.G), int(got.B) - int(want.B)} {
			if d < -barTolerance || d > barTolerance {
				t.Fatalf("bar %d at (%d,%d): got %v, want %v ±%d (channel %d)", i, x, y, got, want, barTolerance, c)
			}
		}
	}
}

// testJPEG encodes a w×h image filled with c (plus a gradient so it is not
// trivially compressible).
func testJPEG(t testing.TB, w, h int, c color.RGBA) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
