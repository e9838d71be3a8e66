package hw

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/bluenviron/gortsplib/v4"
	"github.com/bluenviron/gortsplib/v4/pkg/description"
	"github.com/bluenviron/gortsplib/v4/pkg/format"
	"github.com/bluenviron/mediacommon/pkg/codecs/h264"
	"github.com/pion/rtp"

	"github.com/vlmrb/vlmrb/frame"
)

// Benchmarks measure frames/s delivered by Next at 640×480 and the CPU
// time per frame (this process, plus ffmpeg children where a source runs
// one). Producers are paced well above the decode rate, so the numbers are
// decode-bound; the latest-frame slot drops the surplus.

const benchW, benchH = 640, 480

// ffmpegOut runs ffmpeg and returns its stdout.
func ffmpegOut(b *testing.B, args ...string) []byte {
	b.Helper()
	bin := needFFmpeg(b)
	var stderr bytes.Buffer
	cmd := exec.Command(bin, append([]string{"-hide_banner", "-loglevel", "error"}, args...)...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("ffmpeg: %v: %s", err, stderr.String())
	}
	return out
}

// benchJPEG is one 640×480 testsrc2 frame, MJPEG q=5 with standard tables:
// what a webcam or IP camera sends (about 40–60 KB).
func benchJPEG(b *testing.B) []byte {
	return ffmpegOut(b, "-f", "lavfi", "-i", fmt.Sprintf("testsrc2=size=%dx%d:rate=1", benchW, benchH),
		"-frames:v", "1", "-pix_fmt", "yuvj420p", "-c:v", "mjpeg", "-huffman", "default", "-q:v", "5", "-f", "image2pipe", "pipe:1")
}

// measure runs Next in b.Loop and reports frames/s and cpu-ms/frame.
// closeFirst closes the source before reading children's CPU (ffmpeg
// children are only accounted once reaped).
func measure(b *testing.B, src frame.Source, children bool) {
	b.Helper()
	ctx := context.Background()
	var f frame.Frame
	if err := src.Next(ctx, &f); err != nil { // warm-up, allocates dst
		b.Fatal(err)
	}
	if f.Image.Rect.Dx() != benchW || f.Image.Rect.Dy() != benchH {
		b.Fatalf("frame %v, want %dx%d", f.Image.Rect, benchW, benchH)
	}
	cpu0, child0 := cpuTime(false), cpuTime(true)
	start := time.Now()
	n := 0
	for b.Loop() {
		if err := src.Next(ctx, &f); err != nil {
			b.Fatal(err)
		}
		n++
	}
	el := time.Since(start)
	_ = src.Close()
	cpu := cpuTime(false) - cpu0
	if children {
		cpu += cpuTime(true) - child0
	}
	b.ReportMetric(float64(n)/el.Seconds(), "frames/s")
	b.ReportMetric(cpu.Seconds()*1000/float64(n), "cpu-ms/frame")
}

// pacedMJPEG serves the same JPEG at rate frames/s until the client leaves.
func pacedMJPEG(jpg []byte, rate int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "multipart/x-mixed-replace;boundary=ffmpeg")
		tick := time.NewTicker(time.Second / time.Duration(rate))
		defer tick.Stop()
		for {
			_, _ = fmt.Fprintf(w, "--ffmpeg\r\nContent-type: image/jpeg\r\nContent-length: %d\r\n\r\n", len(jpg))
			if _, err := w.Write(jpg); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
			}
		}
	})
}

func BenchmarkMJPEGHTTP(b *testing.B) {
	srv := httptest.NewServer(pacedMJPEG(benchJPEG(b), 1000))
	defer srv.Close()
	src, err := Open(context.Background(), srv.URL, Options{})
	if err != nil {
		b.Fatal(err)
	}
	measure(b, src, false)
}

// publishGo publishes packets from next() over RTSP at rate frames/s from
// this process (gortsplib client in record mode).
func publishGo(b *testing.B, url string, desc *description.Session, rate int, next func() ([]*rtp.Packet, error)) (stop func()) {
	b.Helper()
	c := &gortsplib.Client{}
	if err := c.StartRecording(url, desc); err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(time.Second / time.Duration(rate))
		defer tick.Stop()
		var ts uint32
		for {
			pkts, err := next()
			if err != nil {
				return
			}
			for _, p := range pkts {
				p.Timestamp = ts
				if c.WritePacketRTP(desc.Medias[0], p) != nil {
					return
				}
			}
			ts += 90000 / uint32(rate)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		close(done)
		<-finished
		c.Close()
	}
}

