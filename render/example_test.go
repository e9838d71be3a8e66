package render_test

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/sim"
)

// A task builds its sim model, a renderer and a camera, then renders the
// live state; here a blue cube on a table seen from the corner camera.
func Example() {
	b := sim.NewBuilder()
	b.AddShape(sim.World, sim.ShapeDesc{Name: "table", Kind: sim.Plane, Size: sim.V3(0.6, 0.6, 0)})
	cube := b.AddBody(sim.BodyDesc{Name: "cube", Mass: 0.1, Pos: sim.V3(0, 0, 0.025)})
	b.AddShape(cube, sim.ShapeDesc{Name: "cube", Kind: sim.Box, Size: sim.V3(0.025, 0.025, 0.025), Color: [4]float32{0.1, 0.5, 0.9, 1}})
	m, err := b.Build()
	if err != nil {
		panic(err)
	}
	s := m.NewState()

	// auto: EGL when it starts, else the pure-Go renderer (with a warning).
	r, err := render.New("auto", render.Options{Shadows: true, Logf: func(string, ...any) {}})
	if err != nil {
		panic(err)
	}
	defer func() { _ = r.Close() }()
	cam, _ := render.NamedCamera("corner", mgl64.Vec3{0, 0, 0}, 128, 128)

	sc := render.FromSim(m, s, &render.Style{Theme: render.ThemeStandard})
	img := image.NewRGBA(image.Rect(0, 0, cam.Width, cam.Height))
	if err := r.Render(sc, cam, img); err != nil {
		panic(err)
	}
	fmt.Println(len(sc.Objects), "objects,", img.Bounds().Dx(), "px wide")

	// A clip through the frame.Source interface, saved as a GIF and as a
	// contact sheet for a VLM query.
	src, _ := render.NewSimCamera(r, m, s, cam, render.SimCameraOptions{})
	var clip []*image.RGBA
	var f frame.Frame
	for i := 0; i < 4; i++ {
		for k := 0; k < 20; k++ {
			sim.Step(m, s)
		}
		if err := src.Next(context.Background(), &f); err != nil {
			panic(err)
		}
		clip = append(clip, f.Clone().Image)
	}
	dir, _ := os.MkdirTemp("", "render-example")
	defer func() { _ = os.RemoveAll(dir) }()
	if err := render.WriteGIF(filepath.Join(dir, "clip.gif"), clip, 10); err != nil {
		panic(err)
	}
	sheet, _ := render.ContactSheet(clip, 2, 4, color.RGBA{255, 255, 255, 255})
	fmt.Println("sheet", sheet.Bounds().Dx(), "x", sheet.Bounds().Dy())
	// Output:
	// 2 objects, 128 px wide
	// sheet 268 x 268
}
