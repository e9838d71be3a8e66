package articulated

import (
	"math"
	"strings"
	"testing"
)

// planar2 is a two-link arm in the x–z plane (hinges about y), links of
// length l1, l2 with point-like masses m1, m2 at their ends plus rotational
// inertia i1, i2 about y at those masses.
func planar2(t testing.TB, m1, m2, l1, l2, i1, i2, arm float64) *Model {
	t.Helper()
	bodies := []Body{
		{Name: "world", Parent: -1},
		{Name: "a", Parent: 0, Quat: [4]float64{1, 0, 0, 0}, IPos: [3]float64{l1, 0, 0}, IQuat: [4]float64{1, 0, 0, 0}, Mass: m1, Inertia: [3]float64{i1, i1, i1}},
		{Name: "b", Parent: 1, Pos: [3]float64{l1, 0, 0}, Quat: [4]float64{1, 0, 0, 0}, IPos: [3]float64{l2, 0, 0}, IQuat: [4]float64{1, 0, 0, 0}, Mass: m2, Inertia: [3]float64{i2, i2, i2}},
	}
	joints := []Joint{
		{Name: "q1", Type: Hinge, Body: 1, Axis: [3]float64{0, 1, 0}, Armature: arm},
		{Name: "q2", Type: Hinge, Body: 2, Axis: [3]float64{0, 1, 0}, Armature: arm},
	}
	m, err := New(Option{Timestep: 0.001, Gravity: [3]float64{0, 0, -9.81}}, bodies, joints, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The joint-space inertia and the bias forces of a planar two-link arm
// against the textbook closed form (e.g. Spong, Hutchinson, Vidyasagar,
// ch. 7), with the angle measured about +y (x towards −z).
func TestPlanarTwoLinkClosedForm(t *testing.T) {
	const m1, m2, l1, l2, i1, i2, arm, g = 1.3, 0.7, 0.5, 0.4, 0.02, 0.01, 0.003, 9.81
	m := planar2(t, m1, m2, l1, l2, i1, i2, arm)
	d := NewData(m)
	q1, q2, v1, v2 := 0.3, -0.8, 1.1, -0.6
	d.Qpos[0], d.Qpos[1], d.Qvel[0], d.Qvel[1] = q1, q2, v1, v2
	Forward(m, d)
	c2, s2 := math.Cos(q2), math.Sin(q2)
	m11 := i1 + i2 + m1*l1*l1 + m2*(l1*l1+l2*l2+2*l1*l2*c2) + arm
	m12 := i2 + m2*(l2*l2+l1*l2*c2)
	m22 := i2 + m2*l2*l2 + arm
	// rotation about +y by q takes x to (cos q, 0, −sin q): heights are
	// −l sin(q); gravity torque = −∂V/∂q with V = m g z
	hgt := -m2 * l1 * l2 * s2
	g1 := (m1*l1+m2*l1)*g*math.Cos(q1) + m2*l2*g*math.Cos(q1+q2)
	g2 := m2 * l2 * g * math.Cos(q1+q2)
	wantM := []float64{m11, m12, m12, m22}
	for i, w := range wantM {
		if math.Abs(d.QM[i]-w) > 1e-12 {
			t.Errorf("M[%d] = %.15g, closed form %.15g", i, d.QM[i], w)
		}
	}
	// qfrc_bias = C(q, q̇) q̇ − (generalized gravity force): with heights
	// z = −l sin q, V = −m g l sin q and the gravity force −∂V/∂q =
	// m g l cos q
	wantB := []float64{hgt*(2*v1*v2+v2*v2) - g1, -hgt*v1*v1 - g2}
	for i, w := range wantB {
		if math.Abs(d.QfrcBias[i]-w) > 1e-12 {
			t.Errorf("qfrc_bias[%d] = %.15g, closed form %.15g", i, d.QfrcBias[i], w)
		}
	}
	// qacc solves M qacc = −bias
	r0 := m11*d.Qacc[0] + m12*d.Qacc[1] + d.QfrcBias[0]
	r1 := m12*d.Qacc[0] + m22*d.Qacc[1] + d.QfrcBias[1]
	if math.Abs(r0) > 1e-12 || math.Abs(r1) > 1e-12 {
		t.Errorf("M qacc + bias = (%g, %g), want 0", r0, r1)
	}
}

// A free body falls with qacc = g and keeps its angular velocity when
// spinning about a principal axis.
func TestFreeFall(t *testing.T) {
	bodies := []Body{{Parent: -1}, {Parent: 0, Pos: [3]float64{0, 0, 1}, Quat: [4]float64{1, 0, 0, 0},
		IQuat: [4]float64{1, 0, 0, 0}, Mass: 2, Inertia: [3]float64{0.1, 0.2, 0.3}}}
	m, err := New(Option{Timestep: 0.002, Gravity: [3]float64{0, 0, -9.81}}, bodies, []Joint{{Type: Free, Body: 1}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := NewData(m)
	d.Qvel[5] = 3
	for range 500 {
		Step(m, d)
	}
	want := []float64{0, 0, -9.81, 0, 0, 0}
	for i, w := range want {
		if math.Abs(d.Qacc[i]-w) > 1e-12 {
			t.Errorf("qacc[%d] = %g, want %g", i, d.Qacc[i], w)
		}
	}
	// semi-implicit Euler: z = 1 − g h² n(n+1)/2
	n, h := 500.0, 0.002
	if z := 1 - 9.81*h*h*n*(n+1)/2; math.Abs(d.Qpos[2]-z) > 1e-9 {
		t.Errorf("z = %.12g, want %.12g", d.Qpos[2], z)
	}
	// yaw = 3 rad/s · 1 s: quaternion (cos 1.5, 0, 0, sin 1.5)
	if math.Abs(d.Qpos[3]-math.Cos(1.5)) > 1e-9 || math.Abs(d.Qpos[6]-math.Sin(1.5)) > 1e-9 {
		t.Errorf("quat %v, want (cos 1.5, 0, 0, sin 1.5)", d.Qpos[3:7])
	}
}

// Step allocates nothing after NewData, limits active or not.
func TestStepAllocatesNothing(t *testing.T) {
	for _, integ := range []Integrator{Euler, ImplicitFast, RK4} {
		m := chain(t, 7, integ)
		for j := range m.Joints {
			m.Joints[j].Limited, m.Joints[j].Range = true, [2]float64{-0.1, 0.1}
			m.Joints[j].FrictionLoss = 0.5
		}
		// a joint equality, a connect and a tendon make dense rows
		acts := append(m.Actuators, Actuator{Trn: TrnTendon, Tendon: 0, Gear: 1, GainPrm: [3]float64{10},
			BiasType: BiasAffine, BiasPrm: [3]float64{0, -10, -1}})
		m, err := NewSpec(Spec{Opt: m.Opt, Bodies: m.Bodies, Joints: m.Joints, Actuators: acts,
			Equalities: []Equality{{Type: EqJoint, Obj1: 5, Obj2: 2, PolyCoef: [5]float64{0, 0.5}},
				{Type: EqConnect, Obj1: 7, Obj2: 0, Anchor: [3]float64{0, 0, 0.3}}},
			Tendons: []Tendon{{Joints: []int{1, 4}, Coefs: []float64{1, -0.5}, Damping: 0.3, Stiffness: 2,
				SpringLength: [2]float64{-1, -1}, Limited: true, Range: [2]float64{-0.05, 0.05}, FrictionLoss: 0.1}}})
		if err != nil {
			t.Fatal(err)
		}
		d := NewData(m)
		for i := range d.Ctrl {
			d.Ctrl[i] = 0.3
		}
		for range 200 {
			Step(m, d)
		}
		if d.NEfc == 0 {
			t.Fatal("no limit active: the test would not cover constraints")
		}
		if a := testing.AllocsPerRun(100, func() { Step(m, d) }); a != 0 {
			t.Errorf("integrator %d: %g allocations per step", integ, a)
		}
	}
}

// Two runs from the same state are bit-identical.
func TestDeterministic(t *testing.T) {
	run := func() []float64 {
		m := chain(t, 6, Euler)
		d := NewData(m)
		for i := range d.Ctrl {
			d.Ctrl[i] = 0.2 * float64(i)
		}
		for range 2000 {
			Step(m, d)
		}
		return append(append([]float64(nil), d.Qpos...), d.Qvel...)
	}
	a, b := run(), run()
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			t.Fatalf("run 2 differs at %d: %v vs %v", i, a[i], b[i])
		}
	}
}

// A NaN control resets the state and counts a warning (MuJoCo's
// mjWARN_BADQACC) instead of propagating or panicking.
func TestBadStateWarns(t *testing.T) {
	m := chain(t, 3, Euler)
	d := NewData(m)
	d.Qpos[1] = 0.5
	d.Ctrl[0] = math.NaN()
	Step(m, d)
	if d.Warnings.BadQacc != 1 {
		t.Fatalf("warnings %+v, want one BadQacc", d.Warnings)
	}
	d.Ctrl[0] = 0
	d.Qvel[2] = math.Inf(1)
	Step(m, d)
	if d.Warnings.BadQvel != 1 {
		t.Fatalf("warnings %+v, want one BadQvel", d.Warnings)
	}
	for _, x := range append(d.Qpos, d.Qvel...) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			t.Fatalf("state not finite after reset: %v %v", d.Qpos, d.Qvel)
		}
	}
}

