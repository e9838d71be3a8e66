package render

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

var update = flag.Bool("update", false, "regenerate testdata/*.png golden images from the soft renderer")

// openEGL returns an EGL renderer or skips the test with the reason.
func openEGL(t testing.TB, opts Options) Renderer {
	t.Helper()
	r, err := New("egl", opts)
	if err != nil {
		t.Skipf("no EGL renderer: %v", err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

func mustSoft(t testing.TB, opts Options) Renderer {
	t.Helper()
	r, err := New("soft", opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	return r
}

func render(t testing.TB, r Renderer, sc *Scene, cam Camera) *image.RGBA {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, cam.Width, cam.Height))
	if err := r.Render(sc, cam, img); err != nil {
		t.Fatalf("%s: %v", r.Info().Backend, err)
	}
	return img
}

// within returns the fraction of pixels whose channels all differ by at
// most tol, and the largest difference.
func within(a, b *image.RGBA, tol int) (float64, int) {
	n, ok, worst := 0, 0, 0
	for i := 0; i+3 < len(a.Pix); i += 4 {
		d := 0
		for k := 0; k < 3; k++ {
			d = max(d, abs(int(a.Pix[i+k])-int(b.Pix[i+k])))
		}
		worst = max(worst, d)
		if d <= tol {
			ok++
		}
		n++
	}
	return float64(ok) / float64(n), worst
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// primitivesScene has every kind and texture once.
func primitivesScene() *Scene {
	id := mgl64.QuatIdent()
	return &Scene{
		Lights:     DefaultLights(),
		Ambient:    [3]float32{0.3, 0.3, 0.3},
		Background: [3]float32{0.2, 0.25, 0.3},
		Objects: []Object{
			{Name: "floor", Kind: Plane, Size: mgl64.Vec3{0.5, 0.5, 0}, Rot: id, ID: 1,
				Mat: Checker([3]float32{0.8, 0.8, 0.8}, [3]float32{0.3, 0.3, 0.3}, 10)},
			{Name: "crate", Kind: Box, Size: mgl64.Vec3{0.06, 0.06, 0.06}, Pos: mgl64.Vec3{-0.15, 0.1, 0.06},
				Rot: mgl64.QuatRotate(0.5, mgl64.Vec3{0, 0, 1}), ID: 2, Mat: Wood(), Role: RoleObject},
			{Name: "ball", Kind: Sphere, Size: mgl64.Vec3{0.05, 0, 0}, Pos: mgl64.Vec3{0.12, 0.12, 0.05}, Rot: id, ID: 3,
				Mat: Solid(0.9, 0.2, 0.1), Role: RoleObject},
			{Name: "rod", Kind: Capsule, Size: mgl64.Vec3{0.02, 0.08, 0}, Pos: mgl64.Vec3{0.1, -0.12, 0.02},
				Rot: mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{0, 1, 0}), ID: 4, Mat: Solid(0.2, 0.8, 0.3), Role: RoleObject},
			{Name: "can", Kind: Cylinder, Size: mgl64.Vec3{0.04, 0.05, 0}, Pos: mgl64.Vec3{-0.12, -0.12, 0.05}, Rot: id, ID: 5,
				Mat:  Material{Color: [3]float32{0.9, 0.8, 0.2}, Color2: [3]float32{0.2, 0.3, 0.8}, Texture: TexStripes, TexScale: 30, Specular: 0.4, Shininess: 64},
				Role: RoleObject},
		},
	}
}

type goldenCase struct {
	name    string
	sc      func() *Scene
	cam     Camera
	shadows bool
	pixel   bool // per-pixel lighting
}

func (gc goldenCase) opts() Options { return Options{Shadows: gc.shadows, PixelLighting: gc.pixel} }

func goldenCases() []goldenCase {
	prim := LookAt(mgl64.Vec3{0.45, -0.5, 0.45}, mgl64.Vec3{0, 0, 0.03}, mgl64.Vec3{0, 0, 1}, 45, 96, 96)
	misleading := func() *Scene { sc := DemoTabletop(); sc.ApplyTheme(ThemeMisleading); return sc }
	abstract := func() *Scene { sc := DemoTabletop(); sc.ApplyTheme(ThemeAbstract); return sc }
	return []goldenCase{
		{"tabletop_corner_128", DemoTabletop, DemoCamera(128, 128), false, false},
		{"tabletop_shadow_128", DemoTabletop, DemoCamera(128, 128), true, false},
		{"tabletop_pixel_shadow_128", DemoTabletop, DemoCamera(128, 128), true, true},
		{"tabletop_wide_160x96", DemoTabletop, DemoCamera(160, 96), false, false},
		{"primitives_96", primitivesScene, prim, true, false},
		{"primitives_pixel_96", primitivesScene, prim, false, true},
		{"tabletop_misleading_96", misleading, DemoCamera(96, 96), false, false},
		{"tabletop_abstract_96", abstract, DemoCamera(96, 96), false, false},
	}
}

func readPNG(t *testing.T, path string) *image.RGBA {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%v (run go test ./render -run Golden -update to create it)", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	out := image.NewRGBA(img.Bounds())
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			out.Set(x, y, img.At(x, y))
		}
	}
	return out
}

