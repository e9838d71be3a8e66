package hw

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
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
// one). In-process producers are paced by credits: the consumer grants one
// frame per frame it took (with benchCredits in flight so transport and
// decode overlap), so no frame is produced only to be dropped and both
// numbers describe the whole pipeline per delivered frame, decode-bound.
// The CPU figure includes the in-process producer (HTTP server or RTSP
// publisher and server), which is small next to decoding.

// benchCredits is how many frames a producer may have in flight.
const benchCredits = 2

var benchTimer = 100 * time.Millisecond

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
func measure(b *testing.B, src frame.Source, children bool, credits chan struct{}) {
	b.Helper()
	grant := func() {
		if credits != nil {
			select {
			case credits <- struct{}{}:
			default:
			}
		}
	}
	ctx := context.Background()
	var f frame.Frame
	if err := src.Next(ctx, &f); err != nil { // warm-up, allocates dst
		b.Fatal(err)
	}
	grant()
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
	if sr, ok := src.(StatsReporter); ok {
		b.Logf("stats %+v", sr.Stats())
	}
}

// newCredits returns a credit channel holding benchCredits credits.
func newCredits() chan struct{} {
	c := make(chan struct{}, 2*benchCredits)
	for i := 0; i < benchCredits; i++ {
		c <- struct{}{}
	}
	return c
}

// rawMJPEGServer speaks HTTP/1.0 on a raw TCP listener, as mjpg-streamer
// does (no chunked encoding), and writes the same JPEG once per credit
// (or every 100 ms, so a credit lost with a connection cannot stall it).
func rawMJPEGServer(b *testing.B, jpg []byte, credits chan struct{}) (url string, stop func()) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				_, _ = bufio.NewReader(c).ReadString('\n') // request line; the rest is ignored
				_, _ = fmt.Fprintf(c, "HTTP/1.0 200 OK\r\nContent-Type: multipart/x-mixed-replace;boundary=boundarydonotcross\r\n\r\n")
				for {
					t := time.NewTimer(benchTimer)
					select {
					case <-done:
						t.Stop()
						return
					case <-credits:
					case <-t.C:
					}
					t.Stop()
					_, _ = fmt.Fprintf(c, "--boundarydonotcross\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n", len(jpg))
					if _, err := c.Write(append(jpg, "\r\n"...)); err != nil {
						return
					}
				}
			}()
		}
	}()
	return "http://" + ln.Addr().String() + "/?action=stream", func() {
		close(done)
		ln.Close()
		wg.Wait()
	}
}

func BenchmarkMJPEGHTTP(b *testing.B) {
	// free-running at 200 frames/s (5 ms timer, no credits): the credit
	// pacing left this stream latency-bound (see the package report), so
	// the camera runs faster than the decoder and the slot drops the rest
	benchTimer = 5 * time.Millisecond
	defer func() { benchTimer = 100 * time.Millisecond }()
	url, stop := rawMJPEGServer(b, benchJPEG(b), nil)
	defer stop()
	src, err := Open(context.Background(), url, Options{})
	if err != nil {
		b.Fatal(err)
	}
	measure(b, src, false, nil)
}

// publishGo publishes frames from next() over RTSP from this process
// (gortsplib client in record mode), one per credit (at least 20/s);
// RTP timestamps
// advance at 30 fps.
func publishGo(b *testing.B, url string, desc *description.Session, credits chan struct{}, next func() ([]*rtp.Packet, error)) (stop func()) {
	b.Helper()
	tcp := gortsplib.TransportTCP
	c := &gortsplib.Client{Transport: &tcp}
	if err := c.StartRecording(url, desc); err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		var ts uint32
		for {
			// a credit, or 50 ms: frames sent before the reader joined
			// consume credits nobody will return
			t := time.NewTimer(50 * time.Millisecond)
			select {
			case <-done:
				t.Stop()
				return
			case <-credits:
			case <-t.C:
			}
			t.Stop()
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
			ts += 90000 / 30
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
		credits := newCredits()
		stop := publishGo(b, url, desc, credits, func() ([]*rtp.Packet, error) { return enc.Encode(jpg) })
		defer stop()
		<-srv.published
		src, err := Open(context.Background(), url, Options{Buffer: 2 * benchCredits})
		if err != nil {
			b.Fatal(err)
		}
		measure(b, src, false, credits)
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
		credits := newCredits()
		stop := publishGo(b, url, desc, credits, func() ([]*rtp.Packet, error) {
			au := aus[i%len(aus)]
			i++
			return enc.Encode(au)
		})
		defer stop()
		<-srv.published
		src, err := Open(context.Background(), url, Options{Buffer: 2 * benchCredits})
		if err != nil {
			b.Fatal(err)
		}
		measure(b, src, true, credits)
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
	measure(b, src, true, nil)
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
	measure(b, src, false, nil)
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
