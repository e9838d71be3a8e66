package hw

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bluenviron/gortsplib/v4"
	"github.com/bluenviron/gortsplib/v4/pkg/base"
	"github.com/bluenviron/gortsplib/v4/pkg/description"
	"github.com/bluenviron/gortsplib/v4/pkg/format"
	"github.com/pion/rtp"

	"github.com/vlmrb/vlmrb/frame"
)

// rtspServer is an in-process RTSP server (after gortsplib's
// examples/server): one publisher per server, any number of readers, TCP
// only. It counts the frames (RTP packets with the marker bit) it forwards.
type rtspServer struct {
	s         *gortsplib.Server
	mu        sync.Mutex
	stream    *gortsplib.ServerStream
	publisher *gortsplib.ServerSession
	published chan struct{} // closed at the first RECORD
	pubOnce   sync.Once
	playAt    atomic.Int64 // when a reader sent PLAY (Unix ns), 0 before
	counting  atomic.Bool  // frames are being counted
	frames    atomic.Int64 // frames forwarded since counting began
}

// h264IDRStart reports whether an H.264 RTP payload (RFC 6184) starts or
// carries an IDR slice: a single NAL of type 5, a STAP-A holding one, or
// the first fragment of an FU-A of type 5.
func h264IDRStart(p []byte) bool {
	if len(p) < 2 {
		return false
	}
	switch p[0] & 0x1f {
	case 5:
		return true
	case 24: // STAP-A: 16-bit sizes then NALs
		for i := 1; i+2 < len(p); {
			n := int(p[i])<<8 | int(p[i+1])
			if p[i+2]&0x1f == 5 {
				return true
			}
			i += 2 + n
		}
	case 28: // FU-A
		return p[1]&0x80 != 0 && p[1]&0x1f == 5
	}
	return false
}

func newRTSPServer(t testing.TB) (*rtspServer, string) {
	t.Helper()
	// the port may be taken between freePort and Start: retry a few times
	var err error
	for try := 0; try < 5; try++ {
		port := freePort(t)
		h := &rtspServer{published: make(chan struct{})}
		h.s = &gortsplib.Server{Handler: h, RTSPAddress: fmt.Sprintf("127.0.0.1:%d", port)}
		if err = h.s.Start(); err == nil {
			t.Cleanup(h.s.Close)
			return h, fmt.Sprintf("rtsp://127.0.0.1:%d/cam", port)
		}
	}
	t.Fatalf("rtsp server: %v", err)
	return nil, ""
}

func (h *rtspServer) OnSessionClose(ctx *gortsplib.ServerHandlerOnSessionCloseCtx) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stream != nil && ctx.Session == h.publisher {
		h.stream.Close()
		h.stream = nil
	}
}

func (h *rtspServer) OnDescribe(ctx *gortsplib.ServerHandlerOnDescribeCtx) (*base.Response, *gortsplib.ServerStream, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stream == nil {
		return &base.Response{StatusCode: base.StatusNotFound}, nil, nil
	}
	return &base.Response{StatusCode: base.StatusOK}, h.stream, nil
}

func (h *rtspServer) OnAnnounce(ctx *gortsplib.ServerHandlerOnAnnounceCtx) (*base.Response, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stream != nil {
		h.stream.Close()
		h.publisher.Close()
	}
	h.stream = gortsplib.NewServerStream(h.s, ctx.Description)
	h.publisher = ctx.Session
	return &base.Response{StatusCode: base.StatusOK}, nil
}

func (h *rtspServer) OnSetup(ctx *gortsplib.ServerHandlerOnSetupCtx) (*base.Response, *gortsplib.ServerStream, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stream == nil {
		return &base.Response{StatusCode: base.StatusNotFound}, nil, nil
	}
	return &base.Response{StatusCode: base.StatusOK}, h.stream, nil
}

func (h *rtspServer) OnPlay(ctx *gortsplib.ServerHandlerOnPlayCtx) (*base.Response, error) {
	h.playAt.CompareAndSwap(0, time.Now().UnixNano())
	return &base.Response{StatusCode: base.StatusOK}, nil
}

func (h *rtspServer) OnRecord(ctx *gortsplib.ServerHandlerOnRecordCtx) (*base.Response, error) {
	h.mu.Lock()
	stream := h.stream
	h.mu.Unlock()
	ctx.Session.OnPacketRTPAny(func(medi *description.Media, forma format.Format, pkt *rtp.Packet) {
		_ = stream.WritePacketRTP(medi, pkt)
		// count the frames a reader could decode: after PLAY, and for
		// H.264 from the first IDR on
		// (100 ms after PLAY the reader is surely attached on loopback)
		if at := h.playAt.Load(); at != 0 && time.Now().UnixNano() > at+int64(100*time.Millisecond) && !h.counting.Load() {
			if _, isH264 := forma.(*format.H264); !isH264 || h264IDRStart(pkt.Payload) {
				h.counting.Store(true)
			}
		}
		if h.counting.Load() && pkt.Marker {
			h.frames.Add(1)
		}
	})
	h.pubOnce.Do(func() { close(h.published) })
	return &base.Response{StatusCode: base.StatusOK}, nil
}