// TestGolden checks the soft renderer against committed PNGs (nearly exact)
// and the EGL renderer against the same PNGs within the parity tolerance.
func TestGolden(t *testing.T) {
	for _, gc := range goldenCases() {
		t.Run(gc.name, func(t *testing.T) {
			path := filepath.Join("testdata", gc.name+".png")
			soft := render(t, mustSoft(t, gc.opts()), gc.sc(), gc.cam)
			if *update {
				if err := WritePNG(path, soft); err != nil {
					t.Fatal(err)
				}
			}
			want := readPNG(t, path)
			if frac, worst := within(soft, want, 2); frac < 0.999 {
				t.Errorf("soft vs golden: %.4f of pixels within 2/255 (worst %d)", frac, worst)
			}
			r, err := New("egl", gc.opts())
			if err != nil {
				t.Skipf("no EGL renderer: %v", err)
			}
			defer func() { _ = r.Close() }()
			got := render(t, r, gc.sc(), gc.cam)
			frac, worst := within(got, want, 8)
			t.Logf("egl vs golden: %.4f of pixels within 8/255 (worst %d)", frac, worst)
			if frac < 0.99 {
				_ = WritePNG(filepath.Join(t.TempDir(), "egl.png"), got)
				t.Errorf("egl vs golden: %.4f of pixels within 8/255 (want >= 0.99, worst %d)", frac, worst)
			}
		})
	}
}

// TestParityMSAA: anti-aliased frames of the two backends agree closely too
// (GL multisampling and soft supersampling place samples differently, so
// edges differ more).
func TestParityMSAA(t *testing.T) {
	e := openEGL(t, Options{MSAA: 4})
	s := mustSoft(t, Options{MSAA: 4})
	cam := DemoCamera(128, 128)
	a, b := render(t, e, DemoTabletop(), cam), render(t, s, DemoTabletop(), cam)
	frac, worst := within(a, b, 8)
	t.Logf("msaa egl vs soft: %.4f within 8/255, worst %d", frac, worst)
	if frac < 0.97 {
		t.Errorf("msaa parity %.4f < 0.97", frac)
	}
	if e.Info().MSAA < 2 {
		t.Errorf("egl MSAA = %d, want >= 2", e.Info().MSAA)
	}
}

// TestMSAADepthAcrossFrames: one multisampled renderer drawing a sequence
// of scenes (its depth buffer is cleared every few frames, each frame
// using a nearer slice of the depth range) gives every frame exactly the
// image a fresh renderer gives it, including frames after one whose
// geometry was much nearer the camera than theirs.
func TestMSAADepthAcrossFrames(t *testing.T) {
	opts := Options{MSAA: 4, Shadows: true}
	r := openEGL(t, opts)
	if r.Info().MSAA < 2 {
		t.Fatalf("egl MSAA = %d: the multisample path under test is not in use", r.Info().MSAA)
	}
	base, cam := knownScene()
	near := *base
	near.Objects = append(slices.Clone(base.Objects), Object{Name: "near", Kind: Box,
		Size: mgl64.Vec3{0.3, 0.3, 0.05}, Pos: mgl64.Vec3{0, 0, 1.5}, Rot: mgl64.QuatIdent(), ID: 9,
		Mat: Material{Color: [3]float32{0.9, 0.9, 0.1}}})
	bare := *base
	bare.Objects = base.Objects[:1] // the plane alone
	seq := []*Scene{&near, base, &bare, &near, &bare, base, base, &near, &bare, base}
	for i, sc := range seq {
		got := render(t, r, sc, cam)
		f := openEGL(t, opts)
		want := render(t, f, sc, cam)
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Pix, want.Pix) {
			frac, worst := within(got, want, 0)
			t.Fatalf("frame %d (%d objects): %.4f of pixels equal to a fresh renderer's, worst difference %d", i, len(sc.Objects), frac, worst)
		}
	}
}

// knownScene: a 0.2 m red box on a green plane, seen from 2 m straight
// above with one white light straight down and no ambient light.
func knownScene() (*Scene, Camera) {
	id := mgl64.QuatIdent()
	sc := &Scene{
		Lights:     []Light{{Dir: mgl64.Vec3{0, 0, -1}, Color: [3]float32{1, 1, 1}}},
		Background: [3]float32{0, 0, 1},
		Objects: []Object{
			{Name: "plane", Kind: Plane, Size: mgl64.Vec3{1, 1, 0}, Rot: id, ID: 1, Mat: Material{Color: [3]float32{0, 0.4, 0}}},
			{Name: "box", Kind: Box, Size: mgl64.Vec3{0.1, 0.1, 0.1}, Pos: mgl64.Vec3{0, 0, 0.1}, Rot: id, ID: 7, Mat: Material{Color: [3]float32{0.8, 0.2, 0.2}}},
		},
	}
	cam := Camera{Name: "top", Pos: mgl64.Vec3{0, 0, 2}, Rot: id, FovY: 45, Width: 64, Height: 64}
	return sc, cam
}

