package hw

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// stripDHT removes every DHT (FF C4) segment before the first scan, which
// is what UVC webcams send.
func stripDHT(t testing.TB, data []byte) []byte {
	t.Helper()
	out := append([]byte(nil), data[:2]...)
	pos := 2
	for pos+4 <= len(data) {
		marker := data[pos+1]
		n := int(data[pos+2])<<8 | int(data[pos+3])
		if marker == 0xDA {
			return append(out, data[pos:]...)
		}
		if marker != 0xC4 {
			out = append(out, data[pos:pos+2+n]...)
		}
		pos += 2 + n
	}
	t.Fatal("no SOS in test JPEG")
	return nil
}

// ffmpegJPEG encodes one smptebars frame with ffmpeg's mjpeg encoder and
// the standard Huffman tables (as cameras do).
func ffmpegJPEG(t testing.TB, w, h int) []byte {
	t.Helper()
	bin := needFFmpeg(t)
	out, err := exec.Command(bin, "-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i",
		"smptebars=size="+itoa(w)+"x"+itoa(h)+":rate=1", "-frames:v", "1", "-pix_fmt", "yuvj422p",
		"-c:v", "mjpeg", "-huffman", "default", "-q:v", "3", "-f", "image2pipe", "pipe:1").Output()
	if err != nil {
		t.Fatalf("ffmpeg: %v", err)
	}
	return out
}

func itoa(i int) string { return strconv.Itoa(i) }

// TestFixJPEGRestoresStrippedTables: a JPEG without DHT fails in
// image/jpeg ("uninitialized Huffman table"); after FixJPEG it decodes to
// exactly the pixels of the original, because the standard tables are the
// ones the encoder used.
func TestFixJPEGRestoresStrippedTables(t *testing.T) {
	t.Parallel()
	srcs := map[string][]byte{"go": testJPEG(t, 64, 48, color.RGBA{200, 40, 90, 255})}
	if _, err := exec.LookPath("ffmpeg"); err == nil {
		srcs["ffmpeg 4:2:2"] = ffmpegJPEG(t, 320, 240)
	}
	for name, orig := range srcs {
		t.Run(name, func(t *testing.T) {
			stripped := stripDHT(t, orig)
			if HasHuffmanTables(stripped) || !HasHuffmanTables(orig) {
				t.Fatal("HasHuffmanTables misreports")
			}
			if _, err := jpeg.Decode(bytes.NewReader(stripped)); err == nil || !strings.Contains(err.Error(), "Huffman") {
				t.Fatalf("stripped JPEG decoded without tables (err %v): the test is not testing anything", err)
			}
			fixed, err := FixJPEG(stripped)
			if err != nil {
				t.Fatal(err)
			}
			want, err := jpeg.Decode(bytes.NewReader(orig))
			if err != nil {
				t.Fatal(err)
			}
			got, err := jpeg.Decode(bytes.NewReader(fixed))
			if err != nil {
				t.Fatalf("fixed JPEG: %v", err)
			}
			if !sameImage(want, got) {
				t.Fatal("repaired JPEG decodes to different pixels")
			}
			if again, _ := FixJPEG(orig); !bytes.Equal(again, orig) {
				t.Fatal("FixJPEG changed a JPEG that had tables")
			}
		})
	}
}

func sameImage(a, b image.Image) bool {
	if a.Bounds() != b.Bounds() {
		return false
	}
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if a.At(x, y) != b.At(x, y) {
				return false
			}
		}
	}
	return true
}

func TestFixJPEGMalformed(t *testing.T) {
	t.Parallel()
	for _, data := range [][]byte{nil, {0xFF}, {0xFF, 0xD8}, {0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xFF}, {0xFF, 0xD8, 0x00, 0x00}, {0xFF, 0xD8, 0xFF, 0xD9, 0, 0}} {
		if _, err := FixJPEG(data); err == nil {
			t.Errorf("FixJPEG(% x) succeeded", data)
		}
	}
}

// FuzzFixJPEG: the repair and decode path never panics on hostile input,
// and a repair only ever adds the standard DHT segment.
func FuzzFixJPEG(f *testing.F) {
	img := testJPEG(f, 16, 16, color.RGBA{10, 200, 30, 255})
	f.Add(img)
	f.Add(stripDHT(f, img))
	f.Add([]byte{0xFF, 0xD8, 0xFF, 0xDA, 0x00, 0x02})
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := FixJPEG(data)
		if err == nil && len(out) != len(data) && len(out) != len(data)+len(standardDHT) {
			t.Fatalf("FixJPEG grew %d bytes to %d", len(data), len(out))
		}
		_, _ = decodeCompressed(data)
	})
}