// publishRTSP runs ffmpeg publishing a lavfi pattern to url with codec
// "mjpeg" or "h264" (recipes from research/ecosystem.md §C.3).
func publishRTSP(t testing.TB, url, src, codec string, dur time.Duration) chan struct{} {
	t.Helper()
	args := []string{"-re", "-f", "lavfi", "-i", src, "-t", fmt.Sprintf("%.3f", dur.Seconds())}
	switch codec {
	case "mjpeg":
		args = append(args, "-pix_fmt", "yuvj420p", "-c:v", "mjpeg", "-huffman", "default", "-q:v", "5")
	case "h264":
		args = append(args, "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-pix_fmt", "yuv420p", "-g", "10")
	}
	args = append(args, "-f", "rtsp", "-rtsp_transport", "tcp", url)
	done, _ := startFFmpeg(t, args...)
	return done
}

func TestRTSPFromFFmpeg(t *testing.T) {
	t.Parallel()
	needFFmpeg(t)
	for _, codec := range []string{"mjpeg", "h264"} {
		t.Run(codec, func(t *testing.T) {
			t.Parallel()
			srv, url := newRTSPServer(t)
			const fps = 15
			pub := publishRTSP(t, url, fmt.Sprintf("smptebars=size=160x120:rate=%d", fps), codec, 6*time.Second)
			select {
			case <-srv.published:
			case <-pub:
				t.Fatal("ffmpeg exited before publishing")
			case <-time.After(15 * time.Second):
				t.Fatal("ffmpeg did not publish within 15 s")
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			// Buffer: the test wants every frame, not the newest one, so
			// the race detector on a loaded machine must not drop frames
			src, err := Open(ctx, url, Options{MaxReconnects: -1, Buffer: maxBuffer})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = src.Close() }()
			var f frame.Frame
			got := 0
			for {
				if err := src.Next(ctx, &f); err != nil {
					if got == 0 {
						t.Fatalf("no frame: %v", err)
					}
					break
				}
				if got == 0 {
					if f.Image.Rect.Dx() != 160 || f.Image.Rect.Dy() != 120 {
						t.Fatalf("frame size %v, want 160x120", f.Image.Rect)
					}
					checkSMPTEBars(t, f.Image)
				}
				got++
			}
			sent := srv.frames.Load()
			t.Logf("%s: delivered %d of %d forwarded frames; stats %+v", codec, got, sent, src.(StatsReporter).Stats())
			if int64(got) < sent*9/10 || sent < fps {
				t.Fatalf("delivered %d frames, want ≥ 90%% of %d", got, sent)
			}
		})
	}
}

func TestRTSPNoServer(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err := Open(ctx, fmt.Sprintf("rtsp://user:hunter2@127.0.0.1:%d/x", freePort(t)), Options{})
	if err == nil {
		t.Fatal("Open succeeded without a server")
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("error leaks the password: %v", err)
	}
}

// TestRTSPReconnect: the publisher stops (the server closes the stream
// and drops the reader) and a new one starts; the client reconnects,
// retrying DESCRIBE through the 404s in between, and keeps delivering.
func TestRTSPReconnect(t *testing.T) {
	t.Parallel()
	needFFmpeg(t)
	srv, url := newRTSPServer(t)
	first := publishRTSP(t, url, "testsrc=size=160x120:rate=15", "mjpeg", 2*time.Second)
	select {
	case <-srv.published:
	case <-first:
		t.Fatal("ffmpeg exited before publishing")
	case <-time.After(15 * time.Second):
		t.Fatal("ffmpeg did not publish within 15 s")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	src, err := Open(ctx, url, Options{BackoffMin: 20 * time.Millisecond, BackoffMax: 200 * time.Millisecond, Buffer: maxBuffer})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = src.Close() }()
	go func() {
		<-first
		publishRTSP(t, url, "testsrc=size=160x120:rate=15", "mjpeg", 2*time.Second)
	}()
	var f frame.Frame
	// the first publisher sends 30 frames (2 s at 15 fps): more than 33
	// received means the second stream is being read
	for {
		if err := src.Next(ctx, &f); err != nil {
			t.Fatalf("Next: %v (stats %+v)", err, src.(StatsReporter).Stats())
		}
		if st := src.(StatsReporter).Stats(); st.Reconnects > 0 && st.Frames > 33 {
			break
		}
	}
	t.Logf("stats %+v", src.(StatsReporter).Stats())
}

// An RTSP camera whose frames are over MaxFrameBytes yields no frame: each
// is dropped and counted as too large, and Next fails at its FrameTimeout
// with an error that says why.
func TestRTSPFrameTooLarge(t *testing.T) {
	t.Parallel()
	needFFmpeg(t)
	srv, url := newRTSPServer(t)
	pub := publishRTSP(t, url, "smptebars=size=160x120:rate=15", "mjpeg", 8*time.Second)
	select {
	case <-srv.published:
	case <-pub:
		t.Fatal("ffmpeg exited before publishing")
	case <-time.After(15 * time.Second):
		t.Fatal("ffmpeg did not publish within 15 s")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// a 160×120 JPEG of colour bars is a few kilobytes: 500 bytes is too few
	src, err := Open(ctx, url, Options{MaxFrameBytes: 500, FrameTimeout: 3 * time.Second, MaxReconnects: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = src.Close() }()
	var f frame.Frame
	err = src.Next(ctx, &f)
	st := src.(StatsReporter).Stats()
	if !errors.Is(err, ErrFrameTimeout) || !strings.Contains(err.Error(), "over MaxFrameBytes 500") {
		t.Fatalf("Next: %v (stats %+v)", err, st)
	}
	if st.TooLarge == 0 || st.Delivered != 0 {
		t.Fatalf("stats %+v: want frames counted as too large, none delivered", st)
	}
}