func BenchmarkRTSP(b *testing.B) {
	b.Run("mjpeg", func(b *testing.B) {
		srv, url := newRTSPServer(b)
		jpg := benchJPEG(b)
		forma := &format.MJPEG{}
		enc, err := forma.CreateEncoder()
		if err != nil {
			b.Fatal(err)
		}
		desc := &description.Session{Medias: []*description.Media{{Type: description.MediaTypeVideo, Formats: []format.Format{forma}}}}
		stop := publishGo(b, url, desc, 500, func() ([]*rtp.Packet, error) { return enc.Encode(jpg) })
		defer stop()
		<-srv.published
		src, err := Open(context.Background(), url, Options{})
		if err != nil {
			b.Fatal(err)
		}
		measure(b, src, false)
	})
	b.Run("h264", func(b *testing.B) {
		srv, url := newRTSPServer(b)
		aus := benchH264(b)
		sps, pps := aus[0][0], aus[0][1]
		forma := &format.H264{PayloadTyp: 96, PacketizationMode: 1, SPS: sps, PPS: pps}
		enc, err := forma.CreateEncoder()
		if err != nil {
			b.Fatal(err)
		}
		desc := &description.Session{Medias: []*description.Media{{Type: description.MediaTypeVideo, Formats: []format.Format{forma}}}}
		i := 0
		stop := publishGo(b, url, desc, 300, func() ([]*rtp.Packet, error) {
			au := aus[i%len(aus)]
			i++
			return enc.Encode(au)
		})
		defer stop()
		<-srv.published
		src, err := Open(context.Background(), url, Options{})
		if err != nil {
			b.Fatal(err)
		}
		measure(b, src, true)
	})
}

// benchH264 encodes 60 frames of 640×480 testsrc2 with x264 (one IDR with
// in-band SPS/PPS every 30 frames) and splits the stream into access units
// at the AUD NAL units x264 inserts with aud=1.
func benchH264(b *testing.B) [][][]byte {
	raw := ffmpegOut(b, "-f", "lavfi", "-i", fmt.Sprintf("testsrc2=size=%dx%d:rate=30", benchW, benchH),
		"-frames:v", "60", "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-pix_fmt", "yuv420p",
		"-g", "30", "-x264-params", "aud=1:repeat-headers=1", "-f", "h264", "pipe:1")
	var nalus h264.AnnexB
	if err := nalus.Unmarshal(raw); err != nil {
		b.Fatal(err)
	}
	var aus [][][]byte
	for _, n := range nalus {
		if len(n) == 0 {
			continue
		}
		if h264.NALUType(n[0]&0x1f) == h264.NALUTypeAccessUnitDelimiter {
			aus = append(aus, nil)
			continue
		}
		if len(aus) == 0 {
			aus = append(aus, nil)
		}
		aus[len(aus)-1] = append(aus[len(aus)-1], n)
	}
	if len(aus) != 60 || h264.NALUType(aus[0][0][0]&0x1f) != h264.NALUTypeSPS {
		b.Fatalf("split %d access units (want 60) starting with NALU type %d", len(aus), aus[0][0][0]&0x1f)
	}
	return aus
}

func BenchmarkVideoFile(b *testing.B) {
	path := filepath.Join(b.TempDir(), "clip.mp4")
	ffmpegOut(b, "-f", "lavfi", "-i", fmt.Sprintf("testsrc2=size=%dx%d:rate=30", benchW, benchH),
		"-frames:v", "300", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-y", path)
	src, err := Open(context.Background(), path, Options{Loop: true})
	if err != nil {
		b.Fatal(err)
	}
	measure(b, src, true)
}

func BenchmarkDir(b *testing.B) {
	dir := b.TempDir()
	jpg := benchJPEG(b)
	for i := 0; i < 10; i++ {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%03d.jpg", i)), jpg, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	src, err := Open(context.Background(), "dir:"+dir, Options{Loop: true})
	if err != nil {
		b.Fatal(err)
	}
	measure(b, src, false)
}

// BenchmarkDecode measures the consumer-side decode of the payloads a
// V4L2 camera delivers (no device needed): MJPEG with and without Huffman
// tables, and YUYV.
func BenchmarkDecode(b *testing.B) {
	jpg := benchJPEG(b)
	noDHT := stripDHT(b, jpg)
	yuyv := make([]byte, benchW*benchH*2)
	for i := range yuyv {
		yuyv[i] = byte(i * 7)
	}
	for _, tc := range []struct {
		name string
		p    payload
	}{
		{"mjpeg", payload{kind: kindJPEG, data: jpg}},
		{"mjpeg-noDHT", payload{kind: kindJPEG, data: noDHT}},
		{"yuyv", payload{kind: kindYUYV, data: yuyv, w: benchW, h: benchH}},
		{"mjpeg-to-224", payload{kind: kindJPEG, data: jpg}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			sh := shaper{}
			if tc.name == "mjpeg-to-224" {
				sh.opts = Options{Width: 224, Height: 224}
			}
			var f frame.Frame
			cpu0 := cpuTime(false)
			start := time.Now()
			n := 0
			for b.Loop() {
				if err := sh.decode(&tc.p, &f); err != nil {
					b.Fatal(err)
				}
				n++
			}
			el := time.Since(start)
			b.ReportMetric(float64(n)/el.Seconds(), "frames/s")
			b.ReportMetric((cpuTime(false)-cpu0).Seconds()*1000/float64(n), "cpu-ms/frame")
		})
	}
}
