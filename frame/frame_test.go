package frame

import (
	"image"
	"testing"
)

func TestCloneSharesNothing(t *testing.T) {
	t.Parallel()
	f := Frame{Image: image.NewRGBA(image.Rect(0, 0, 2, 2)), Depth: []float32{1, 2, 3, 4}, Camera: "corner", Seq: 7}
	c := f.Clone()
	c.Image.Pix[0] = 255
	c.Depth[0] = 9
	if f.Image.Pix[0] != 0 || f.Depth[0] != 1 {
		t.Fatal("Clone shares memory with the original")
	}
	if c.Camera != "corner" || c.Seq != 7 {
		t.Fatalf("Clone lost metadata: %+v", c)
	}
}

func TestEnsureRGBAReuses(t *testing.T) {
	t.Parallel()
	r := image.Rect(0, 0, 4, 3)
	a := EnsureRGBA(nil, r)
	if a.Rect != r {
		t.Fatalf("bounds %v, want %v", a.Rect, r)
	}
	if EnsureRGBA(a, r) != a {
		t.Fatal("EnsureRGBA did not reuse a matching image")
	}
	if EnsureRGBA(a, image.Rect(0, 0, 5, 3)) == a {
		t.Fatal("EnsureRGBA reused an image of the wrong size")
	}
}
