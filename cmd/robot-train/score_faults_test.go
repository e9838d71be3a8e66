package main

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestScoreTimeoutAndNoClipScored: a VLM server that accepts requests and
// never answers. score --timeout bounds each clip, reports the failures
// by kind and exits 1 because no clip was scored.
func TestScoreTimeoutAndNoClipScored(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // hold the request until the client gives up or the test ends
		case <-r.Context().Done():
		case <-release:
		}
	}))
	defer srv.Close()
	defer close(release)
	code, out, stderr := runCLI(t, "score", "--source", "sim:reach", "--scorer", "openai", "--clips", "2", "--render-backend", "soft",
		"--vlm-base-url", srv.URL+"/v1", "--vlm-model", "m", "--timeout", "300ms")
	if code != exitFailure {
		t.Fatalf("exit %d, want %d\n%s\n%s", code, exitFailure, out, stderr)
	}
	if !strings.Contains(stderr, "0 of 2 clips scored") || !strings.Contains(stderr, "timeout 2") || !strings.Contains(stderr, "no clip was scored") {
		t.Fatalf("stderr lacks the counts by kind: %s", stderr)
	}
}

// TestScoreCameraWithoutFrames: an MJPEG server whose only part announces
// Content-Length 4,000,000,000. score fails within --frame-timeout with a
// message naming the URL and the oversized part.
func TestScoreCameraWithoutFrames(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				buf := make([]byte, 4096)
				_, _ = c.Read(buf)
				_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: multipart/x-mixed-replace; boundary=frame\r\n\r\n"+
					"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: 4000000000\r\n\r\n\xff\xd8")
				time.Sleep(5 * time.Second)
			}()
		}
	}()
	url := "http://" + ln.Addr().String() + "/video"
	code, out, stderr := runCLI(t, "score", "--source", url, "--scorer", "pixel", "--clips", "1", "--frame-timeout", "1s")
	if code != exitFailure || !strings.Contains(stderr, url) || !strings.Contains(stderr, "part of 4000000000 bytes") {
		t.Fatalf("exit %d, want %d with the URL and the reason\n%s\n%s", code, exitFailure, out, stderr)
	}
}
