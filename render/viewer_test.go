package render

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestViewer runs the viewer and the glfw backend under xvfb-run in a child
// process (this test binary, re-executed): the viewer opens, steps the
// callback, draws and closes; the glfw renderer's frames match soft's.
func TestViewer(t *testing.T) {
	if os.Getenv("VLMRB_VIEWER_CHILD") == "1" {
		viewerChild(t)
		return
	}
	if _, ok := backends["glfw"]; !ok {
		t.Skip("glfw backend not compiled in (needs cgo)")
	}
	xvfb, err := exec.LookPath("xvfb-run")
	if err != nil {
		t.Skip("xvfb-run not installed (apt-get install xvfb xauth)")
	}
	// -a searches for a free display from -n on; starting the search at a
	// number of this process's own keeps two concurrent test binaries
	// (go test runs packages in parallel) from racing for :99. An Xvfb
	// that dies while starting (seen on a machine under heavy load: the
	// child then cannot open the display) is retried on another number;
	// a viewer that fails with a display it could open is not.
	var out []byte
	for try := 0; ; try++ {
		start := strconv.Itoa(100 + (os.Getpid()+997*try)%5000)
		xlog := filepath.Join(t.TempDir(), "xvfb.log")
		cmd := exec.Command(xvfb, "-a", "-n", start, "-e", xlog, "-s", "-screen 0 640x480x24", os.Args[0], "-test.run=^TestViewer$", "-test.v")
		cmd.Env = append(os.Environ(), "VLMRB_VIEWER_CHILD=1")
		var err error
		out, err = cmd.CombinedOutput()
		t.Logf("child (try %d):\n%s", try+1, out)
		if err == nil {
			break
		}
		xl, _ := os.ReadFile(xlog)
		if try < 2 && bytes.Contains(out, []byte("Failed to open display")) {
			t.Logf("Xvfb did not come up; it said:\n%s", xl)
			continue
		}
		t.Fatalf("viewer child failed: %v\nXvfb said:\n%s", err, xl)
	}
	if !bytes.Contains(out, []byte("VIEWER-OK")) {
		t.Fatal("viewer child did not report success")
	}
}

func viewerChild(t *testing.T) {
	// EGL and GLX contexts in one process share the GL function pointers
	// (glvnd dispatch): open an EGL renderer first when there is one.
	if e, err := New("egl", Options{}); err == nil {
		_ = render(t, e, DemoTabletop(), DemoCamera(32, 32))
		defer func() { _ = e.Close() }()
	}
	steps, frames := 0, 0
	sc := DemoTabletop()
	cube := sc.Find("cube")
	var shot *image.RGBA
	statusCalls := 0
	cfg := ViewerConfig{Width: 320, Height: 240, MaxFrames: 20, Target: mgl64.Vec3{0, 0.1, 0.05},
		Status: func() string { statusCalls++; return fmt.Sprintf("step %d", steps) }}
	cfg.snapshot = func(img *image.RGBA) { shot = img }
	err := RunViewer(cfg,
		func() error { steps++; sc.Objects[cube].Pos[0] += 0.001; return nil },
		func() *Scene { frames++; return sc })
	if err != nil {
		t.Fatal(err)
	}
	if steps != 20 || frames != 20 {
		t.Fatalf("viewer ran %d steps and %d frames, want 20 and 20", steps, frames)
	}
	if statusCalls == 0 {
		t.Fatal("the status readout was never asked for")
	}
	// The window shows the free orbit camera's view of the last scene.
	if shot == nil || shot.Rect.Dx() != 320 || shot.Rect.Dy() != 240 {
		t.Fatalf("window snapshot %v", shot)
	}
	want := render(t, mustSoft(t, Options{}), sc, Orbit(cfg.Target, -40, 35, 1.0, 45, 320, 240))
	if frac, worst := within(shot, want, 8); frac < 0.99 {
		_ = WritePNG(filepath.Join(t.TempDir(), "viewer_shot.png"), shot)
		t.Fatalf("window vs soft: %.4f within 8/255 (worst %d)", frac, worst)
	}
	if os.Getenv("VLMRB_VIEWER_SHOT") != "" {
		if err := WritePNG(os.Getenv("VLMRB_VIEWER_SHOT"), shot); err != nil {
			t.Error(err)
		}
	}
	stop := errors.New("stop")
	if err := RunViewer(ViewerConfig{Hidden: true, MaxFrames: 5}, func() error { return stop }, func() *Scene { return sc }); !errors.Is(err, stop) {
		t.Fatalf("step error not returned: %v", err)
	}
	r, err := New("glfw", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }()
	t.Log(r.Info())
	cam := DemoCamera(96, 96)
	a := image.NewRGBA(image.Rect(0, 0, 96, 96))
	if err := r.Render(DemoTabletop(), cam, a); err != nil {
		t.Fatal(err)
	}
	b := render(t, mustSoft(t, Options{}), DemoTabletop(), cam)
	if frac, worst := within(a, b, 8); frac < 0.99 {
		t.Fatalf("glfw vs soft: %.4f within 8/255 (worst %d)", frac, worst)
	}
	t.Log("VIEWER-OK")
}

func TestViewerNoDisplay(t *testing.T) {
	if os.Getenv("VLMRB_VIEWER_CHILD") == "1" {
		t.Skip("child")
	}
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	err := RunViewer(ViewerConfig{MaxFrames: 1}, nil, func() *Scene { return DemoTabletop() })
	if !errors.Is(err, ErrNoDisplay) && !errors.Is(err, ErrUnavailable) {
		t.Fatalf("viewer without display: %v", err)
	}
	if _, ok := backends["glfw"]; ok {
		if _, err := New("glfw", Options{}); !errors.Is(err, ErrNoDisplay) {
			t.Fatalf("glfw without display: %v", err)
		}
	}
}
