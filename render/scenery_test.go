package render

import (
	"fmt"
	"image"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

// sceneryModel is a minimal tabletop: a 1.4×0.8 m table plane at z = 0
// centred at (0, 0.6), a hand body (palm box, 2 cm tall, and a wrist
// cylinder up to 9 cm above its origin) at hand, and a goal marker sphere of
// 1 cm radius at goal.
func sceneryModel(t *testing.T, hand, goal sim.Vec3) (*mjcf.Model, *articulated.Data) {
	t.Helper()
	return artScene(t, fmt.Sprintf(`<mujoco>
  <worldbody>
    <geom name="table" type="plane" size="0.7 0.4 0.05" pos="0 0.6 0"/>
    <body name="hand" mocap="true" pos="%g %g %g">
      <geom name="gripper palm" type="box" size="0.02 0.065 0.01"/>
      <geom name="gripper wrist" type="cylinder" size="0.018 0.04" pos="0 0 0.05" contype="0" conaffinity="0"/>
    </body>
    <body name="green goal" mocap="true" pos="%g %g %g">
      <geom name="green goal" type="sphere" size="0.01" contype="0" conaffinity="0" rgba="0.2 0.8 0.3 1"/>
    </body>
  </worldbody>
</mujoco>`, hand.X, hand.Y, hand.Z, goal.X, goal.Y, goal.Z))
}

func TestElbowIKKeepsLinkLengths(t *testing.T) {
	t.Parallel()
	const tol = 1e-9
	s := mgl64.Vec3{0, 0.07, 0.26}
	for _, w := range []mgl64.Vec3{{0, 0.6, 0.41}, {0.3, 0.5, 0.2}, {-0.4, 0.9, 0.6}, {0.1, 0.3, 0.1}} {
		e, n := elbowIK(s, w, armUpper, armFore)
		if d := e.Sub(s).Len(); math.Abs(d-armUpper) > tol {
			t.Errorf("wrist %v: upper link %.6f m, want %.6f", w, d, armUpper)
		}
		if d := w.Sub(e).Len(); math.Abs(d-armFore) > tol {
			t.Errorf("wrist %v: forearm %.6f m, want %.6f", w, d, armFore)
		}
		// elbow up: above the shoulder–wrist segment at the elbow's position along it
		u := w.Sub(s).Normalize()
		foot := s.Add(u.Mul(e.Sub(s).Dot(u)))
		if e[2] <= foot[2] {
			t.Errorf("wrist %v: elbow %v is not above the shoulder–wrist line (%v)", w, e, foot)
		}
		// the hinge is perpendicular to both links
		if math.Abs(n.Dot(e.Sub(s).Normalize())) > 1e-9 || math.Abs(n.Dot(w.Sub(e).Normalize())) > 1e-9 {
			t.Errorf("wrist %v: hinge %v not perpendicular to the links", w, n)
		}
	}
	// out of reach: the chain points straight at the wrist
	w := s.Add(mgl64.Vec3{0, 2, 0})
	e, _ := elbowIK(s, w, armUpper, armFore)
	if d := e.Sub(s).Normalize().Sub(w.Sub(s).Normalize()).Len(); d > 0.01 {
		t.Errorf("unreachable wrist: elbow direction off by %.4f", d)
	}
}

func TestSceneryArmReachesTheHand(t *testing.T) {
	t.Parallel()
	for _, hand := range []sim.Vec3{sim.V3(0, 0.6, 0.2), sim.V3(0.3, 0.85, 0.1), sim.V3(-0.4, 0.45, 0.4)} {
		m, s := sceneryModel(t, hand, sim.V3(0.1, 0.8, 0.2))
		sc := FromModel(m, s, &Style{Scenery: true})
		link := sc.Find("arm wrist link")
		if link < 0 {
			t.Fatalf("hand %v: no arm in the scene", hand)
		}
		o := sc.Objects[link]
		// the wrist link runs down to the flange, the wrist cylinder's top 9 cm above the hand
		end := o.Pos.Add(o.Rot.Rotate(mgl64.Vec3{0, 0, o.Size[1]}))
		want := mgl64.Vec3{hand.X, hand.Y, hand.Z + 0.09}
		if d := end.Sub(want).Len(); d > 1e-6 {
			t.Errorf("hand %v: arm ends at %v, want the flange %v", hand, end, want)
		}
		for _, o := range sc.Objects {
			if o.ID == SegArm && (o.Role != RoleRobot || !o.NoShadow) {
				t.Errorf("arm part %q: role %v, NoShadow %v; want RoleRobot, no shadow", o.Name, o.Role, o.NoShadow)
			}
		}
	}
}

func TestSceneryRoom(t *testing.T) {
	t.Parallel()
	m, s := sceneryModel(t, sim.V3(0, 0.6, 0.2), sim.V3(0.1, 0.8, 0.2))
	bare := FromModel(m, s, nil)
	sc := FromModel(m, s, &Style{Scenery: true})
	if len(sc.Objects) <= len(bare.Objects) {
		t.Fatalf("scenery added nothing (%d objects)", len(sc.Objects))
	}
	floor := sc.Objects[sc.Find("floor")]
	if floor.Pos[2] != -SceneryFloorDepth || floor.ID != SegFloor {
		t.Errorf("floor at z %.3f id %d, want %.3f and %d", floor.Pos[2], floor.ID, -SceneryFloorDepth, SegFloor)
	}
	// legs stand on the floor, inside the table's corners
	for _, n := range []string{"table leg 1", "table leg 2", "table leg 3", "table leg 4"} {
		i := sc.Find(n)
		if i < 0 {
			t.Fatalf("no %s", n)
		}
		l := sc.Objects[i]
		if d := l.Pos[2] - l.Size[2] - floor.Pos[2]; math.Abs(d) > 1e-9 {
			t.Errorf("%s: bottom %.4f m above the floor", n, d)
		}
		if math.Abs(l.Pos[0]) > 0.7 || l.Pos[1] < 0.2 || l.Pos[1] > 1.0 {
			t.Errorf("%s at %v is outside the table", n, l.Pos)
		}
	}
	// the backdrop faces the robot (−y) beyond the table's far edge
	w := sc.Objects[sc.Find("backdrop")]
	if n := w.Rot.Rotate(mgl64.Vec3{0, 0, 1}); n.Sub(mgl64.Vec3{0, -1, 0}).Len() > 1e-9 || w.Pos[1] <= 1.0 {
		t.Errorf("backdrop normal %v at y %.2f; want (0,-1,0) beyond y 1.0", n, w.Pos[1])
	}
	// a goal in the air gets a pad on the table and a pole, with its id
	goal := sc.Objects[sc.Find("green goal")]
	pad := sc.Objects[sc.Find("green goal pad")]
	if pad.Mat.Color == goal.Mat.Color || pad.Mat.Color[1] < goal.Mat.Color[1] {
		t.Errorf("goal pad colour %v is not a paler shade of the goal's %v", pad.Mat.Color, goal.Mat.Color)
	}
	if pad.ID != goal.ID || pad.Role != RoleGoal || pad.Pos[0] != goal.Pos[0] || pad.Pos[1] != goal.Pos[1] || pad.Pos[2] > 0.01 {
		t.Errorf("goal pad %+v does not sit on the table under goal %+v", pad, goal)
	}
	if pad.Size[0] < goalPadRadius {
		t.Errorf("goal pad radius %.3f < %.3f", pad.Size[0], goalPadRadius)
	}
	if sc.Find("green goal pole") < 0 {
		t.Error("no pole up to the goal")
	}
	// no table: no scenery
	m2, d2 := artScene(t, `<mujoco><worldbody><body name="hand" mocap="true"/></worldbody></mujoco>`)
	if sc := FromModel(m2, d2, &Style{Scenery: true}); len(sc.Objects) != 0 {
		t.Errorf("scenery without a table: %d objects", len(sc.Objects))
	}
}

// TestSceneryThemes: misleading leaves the arm's colours alone (prompts do
// not name them); abstract repaints every surface, arm included.
func TestSceneryThemes(t *testing.T) {
	t.Parallel()
	m, s := sceneryModel(t, sim.V3(0, 0.6, 0.2), sim.V3(0.1, 0.8, 0.2))
	std := FromModel(m, s, &Style{Scenery: true})
	mis := FromModel(m, s, &Style{Scenery: true, Theme: ThemeMisleading})
	abs := FromModel(m, s, &Style{Scenery: true, Theme: ThemeAbstract})
	for i, o := range std.Objects {
		switch {
		case o.Role == RoleRobot && mis.Objects[i].Mat != o.Mat:
			t.Errorf("misleading changed arm part %q", o.Name)
		case o.Role == RoleGoal && mis.Objects[i].Mat.Color == o.Mat.Color:
			t.Errorf("misleading kept goal part %q's colour", o.Name)
		}
		if abs.Objects[i].Mat == o.Mat {
			t.Errorf("abstract kept %q's material", o.Name)
		}
	}
}

// TestSceneryShadowsIgnoreNoShadow: NoShadow objects stay out of the shadow
// casters, so the arm does not widen the shadow map.
func TestSceneryShadowsIgnoreNoShadow(t *testing.T) {
	t.Parallel()
	m, s := sceneryModel(t, sim.V3(0, 0.6, 0.2), sim.V3(0.1, 0.8, 0.2))
	sc := FromModel(m, s, &Style{Scenery: true})
	var b batch
	b.build(sc, meshCache{}, lodView{eye: mgl64.Vec3{0, -1, 1}})
	if b.casterHi[2] > 0.3 || b.casterLo[2] < -0.01 {
		t.Errorf("casters span z %.3f..%.3f m; the arm or legs were included", b.casterLo[2], b.casterHi[2])
	}
}

// TestSceneryBackendsAgree: both backends draw the scenery alike, with
// shadows and 4× anti-aliasing.
func TestSceneryBackendsAgree(t *testing.T) {
	m, s := sceneryModel(t, sim.V3(0.05, 0.62, 0.15), sim.V3(0.1, 0.8, 0.2))
	sc := FromModel(m, s, &Style{Scenery: true})
	cam := LookAt(mgl64.Vec3{-1.1, -0.4, 0.6}, mgl64.Vec3{0, 0.6, -0.1}, mgl64.Vec3{0, 0, 1}, 50, 128, 128)
	opts := Options{Shadows: true, MSAA: 4}
	seg := make([]int32, 128*128)
	if err := mustSoft(t, Options{}).RenderBuffers(sc, cam, Buffers{Seg: seg}); err != nil {
		t.Fatal(err)
	}
	counts := map[int32]int{}
	for _, v := range seg {
		counts[v]++
	}
	for _, id := range []int32{SegArm, SegFloor, SegTable, SegBackdrop} {
		if counts[id] == 0 {
			t.Errorf("segment %d not visible", id)
		}
	}
	// the floor's distant checker squares alias differently under GL
	// multisampling and soft 2×2 supersampling, so the MSAA bar is lower
	for _, c := range []struct {
		opts Options
		want float64
	}{{Options{Shadows: true}, 0.99}, {opts, 0.95}} {
		want := render(t, mustSoft(t, c.opts), sc, cam)
		got := render(t, openEGL(t, c.opts), sc, cam)
		frac, worst := within(got, want, 8)
		t.Logf("scenery egl vs soft (msaa %d): %.4f within 8/255, worst %d", c.opts.MSAA, frac, worst)
		if frac < c.want {
			_ = WritePNG(t.TempDir()+"/egl.png", got)
			t.Errorf("scenery egl vs soft (msaa %d): %.4f of pixels within 8/255, want ≥ %.2f", c.opts.MSAA, frac, c.want)
		}
	}
}

// TestDrawOrderFrontToBack: the colour pass draws every non-plane object
// before any plane, and the planes nearest the eye first (the table top
// before the floor and the backdrop from the scorer's side of the table),
// each object exactly once.
func TestDrawOrderFrontToBack(t *testing.T) {
	t.Parallel()
	m, s := sceneryModel(t, sim.V3(0.05, 0.62, 0.15), sim.V3(0.1, 0.8, 0.2))
	sc := FromModel(m, s, &Style{Scenery: true})
	eye := mgl64.Vec3{-0.65, 0.2, 0.6}
	var b batch
	b.build(sc, meshCache{}, lodView{eye: eye})
	// object of each drawn triangle, in drawing order
	var seq []int
	for _, d := range b.draws {
		for i := d.start; i < d.start+d.count; i += 3 {
			oi := int(b.verts[int(b.idx[i])*vertexStride+8])
			if len(seq) == 0 || seq[len(seq)-1] != oi {
				seq = append(seq, oi)
			}
			if k := b.objKind[oi]; k != d.kind || b.objRecv[oi] != d.shadow {
				t.Fatalf("object %s (kind %d, shadow %v) in a range of kind %d, shadow %v", sc.Objects[oi].Name, k, b.objRecv[oi], d.kind, d.shadow)
			}
		}
	}
	seen := map[int]bool{}
	lastDist, inPlanes := -1.0, false
	for _, oi := range seq {
		if seen[oi] {
			t.Fatalf("object %s drawn in two places", sc.Objects[oi].Name)
		}
		seen[oi] = true
		o := &sc.Objects[oi]
		if o.Kind != Plane {
			if inPlanes {
				t.Fatalf("%s drawn after a plane", o.Name)
			}
			continue
		}
		inPlanes = true
		if d := planeDist(o, eye); d < lastDist {
			t.Errorf("plane %s (%.3f m from the eye) after one %.3f m away", o.Name, d, lastDist)
		} else {
			lastDist = d
		}
	}
	if len(seen) != len(sc.Objects) {
		t.Errorf("%d of %d objects drawn", len(seen), len(sc.Objects))
	}
	at := func(name string) int {
		for i, oi := range seq {
			if sc.Objects[oi].Name == name {
				return i
			}
		}
		t.Fatalf("%s not drawn", name)
		return -1
	}
	if at("table") > at("floor") || at("table") > at("backdrop") {
		t.Error("the table top is not drawn before the floor and the backdrop")
	}
}

// TestFloorHoleHidden: the part of the floor holedPlane leaves out is
// hidden by the table top from the eye. Its corners, seen from the eye,
// fall on the table top inside its edges (a central projection between
// parallel planes maps the hole's rectangle onto a rectangle, so its
// corners decide), and the hole keeps off the floor's outline.
func TestFloorHoleHidden(t *testing.T) {
	t.Parallel()
	m, s := sceneryModel(t, sim.V3(0.05, 0.62, 0.15), sim.V3(0.1, 0.8, 0.2))
	sc := FromModel(m, s, &Style{Scenery: true})
	var floor *Object
	for i := range sc.Objects {
		if sc.Objects[i].Name == "floor" {
			floor = &sc.Objects[i]
		}
	}
	if floor == nil || !floor.cover.ok {
		t.Fatal("the scenery floor has no table top over it")
	}
	c := floor.cover
	cut := 0
	for _, eye := range []mgl64.Vec3{{-0.65, 0.2, 0.6}, {0, -0.5, 1.2}, {1.5, 0.6, 0.3}, {0.1, 0.6, 2}, {-2, -2, 0.05}, {0, 3, 0.8}} {
		var me mesh
		if !holedPlane(&me, floor, eye) {
			continue
		}
		cut++
		if len(me.pos) != 8 || len(me.idx) != 24 {
			t.Fatalf("eye %v: holed floor has %d vertices, %d indices; want 8 and 24", eye, len(me.pos), len(me.idx))
		}
		for _, p := range me.pos[4:] {
			w := mgl64.Vec3{float64(p[0]), float64(p[1]), float64(p[2])}.Add(floor.Pos)
			// where the ray from eye to w crosses the table top's plane
			f := (eye[2] - c.z) / (eye[2] - w[2])
			x, y := eye[0]+f*(w[0]-eye[0]), eye[1]+f*(w[1]-eye[1])
			if x <= c.x0 || x >= c.x1 || y <= c.y0 || y >= c.y1 {
				t.Errorf("eye %v: hole corner %v is seen past the table top (%.3f, %.3f)", eye, w, x, y)
			}
			if math.Abs(float64(p[0])) >= floor.Size[0] || math.Abs(float64(p[1])) >= floor.Size[1] {
				t.Errorf("eye %v: hole corner %v reaches the floor's edge", eye, p)
			}
		}
	}
	if cut < 4 {
		t.Fatalf("only %d of 6 eyes got a hole", cut)
	}
	var me mesh
	if holedPlane(&me, floor, mgl64.Vec3{0, 0.6, c.z - 0.1}) {
		t.Error("an eye below the table top got a hole in the floor")
	}
}

// TestFloorHoleInvisible: the images and the segmentation with the hole
// cut equal those of the whole floor, in both backends, from views that
// look over the table, under it and past it.
func TestFloorHoleInvisible(t *testing.T) {
	m, s := sceneryModel(t, sim.V3(0.05, 0.62, 0.15), sim.V3(0.1, 0.8, 0.2))
	holed := FromModel(m, s, &Style{Scenery: true})
	whole := FromModel(m, s, &Style{Scenery: true})
	for i := range whole.Objects {
		whole.Objects[i].cover.ok = false
	}
	const n = 128
	for _, cam := range []Camera{
		LookAt(mgl64.Vec3{-0.65, 0.2, 0.6}, mgl64.Vec3{0, 0.6, 0}, mgl64.Vec3{0, 0, 1}, 50, n, n),
		LookAt(mgl64.Vec3{0, -0.8, 0.9}, mgl64.Vec3{0, 0.6, -0.3}, mgl64.Vec3{0, 0, 1}, 60, n, n),
		LookAt(mgl64.Vec3{1.6, 0.4, 0.25}, mgl64.Vec3{0, 0.7, -0.2}, mgl64.Vec3{0, 0, 1}, 45, n, n),
		LookAt(mgl64.Vec3{0.2, 0.6, 1.8}, mgl64.Vec3{0, 0.6, 0}, mgl64.Vec3{0, 1, 0}, 70, n, n),
	} {
		for _, be := range []string{"soft", "egl"} {
			opts := Options{Shadows: true, MSAA: 4}
			var r Renderer
			if be == "soft" {
				r = mustSoft(t, opts)
			} else {
				r = openEGL(t, opts)
			}
			segA, segB := make([]int32, n*n), make([]int32, n*n)
			a := image.NewRGBA(image.Rect(0, 0, n, n))
			b := image.NewRGBA(image.Rect(0, 0, n, n))
			if err := r.RenderBuffers(holed, cam, Buffers{RGB: a, Seg: segA}); err != nil {
				t.Fatal(err)
			}
			if err := r.RenderBuffers(whole, cam, Buffers{RGB: b, Seg: segB}); err != nil {
				t.Fatal(err)
			}
			for i := range segA {
				if segA[i] != segB[i] {
					t.Fatalf("%s, eye %v: pixel %d shows segment %d with the hole, %d without", be, cam.Pos, i, segA[i], segB[i])
				}
			}
			// The floor's per-vertex (Gouraud) lighting is interpolated
			// from other vertices where it is cut, so shades move by a few
			// levels (up to 6/255 from the top-down view; there the cut
			// floor is nearer to per-pixel lighting: mean error 1.2/255
			// against 3.6/255 for the whole quad). Holes would show the
			// background: far more than 8/255. A few pixels (5 of 16,384
			// here) where a leg stands on the floor resolve their
			// near-equal depths the other way (the floor's depth is
			// interpolated over other triangles too).
			if frac, worst := within(a, b, 8); frac < 0.999 {
				t.Errorf("%s, eye %v: %.4f of pixels within 8/255 of the whole floor's image (worst %d)", be, cam.Pos, frac, worst)
			}
		}
	}
}
