package hw

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/frame"
)

// mjpgStreamer serves frames in mjpg-streamer's framing, then holds the
// connection open (hold) or closes it.
type mjpgStreamer struct {
	frames   [][]byte
	user     string
	pass     string
	hold     bool
	noLength bool
	conns    atomic.Int64
}

func (m *mjpgStreamer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if m.user != "" {
		u, p, ok := r.BasicAuth()
		if !ok || u != m.user || p != m.pass {
			w.Header().Set("WWW-Authenticate", `Basic realm="cam"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
	}
	m.conns.Add(1)
	w.Header().Set("Content-Type", "multipart/x-mixed-replace;boundary=boundarydonotcross")
	fl := w.(http.Flusher)
	for _, f := range m.frames {
		_, _ = fmt.Fprintf(w, "--boundarydonotcross\r\nContent-Type: image/jpeg\r\n")
		if !m.noLength {
			_, _ = fmt.Fprintf(w, "Content-Length: %d\r\n", len(f))
		}
		_, _ = fmt.Fprintf(w, "X-Timestamp: 0.0\r\n\r\n")
		if _, err := w.Write(f); err != nil {
			return
		}
		_, _ = fmt.Fprintf(w, "\r\n")
		fl.Flush()
	}
	if m.hold {
		<-r.Context().Done()
	}
}

func colourFrames(t testing.TB, n, w, h int) [][]byte {
	frames := make([][]byte, n)
	for i := range frames {
		frames[i] = testJPEG(t, w, h, color.RGBA{uint8(2 * i), 100, 50, 255})
	}
	return frames
}

// logSink collects Logf lines.
type logSink struct {
	mu    sync.Mutex
	lines []string
}

func (l *logSink) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logSink) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

func TestMJPEGBasicAuthAndRedaction(t *testing.T) {
	t.Parallel()
	const user, pass = "robot", "s3cr3t-Pw"
	srv := httptest.NewServer(&mjpgStreamer{frames: colourFrames(t, 3, 64, 48), user: user, pass: pass})
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	var logs logSink
	_, err := Open(ctx, "http://"+user+":wrongPass@"+host+"/?action=stream", Options{Logf: logs.logf})
	if err == nil {
		t.Fatal("Open with a wrong password succeeded")
	}
	if errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "401") {
		t.Fatalf("bad credentials should fail at once with the status, got %v", err)
	}
	if s := err.Error() + logs.String(); strings.Contains(s, "wrongPass") || strings.Contains(s, user+":") {
		t.Fatalf("credentials leaked: %q", s)
	}

	src, err := Open(ctx, "http://"+user+":"+pass+"@"+host+"/?action=stream", Options{Logf: logs.logf, MaxReconnects: -1, Buffer: 8})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = src.Close() }()
	var f frame.Frame
	for i := 0; i < 3; i++ {
		if err := src.Next(ctx, &f); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if f.Image.Rect.Dx() != 64 || f.Image.Rect.Dy() != 48 {
			t.Fatalf("size %v", f.Image.Rect)
		}
	}
	err = src.Next(ctx, &f) // the server closed the stream
	if err == nil {
		t.Fatal("Next after the end of a non-reconnecting stream succeeded")
	}
	all := err.Error() + logs.String() + f.Camera + src.(StatsReporter).Stats().LastError
	if strings.Contains(all, pass) {
		t.Fatalf("password leaked: %q", all)
	}
	if !strings.Contains(f.Camera, "REDACTED") {
		t.Fatalf("camera name %q should show the URL redacted", f.Camera)
	}
}

func TestMJPEGOversizePartRejected(t *testing.T) {
	t.Parallel()
	for _, noLength := range []bool{false, true} {
		big := make([]byte, 300_000)
		big[0], big[1] = 0xFF, 0xD8
		srv := httptest.NewServer(&mjpgStreamer{frames: [][]byte{big}, noLength: noLength, hold: true})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		src, err := Open(ctx, srv.URL, Options{MaxFrameBytes: 100_000, MaxReconnects: -1})
		if err != nil {
			t.Fatal(err)
		}
		var f frame.Frame
		if err := src.Next(ctx, &f); !errors.Is(err, ErrFrameTooLarge) {
			t.Errorf("noLength=%v: Next = %v, want ErrFrameTooLarge", noLength, err)
		}
		_ = src.Close()
		cancel()
		srv.Close()
	}
}

func TestMJPEGStallReconnects(t *testing.T) {
	t.Parallel()
	m := &mjpgStreamer{frames: colourFrames(t, 1, 32, 32), hold: true}
	srv := httptest.NewServer(m)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	src, err := Open(ctx, srv.URL, Options{StallTimeout: 200 * time.Millisecond, BackoffMin: 10 * time.Millisecond, BackoffMax: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = src.Close() }()
	var f frame.Frame
	// each connection yields one frame and then stalls: three frames need
	// two stall-triggered reconnects
	for i := 0; i < 3; i++ {
		if err := src.Next(ctx, &f); err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
	}
	st := src.(StatsReporter).Stats()
	if st.Reconnects < 2 || m.conns.Load() < 3 || !strings.Contains(st.LastError, "stalled") {
		t.Fatalf("stats %+v, server saw %d connections; want ≥ 2 stall reconnects", st, m.conns.Load())
	}
}

// TestMJPEGSlowConsumerGetsNewest: a consumer that reads after 60 frames
// arrived gets the newest one and the rest are counted as dropped.
func TestMJPEGSlowConsumerGetsNewest(t *testing.T) {
	t.Parallel()
	const n = 60
	srv := httptest.NewServer(&mjpgStreamer{frames: colourFrames(t, n, 32, 32), hold: true})
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	src, err := Open(ctx, srv.URL, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = src.Close() }()
	// Frames counts a frame on arrival, before it is decoded and queued;
	// the 59th drop happens only once the newest frame is queued
	for src.(StatsReporter).Stats().Dropped < n-1 {
		if ctx.Err() != nil {
			t.Fatalf("stats %+v: not all %d frames were queued", src.(StatsReporter).Stats(), n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	var f frame.Frame
	if err := src.Next(ctx, &f); err != nil {
		t.Fatal(err)
	}
	if r := f.Image.RGBAAt(16, 16).R; absDiff(r, 2*(n-1)) > 4 {
		t.Fatalf("got frame with R=%d, want the newest (R≈%d)", r, 2*(n-1))
	}
	if st := src.(StatsReporter).Stats(); st.Dropped != n-1 || st.Delivered != 1 {
		t.Fatalf("stats %+v, want %d dropped and 1 delivered", st, n-1)
	}
}

func TestMJPEGDecimate(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(&mjpgStreamer{frames: colourFrames(t, 30, 32, 32), hold: true})
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	src, err := Open(ctx, srv.URL, Options{Decimate: 3, Buffer: 64})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = src.Close() }()
	var f frame.Frame
	for i := 0; i < 10; i++ {
		if err := src.Next(ctx, &f); err != nil {
			t.Fatal(err)
		}
		// frames 0, 3, 6, … are kept
		if r := f.Image.RGBAAt(16, 16).R; absDiff(r, uint8(2*3*i)) > 4 {
			t.Fatalf("delivery %d has R=%d, want frame %d (R≈%d)", i, r, 3*i, 6*i)
		}
	}
	// the reader may still be parsing frames 28 and 29 after the tenth
	// delivery, so wait for the count to reach 20 before checking it
	for src.(StatsReporter).Stats().Decimated < 20 && ctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
	}
	if st := src.(StatsReporter).Stats(); st.Decimated != 20 || st.Frames != 30 || st.Delivered != 10 {
		t.Fatalf("stats %+v, want 30 frames, 10 delivered, 20 decimated", st)
	}
}

func TestMJPEGRejectsNonStream(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = fmt.Fprint(w, "<html>login</html>")
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := Open(ctx, srv.URL, Options{}); err == nil || !strings.Contains(err.Error(), "not an MJPEG stream") {
		t.Fatalf("Open = %v, want a content-type error", err)
	}
}

// TestMJPEGGarbage: random bytes inside multipart framing give errors from
// Next (decode errors or stream errors), never a panic.
func TestMJPEGGarbage(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	frames := make([][]byte, 20)
	for i := range frames {
		frames[i] = make([]byte, 1+rng.IntN(5000))
		for j := range frames[i] {
			frames[i][j] = byte(rng.IntN(256))
		}
		if i%2 == 0 {
			frames[i][0], frames[i][1] = 0xFF, 0xD8 // looks like a JPEG
		}
	}
	srv := httptest.NewServer(&mjpgStreamer{frames: frames})
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	src, err := Open(ctx, srv.URL, Options{MaxReconnects: -1, Buffer: 32})
	if err != nil {
		// the whole short stream can end before Open returns: then Open's
		// error is the stream error this test asks for
		if !strings.Contains(err.Error(), "multipart") {
			t.Fatalf("Open: %v, want a multipart stream error", err)
		}
		return
	}
	defer func() { _ = src.Close() }()
	var f frame.Frame
	errs := 0
	for i := 0; i < 100; i++ {
		if err := src.Next(ctx, &f); err != nil {
			errs++
			if !strings.Contains(err.Error(), "stream ended") {
				continue
			}
			break
		}
	}
	if errs == 0 {
		t.Fatal("garbage frames decoded without any error")
	}
}

// TestCloseLeavesNoGoroutines opens and closes live sources and checks the
// goroutine count returns to where it was. Not parallel: it counts the
// whole process's goroutines.
func TestCloseLeavesNoGoroutines(t *testing.T) {
	m := &mjpgStreamer{frames: colourFrames(t, 5, 32, 32), hold: true}
	srv := httptest.NewServer(m)
	defer srv.Close()
	before := runtime.NumGoroutine()
	for i := 0; i < 5; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		src, err := Open(ctx, srv.URL, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var f frame.Frame
		if err := src.Next(ctx, &f); err != nil {
			t.Fatal(err)
		}
		_ = src.Close()
		cancel()
	}
	httpTransport.CloseIdleConnections()
	srv.CloseClientConnections()
	deadline := time.Now().Add(time.Minute) // bounds a hang only
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Fatalf("%d goroutines after Close, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

func TestRedaction(t *testing.T) {
	t.Parallel()
	secrets := []string{"p4ssw0rd", "hunter22", "admin"}
	for _, spec := range []string{
		"http://admin:p4ssw0rd@cam.local/video.cgi?user=admin&pwd=hunter22&res=hi",
		"rtsp://admin:p4ssw0rd@10.0.0.2:554/stream1?token=hunter22",
		"http://admin:p4ssw0rd@[bad",
	} {
		r := redactSpec(spec)
		for _, s := range secrets {
			if strings.Contains(r, s) {
				t.Errorf("redactSpec(%q) = %q still contains %q", spec, r, s)
			}
		}
	}
	if r := redactSpec("http://cam/v?res=hi"); r != "http://cam/v?res=hi" {
		t.Errorf("redaction changed a URL without credentials: %q", r)
	}
	// errors from a refused connection name the URL without credentials
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	var logs logSink
	_, err := Open(ctx, fmt.Sprintf("http://admin:p4ssw0rd@127.0.0.1:%d/v.cgi?pwd=hunter22", freePort(t)), Options{Logf: logs.logf})
	if err == nil {
		t.Fatal("Open of a closed port succeeded")
	}
	for _, s := range secrets[:2] {
		if strings.Contains(err.Error()+logs.String(), s) {
			t.Fatalf("secret %q leaked: %v\n%s", s, err, logs.String())
		}
	}
}