func checkKnown(t *testing.T, r Renderer) {
	sc, cam := knownScene()
	n := cam.Width * cam.Height
	buf := Buffers{RGB: image.NewRGBA(image.Rect(0, 0, 64, 64)), Depth: make([]float32, n), Seg: make([]int32, n)}
	if err := r.RenderBuffers(sc, cam, buf); err != nil {
		t.Fatal(err)
	}
	// The box top (z = 0.2) spans ±0.1/(1.8·tan 22.5°) of the half-image:
	// ±4.3 px around the centre.
	half := 0.1 / (1.8 * math.Tan(math.Pi/8)) * 32
	boxPx := 0
	for y := 0; y < 64; y++ {
		for x := 0; x < 64; x++ {
			i := y*64 + x
			dx, dy := math.Abs(float64(x)+0.5-32), math.Abs(float64(y)+0.5-32)
			inside, outside := dx < half-0.5 && dy < half-0.5, dx > half+0.5 || dy > half+0.5
			c := buf.RGB.RGBAAt(x, y)
			switch {
			case inside:
				if buf.Seg[i] != 7 || math.Abs(float64(buf.Depth[i])-1.8) > 1e-3 {
					t.Fatalf("pixel (%d,%d) inside the box: seg %d depth %.4f, want 7 and 1.8 m", x, y, buf.Seg[i], buf.Depth[i])
				}
				// Lambert with N·L = 1: colour = base; specular is 0.
				if c != (color.RGBA{204, 51, 51, 255}) {
					t.Fatalf("box pixel (%d,%d) = %v, want {204 51 51 255}", x, y, c)
				}
			case outside:
				if buf.Seg[i] != 1 || math.Abs(float64(buf.Depth[i])-2) > 1e-3 {
					t.Fatalf("pixel (%d,%d) on the plane: seg %d depth %.4f, want 1 and 2 m", x, y, buf.Seg[i], buf.Depth[i])
				}
				if c != (color.RGBA{0, 102, 0, 255}) {
					t.Fatalf("plane pixel (%d,%d) = %v, want {0 102 0 255}", x, y, c)
				}
			}
			if buf.Seg[i] == 7 {
				boxPx++
			}
		}
	}
	want := 4 * half * half
	if math.Abs(float64(boxPx)-want) > 4*2*half {
		t.Errorf("box covers %d px, want about %.0f", boxPx, want)
	}
	// Nothing drawn: background colour, depth 0, id 0.
	empty := &Scene{Background: [3]float32{0, 0, 1}}
	if err := r.RenderBuffers(empty, cam, buf); err != nil {
		t.Fatal(err)
	}
	if c := buf.RGB.RGBAAt(5, 5); c != (color.RGBA{0, 0, 255, 255}) || buf.Depth[5] != 0 || buf.Seg[5] != 0 {
		t.Errorf("empty scene pixel = %v depth %v seg %v, want background, 0, 0", c, buf.Depth[5], buf.Seg[5])
	}
}

func TestDepthSegSoft(t *testing.T) {
	checkKnown(t, mustSoft(t, Options{}))
	checkKnown(t, mustSoft(t, Options{PixelLighting: true}))
}

func TestDepthSegEGL(t *testing.T) {
	checkKnown(t, openEGL(t, Options{}))
	checkKnown(t, openEGL(t, Options{PixelLighting: true}))
}

// TestShadowFallsOnTable: with shadows on, the table right below an object
// lit from straight above is darker than without shadows.
func TestShadow(t *testing.T) {
	for _, be := range []string{"soft", "egl"} {
		t.Run(be, func(t *testing.T) {
			sc, cam := knownScene()
			sc.Objects[1].Pos = mgl64.Vec3{0, 0, 0.5} // hover the box
			sc.Lights[0].Shadow = true
			sc.Lights[0].Dir = mgl64.Vec3{1, 0, -1}
			cam.Pos = mgl64.Vec3{0, 0, 3}
			r, err := New(be, Options{Shadows: true, ShadowSize: 256})
			if err != nil {
				t.Skipf("%s: %v", be, err)
			}
			defer func() { _ = r.Close() }()
			img := render(t, r, sc, cam)
			// The shadow centre is where the ray from the box centre along
			// the light hits z=0: x = 0.5 m, 0.5/(3·tan 22.5°)·32 px right
			// of the centre. With no ambient light it is black; the lit
			// table is 0.4·cos 45° green.
			px := 32 + int(0.5/(3*math.Tan(math.Pi/8))*32)
			if c := img.RGBAAt(px, 32); c.G > 5 {
				t.Errorf("shadow pixel (%d,32) = %v, want black", px, c)
			}
			if c := img.RGBAAt(15, 45); abs(int(c.G)-72) > 2 {
				t.Errorf("lit table pixel = %v, want green 72", c)
			}
		})
	}
}

