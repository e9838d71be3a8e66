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
	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

// A task compiles its MJCF scene for the articulated engine, opens a
// renderer and a camera, then renders the live data; here a blue cube on a
// table seen from the corner camera.
func Example() {
	a, err := mjcf.Parse([]byte(`<mujoco>
  <worldbody>
    <geom name="table" type="plane" size="0.6 0.6 0.05"/>
    <body name="cube" pos="0 0 0.025">
      <freejoint/>
      <geom name="cube" type="box" size="0.025 0.025 0.025" mass="0.1" rgba="0.1 0.5 0.9 1"/>
    </body>
  </worldbody>
</mujoco>`), "", mjcf.Options{})
	if err != nil {
		panic(err)
	}
	m := a.Model
	s := articulated.NewData(m)
	articulated.Reset(m, s)
	articulated.Kinematics(m, s)

	// auto: EGL when it starts, else the pure-Go renderer (with a warning).
	r, err := render.New("auto", render.Options{Shadows: true, Logf: func(string, ...any) {}})
	if err != nil {
		panic(err)
	}
	defer func() { _ = r.Close() }()
	cam, _ := render.NamedCamera("corner", mgl64.Vec3{0, 0, 0}, 128, 128)

	sc := render.FromModel(a, s, &render.Style{Theme: render.ThemeStandard})
	img := image.NewRGBA(image.Rect(0, 0, cam.Width, cam.Height))
	if err := r.Render(sc, cam, img); err != nil {
		panic(err)
	}
	fmt.Println(len(sc.Objects), "objects,", img.Bounds().Dx(), "px wide")

	// A clip through the frame.Source interface, saved as a GIF and as a
	// contact sheet for a VLM query.
	src, _ := render.NewSimCamera(r, a, s, cam, render.SimCameraOptions{})
	var clip []*image.RGBA
	var f frame.Frame
	for i := 0; i < 4; i++ {
		for k := 0; k < 20; k++ {
			articulated.Step(m, s)
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
