package hw

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPartReaderFramings parses the framings real producers send
// (research/ecosystem.md §C.2).
func TestPartReaderFramings(t *testing.T) {
	t.Parallel()
	a, b := []byte("\xff\xd8first\r\n--notaboundary\r\nX\xff\xd9"), []byte("\xff\xd8second\xff\xd9")
	tests := []struct {
		name, boundary, body string
	}{
		{"mjpg-streamer", "boundarydonotcross",
			"--boundarydonotcross\r\nContent-Type: image/jpeg\r\nContent-Length: " + fmt.Sprint(len(a)) + "\r\nX-Timestamp: 1.5\r\n\r\n" + string(a) +
				"\r\n--boundarydonotcross\r\nContent-Type: image/jpeg\r\nContent-Length: " + fmt.Sprint(len(b)) + "\r\n\r\n" + string(b) + "\r\n--boundarydonotcross\r\n"},
		{"esp32 leading CRLF", "123456789000000000000987654321",
			"\r\n--123456789000000000000987654321\r\nContent-Type: image/jpeg\r\nContent-Length: " + fmt.Sprint(len(a)) + "\r\n\r\n" + string(a) +
				"\r\n--123456789000000000000987654321\r\nContent-Type: image/jpeg\r\nContent-Length: " + fmt.Sprint(len(b)) + "\r\n\r\n" + string(b)},
		{"ffmpeg mpjpeg", "ffmpeg",
			"--ffmpeg\r\nContent-type: image/jpeg\r\nContent-length: " + fmt.Sprint(len(a)) + "\r\n\r\n" + string(a) +
				"\r\n--ffmpeg\r\nContent-type: image/jpeg\r\nContent-length: " + fmt.Sprint(len(b)) + "\r\n\r\n" + string(b) + "\r\n--ffmpeg\r\n"},
		{"no content-length, closing delimiter", "xx",
			"--xx\r\nContent-Type: image/jpeg\r\n\r\n" + string(a) + "\r\n--xx\r\n\r\n" + string(b) + "\r\n--xx--\r\n"},
		{"LF only", "xx",
			"--xx\nContent-Type: image/jpeg\n\n" + string(a) + "\n--xx\n\n" + string(b) + "\n--xx\n"},
		{"boundary param with leading dashes", "--myboundary",
			"--myboundary\r\n\r\n" + string(a) + "\r\n--myboundary\r\n\r\n" + string(b) + "\r\n--myboundary--"},
		{"boundary learned from body", "",
			"junk preamble\r\n--learned\r\nContent-Length: " + fmt.Sprint(len(a)) + "\r\n\r\n" + string(a) + "\r\n--learned\r\n\r\n" + string(b) + "\r\n--learned\r\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pr := newPartReader(strings.NewReader(tc.body), tc.boundary, 1<<20)
			for i, want := range [][]byte{a, b} {
				got, err := pr.next(nil)
				if err != nil {
					t.Fatalf("part %d: %v", i, err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("part %d = %q, want %q", i, got, want)
				}
			}
			if _, err := pr.next(nil); err != io.EOF {
				t.Fatalf("after the last part: %v, want io.EOF", err)
			}
		})
	}
}

// TestPartReaderRoundTrip writes random parts (random binary content,
// with and without Content-Length) and reads them back.
func TestPartReaderRoundTrip(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	const boundary = "b0undary"
	for trial := 0; trial < 20; trial++ {
		var body bytes.Buffer
		var parts [][]byte
		for i := 0; i < 1+rng.IntN(8); i++ {
			p := make([]byte, rng.IntN(20_000))
			for j := range p {
				p[j] = byte(rng.IntN(256))
				if rng.IntN(50) == 0 {
					p[j] = '\n'
				}
			}
			// a scanned part must not contain its own delimiter line
			p = bytes.ReplaceAll(p, []byte("--"+boundary), []byte("-x"+boundary))
			parts = append(parts, p)
			fmt.Fprintf(&body, "--%s\r\nContent-Type: image/jpeg\r\n", boundary)
			if rng.IntN(2) == 0 {
				fmt.Fprintf(&body, "Content-Length: %d\r\n", len(p))
			}
			body.WriteString("\r\n")
			body.Write(p)
			body.WriteString("\r\n")
		}
		fmt.Fprintf(&body, "--%s--\r\n", boundary)
		pr := newPartReader(&body, boundary, 1<<20)
		var buf []byte
		for i, want := range parts {
			got, err := pr.next(buf)
			if err != nil {
				t.Fatalf("trial %d part %d: %v", trial, i, err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("trial %d part %d: %d bytes differ from the %d sent", trial, i, len(got), len(want))
			}
			buf = got
		}
		if _, err := pr.next(buf); err != io.EOF {
			t.Fatalf("trial %d: after the last part: %v, want io.EOF", trial, err)
		}
	}
}

func TestPartReaderRejectsOversize(t *testing.T) {
	t.Parallel()
	const limit = 1000
	big := strings.Repeat("x", 5000)
	for _, tc := range []struct{ name, body string }{
		{"content-length", "--b\r\nContent-Length: 5000\r\n\r\n" + big + "\r\n--b\r\n"},
		{"scanned", "--b\r\n\r\n" + big + "\r\n--b\r\n"},
		{"scanned, one long line", "--b\r\n\r\n" + strings.Repeat("y", 200_000) + "\r\n--b\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newPartReader(strings.NewReader(tc.body), "b", limit).next(nil)
			if !errors.Is(err, ErrFrameTooLarge) {
				t.Fatalf("err = %v, want ErrFrameTooLarge", err)
			}
		})
	}
}

func TestPartReaderMalformed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, body string }{
		{"no boundary at all", strings.Repeat("garbage line\r\n", 10000)},
		{"bad content-length", "--b\r\nContent-Length: -5\r\n\r\nxx"},
		{"truncated body", "--b\r\nContent-Length: 100\r\n\r\nxx"},
		{"endless headers", "--b\r\n" + strings.Repeat("X-A: b\r\n", 5000)},
		{"truncated scanned part", "--b\r\n\r\nabc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newPartReader(strings.NewReader(tc.body), "b", 1<<20).next(nil)
			if err == nil || err == io.EOF {
				t.Fatalf("err = %v, want a descriptive error", err)
			}
		})
	}
}

// FuzzPartReader: arbitrary streams never panic, never return a part over
// the limit, and the part buffer stays bounded.
func FuzzPartReader(f *testing.F) {
	f.Add([]byte("--ffmpeg\r\nContent-length: 3\r\n\r\nabc\r\n--ffmpeg\r\n\r\nxyz\r\n--ffmpeg--"), "ffmpeg")
	f.Add([]byte("pre\r\n--zz\r\n\r\n\xff\xd8\xff\xd9\r\n--zz\r\n"), "")
	f.Add([]byte("--b\r\nContent-Length: 99999999\r\n\r\n"), "b")
	f.Fuzz(func(t *testing.T, data []byte, boundary string) {
		const limit = 4096
		pr := newPartReader(bytes.NewReader(data), boundary, limit)
		var buf []byte
		for i := 0; i < 64; i++ {
			p, err := pr.next(buf)
			if err != nil {
				return
			}
			if len(p) > limit+2 || cap(p) > 2*(limit+partReaderBufSize) {
				t.Fatalf("part of %d bytes (cap %d) over the limit %d", len(p), cap(p), limit)
			}
			buf = p
		}
	})
}