// Bad models are errors that say what is wrong.
func TestNewRejectsBadModels(t *testing.T) {
	world := Body{Parent: -1}
	b := Body{Parent: 0, Quat: [4]float64{1, 0, 0, 0}, IQuat: [4]float64{1, 0, 0, 0}, Mass: 1, Inertia: [3]float64{1, 1, 1}}
	opt := Option{Timestep: 0.002}
	cases := []struct {
		name   string
		opt    Option
		bodies []Body
		joints []Joint
		acts   []Actuator
		want   string
	}{
		{"timestep", Option{}, []Body{world, b}, nil, nil, "timestep"},
		{"parent", opt, []Body{world, {Parent: 2, Mass: 1}}, nil, nil, "parent"},
		{"axis", opt, []Body{world, b}, []Joint{{Type: Hinge, Body: 1}}, nil, "axis is zero"},
		{"negative mass", opt, []Body{world, {Parent: 0, Quat: [4]float64{1, 0, 0, 0}, IQuat: [4]float64{1, 0, 0, 0}, Mass: -1}}, nil, nil, "mass"},
		{"nan", opt, []Body{world, {Parent: 0, Mass: math.NaN()}}, nil, nil, "non-finite"},
		{"actuator joint", opt, []Body{world, b}, []Joint{{Type: Ball, Body: 1}}, []Actuator{{Joint: 0, Gear: 1}}, "hinge or slide"},
		{"free nested", opt, []Body{world, b, {Parent: 1, Quat: [4]float64{1, 0, 0, 0}, IQuat: [4]float64{1, 0, 0, 0}, Mass: 1}},
			[]Joint{{Type: Free, Body: 2}}, nil, "free joint"},
		{"ls_tolerance", Option{Timestep: 0.002, LSTolerance: math.Inf(1)}, []Body{world, b}, nil, nil, "ls_tolerance"},
		{"ccd_tolerance", Option{Timestep: 0.002, CCDTolerance: math.NaN()}, []Body{world, b}, nil, nil, "ccd_tolerance"},
		{"ccd_iterations", Option{Timestep: 0.002, CCDIterations: -1}, []Body{world, b}, nil, nil, "ccd_iterations"},
	}
	for _, c := range cases {
		_, err := New(c.opt, c.bodies, c.joints, c.acts, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.name, err, c.want)
		}
	}
}

