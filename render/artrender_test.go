package render_test

import (
	"image"
	"path/filepath"
	"testing"

	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

// TestModelSceneRenders renders the project's arm on the articulated engine
// from its own camera with the pure-Go backend: the arm's grey links and
// blue accents cover pixels of their colours, and the segmentation sees
// one id per moving body.
func TestModelSceneRenders(t *testing.T) {
	a, err := mjcf.Load(filepath.Join("..", "sim", "mjcf", "testdata", "arm6.xml"), mjcf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := articulated.NewData(a.Model)
	articulated.Forward(a.Model, d)
	sc := render.NewModelScene(a).Update(d)
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	r, err := render.New("soft", render.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, cam := range []render.Camera{render.ModelCamera(a, d, 0, 96, 96), render.ModelCamera(a, d, -1, 96, 96)} {
		img := image.NewRGBA(image.Rect(0, 0, 96, 96))
		seg := make([]int32, 96*96)
		if err := r.RenderBuffers(sc, cam, render.Buffers{RGB: img, Seg: seg}); err != nil {
			t.Fatal(err)
		}
		ids := map[int32]bool{}
		for _, id := range seg {
			ids[id] = true
		}
		blue := 0
		for i := 0; i < len(img.Pix); i += 4 {
			if r, g, b := img.Pix[i], img.Pix[i+1], img.Pix[i+2]; b > r+40 && b > g {
				blue++
			}
		}
		if len(ids) < 4 || blue < 10 {
			t.Errorf("camera %s: %d segmentation ids, %d blue accent pixels: the arm is not in view", cam.Name, len(ids), blue)
		}
	}
}
