package mjcf_test

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

func parse(t *testing.T, xml string) *mjcf.Model {
	t.Helper()
	m, err := mjcf.Parse([]byte(xml), "", mjcf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func near(a, b sim.Vec3, tol float64) bool { return a.Sub(b).Norm() <= tol }

// TestErrorsNameElementAttributeLine: unsupported input is refused with
// the element, the attribute and the line.
func TestErrorsNameElementAttributeLine(t *testing.T) {
	for _, tc := range []struct{ xml, want string }{
		{"<mujoco>\n<worldbody>\n<body>\n<joint type=\"ball\"/>\n<geom size=\"1\"/></body></worldbody></mujoco>", "<joint> at line 4"},
		{"<mujoco>\n<worldbody>\n  <geom size=\"1\" bogus=\"2\"/></worldbody></mujoco>", `<geom> at line 3: attribute "bogus"`},
		{"<mujoco>\n<tendon>\n<fixed name=\"t\"/></tendon></mujoco>", "<tendon> at line 2"},
		{"<mujoco><worldbody>\n\n<body><joint frictionloss=\"1\"/><geom size=\"1\"/></body></worldbody></mujoco>", `line 3: attribute "frictionloss"`},
		{"<mujoco><worldbody><geom size=\"1\" class=\"nope\"/></worldbody></mujoco>", `attribute "class" "nope" is not a defined default class`},
		{"<mujoco><worldbody><body><joint/><geom type=\"ellipsoid\" size=\"1 2 3\"/></body></worldbody></mujoco>", "colliding ellipsoids"},
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
	m := parse(t, `<mujoco><visual><quality shadowsize="1"/></visual><keyframe><key time="1"/></keyframe>
<worldbody><light pos="0 0 1"/><geom type="plane" size="1 1 .1" solref=".02 1"/></worldbody></mujoco>`)
	if len(m.Warnings) < 3 {
		t.Errorf("warnings %q: want visual, key time, light and solref listed", m.Warnings)
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
		r := m.Bodies[1].Rot
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
		ji, ok := m.Joint(name)
		if !ok {
			t.Fatalf("no joint %s", name)
		}
		jd := m.Sim.Joints[m.Joints[ji].Sim]
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
	b := m.Bodies[1]
	mass := 500 * 8 * 0.1 * 0.2 * 0.3
	if math.Abs(b.Mass-mass) > 1e-12 {
		t.Errorf("box mass %g, want %g", b.Mass, mass)
	}
	ix, iy, iz := mass*(0.04+0.09)/3, mass*(0.01+0.09)/3, mass*(0.01+0.04)/3
	got := []float64{b.Inertia.X, b.Inertia.Y, b.Inertia.Z}
	for i, w := range []float64{ix, iy, iz} {
		if math.Abs(got[i]-w) > 1e-12 {
			t.Errorf("box principal inertia %v, want %g %g %g (descending)", got, ix, iy, iz)
		}
	}
	p := m.Bodies[2]
	is := 0.4 * 2 * 0.01
	if want := 2*is + 2*2*0.25; math.Abs(p.Inertia.X-want) > 1e-12 || math.Abs(p.Inertia.Z-2*is) > 1e-12 {
		t.Errorf("sphere pair inertia %v, want %g about x and y, %g about z", p.Inertia, want, 2*is)
	}
	g := m.Bodies[3]
	if g.Mass != 3 || g.Inertia != sim.V3(1, 2, 3) || g.IPos != sim.V3(0, 0, 0.1) {
		t.Errorf("inertial: %+v", g)
	}
}

// TestPendulum: an imported hinge pendulum, released 5° from hanging,
// swings with the small-angle period 2π√(I/(m g l)) of its compiled
// inertia about the hinge.
func TestPendulum(t *testing.T) {
	m := parse(t, `<mujoco><option timestep="0.001"/><worldbody>
<body pos="0 0 1" euler="0 5 0"><joint name="hinge" axis="0 1 0"/>
<geom type="sphere" size="0.02" pos="0 0 -0.5" mass="1"/></body></worldbody></mujoco>`)
	s := m.Sim.NewState()
	j := m.Joints[0].Sim
	var cross []float64
	prev := 0.0
	for i := 0; i < 5000; i++ {
		sim.Step(m.Sim, s)
		v := s.JointVel(m.Sim, j)
		if i > 0 && (v > 0) != (prev > 0) {
			cross = append(cross, s.Time)
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
	os.WriteFile(filepath.Join(dir, "body.xml"), []byte(`<mujoco><worldbody><body name="inc"><freejoint/><geom size=".1"/></body></worldbody></mujoco>`), 0o644)
	os.WriteFile(filepath.Join(dir, "main.xml"), []byte(`<mujoco><include file="body.xml"/><worldbody><geom type="plane" size="1 1 1"/></worldbody></mujoco>`), 0o644)
	m, err := mjcf.Load(filepath.Join(dir, "main.xml"), mjcf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Bodies) != 2 || m.Bodies[1].Name != "inc" {
		t.Errorf("bodies %+v", m.Bodies)
	}
}

// TestMeshOBJ: a unit cube mesh is visual-only, and its mass and inertia
// are those of a cube (m/6 about each axis for side 1).
func TestMeshOBJ(t *testing.T) {
	dir := t.TempDir()
	obj := "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n" +
		"f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n"
	os.WriteFile(filepath.Join(dir, "cube.obj"), []byte(obj), 0o644)
	os.WriteFile(filepath.Join(dir, "m.xml"), []byte(`<mujoco><asset><mesh file="cube.obj" scale="0.1 0.1 0.1"/></asset>
<worldbody><body><freejoint/><geom type="mesh" mesh="cube" density="1000"/></body></worldbody></mujoco>`), 0o644)
	m, err := mjcf.Load(filepath.Join(dir, "m.xml"), mjcf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := m.Bodies[1]
	if math.Abs(b.Mass-1) > 1e-9 || math.Abs(b.Inertia.X-1.0/6*0.01) > 1e-9 || !near(b.IPos, sim.V3(0.05, 0.05, 0.05), 1e-12) {
		t.Errorf("cube mesh: mass %g inertia %v com %v, want 1 kg, %g, (0.05, 0.05, 0.05)", b.Mass, b.Inertia, b.IPos, 0.01/6)
	}
	if g := m.Geoms[0]; g.Mesh == nil || g.Collides || len(g.Mesh.Triangles) != 12 {
		t.Errorf("mesh geom %+v", g)
	}
	if len(m.Warnings) == 0 {
		t.Error("want a warning that mesh collision was dropped")
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

// FuzzParse: no input panics the importer, and every accepted model builds
// a State that steps.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`<mujoco><worldbody><body><joint/><geom size=".1"/></body></worldbody></mujoco>`,
		`<mujoco><default><default class="a"><geom size="1"/></default></default><worldbody><body childclass="a"><freejoint/><geom/></body></worldbody></mujoco>`,
		`<mujoco><worldbody><body><joint type="slide" range="0 1" limited="true"/><geom type="capsule" fromto="0 0 0 0 0 1" size=".1"/></body></worldbody><actuator><position joint="j" kp="10"/></actuator></mujoco>`,
		`<mujoco><compiler angle="radian" eulerseq="ZYX"/><worldbody><body euler="1 2 3"><joint axis="1 1 0"/><geom type="box" size="1 2 3"/></body></worldbody></mujoco>`,
		`<mujoco><worldbody><body pos="0 0 1"><freejoint/><geom size=".1"/><body pos="0 0 -.2"><joint name="a" axis="1 0 0" armature=".01" range="-1 1"/><joint name="b" axis="0 1 1" pos="0 0 .05"/><joint axis="0 0 1"/><geom type="capsule" fromto="0 0 0 0 0 -.3" size=".05"/></body></body></worldbody><actuator><motor joint="b" gear="20"/></actuator></mujoco>`,
		`<mujoco><worldbody><body pos="0 0 1"><joint/><joint type="slide"/><geom size=".1"/></body><body><freejoint/><geom size=".1"/></body></worldbody><keyframe><key name="k" qpos="1 .1 0 0 1 1 0 0 0"/></keyframe></mujoco>`,
	} {
		f.Add([]byte(s))
	}
	if data, err := os.ReadFile(filepath.Join("testdata", "arm6.xml")); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := mjcf.Parse(data, "", mjcf.Options{})
		if err != nil {
			return
		}
		s := m.Sim.NewState()
		for k := range m.Keyframes {
			m.SetKeyframe(s, k)
		}
		for i := 0; i < 3; i++ {
			sim.Step(m.Sim, s)
		}
	})
}

// TestKinematics: forward kinematics at qpos0 reproduces the compiled
// body poses, and at the coordinates the simulated arm settles at it puts
// the end-effector site where the simulation has it, within what the soft
// joints of the maximal-coordinate engine stretch under the arm's weight:
// under 1 mm on 4 substeps of 0.5 ms, and, their stiffness being capped at
// a quarter of the substep rate (ω ∝ 1/h, static deflection ∝ 1/ω² ∝ h²),
// 3–5 times that on the import's default of 2 substeps of 1 ms.
func TestKinematics(t *testing.T) {
	m, err := mjcf.Load(filepath.Join("testdata", "arm6.xml"), mjcf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pos := make([]sim.Vec3, len(m.Bodies))
	rot := make([]sim.Quat, len(m.Bodies))
	m.Kinematics(m.QPos0(), pos, rot)
	for i := range m.Bodies {
		if !near(pos[i], m.Bodies[i].Pos, 1e-12) {
			t.Errorf("body %s at qpos0: %v, compiled %v", m.Bodies[i].Name, pos[i], m.Bodies[i].Pos)
		}
	}
	if m.Sim.Opt.Substeps != 2 {
		t.Fatalf("arm6 (2 ms steps) imported with %d substeps, want 2 (mjcf.DefaultSubsteps)", m.Sim.Opt.Substeps)
	}
	m4, err := mjcf.Load(filepath.Join("testdata", "arm6.xml"), mjcf.Options{Substeps: 4})
	if err != nil {
		t.Fatal(err)
	}
	d4, d2 := settledStretch(t, m4), settledStretch(t, m)
	if d4 > 1e-3 {
		t.Errorf("on 4 substeps the site is %.2f mm from forward kinematics, want < 1 mm", 1000*d4)
	}
	if r := d2 / d4; r < 3 || r > 5 {
		t.Errorf("stretch on 2 substeps %.2f mm, on 4 %.2f mm: ratio %.2f, want ≈ 4 (h²)", 1000*d2, 1000*d4, r)
	}
}

// settledStretch holds arm6 at fixed servo targets for 6 s and returns the
// distance between the simulated end-effector site and forward kinematics
// at the simulated joint coordinates.
func settledStretch(t *testing.T, m *mjcf.Model) float64 {
	t.Helper()
	pos := make([]sim.Vec3, len(m.Bodies))
	rot := make([]sim.Quat, len(m.Bodies))
	q := []float64{0.4, -0.3, 0.5, 0.2, -0.3, 0.1}
	s := m.Sim.NewState()
	for i, a := range m.Actuators {
		s.Ctrl[a.Ctrl] = q[i]
	}
	for i := 0; i < 3000; i++ {
		sim.Step(m.Sim, s)
	}
	got := make([]float64, len(q))
	for i := range q {
		got[i] = m.JointPos(s, i)
	}
	site, _ := m.Site("ee")
	want := m.SitePos(site, got, pos, rot)
	sp, _ := m.Sites[site].Frame.World(s)
	return sp.Sub(want).Norm()
}

// TestActuatorsWeldExclude: an MJCF position servo holds a slide joint at
// its control against gravity (within m·g/kp), a general affine actuator
// with the same gains does the same, a weld equality holds a free body in
// place, and contact/exclude lets two overlapping bodies pass.
func TestActuatorsWeldExclude(t *testing.T) {
	m := parse(t, `<mujoco><option timestep="0.002"/><worldbody>
<body name="a" pos="0 0 1"><joint name="za" type="slide" axis="0 0 1" damping="20"/><geom size=".05" mass="1"/></body>
<body name="b" pos="1 0 1"><joint name="zb" type="slide" axis="0 0 1" damping="20"/><geom size=".05" mass="1"/></body>
<body name="w" pos="2 0 1"><freejoint/><geom size=".05" mass="1"/></body>
<body name="c" pos="3 0 1"><freejoint/><geom type="box" size=".1 .1 .1" mass="1"/></body>
<body name="d" pos="3 0 0.5"><geom type="box" size=".3 .3 .1"/></body>
<body name="e" pos="4 0 1"><freejoint/><geom type="box" size=".1 .1 .1" mass="1"/></body>
<body name="f" pos="4 0 0.5"><geom type="box" size=".3 .3 .1"/></body>
</worldbody>
<equality><weld body1="w"/></equality>
<contact><exclude body1="c" body2="d"/></contact>
<actuator><position joint="za" kp="1000"/><general joint="zb" gainprm="1000" biasprm="0 -1000 0" biastype="affine"/></actuator></mujoco>`)
	s := m.Sim.NewState()
	for _, a := range m.Actuators {
		s.Ctrl[a.Ctrl] = 0.1
	}
	for i := 0; i < 2000; i++ {
		sim.Step(m.Sim, s)
	}
	for j := 0; j < 2; j++ {
		want := 0.1 - 9.81/1000
		if q := m.JointPos(s, j); math.Abs(q-want) > 2e-3 {
			t.Errorf("joint %s at %.4f m, want %.4f (target − m g / kp)", m.Joints[j].Name, q, want)
		}
	}
	if p, _ := m.BodyPose(s, 3); p.Sub(sim.V3(2, 0, 1)).Norm() > 0.01 {
		t.Errorf("welded body moved to %v", p)
	}
	// c falls through the static box d it is excluded from; e lands on f
	if p, _ := m.BodyPose(s, 4); p.Z > 0 {
		t.Errorf("excluded box c at z %.3f: it should have fallen through d", p.Z)
	}
	if p, _ := m.BodyPose(s, 6); math.Abs(p.Z-0.7) > 0.01 {
		t.Errorf("box e at z %.3f, want it resting on f at 0.7", p.Z)
	}
}

// TestSTL: a binary STL tetrahedron loads as a visual mesh with its volume.
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
	os.WriteFile(filepath.Join(dir, "tet.stl"), buf, 0o644)
	os.WriteFile(filepath.Join(dir, "m.xml"), []byte(`<mujoco><asset><mesh name="tet" file="tet.stl"/></asset>
<worldbody><body><freejoint/><geom type="mesh" mesh="tet" density="600"/></body></worldbody></mujoco>`), 0o644)
	m, err := mjcf.Load(filepath.Join(dir, "m.xml"), mjcf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := 600.0 / 6; math.Abs(m.Bodies[1].Mass-want) > 1e-9 || len(m.Geoms[0].Mesh.Triangles) != 4 {
		t.Errorf("tetrahedron mass %g, want %g", m.Bodies[1].Mass, want)
	}
}