// chain is an n-link arm alternating hinge axes, one position servo per
// joint, armature and damping: the benchmark and allocation model.
func chain(t testing.TB, n int, integ Integrator) *Model {
	t.Helper()
	bodies := []Body{{Name: "world", Parent: -1}}
	var joints []Joint
	var acts []Actuator
	for i := range n {
		pos := [3]float64{0, 0, 0.3}
		if i == 0 {
			pos = [3]float64{0, 0, 0.1}
		}
		bodies = append(bodies, Body{Parent: i, Pos: pos, Quat: [4]float64{1, 0, 0, 0}, IPos: [3]float64{0.02, 0, 0.15},
			IQuat: [4]float64{1, 0, 0, 0}, Mass: 2 - 0.2*float64(i), Inertia: [3]float64{0.02, 0.02, 0.004}})
		axis := [3]float64{0, 0, 1}
		if i%2 == 1 {
			axis = [3]float64{0, 1, 0}
		}
		joints = append(joints, Joint{Type: Hinge, Body: i + 1, Axis: axis, Armature: 0.1, Damping: 1})
		acts = append(acts, Actuator{Joint: i, Gear: 1, GainPrm: [3]float64{4500}, BiasType: BiasAffine,
			BiasPrm: [3]float64{0, -4500, -450}, ForceLimited: true, ForceRange: [2]float64{-87, 87}})
	}
	m, err := New(Option{Timestep: 0.002, Gravity: [3]float64{0, 0, -9.81}, Integrator: integ}, bodies, joints, acts, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// BenchmarkStep measures steps/s of a 7-dof arm with Panda-stiff servos.
func BenchmarkStep(b *testing.B) {
	m := chain(b, 7, Euler)
	d := NewData(m)
	for i := range d.Ctrl {
		d.Ctrl[i] = 0.3
	}
	b.ResetTimer()
	for b.Loop() {
		Step(m, d)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}

// A pendulum swinging into its limit stops there: the soft constraint
// lets it in by a small fraction of the swing (MuJoCo's default solref
// 0.02 s, solimp 0.9–0.95), and pushes back with a positive force.
func TestLimitStopsPendulum(t *testing.T) {
	bodies := []Body{{Parent: -1}, {Parent: 0, Quat: [4]float64{1, 0, 0, 0}, IPos: [3]float64{0.5, 0, 0},
		IQuat: [4]float64{1, 0, 0, 0}, Mass: 1, Inertia: [3]float64{0.01, 0.01, 0.01}}}
	joints := []Joint{{Type: Hinge, Body: 1, Axis: [3]float64{0, 1, 0}, Limited: true, Range: [2]float64{-0.5, 0.3}}}
	m, err := New(Option{Timestep: 0.002, Gravity: [3]float64{0, 0, -9.81}}, bodies, joints, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := NewData(m)
	hi, sawForce := 0.0, false
	for range 1500 {
		Step(m, d)
		hi = max(hi, d.Qpos[0])
		for i := range d.NEfc {
			if d.EfcForce[i] < 0 {
				t.Fatalf("limit force %g < 0: a limit only pushes", d.EfcForce[i])
			}
			sawForce = sawForce || d.EfcForce[i] > 0
		}
	}
	// free, gravity swings it from 0 to π/2 rad (it falls towards +q)
	if !sawForce || hi > 0.3+0.05 || hi < 0.3 {
		t.Errorf("max angle %.4g with the limit at 0.3 (force seen %v): want it stopped within 0.05 rad", hi, sawForce)
	}
	if math.Abs(d.Qvel[0]) > 1e-3 {
		t.Errorf("still moving at %.3g rad/s after 3 s against the limit", d.Qvel[0])
	}
}

// Dry friction (frictionloss F) on a slide: a push below F sticks; above
// it the block slides with (push − F)/mass, the friction row saturated at
// exactly F (its linear zone).
func TestFrictionLossSticksAndSlips(t *testing.T) {
	for _, c := range []struct{ push, wantAcc float64 }{{1, 0}, {3, 0.75}} {
		bodies := []Body{{Parent: -1}, {Parent: 0, Quat: [4]float64{1, 0, 0, 0}, IQuat: [4]float64{1, 0, 0, 0}, Mass: 2, Inertia: [3]float64{1, 1, 1}}}
		joints := []Joint{{Type: Slide, Body: 1, Axis: [3]float64{1, 0, 0}, FrictionLoss: 1.5}}
		acts := []Actuator{{Joint: 0, Gear: 1, GainPrm: [3]float64{1}}}
		m, err := New(Option{Timestep: 0.002}, bodies, joints, acts, nil)
		if err != nil {
			t.Fatal(err)
		}
		d := NewData(m)
		d.Ctrl[0] = c.push
		for range 500 {
			Step(m, d)
		}
		if c.wantAcc == 0 {
			if math.Abs(d.Qvel[0]) > 1e-3 || math.Abs(d.Qpos[0]) > 1e-3 {
				t.Errorf("push %g < frictionloss 1.5: the block moves (q %.3g, v %.3g)", c.push, d.Qpos[0], d.Qvel[0])
			}
			continue
		}
		if math.Abs(d.Qacc[0]-c.wantAcc) > 1e-9 || math.Abs(d.EfcForce[0]+1.5) > 1e-9 {
			t.Errorf("push %g: qacc %.6g (want %g), friction force %.6g (want −1.5)", c.push, d.Qacc[0], c.wantAcc, d.EfcForce[0])
		}
	}
}
