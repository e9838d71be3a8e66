package articulated

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/sim/convex"
)

// sphereOnPlane is a free sphere (mass 2 kg, radius 0.1 m) at height z
// over a plane geom on the world.
func sphereOnPlane(t *testing.T, z float64, condim int) *Model {
	t.Helper()
	bodies := []Body{{Parent: -1}, {Parent: 0, Pos: [3]float64{0, 0, z}, Quat: [4]float64{1, 0, 0, 0},
		IQuat: [4]float64{1, 0, 0, 0}, Mass: 2, Inertia: [3]float64{0.008, 0.008, 0.008}}}
	m, err := New(Option{Timestep: 0.002, Gravity: [3]float64{0, 0, -9.81}}, bodies, []Joint{{Type: Free, Body: 1}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	geoms := []Geom{
		{Name: "floor", Type: convex.Plane, Body: 0, Contype: 1, Conaffinity: 1, Condim: condim},
		{Name: "ball", Type: convex.Sphere, Body: 1, Size: [3]float64{0.1}, Contype: 1, Conaffinity: 1, Condim: condim},
	}
	if err := m.SetGeoms(geoms, nil); err != nil {
		t.Fatal(err)
	}
	return m
}

// A frictionless sphere dropped on a plane comes to rest where MuJoCo's
// soft contact balances its weight: at rest J·a = 0, so the contact force
// D·(−aref) = D·k·imp·(−dist) equals m·g, with D = 1/R,
// R = (1−imp)/imp·(1/m) (the free body's invweight0) and
// k = 1/(dmax²·timeconst²·dampratio²) from the default solref and solimp:
// −dist = g·(1−imp)/(k·imp²), imp = imp(dist) (solimp's sigmoid).
func TestSphereRestsAtSoftContactEquilibrium(t *testing.T) {
	m := sphereOnPlane(t, 0.12, 1)
	d := NewData(m)
	for range 2000 {
		Step(m, d)
	}
	const g, dmin, dmax, width, mid = 9.81, 0.9, 0.95, 0.001, 0.5
	k := 1 / (dmax * dmax * 0.02 * 0.02)
	imp := func(pen float64) float64 {
		x := pen / width
		if x >= 1 {
			return dmax
		}
		y := 2 * x * x // power 2, midpoint 0.5
		if x > mid {
			y = 1 - 2*(1-x)*(1-x)
		}
		return dmin + y*(dmax-dmin)
	}
	// fixed point by bisection on f(pen) = pen − g(1−imp)/(k imp²)
	lo, hi := 0.0, 0.01
	for range 200 {
		p := 0.5 * (lo + hi)
		if p-g*(1-imp(p))/(k*imp(p)*imp(p)) < 0 {
			lo = p
		} else {
			hi = p
		}
	}
	want := 0.1 - lo
	if math.Abs(d.Qpos[2]-want) > 1e-9 || math.Abs(d.Qvel[2]) > 1e-9 {
		t.Errorf("rest height %.9f m (vz %.3g), want %.9f (penetration %.3g m)", d.Qpos[2], d.Qvel[2], want, lo)
	}
	if len(d.Contacts) != 1 || d.NEfc != 1 || math.Abs(d.EfcForce[0]-2*g) > 1e-6 {
		t.Errorf("%d contacts, %d rows, force %v; want one row carrying m·g = %g N", len(d.Contacts), d.NEfc, d.EfcForce[:d.NEfc], 2*g)
	}
}

// With friction (condim 3: four pyramid edges) the sphere rests too, the
// edges' forces summing to its weight along the normal.
func TestPyramidCarriesTheWeight(t *testing.T) {
	m := sphereOnPlane(t, 0.12, 3)
	d := NewData(m)
	for range 2000 {
		Step(m, d)
	}
	if d.NEfc != 4 {
		t.Fatalf("%d rows, want 4 pyramid edges", d.NEfc)
	}
	sum := 0.0
	for i := range d.NEfc {
		sum += d.EfcForce[i] // each edge's normal component is its force (J_n ± μJ_t)
	}
	if math.Abs(sum-2*9.81) > 1e-6 || math.Abs(d.Qvel[2]) > 1e-9 {
		t.Errorf("edge forces sum to %g N (vz %.3g), want m·g = %g", sum, d.Qvel[2], 2*9.81)
	}
}

// More contacts than MaxContacts are dropped and counted, never a panic;
// the state is kept.
func TestContactBudgetCountsOverflow(t *testing.T) {
	bodies := []Body{{Parent: -1}, {Parent: 0, Pos: [3]float64{0, 0, 0.049}, Quat: [4]float64{1, 0, 0, 0},
		IQuat: [4]float64{1, 0, 0, 0}, Mass: 1, Inertia: [3]float64{0.002, 0.002, 0.002}}}
	m, err := New(Option{Timestep: 0.002, Gravity: [3]float64{0, 0, -9.81}}, bodies, []Joint{{Type: Free, Body: 1}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	m.MaxContacts = 2
	geoms := []Geom{{Type: convex.Plane, Contype: 1, Conaffinity: 1},
		{Type: convex.Box, Body: 1, Size: [3]float64{0.05, 0.05, 0.05}, Contype: 1, Conaffinity: 1}}
	if err := m.SetGeoms(geoms, nil); err != nil {
		t.Fatal(err)
	}
	d := NewData(m)
	Step(m, d)
	if len(d.Contacts) != 2 || d.Warnings.Contacts != 1 || d.Warnings.BadQacc != 0 {
		t.Errorf("%d contacts, warnings %+v; want 2 kept and the overflow counted once", len(d.Contacts), d.Warnings)
	}
}

// Bad geoms are errors naming the geom and what is wrong.
func TestSetGeomsRejectsBadGeoms(t *testing.T) {
	m := sphereOnPlane(t, 0.12, 1)
	cases := []struct {
		g    Geom
		want string
	}{
		{Geom{Name: "a", Type: convex.Sphere, Body: 5, Size: [3]float64{0.1}}, "body 5 does not exist"},
		{Geom{Name: "b", Type: convex.Kind(1), Body: 1}, "not a collision geom type"},
		{Geom{Name: "c", Type: convex.Sphere, Body: 1, Size: [3]float64{0.1}, Condim: 2}, "condim 2"},
		{Geom{Name: "d", Type: convex.Sphere, Body: 1, Size: [3]float64{0.1}, Margin: -1}, "margin"},
		{Geom{Name: "e", Type: convex.Mesh, Body: 1}, `"e"`},
		{Geom{Name: "f", Type: convex.Plane, Body: 1}, "plane must be on the world"},
		{Geom{Name: "g", Type: convex.Box, Body: 1, Size: [3]float64{0.1, math.NaN(), 0.1}}, `"g"`},
	}
	for _, c := range cases {
		err := m.SetGeoms([]Geom{c.g}, nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one with %q", c.g, err, c.want)
		}
	}
	if err := m.SetGeoms(nil, []Exclude{{0, 9}}); err == nil {
		t.Error("an exclude naming body 9 of 2 is accepted")
	}
}

// The body-level sphere test over a run of pairs between two bodies
// (pairGroups) drops nothing: for random poses of two free bodies with
// three geoms each, near and far, Forward finds the same contacts with
// and without it, and it does skip the far poses.
func TestPairGroupsKeepEveryContact(t *testing.T) {
	one := [4]float64{1, 0, 0, 0}
	bodies := []Body{{Parent: -1},
		{Parent: 0, Quat: one, IQuat: one, Mass: 1, Inertia: [3]float64{0.01, 0.01, 0.01}},
		{Parent: 0, Quat: one, IQuat: one, Mass: 1, Inertia: [3]float64{0.01, 0.01, 0.01}}}
	m, err := New(Option{Timestep: 0.002}, bodies, []Joint{{Type: Free, Body: 1}, {Type: Free, Body: 2}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var geoms []Geom
	for b := 1; b <= 2; b++ {
		geoms = append(geoms,
			Geom{Type: convex.Box, Body: b, Size: [3]float64{0.05, 0.02, 0.01}, Pos: [3]float64{0.03, 0, 0}, Contype: 1, Conaffinity: 1, Condim: 3},
			Geom{Type: convex.Capsule, Body: b, Size: [3]float64{0.01, 0.04}, Pos: [3]float64{0, 0.05, 0}, Contype: 1, Conaffinity: 1, Condim: 3},
			Geom{Type: convex.Sphere, Body: b, Size: [3]float64{0.02}, Pos: [3]float64{-0.04, -0.02, 0.03}, Contype: 1, Conaffinity: 1, Condim: 3, Margin: 0.01})
	}
	if err := m.SetGeoms(geoms, nil); err != nil {
		t.Fatal(err)
	}
	if len(m.pairGroups) != 1 || m.pairGroups[0].end-m.pairGroups[0].start != 9 {
		t.Fatalf("pair groups %+v, want one run of the 9 pairs", m.pairGroups)
	}
	groups := m.pairGroups
	d1, d2 := NewData(m), NewData(m)
	rng := rand.New(rand.NewPCG(1, 2))
	skipped, touching := 0, 0
	for range 20000 {
		var q [14]float64
		for b := range 2 {
			s := 0.1 + 0.2*float64(b)*rng.Float64() // near and far
			for k := range 3 {
				q[7*b+k] = s * (2*rng.Float64() - 1)
			}
			qn := 0.0
			for k := 3; k < 7; k++ {
				q[7*b+k] = rng.NormFloat64()
				qn += q[7*b+k] * q[7*b+k]
			}
			for k := 3; k < 7; k++ {
				q[7*b+k] /= math.Sqrt(qn)
			}
		}
		copy(d1.Qpos, q[:])
		copy(d2.Qpos, q[:])
		m.pairGroups = groups
		Forward(m, d1)
		m.pairGroups = nil
		Forward(m, d2)
		m.pairGroups = groups
		if len(d1.Contacts) != len(d2.Contacts) {
			t.Fatalf("pose %v: %d contacts with the body test, %d without", q, len(d1.Contacts), len(d2.Contacts))
		}
		for i := range d1.Contacts {
			if d1.Contacts[i] != d2.Contacts[i] {
				t.Fatalf("pose %v: contact %d %+v with the body test, %+v without", q, i, d1.Contacts[i], d2.Contacts[i])
			}
		}
		x1, x2 := d1.Xpos[1], d1.Xpos[2]
		if sub := sub3(x1, x2); dot3(sub, sub) > groups[0].r*groups[0].r {
			skipped++
		}
		if len(d1.Contacts) > 0 {
			touching++
		}
	}
	if skipped < 1000 || touching < 1000 {
		t.Errorf("%d poses skipped by the body test, %d touching: want both sides sampled", skipped, touching)
	}
}
