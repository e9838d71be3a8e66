package mjcf_test

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

func parse(t *testing.T, xml string) *mjcf.Model {
	t.Helper()
	a, err := mjcf.Parse([]byte(xml), "", mjcf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func near(a, b sim.Vec3, tol float64) bool { return a.Sub(b).Norm() <= tol }

func vec(v [3]float64) sim.Vec3  { return sim.V3(v[0], v[1], v[2]) }
func quat(q [4]float64) sim.Quat { return sim.Quat{W: q[0], X: q[1], Y: q[2], Z: q[3]} }

// joint returns the index of the joint named name in a's model.
func joint(t *testing.T, a *mjcf.Model, name string) int {
	t.Helper()
	for j := range a.Model.Joints {
		if a.Model.Joints[j].Name == name {
			return j
		}
	}
	t.Fatalf("no joint %q", name)
	return -1
}

// TestErrorsNameElementAttributeLine: input the importer cannot compile
// is refused with the element, the attribute and the line.
func TestErrorsNameElementAttributeLine(t *testing.T) {
	for _, tc := range []struct{ xml, want string }{
		{"<mujoco>\n<worldbody>\n  <geom size=\"1\" bogus=\"2\"/></worldbody></mujoco>", `<geom> at line 3: attribute "bogus"`},
		{"<mujoco>\n<tendon>\n<fixed name=\"t\"/></tendon></mujoco>", "<fixed> at line 3: a fixed tendon needs at least one <joint>"},
		{"<mujoco>\n<worldbody>\n<composite type=\"cloth\"/></worldbody></mujoco>", "<composite> at line 3 is not supported"},
		{"<mujoco><worldbody>\n\n<body><joint frictionloss=\"-1\"/><geom size=\"1\"/></body></worldbody></mujoco>", `line 3: attribute "frictionloss"`},
		{"<mujoco><worldbody><geom size=\"1\" class=\"nope\"/></worldbody></mujoco>", `attribute "class" "nope" is not a defined default class`},
		{"<mujoco><worldbody><body><joint/></body></worldbody></mujoco>", "has no mass"},
		{"<mujoco><actuator><motor joint=\"x\"/></actuator></mujoco>", `"x" must name a hinge or slide joint`},
		{"<mujoco><worldbody><geom size=\"abc\"/></worldbody></mujoco>", `"abc" is not a finite number`},
		{"<notmujoco/>", "root element must be <mujoco>"},
	} {
		_, err := mjcf.Parse([]byte(tc.xml), "", mjcf.Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want it to contain %q", tc.xml, err, tc.want)
		}
	}
}

// TestWarnings: harmless drops are listed, not refused.
func TestWarnings(t *testing.T) {
	m := parse(t, `<mujoco><visual><quality shadowsize="1"/></visual>
<worldbody><light pos="0 0 1"/><geom type="plane" size="1 1 .1"/></worldbody></mujoco>`)
	var visual, light bool
	for _, w := range m.Warnings {
		visual = visual || strings.Contains(w, "<visual>")
		light = light || strings.Contains(w, "<light>")
	}
	if !visual || !light {
		t.Errorf("warnings %q: want <visual> and <light> listed", m.Warnings)
	}
}

// TestOrientations: each MJCF orientation form gives the rotation it
// describes (checked on where it sends the x and z axes).
func TestOrientations(t *testing.T) {
	for _, tc := range []struct {
		compiler, attr string
		x, z           sim.Vec3 // images of the x and z axes
	}{
		{``, `quat="0.7071068 0 0 0.7071068"`, sim.V3(0, 1, 0), sim.V3(0, 0, 1)},
		{``, `axisangle="0 0 1 90"`, sim.V3(0, 1, 0), sim.V3(0, 0, 1)},
		{`<compiler angle="radian"/>`, `axisangle="1 0 0 1.5707963267948966"`, sim.V3(1, 0, 0), sim.V3(0, -1, 0)},
		{``, `euler="90 0 0"`, sim.V3(1, 0, 0), sim.V3(0, -1, 0)},
		// intrinsic xyz: rotate about x by 90, then about the new y by 90
		{``, `euler="90 90 0"`, sim.V3(0, 1, 0), sim.V3(1, 0, 0)},
		// extrinsic XYZ: about fixed X by 90, then fixed Y by 90
		{`<compiler eulerseq="XYZ"/>`, `euler="90 90 0"`, sim.V3(0, 0, -1), sim.V3(0, -1, 0)},
		{``, `xyaxes="0 1 0 -1 0 0"`, sim.V3(0, 1, 0), sim.V3(0, 0, 1)},
		{``, `zaxis="1 0 0"`, sim.V3(0, 0, -1), sim.V3(1, 0, 0)},
	} {
		m := parse(t, `<mujoco>`+tc.compiler+`<worldbody><body name="b" `+tc.attr+`><geom size=".1"/></body></worldbody></mujoco>`)
		r := quat(m.Model.Bodies[1].Quat)
		if x, z := r.Rotate(sim.V3(1, 0, 0)), r.Rotate(sim.V3(0, 0, 1)); !near(x, tc.x, 1e-7) || !near(z, tc.z, 1e-7) {
			t.Errorf("%s %s: x→%v z→%v, want %v %v", tc.compiler, tc.attr, x, z, tc.x, tc.z)
		}
	}
}

// TestDefaultsAndChildclass: nested classes inherit and override;
// childclass applies to descendants; class beats childclass.
func TestDefaultsAndChildclass(t *testing.T) {
	m := parse(t, `<mujoco><default><joint damping="1"/>
  <default class="a"><joint damping="2" stiffness="3"/><default class="b"><joint damping="4"/></default></default></default>
<worldbody><body childclass="a"><joint name="j1"/><geom size=".1"/>
  <body><joint name="j2" class="b"/><geom size=".1"/>
    <body><joint name="j3" damping="7"/><geom size=".1"/></body></body></body>
  <body><joint name="j4"/><geom size=".1"/></body></worldbody></mujoco>`)
	want := map[string][2]float64{"j1": {2, 3}, "j2": {4, 3}, "j3": {7, 3}, "j4": {1, 0}}
	for name, w := range want {
		jd := m.Model.Joints[joint(t, m, name)]
		if jd.Damping != w[0] || jd.Stiffness != w[1] {
			t.Errorf("%s: damping %g stiffness %g, want %v", name, jd.Damping, jd.Stiffness, w)
		}
	}
}

// TestInertiaFromGeoms: a box body's mass is density × volume and its
// inertia m(b²+c²)/3 (half extents); two spheres combine by the
// parallel-axis theorem; <inertial> wins when given.
func TestInertiaFromGeoms(t *testing.T) {
	m := parse(t, `<mujoco><worldbody>
<body name="box"><joint/><geom type="box" size=".1 .2 .3" density="500"/></body>
<body name="pair"><joint/><geom size=".1" pos="0 0 .5" mass="2"/><geom size=".1" pos="0 0 -.5" mass="2"/></body>
<body name="given"><joint/><inertial pos="0 0 0.1" mass="3" diaginertia="1 2 3"/><geom size=".1"/></body>
</worldbody></mujoco>`)
	b := m.Model.Bodies[1]
	mass := 500 * 8 * 0.1 * 0.2 * 0.3
	if math.Abs(b.Mass-mass) > 1e-12 {
		t.Errorf("box mass %g, want %g", b.Mass, mass)
	}
	ix, iy, iz := mass*(0.04+0.09)/3, mass*(0.01+0.09)/3, mass*(0.01+0.04)/3
	for i, w := range []float64{ix, iy, iz} {
		if math.Abs(b.Inertia[i]-w) > 1e-12 {
			t.Errorf("box principal inertia %v, want %g %g %g", b.Inertia, ix, iy, iz)
		}
	}
	p := m.Model.Bodies[2]
	is := 0.4 * 2 * 0.01
	// principal moments: the two equal ones about x and y, 2·is about z, in the order the compiler gives
	got := []float64{p.Inertia[0], p.Inertia[1], p.Inertia[2]}
	big, small := 2*is+2*2*0.25, 2*is
	nBig, nSmall := 0, 0
	for _, x := range got {
		if math.Abs(x-big) <= 1e-12 {
			nBig++
		}
		if math.Abs(x-small) <= 1e-12 {
			nSmall++
		}
	}
	if nBig != 2 || nSmall != 1 {
		t.Errorf("sphere pair inertia %v, want %g twice (about x and y) and %g (about z)", p.Inertia, big, small)
	}
	g := m.Model.Bodies[3]
	if g.Mass != 3 || g.Inertia != [3]float64{1, 2, 3} || g.IPos != [3]float64{0, 0, 0.1} {
		t.Errorf("inertial: %+v", g)
	}
}

// TestPendulum: an imported hinge pendulum, released 5° from hanging,
// swings with the small-angle period 2π√(I/(m g l)) of its compiled
// inertia about the hinge (with the finite-amplitude correction θ₀²/16).
func TestPendulum(t *testing.T) {
	a := parse(t, `<mujoco><option timestep="0.001"/><worldbody>
<body pos="0 0 1" euler="0 5 0"><joint name="hinge" axis="0 1 0"/>
<geom type="sphere" size="0.02" pos="0 0 -0.5" mass="1" contype="0" conaffinity="0"/></body></worldbody></mujoco>`)
	m := a.Model
	d := articulated.NewData(m)
	articulated.Reset(m, d)
	var cross []float64
	prev := 0.0
	for i := 0; i < 5000; i++ {
		articulated.Step(m, d)
		v := d.Qvel[0]
		if i > 0 && (v > 0) != (prev > 0) {
			cross = append(cross, d.Time)
		}
		prev = v
	}
	if len(cross) < 5 {
		t.Fatalf("only %d velocity reversals", len(cross))
	}
	period := 2 * (cross[4] - cross[0]) / 4
	inertia := 0.4*1*0.02*0.02 + 1*0.25
	want := 2 * math.Pi * math.Sqrt(inertia/(9.81*0.5)) * (1 + (5*math.Pi/180)*(5*math.Pi/180)/16)
	if math.Abs(period-want) > 0.005*want {
		t.Errorf("period %.4f s, want %.4f s", period, want)
	}
}

// TestInclude: <include> splices another file's children.
func TestInclude(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "body.xml"), `<mujoco><worldbody><body name="inc"><freejoint/><geom size=".1"/></body></worldbody></mujoco>`)
	write(t, filepath.Join(dir, "main.xml"), `<mujoco><include file="body.xml"/><worldbody><geom type="plane" size="1 1 1"/></worldbody></mujoco>`)
	a, err := mjcf.Load(filepath.Join(dir, "main.xml"), mjcf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if b := a.Model.Bodies; len(b) != 2 || b[1].Name != "inc" {
		t.Errorf("bodies %+v", b)
	}
}

// TestMeshOBJ: a unit cube mesh's mass and inertia are those of a cube
// (m/6 about each axis for side 1, centre of mass at the cube's centre),
// and its 6 quad faces load as 12 triangles.
func TestMeshOBJ(t *testing.T) {
	dir := t.TempDir()
	obj := "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n" +
		"f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n"
	write(t, filepath.Join(dir, "cube.obj"), obj)
	write(t, filepath.Join(dir, "m.xml"), `<mujoco><asset><mesh file="cube.obj" scale="0.1 0.1 0.1"/></asset>
<worldbody><body><freejoint/><geom type="mesh" mesh="cube" density="1000"/></body></worldbody></mujoco>`)
	a, err := mjcf.Load(filepath.Join(dir, "m.xml"), mjcf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := a.Model.Bodies[1]
	if math.Abs(b.Mass-1) > 1e-9 || math.Abs(b.Inertia[0]-1.0/6*0.01) > 1e-9 || !near(vec(b.IPos), sim.V3(0.05, 0.05, 0.05), 1e-12) {
		t.Errorf("cube mesh: mass %g inertia %v com %v, want 1 kg, %g, (0.05, 0.05, 0.05)", b.Mass, b.Inertia, b.IPos, 0.01/6)
	}
	if g := a.Geoms[0]; g.Mesh == nil || len(g.Mesh.Triangles) != 12 {
		t.Errorf("mesh geom %+v", g)
	}
}

// TestBounds: deep nesting, entities, DOCTYPE and huge input are refused
// with a clear error, without expanding anything.
func TestBounds(t *testing.T) {
	deep := strings.Repeat("<body>", mjcf.MaxDepth+5) + strings.Repeat("</body>", mjcf.MaxDepth+5)
	for _, tc := range []struct{ xml, want string }{
		{"<mujoco><worldbody>" + deep + "</worldbody></mujoco>", "nested deeper"},
		{`<!DOCTYPE m [<!ENTITY a "aaaaaaaaaa">]><mujoco model="&a;"/>`, "DOCTYPE"},
		{`<mujoco model="&a;"/>`, "entity"},
		{"<mujoco>" + strings.Repeat(" ", mjcf.MaxBytes) + "</mujoco>", "more than"},
	} {
		_, err := mjcf.Parse([]byte(tc.xml), "", mjcf.Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%.40q: error %v, want %q", tc.xml, err, tc.want)
		}
	}
}

// TestActuatorsExclude: an MJCF position servo holds a slide joint at its
// control against gravity (at target − m·g/kp), a general affine actuator
// with the same gains does the same, and contact/exclude lets a box fall
// through a body it overlaps while an identical box lands on its twin.
// (Welds and the other equalities are compared with MuJoCo 3.3.8 in
// TestArticulatedMatchesMuJoCo.)
func TestActuatorsExclude(t *testing.T) {
	a := parse(t, `<mujoco><option timestep="0.002"/><worldbody>
<body name="a" pos="0 0 1"><joint name="za" type="slide" axis="0 0 1" damping="20"/><geom size=".05" mass="1" contype="0" conaffinity="0"/></body>
<body name="b" pos="1 0 1"><joint name="zb" type="slide" axis="0 0 1" damping="20"/><geom size=".05" mass="1" contype="0" conaffinity="0"/></body>
<body name="c" pos="3 0 1"><freejoint/><geom type="box" size=".1 .1 .1" mass="1"/></body>
<body name="d" pos="3 0 0.5"><geom type="box" size=".3 .3 .1"/></body>
<body name="e" pos="4 0 1"><freejoint/><geom type="box" size=".1 .1 .1" mass="1"/></body>
<body name="f" pos="4 0 0.5"><geom type="box" size=".3 .3 .1"/></body>
</worldbody>
<contact><exclude body1="c" body2="d"/></contact>
<actuator><position joint="za" kp="1000"/><general joint="zb" gainprm="1000" biasprm="0 -1000 0" biastype="affine"/></actuator></mujoco>`)
	m := a.Model
	d := articulated.NewData(m)
	articulated.Reset(m, d)
	d.Ctrl[0], d.Ctrl[1] = 0.1, 0.1
	for i := 0; i < 2000; i++ {
		articulated.Step(m, d)
	}
	// a slide's qpos is its displacement from the body's pose
	for j := 0; j < 2; j++ {
		want := 0.1 - 9.81/1000
		if q := d.Qpos[m.QposAdr(j)]; math.Abs(q-want) > 2e-3 {
			t.Errorf("joint %s at %.4f m, want %.4f (target − m g / kp)", m.Joints[j].Name, q, want)
		}
	}
	body := func(name string) sim.Vec3 {
		for i := range m.Bodies {
			if m.Bodies[i].Name == name {
				return vec(d.Xpos[i])
			}
		}
		t.Fatalf("no body %q", name)
		return sim.Vec3{}
	}
	// c falls through the static box d it is excluded from; e lands on f
	if p := body("c"); p.Z > 0 {
		t.Errorf("excluded box c at z %.3f: it should have fallen through d", p.Z)
	}
	if p := body("e"); math.Abs(p.Z-0.7) > 0.01 {
		t.Errorf("box e at z %.3f, want it resting on f at 0.7", p.Z)
	}
}

// TestSTL: a binary STL tetrahedron loads as a mesh with its volume.
func TestSTL(t *testing.T) {
	dir := t.TempDir()
	v := [4][3]float32{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	tris := [4][3]int{{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}}
	buf := make([]byte, 84+50*4)
	binary.LittleEndian.PutUint32(buf[80:], 4)
	for i, tr := range tris {
		rec := buf[84+50*i:]
		for k, vi := range tr {
			for d := 0; d < 3; d++ {
				binary.LittleEndian.PutUint32(rec[12+12*k+4*d:], math.Float32bits(v[vi][d]))
			}
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "tet.stl"), buf, 0o644); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "m.xml"), `<mujoco><asset><mesh name="tet" file="tet.stl"/></asset>
<worldbody><body><freejoint/><geom type="mesh" mesh="tet" density="600"/></body></worldbody></mujoco>`)
	a, err := mjcf.Load(filepath.Join(dir, "m.xml"), mjcf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := 600.0 / 6; math.Abs(a.Model.Bodies[1].Mass-want) > 1e-9 || len(a.Geoms[0].Mesh.Triangles) != 4 {
		t.Errorf("tetrahedron mass %g, want %g", a.Model.Bodies[1].Mass, want)
	}
}