// TestNoReceive: the same hovering box and slanted light as TestShadow;
// with the plane marked NoReceive the shadow spot is lit like the rest of
// it, and the box itself is unchanged.
func TestNoReceive(t *testing.T) {
	for _, be := range []string{"soft", "egl"} {
		t.Run(be, func(t *testing.T) {
			sc, cam := knownScene()
			sc.Objects[1].Pos = mgl64.Vec3{0, 0, 0.5}
			sc.Lights[0].Shadow = true
			sc.Lights[0].Dir = mgl64.Vec3{1, 0, -1}
			cam.Pos = mgl64.Vec3{0, 0, 3}
			r, err := New(be, Options{Shadows: true, ShadowSize: 256, MSAA: 4})
			if err != nil {
				t.Skipf("%s: %v", be, err)
			}
			defer func() { _ = r.Close() }()
			with := render(t, r, sc, cam)
			sc.Objects[0].NoReceive = true
			without := render(t, r, sc, cam)
			px := 32 + int(0.5/(3*math.Tan(math.Pi/8))*32)
			if c := with.RGBAAt(px, 32); c.G > 5 {
				t.Errorf("receiving plane: shadow pixel (%d,32) = %v, want black", px, c)
			}
			if c := without.RGBAAt(px, 32); abs(int(c.G)-72) > 2 {
				t.Errorf("NoReceive plane: pixel (%d,32) = %v, want lit green 72", px, c)
			}
			if a, b := with.RGBAAt(32, 32), without.RGBAAt(32, 32); a != b {
				t.Errorf("the box changed: %v vs %v", a, b)
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	rs := []Renderer{mustSoft(t, Options{})}
	if r, err := New("egl", Options{}); err == nil {
		defer func() { _ = r.Close() }()
		rs = append(rs, r)
	}
	sc := DemoTabletop()
	for _, r := range rs {
		for _, sz := range [][2]int{{0, 10}, {10, 0}, {-1, 5}, {MaxImageSide + 1, 8}, {100000, 100000}} {
			cam := DemoCamera(sz[0], sz[1])
			err := r.Render(sc, cam, image.NewRGBA(image.Rect(0, 0, max(sz[0], 0)%1000, max(sz[1], 0)%1000)))
			if err == nil {
				t.Errorf("%s: size %v accepted", r.Info().Backend, sz)
			}
		}
		if err := r.Render(sc, DemoCamera(32, 32), image.NewRGBA(image.Rect(0, 0, 16, 16))); err == nil {
			t.Errorf("%s: mismatched destination accepted", r.Info().Backend)
		}
		if err := r.RenderBuffers(sc, DemoCamera(8, 8), Buffers{Depth: make([]float32, 3)}); err == nil {
			t.Errorf("%s: short depth buffer accepted", r.Info().Backend)
		}
		bad := DemoTabletop()
		bad.Objects[1].Pos[0] = math.NaN()
		if err := r.Render(bad, DemoCamera(8, 8), image.NewRGBA(image.Rect(0, 0, 8, 8))); err == nil {
			t.Errorf("%s: NaN pose accepted", r.Info().Backend)
		}
		// A destination with an offset origin and a wider stride works.
		big := image.NewRGBA(image.Rect(0, 0, 40, 40))
		sub := big.SubImage(image.Rect(5, 5, 37, 37)).(*image.RGBA)
		if err := r.Render(sc, DemoCamera(32, 32), sub); err != nil {
			t.Errorf("%s: sub-image: %v", r.Info().Backend, err)
		}
		direct := render(t, r, sc, DemoCamera(32, 32))
		for y := 0; y < 32; y++ {
			if !bytes.Equal(sub.Pix[sub.PixOffset(5, 5+y):sub.PixOffset(37, 5+y)], direct.Pix[y*direct.Stride:(y+1)*direct.Stride]) {
				t.Fatalf("%s: sub-image row %d differs from a direct render", r.Info().Backend, y)
			}
		}
		if err := r.Close(); err != nil {
			t.Errorf("%s: Close: %v", r.Info().Backend, err)
		}
		if err := r.Render(sc, DemoCamera(8, 8), image.NewRGBA(image.Rect(0, 0, 8, 8))); !errors.Is(err, ErrClosed) {
			t.Errorf("%s: render after Close: %v, want ErrClosed", r.Info().Backend, err)
		}
	}
	if _, err := New("vulkan", Options{}); err == nil {
		t.Error("unknown backend accepted")
	}
}

// TestNoEGLChild runs the package test binary with glvnd pointed at a
// missing vendor file: New("egl") must fail with an error (no panic) and
// auto must fall back to soft with a warning, or refuse under RequireGPU.
func TestNoEGL(t *testing.T) {
	if os.Getenv("VLMRB_NOEGL_CHILD") == "1" {
		_, err := New("egl", Options{})
		if err == nil {
			t.Skip("EGL still came up with no vendor library")
		}
		fmt.Println("EGLERR:", err)
		var warned bool
		r, err := New("auto", Options{Logf: func(string, ...any) { warned = true }})
		if err != nil || r.Info().Backend != "soft" || !warned {
			t.Fatalf("auto without EGL: %v %v warned=%v", r, err, warned)
		}
		if _, err := New("auto", Options{RequireGPU: true}); err == nil {
			t.Fatal("auto with RequireGPU and no EGL succeeded")
		}
		return
	}
	if _, ok := backends["egl"]; !ok {
		t.Skip("egl not compiled in")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNoEGL$", "-test.v")
	cmd.Env = append(os.Environ(), "VLMRB_NOEGL_CHILD=1", "__EGL_VENDOR_LIBRARY_FILENAMES=/nonexistent/vendor.json")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child failed: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("EGLERR:")) && !bytes.Contains(out, []byte("SKIP")) {
		t.Fatalf("child output:\n%s", out)
	}
	t.Logf("child: %s", bytes.TrimSpace(out))
}

func TestRequireGPU(t *testing.T) {
	r, err := New("egl", Options{RequireGPU: true})
	if err == nil {
		defer func() { _ = r.Close() }()
		if r.Info().Software {
			t.Fatalf("RequireGPU accepted %v", r.Info())
		}
		return
	}
	t.Logf("egl with RequireGPU: %v", err)
	if _, err := New("soft", Options{RequireGPU: true}); err != nil {
		t.Fatal(err)
	} else if r, _ := New("soft", Options{RequireGPU: true}); r.Render(DemoTabletop(), DemoCamera(8, 8), image.NewRGBA(image.Rect(0, 0, 8, 8))) == nil {
		t.Error("soft rendered with RequireGPU")
	}
}

func TestMeshWinding(t *testing.T) {
	for _, c := range []struct {
		k Kind
		s mgl64.Vec3
	}{{Box, mgl64.Vec3{0.1, 0.2, 0.3}}, {Sphere, mgl64.Vec3{0.1, 0, 0}}, {Capsule, mgl64.Vec3{0.05, 0.2, 0}},
		{Cylinder, mgl64.Vec3{0.05, 0.1, 0}}, {Plane, mgl64.Vec3{1, 1, 0}}} {
		m := buildMesh(c.k, c.s, maxRoundSlices)
		area := 0.0
		for i := 0; i < len(m.idx); i += 3 {
			a, b, cc := m.pos[m.idx[i]], m.pos[m.idx[i+1]], m.pos[m.idx[i+2]]
			va := mgl64.Vec3{float64(a[0]), float64(a[1]), float64(a[2])}
			vb := mgl64.Vec3{float64(b[0]), float64(b[1]), float64(b[2])}
			vc := mgl64.Vec3{float64(cc[0]), float64(cc[1]), float64(cc[2])}
			n := vb.Sub(va).Cross(vc.Sub(va))
			if n.Len() < 1e-12 {
				t.Fatalf("%v: triangle %d has zero area", c.k, i/3)
			}
			out := va.Add(vb).Add(vc).Mul(1.0 / 3)
			if c.k == Plane {
				out = mgl64.Vec3{0, 0, 1}
			}
			if c.k == Capsule || c.k == Cylinder { // outward from the axis or cap
				if math.Abs(n.Normalize()[2]) < 0.999 {
					out[2] = 0
				}
			}
			if n.Dot(out) <= 0 {
				t.Fatalf("%v: triangle %d winds inward", c.k, i/3)
			}
			area += n.Len() / 2
		}
		var want float64
		switch c.k {
		case Box:
			want = 8 * (c.s[0]*c.s[1] + c.s[1]*c.s[2] + c.s[0]*c.s[2])
		case Sphere:
			want = 4 * math.Pi * c.s[0] * c.s[0]
		case Capsule:
			want = 4*math.Pi*c.s[0]*c.s[0] + 2*math.Pi*c.s[0]*2*c.s[1]
		case Cylinder:
			want = 2*math.Pi*c.s[0]*c.s[0] + 2*math.Pi*c.s[0]*2*c.s[1]
		case Plane:
			want = 4 * c.s[0] * c.s[1]
		}
		if math.Abs(area-want)/want > 0.04 { // tessellation loses a few %
			t.Errorf("%v: surface area %.5f, want %.5f", c.k, area, want)
		}
	}
}

// TestMeshClosed checks that every caster mesh is closed: each directed
// edge, keyed by vertex position (seams and poles repeat positions), is
// matched by the reverse edge of a neighbouring triangle as often as it
// occurs. The shadow pass culls back faces on the strength of this: the
// first surface a ray from outside a closed, outward-wound mesh meets is a
// front face.
func TestMeshClosed(t *testing.T) {
	type key [3]int64
	q := func(p [3]float32) key {
		return key{int64(math.Round(float64(p[0]) * 1e6)), int64(math.Round(float64(p[1]) * 1e6)), int64(math.Round(float64(p[2]) * 1e6))}
	}
	for _, c := range []struct {
		k Kind
		s mgl64.Vec3
		n int
	}{{Box, mgl64.Vec3{0.1, 0.2, 0.3}, 0}, {Sphere, mgl64.Vec3{0.1, 0, 0}, 8}, {Sphere, mgl64.Vec3{0.1, 0, 0}, 12},
		{Sphere, mgl64.Vec3{0.1, 0, 0}, 16}, {Capsule, mgl64.Vec3{0.05, 0.2, 0}, 8}, {Capsule, mgl64.Vec3{0.05, 0.2, 0}, 12},
		{Capsule, mgl64.Vec3{0.05, 0.2, 0}, 16}, {Cylinder, mgl64.Vec3{0.05, 0.1, 0}, 8}, {Cylinder, mgl64.Vec3{0.05, 0.1, 0}, 16}} {
		m := buildMesh(c.k, c.s, c.n)
		edges := map[[2]key]int{}
		for i := 0; i < len(m.idx); i += 3 {
			for e := 0; e < 3; e++ {
				a, b := q(m.pos[m.idx[i+e]]), q(m.pos[m.idx[i+(e+1)%3]])
				if a == b {
					t.Fatalf("%v: triangle %d has a zero-length edge", c.k, i/3)
				}
				edges[[2]key{a, b}]++
			}
		}
		for e, n := range edges {
			if r := edges[[2]key{e[1], e[0]}]; r != n {
				t.Fatalf("%v, %d slices: edge %v→%v occurs %d times, its reverse %d: the mesh is open", c.k, c.n, e[0], e[1], n, r)
			}
		}
	}
}

// TestRoundLOD checks the tessellation rule: the slices chosen for a
// radius of r pixels are the fewest (of 8, 12, 16) whose inscribed polygon
// stays within lodErrPx of the circle, 16 when none does; and an object
// seen from farther away never gets more slices.
func TestRoundLOD(t *testing.T) {
	dev := func(r float64, n int) float64 { return r * (1 - math.Cos(math.Pi/float64(n))) }
	for r := 0.5; r < 100; r *= 1.1 {
		n := roundSlicesFor(r)
		if n < maxRoundSlices && dev(r, n) > lodErrPx {
			t.Fatalf("radius %.1f px: %d slices depart %.2f px from the circle, more than %.2f", r, n, dev(r, n), lodErrPx)
		}
		if n-4 >= minRoundSlices && dev(r, n-4) <= lodErrPx {
			t.Fatalf("radius %.1f px: %d slices chosen, %d would do", r, n, n-4)
		}
	}
	if roundSlicesFor(3) != minRoundSlices || roundSlicesFor(1000) != maxRoundSlices {
		t.Fatalf("3 px → %d slices, 1000 px → %d; want %d and %d", roundSlicesFor(3), roundSlicesFor(1000), minRoundSlices, maxRoundSlices)
	}
	o := Object{Kind: Sphere, Size: mgl64.Vec3{0.02, 0, 0}}
	prev := maxRoundSlices + 1
	for d := 0.05; d < 10; d *= 1.3 {
		cam := LookAt(mgl64.Vec3{d, 0, 0}, mgl64.Vec3{}, mgl64.Vec3{0, 0, 1}, 45, 224, 224)
		n := newLODView(cam).slices(&o)
		if n > prev {
			t.Fatalf("at %.2f m the sphere gets %d slices, nearer it got %d", d, n, prev)
		}
		prev = n
	}
	if prev != minRoundSlices {
		t.Fatalf("a 2 cm sphere 10 m away gets %d slices, want %d", prev, minRoundSlices)
	}
	if n := (lodView{}).slices(&o); n != maxRoundSlices {
		t.Fatalf("the zero lodView gives %d slices, want %d", n, maxRoundSlices)
	}
	if n := newLODView(LookAt(mgl64.Vec3{1, 0, 0}, mgl64.Vec3{}, mgl64.Vec3{0, 0, 1}, 45, 224, 224)).slices(&Object{Kind: Box, Size: mgl64.Vec3{1, 1, 1}}); n != 0 {
		t.Fatalf("a box gets %d slices, want 0", n)
	}
}

func TestCameras(t *testing.T) {
	target := mgl64.Vec3{0.1, 0.2, 0.3}
	c := LookAt(mgl64.Vec3{1, -1, 1}, target, mgl64.Vec3{0, 0, 1}, 50, 64, 48)
	p := c.Proj().Mul4(c.View()).Mul4x1(target.Vec4(1))
	if math.Abs(p[0]/p[3]) > 1e-9 || math.Abs(p[1]/p[3]) > 1e-9 {
		t.Errorf("target projects to (%g, %g), want the image centre", p[0]/p[3], p[1]/p[3])
	}
	up := c.Rot.Rotate(mgl64.Vec3{0, 1, 0})
	if up[2] <= 0 {
		t.Errorf("camera up %v points down", up)
	}
	// A point 1 m to the world's +z shows above the centre.
	q := c.Proj().Mul4(c.View()).Mul4x1(target.Add(mgl64.Vec3{0, 0, 0.1}).Vec4(1))
	if q[1]/q[3] <= 0 {
		t.Error("world up is not image up")
	}
	for _, n := range CameraNames {
		cam, err := NamedCamera(n, mgl64.Vec3{0, 0, 0}, 32, 32)
		if err != nil || cam.Name != n {
			t.Fatalf("%s: %v", n, err)
		}
		if cam.Body == "" {
			// fixed cameras look at the table centre region
			if cam.Forward()[2] >= 0 {
				t.Errorf("%s looks up", n)
			}
		}
	}
	if _, err := NamedCamera("nope", mgl64.Vec3{}, 8, 8); err == nil {
		t.Error("unknown camera accepted")
	}
	// Attach: a camera 1 m along the body x axis of a body turned 90° about z
	// sits on the world y axis.
	att := Camera{Pos: mgl64.Vec3{1, 0, 0}, Rot: mgl64.QuatIdent(), Body: "b"}.Attach(mgl64.Vec3{0, 0, 1}, mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{0, 0, 1}))
	if att.Pos.Sub(mgl64.Vec3{0, 1, 1}).Len() > 1e-12 || att.Body != "" {
		t.Errorf("attached camera at %v", att.Pos)
	}
	// MuJoCo xyaxes: x=(−1,1,0), y=(−0.2,−0.2,−1) → camera z = x × y.
	qx := XYAxes(mgl64.Vec3{-1, 1, 0}, mgl64.Vec3{-0.2, -0.2, -1})
	z := qx.Rotate(mgl64.Vec3{0, 0, 1})
	want := mgl64.Vec3{-1, 1, 0}.Normalize().Cross(mgl64.Vec3{-0.2, -0.2, -1}.Normalize())
	if !z.ApproxEqualThreshold(want.Normalize(), 1e-9) {
		t.Errorf("xyaxes z = %v, want %v", z, want)
	}
}

func TestThemes(t *testing.T) {
	sc := DemoTabletop()
	orig := DemoTabletop()
	sc.ApplyTheme(ThemeStandard)
	if sc.Objects[4].Mat != orig.Objects[4].Mat {
		t.Fatal("standard theme changed a material")
	}
	sc.ApplyTheme(ThemeMisleading)
	cube, goal := sc.Find("cube"), sc.Find("goal")
	if sc.Objects[cube].Mat.Color == orig.Objects[cube].Mat.Color || sc.Objects[goal].Mat.Color == orig.Objects[goal].Mat.Color {
		t.Error("misleading theme kept the cube or goal colour")
	}
	// Colours are permuted, not invented: the set of colours is unchanged.
	set := map[[3]float32]int{}
	for i, o := range orig.Objects {
		if o.Role != RoleStatic {
			set[o.Mat.Color]++
			set[sc.Objects[i].Mat.Color]--
		}
	}
	distinct := map[[3]float32]bool{}
	for _, o := range orig.Objects {
		if o.Role != RoleStatic {
			distinct[o.Mat.Color] = true
		}
	}
	for c := range distinct {
		found := false
		for _, o := range sc.Objects {
			if o.Role != RoleStatic && o.Mat.Color == c {
				found = true
			}
		}
		if !found {
			t.Errorf("misleading theme dropped colour %v", c)
		}
	}
	ab := DemoTabletop()
	ab.ApplyTheme(ThemeAbstract)
	for _, o := range ab.Objects {
		if o.Mat.Texture == TexNone {
			t.Errorf("abstract theme left %s untextured", o.Name)
		}
	}
	if ab.Objects[cube].Mat.Color == orig.Objects[cube].Mat.Color {
		t.Error("abstract theme kept the cube colour")
	}
	for _, n := range ThemeNames {
		if th, err := ParseTheme(n); err != nil || th.String() != n {
			t.Errorf("ParseTheme(%q) = %v, %v", n, th, err)
		}
	}
	if _, err := ParseTheme("neon"); err == nil {
		t.Error("unknown theme accepted")
	}
}

func clip(t *testing.T, n int) []*image.RGBA {
	r := mustSoft(t, Options{})
	sc := DemoTabletop()
	var frames []*image.RGBA
	for i := 0; i < n; i++ {
		sc.Objects[sc.Find("cube")].Pos[0] = 0.02 * float64(i)
		frames = append(frames, render(t, r, sc, DemoCamera(48, 36)))
	}
	return frames
}

func TestOutputs(t *testing.T) {
	dir := t.TempDir()
	frames := clip(t, 6)
	p := filepath.Join(dir, "a.png")
	if err := WritePNG(p, frames[0]); err != nil {
		t.Fatal(err)
	}
	if got := readPNG(t, p); !bytes.Equal(got.Pix, frames[0].Pix) {
		t.Error("PNG round trip changed pixels")
	}
	g := filepath.Join(dir, "a.gif")
	if err := WriteGIF(g, frames, 10); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(g)
	dec, err := gif.DecodeAll(f)
	f.Close()
	if err != nil || len(dec.Image) != 6 || dec.Image[0].Bounds().Dx() != 48 {
		t.Fatalf("GIF: %v frames, err %v", len(dec.Image), err)
	}
	sheet, err := ContactSheet(frames, 3, 2, color.RGBA{255, 255, 255, 255})
	if err != nil {
		t.Fatal(err)
	}
	if sheet.Rect.Dx() != 3*48+4*2 || sheet.Rect.Dy() != 2*36+3*2 {
		t.Fatalf("sheet is %v", sheet.Rect)
	}
	// Tile 4 (row 1, col 1) holds frame 4 exactly.
	x0, y0 := 2+48+2, 2+36+2
	for y := 0; y < 36; y++ {
		if !bytes.Equal(sheet.Pix[sheet.PixOffset(x0, y0+y):sheet.PixOffset(x0+48, y0+y)], frames[4].Pix[y*frames[4].Stride:(y+1)*frames[4].Stride]) {
			t.Fatalf("sheet tile 4 row %d differs from frame 4", y)
		}
	}
	if _, err := ContactSheet(nil, 0, 0, color.RGBA{}); err == nil {
		t.Error("empty contact sheet accepted")
	}
	if _, err := ContactSheet([]*image.RGBA{frames[0], image.NewRGBA(image.Rect(0, 0, 2, 2))}, 0, 0, color.RGBA{}); err == nil {
		t.Error("mixed frame sizes accepted")
	}
	mp4 := filepath.Join(dir, "a.mp4")
	err = WriteMP4(mp4, frames, 10)
	if errors.Is(err, ErrNoFFmpeg) {
		t.Skip("ffmpeg missing")
	}
	if err != nil {
		t.Fatal(err)
	}
	// Decode it back with ffmpeg: 6 frames of 48x36.
	out, err := exec.Command("ffmpeg", "-v", "error", "-i", mp4, "-f", "rawvideo", "-pix_fmt", "rgba", "-").Output()
	if err != nil || len(out) != 6*48*36*4 {
		t.Fatalf("decoded %d bytes (%v), want %d", len(out), err, 6*48*36*4)
	}
	t.Setenv("PATH", "")
	if err := WriteMP4(mp4, frames, 10); !errors.Is(err, ErrNoFFmpeg) {
		t.Errorf("no ffmpeg: %v, want ErrNoFFmpeg", err)
	}
}

// tinyXML is a small MJCF scene: a table plane, a free blue cube, a red
// visual-only goal on the world and a mocap "hand".
const tinyXML = `<mujoco model="tiny">
  <worldbody>
    <geom name="table" type="plane" size="0.5 0.5 0.05"/>
    <geom name="goal" type="sphere" size="0.02" pos="0.15 0.1 0.02" rgba="0.9 0.1 0.1 1" contype="0" conaffinity="0"/>
    <body name="cube" pos="0 0 0.025">
      <freejoint name="cube"/>
      <geom name="cube" type="box" size="0.025 0.025 0.025" mass="0.1" rgba="0.1 0.3 0.9 1"/>
    </body>
    <body name="hand" mocap="true" pos="0 -0.1 0.2">
      <geom name="palm" type="box" size="0.02 0.06 0.01" rgba="0.3 0.3 0.35 1"/>
    </body>
  </worldbody>
</mujoco>`

// tinySim compiles tinyXML for the articulated engine and poses it.
func tinySim(t testing.TB) (*mjcf.Model, *articulated.Data) {
	return artScene(t, tinyXML)
}

// artScene compiles an MJCF scene and returns it with its data at the
// initial pose (kinematics current).
func artScene(t testing.TB, xml string) (*mjcf.Model, *articulated.Data) {
	t.Helper()
	a, err := mjcf.Parse([]byte(xml), "", mjcf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := articulated.NewData(a.Model)
	articulated.Reset(a.Model, d)
	articulated.Kinematics(a.Model, d)
	return a, d
}

func TestFromModel(t *testing.T) {
	a, d := tinySim(t)
	sc := FromModel(a, d, nil)
	if len(sc.Objects) != len(a.Geoms) {
		t.Fatalf("%d objects for %d geoms", len(sc.Objects), len(a.Geoms))
	}
	roles := map[string]Role{"table": RoleStatic, "cube": RoleObject, "goal": RoleGoal, "palm": RoleGripper}
	for _, o := range sc.Objects {
		if roles[o.Name] != o.Role {
			t.Errorf("%s: role %d, want %d", o.Name, o.Role, roles[o.Name])
		}
	}
	ci := sc.Find("cube")
	if sc.Objects[ci].Mat.Color != [3]float32{0.1, 0.3, 0.9} || sc.Objects[ci].ID != 2 {
		t.Errorf("cube object %+v", sc.Objects[ci])
	}
	if sc.Objects[sc.Find("table")].Mat.Texture != TexWood {
		t.Error("table is not wooden by default")
	}
	// Move the cube in the data: the scene follows.
	q := sim.QuatFromAxisAngle(sim.V3(0, 0, 1), 0.3)
	copy(d.Qpos[0:7], []float64{0.1, 0.2, 0.025, q.W, q.X, q.Y, q.Z})
	articulated.Kinematics(a.Model, d)
	sc.UpdateFromModel(a, d, &Style{Theme: ThemeMisleading})
	if !sc.Objects[ci].Pos.ApproxEqual(mgl64.Vec3{0.1, 0.2, 0.025}) {
		t.Errorf("cube at %v after moving it", sc.Objects[ci].Pos)
	}
	if sc.Objects[ci].Mat.Color == [3]float32{0.1, 0.3, 0.9} {
		t.Error("misleading style kept the cube colour")
	}
	if n := testing.AllocsPerRun(20, func() { sc.UpdateFromModel(a, d, nil) }); n > 0 {
		t.Errorf("UpdateFromModel allocates %.0f times per call", n)
	}
}

func TestSimCamera(t *testing.T) {
	m, s := tinySim(t)
	r := mustSoft(t, Options{})
	cam, err := NamedCamera("topview", mgl64.Vec3{0, 0, 0}, 64, 64)
	if err != nil {
		t.Fatal(err)
	}
	var src frame.Source
	sc, err := NewSimCamera(r, m, s, cam, SimCameraOptions{Depth: true})
	if err != nil {
		t.Fatal(err)
	}
	src = sc
	var f frame.Frame
	for i := 0; i < 3; i++ {
		s.Time = 0.5 * float64(i)
		if err := src.Next(context.Background(), &f); err != nil {
			t.Fatal(err)
		}
		if f.Seq != uint64(i) || f.Camera != "topview" || f.Image.Rect.Dx() != 64 || len(f.Depth) != 64*64 {
			t.Fatalf("frame %d: seq %d camera %q size %v depth %d", i, f.Seq, f.Camera, f.Image.Rect, len(f.Depth))
		}
		if got := f.Time.Sub(f.Time.Truncate(0)); got != 0 || f.Time.UnixMilli() != int64(500*i) {
			t.Fatalf("frame %d time %v", i, f.Time)
		}
	}
	// topview looks straight down from 1.5 m above (0, −0.1): the centre
	// pixel sees the palm's top face at z = 0.21 m, 1.29 m away.
	if d := f.Depth[32*64+32]; math.Abs(float64(d)-1.29) > 1e-3 {
		t.Errorf("centre depth %.4f, want 1.29 (palm top)", d)
	}
	// A body-attached camera follows the hand; unknown bodies are errors.
	bg, _ := NamedCamera("behindGripper", mgl64.Vec3{}, 32, 32)
	if _, err := NewSimCamera(r, m, s, bg, SimCameraOptions{}); err != nil {
		t.Errorf("behindGripper on hand: %v", err)
	}
	bg.Body = "nohand"
	if _, err := NewSimCamera(r, m, s, bg, SimCameraOptions{}); err == nil {
		t.Error("camera on a missing body accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := src.Next(ctx, &f); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled Next: %v", err)
	}
	if err := src.Close(); err != nil {
		t.Fatal(err)
	}
	if err := src.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	if err := src.Next(context.Background(), &f); !errors.Is(err, frame.ErrClosed) {
		t.Errorf("Next after Close: %v", err)
	}
}

func TestSin32(t *testing.T) {
	for x := -2000.0; x < 2000; x += 0.0137 {
		if d := math.Abs(float64(sin32(float32(x))) - math.Sin(float64(float32(x)))); d > 2e-6 {
			t.Fatalf("sin32(%g) off by %g", x, d)
		}
	}
}

// A tiled camera draws each view into its own tile: the left half of a
// 2-view 64×32 frame is the first view drawn alone at 32×32, the right
// half the second, and depth lands in the same places.
func TestTiledSimCamera(t *testing.T) {
	m, s := tinySim(t)
	r := mustSoft(t, Options{})
	top, _ := NamedCamera("topview", mgl64.Vec3{}, 32, 32)
	corner, _ := NamedCamera("corner", mgl64.Vec3{}, 32, 32)
	tiled, err := NewTiledSimCamera(r, m, s, []Camera{top, corner}, 64, 32, SimCameraOptions{})
	if err != nil {
		t.Fatal(err)
	}
	frameImg := image.NewRGBA(image.Rect(0, 0, 64, 32))
	depth := make([]float32, 64*32)
	if err := tiled.RenderBuffers(m, s, Buffers{RGB: frameImg, Depth: depth}); err != nil {
		t.Fatal(err)
	}
	for k, cam := range []Camera{top, corner} {
		one, err := NewSimCamera(r, m, s, cam, SimCameraOptions{})
		if err != nil {
			t.Fatal(err)
		}
		img := image.NewRGBA(image.Rect(0, 0, 32, 32))
		d := make([]float32, 32*32)
		if err := one.RenderBuffers(m, s, Buffers{RGB: img, Depth: d}); err != nil {
			t.Fatal(err)
		}
		for y := range 32 {
			for x := range 32 {
				if a, b := frameImg.RGBAAt(32*k+x, y), img.RGBAAt(x, y); a != b {
					t.Fatalf("view %d pixel (%d,%d): tiled %v, alone %v", k, x, y, a, b)
				}
				if a, b := depth[y*64+32*k+x], d[y*32+x]; a != b {
					t.Fatalf("view %d depth (%d,%d): tiled %g, alone %g", k, x, y, a, b)
				}
			}
		}
	}
	if w, h := tiled.Size(); w != 64 || h != 32 {
		t.Errorf("size %dx%d", w, h)
	}
	if _, err := NewTiledSimCamera(r, m, s, []Camera{top, corner}, 1, 32, SimCameraOptions{}); err == nil {
		t.Error("two views in a 1 px wide frame accepted")
	}
}
