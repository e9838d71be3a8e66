package hw

import (
	"image"
	"image/color"
	"testing"

	"github.com/vlmrb/vlmrb/frame"
)

// TestYUYVToRGBA checks BT.601 limited-range conversion on the reference
// points of ITU-R BT.601: black (16,128,128), white (235,128,128) and the
// 100% primaries.
func TestYUYVToRGBA(t *testing.T) {
	t.Parallel()
	const tol = 3 // rounding of the 8-bit reference Y'CbCr values
	tests := []struct {
		name    string
		y, u, v uint8
		want    color.RGBA
	}{
		{"black", 16, 128, 128, color.RGBA{0, 0, 0, 255}},
		{"white", 235, 128, 128, color.RGBA{255, 255, 255, 255}},
		{"red", 81, 90, 240, color.RGBA{255, 0, 0, 255}},
		{"green", 145, 54, 34, color.RGBA{0, 255, 0, 255}},
		{"blue", 41, 240, 110, color.RGBA{0, 0, 255, 255}},
	}
	for _, tc := range tests {
		img := image.NewRGBA(image.Rect(0, 0, 2, 1))
		yuyvToRGBA(img, []byte{tc.y, tc.u, tc.y, tc.v}, 2, 1)
		for x := 0; x < 2; x++ {
			got := img.RGBAAt(x, 0)
			if absDiff(got.R, tc.want.R) > tol || absDiff(got.G, tc.want.G) > tol || absDiff(got.B, tc.want.B) > tol || got.A != 255 {
				t.Errorf("%s pixel %d: got %v, want %v", tc.name, x, got, tc.want)
			}
		}
	}
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

func TestShaperPlan(t *testing.T) {
	t.Parallel()
	native := image.Rect(0, 0, 640, 480)
	tests := []struct {
		name     string
		opts     Options
		wantSrc  image.Rectangle
		wantW, H int
	}{
		{"native", Options{}, native, 640, 480},
		{"same aspect", Options{Width: 320, Height: 240}, native, 320, 240},
		{"square centre crop", Options{Width: 224, Height: 224}, image.Rect(80, 0, 560, 480), 224, 224},
		{"tall target", Options{Width: 100, Height: 200}, image.Rect(200, 0, 440, 480), 100, 200},
		{"width only keeps aspect", Options{Width: 320}, native, 320, 240},
		{"height only keeps aspect", Options{Height: 120}, native, 160, 120},
		{"crop", Options{Crop: image.Rect(100, 50, 300, 250)}, image.Rect(100, 50, 300, 250), 200, 200},
		{"crop then resize", Options{Crop: image.Rect(0, 0, 400, 200), Width: 100, Height: 100}, image.Rect(100, 0, 300, 200), 100, 100},
		{"crop clipped to image", Options{Crop: image.Rect(600, 400, 900, 900)}, image.Rect(600, 400, 640, 480), 40, 80},
	}
	for _, tc := range tests {
		sh := shaper{opts: tc.opts}
		src, w, h := sh.plan(native)
		if src != tc.wantSrc || w != tc.wantW || h != tc.H {
			t.Errorf("%s: plan = %v %dx%d, want %v %dx%d", tc.name, src, w, h, tc.wantSrc, tc.wantW, tc.H)
		}
	}
}

// TestShaperResizeKeepsLayout resizes a four-quadrant image and checks
// each quadrant keeps its colour (away from the seams).
func TestShaperResizeKeepsLayout(t *testing.T) {
	t.Parallel()
	quad := []color.RGBA{{255, 0, 0, 255}, {0, 255, 0, 255}, {0, 0, 255, 255}, {255, 255, 0, 255}}
	src := image.NewRGBA(image.Rect(0, 0, 160, 120))
	for y := 0; y < 120; y++ {
		for x := 0; x < 160; x++ {
			src.SetRGBA(x, y, quad[(y/60)*2+x/80])
		}
	}
	// shrink ×2, shrink ×8 (the kernel path), enlarge, same size
	for _, size := range [][2]int{{80, 60}, {20, 15}, {320, 240}, {160, 120}} {
		sh := shaper{opts: Options{Width: size[0], Height: size[1]}}
		var f frame.Frame
		if err := sh.shape(src, &f); err != nil {
			t.Fatal(err)
		}
		if f.Image.Rect.Dx() != size[0] || f.Image.Rect.Dy() != size[1] {
			t.Fatalf("size %v, want %v", f.Image.Rect, size)
		}
		for q, want := range quad {
			x := (q%2)*size[0]/2 + size[0]/4
			y := (q/2)*size[1]/2 + size[1]/4
			if got := f.Image.RGBAAt(x, y); got != want {
				t.Errorf("%v: quadrant %d at (%d,%d) = %v, want %v", size, q, x, y, got, want)
			}
		}
	}
}

func TestDecodeRejectsBadPayloads(t *testing.T) {
	t.Parallel()
	sh := shaper{}
	var f frame.Frame
	for _, p := range []payload{
		{kind: kindJPEG, data: nil},
		{kind: kindJPEG, data: []byte("not an image")},
		{kind: kindJPEG, data: []byte{0xFF, 0xD8, 0xFF}},
		{kind: kindYUYV, data: make([]byte, 10), w: 640, h: 480},
		{kind: kindRGB24, data: make([]byte, 10), w: -1, h: 2},
		{kind: 99},
	} {
		if err := sh.decode(&p, &f); err == nil {
			t.Errorf("decode(%v, %d bytes) succeeded", p.kind, len(p.data))
		}
	}
}
