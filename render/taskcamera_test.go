package render

import (
	"errors"
	"image"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/vlmrb/vlmrb/sim"
)

// OpenTaskCamera's task camera draws each scorer view as a look-at camera
// from Eye to Target with FovY, tiled: its frame equals NewTiledSimCamera's
// on the same LookAt cameras.
func TestOpenTaskCameraTilesTheTasksViews(t *testing.T) {
	m, s := tinySim(t)
	views := []View{
		{Eye: sim.Vec3{X: 0.6, Y: -0.4, Z: 0.5}, Target: sim.Vec3{Z: 0.05}, FovY: 40},
		{Eye: sim.Vec3{X: -0.3, Y: 0.5, Z: 0.8}, Target: sim.Vec3{X: 0.1}, FovY: 55},
	}
	opts := CameraOptions{Scenery: false, Shadows: false, MSAA: 0}
	got, err := OpenTaskCamera("soft", TaskCamera, "", 64, 32, Filmed{Name: "tiny", Model: m, Data: s, Views: views}, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	var cams []Camera
	for _, v := range views {
		c := LookAt(mgl64.Vec3{v.Eye.X, v.Eye.Y, v.Eye.Z}, mgl64.Vec3{v.Target.X, v.Target.Y, v.Target.Z}, mgl64.Vec3{0, 0, 1}, v.FovY, 32, 32)
		c.Name = TaskCamera
		cams = append(cams, c)
	}
	r := mustSoft(t, Options{})
	want, err := NewTiledSimCamera(r, m, s, cams, 64, 32, SimCameraOptions{Style: &Style{}})
	if err != nil {
		t.Fatal(err)
	}
	a, b := image.NewRGBA(image.Rect(0, 0, 64, 32)), image.NewRGBA(image.Rect(0, 0, 64, 32))
	if err := got.RenderBuffers(m, s, Buffers{RGB: a}); err != nil {
		t.Fatal(err)
	}
	if err := want.RenderBuffers(m, s, Buffers{RGB: b}); err != nil {
		t.Fatal(err)
	}
	for i := range a.Pix {
		if a.Pix[i] != b.Pix[i] {
			t.Fatalf("byte %d: task camera %d, look-at views %d", i, a.Pix[i], b.Pix[i])
		}
	}
}

func TestOpenTaskCameraErrorsSayWhatToPass(t *testing.T) {
	m, s := tinySim(t)
	env := Filmed{Name: "tiny", Model: m, Data: s}
	opts := DefaultCameraOptions()
	for _, c := range []struct {
		camera, theme string
		w             int
		want          string
	}{
		{TaskCamera, "", 64, "pick a camera such as workspace"},
		{"fisheye", "", 64, "(or task, workspace)"},
		{WorkspaceCamera, "neon", 64, "neon"},
		{WorkspaceCamera, "", 0, ""},
	} {
		_, err := OpenTaskCamera("soft", c.camera, c.theme, c.w, 32, env, opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("camera %q theme %q width %d: %v, want an error containing %q", c.camera, c.theme, c.w, err, c.want)
		}
	}
	_, err := OpenTaskCamera("vulkan", WorkspaceCamera, "", 64, 32, env, opts)
	var rerr *RendererError
	if !errors.As(err, &rerr) || rerr.Backend != "vulkan" {
		t.Errorf("unknown backend: %v, want a *RendererError for vulkan", err)
	}
	c, err := OpenTaskCamera("soft", WorkspaceCamera, "abstract", 64, 32, env, opts)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}

// FilmedOf converts any view type shaped like View.
func TestFilmedOf(t *testing.T) {
	type taskView struct {
		Eye, Target sim.Vec3
		FovY        float64
	}
	f := FilmedOf("x", nil, nil, []taskView{{Eye: sim.Vec3{X: 1}, FovY: 30}})
	if len(f.Views) != 1 || f.Views[0].Eye.X != 1 || f.Views[0].FovY != 30 || f.Name != "x" {
		t.Errorf("FilmedOf = %+v", f)
	}
}
