package convex

import (
	"math"
	"math/rand/v2"
	"testing"
)

func at(x, y, z float64) *Pose { return &Pose{Pos: Vec3{x, y, z}, Rot: Identity} }

func posed(p Vec3, r Mat3) *Pose { return &Pose{Pos: p, Rot: r} }

func randRot(rng *rand.Rand) Mat3 {
	axis := Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
	return AxisAngle(axis, rng.Float64()*2*math.Pi)
}

func collideOne(t *testing.T, s1 *Shape, p1 *Pose, s2 *Shape, p2 *Pose, margin float64) []Contact {
	t.Helper()
	var c Collider
	con, err := c.Collide(nil, s1, p1, s2, p2, margin, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range con {
		checkFrame(t, &con[i])
	}
	return con
}

// checkFrame asserts a right-handed orthonormal frame.
func checkFrame(t *testing.T, c *Contact) {
	t.Helper()
	f := c.Frame
	x, y, z := Vec3{f[0], f[1], f[2]}, Vec3{f[3], f[4], f[5]}, Vec3{f[6], f[7], f[8]}
	if math.Abs(x.Norm()-1) > 1e-12 || math.Abs(y.Norm()-1) > 1e-12 || math.Abs(x.Dot(y)) > 1e-12 || x.Cross(y).Sub(z).Norm() > 1e-12 {
		t.Fatalf("contact frame %v is not right-handed orthonormal", f)
	}
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol || math.IsNaN(got) {
		t.Fatalf("%s = %.12g, want %.12g (±%.1g)", what, got, want, tol)
	}
}

func nearVec(t *testing.T, what string, got, want Vec3, tol float64) {
	t.Helper()
	if got.Sub(want).Norm() > tol || !finite(got) {
		t.Fatalf("%s = %v, want %v (±%.1g)", what, got, want, tol)
	}
}

func boxHull(t testing.TB, h Vec3) *Shape {
	var pts []Vec3
	for _, p := range cubeCorners(1) {
		pts = append(pts, Vec3{p[0] * h[0], p[1] * h[1], p[2] * h[2]})
	}
	hl, err := BuildHull(pts, HullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return &Shape{Kind: Mesh, Hull: hl}
}

func TestSphereSphere(t *testing.T) {
	a := &Shape{Kind: Sphere, Size: Vec3{0.1}}
	b := &Shape{Kind: Sphere, Size: Vec3{0.2}}
	dir := Vec3{1, 2, -0.5}.Unit()
	for _, d := range []float64{0.25, 0.3, 0.31, 0.2, 0.05} {
		c2 := dir.Scale(d)
		con := collideOne(t, a, at(0, 0, 0), b, posed(c2, Identity), 0.02)
		want := d - 0.3
		if want >= 0.02 {
			if len(con) != 0 {
				t.Fatalf("d=%v: contact beyond margin: %+v", d, con)
			}
			continue
		}
		if len(con) != 1 {
			t.Fatalf("d=%v: %d contacts", d, len(con))
		}
		near(t, "dist", con[0].Dist, want, 1e-12)
		nearVec(t, "normal", con[0].Normal(), dir, 1e-12)
		// Midway between the surface points 0.1·dir and c2 − 0.2·dir.
		nearVec(t, "pos", con[0].Pos, dir.Scale(0.1).Add(c2.Sub(dir.Scale(0.2))).Scale(0.5), 1e-12)
	}
}

func TestMarginAndGap(t *testing.T) {
	a := &Shape{Kind: Sphere, Size: Vec3{0.1}}
	var c Collider
	// 1 cm apart: a contact only with margin > 1 cm; active only under margin − gap.
	con, _ := c.Collide(nil, a, at(0, 0, 0), a, at(0.21, 0, 0), 0.005, 0)
	if len(con) != 0 {
		t.Fatal("contact with margin below the distance")
	}
	con, _ = c.Collide(nil, a, at(0, 0, 0), a, at(0.21, 0, 0), 0.02, 0.015)
	if len(con) != 1 {
		t.Fatal("no contact with margin above the distance")
	}
	near(t, "dist", con[0].Dist, 0.01, 1e-12)
	near(t, "includemargin", con[0].IncludeMargin, 0.005, 1e-15)
	if con[0].Active() {
		t.Fatal("contact at 1 cm active with margin−gap = 5 mm")
	}
	if m, g := PairMarginGap(0.01, 0, 0.002, 0.003); m != 0.01 || g != 0.003 {
		t.Fatalf("PairMarginGap = %v, %v", m, g)
	}
}

// boxDist is the exact signed distance from point p to an axis-aligned box
// of half-sizes h at the origin (negative inside).
func boxDist(p, h Vec3) float64 {
	var q Vec3
	inside := math.Inf(-1)
	for k := 0; k < 3; k++ {
		q[k] = math.Max(math.Abs(p[k])-h[k], 0)
		inside = math.Max(inside, math.Abs(p[k])-h[k])
	}
	if inside < 0 {
		return inside
	}
	return q.Norm()
}

func TestSphereBox(t *testing.T) {
	h := Vec3{0.3, 0.2, 0.1}
	box := &Shape{Kind: Box, Size: h}
	rng := rand.New(rand.NewPCG(4, 4))
	R := randRot(rng)
	bp := posed(Vec3{0.5, -0.2, 1}, R)
	for i := 0; i < 300; i++ {
		r := 0.02 + 0.1*rng.Float64()
		loc := Vec3{(rng.Float64()*2 - 1) * 0.5, (rng.Float64()*2 - 1) * 0.4, (rng.Float64()*2 - 1) * 0.3}
		want := boxDist(loc, h) - r
		sph := &Shape{Kind: Sphere, Size: Vec3{r}}
		con := collideOne(t, box, bp, sph, posed(bp.Transform(loc), Identity), 0.05)
		if want >= 0.05 {
			if len(con) != 0 {
				t.Fatalf("contact beyond margin at %v", loc)
			}
			continue
		}
		if len(con) != 1 {
			t.Fatalf("point %v: %d contacts, want 1 (dist %v)", loc, len(con), want)
		}
		near(t, "sphere-box dist", con[0].Dist, want, 1e-9)
	}
}

func TestCapsuleCapsule(t *testing.T) {
	c := &Shape{Kind: Capsule, Size: Vec3{0.05, 0.2}}
	// Parallel capsules side by side: dist = offset − 2r, at both ends of
	// the segments (mjc_CapsuleCapsule's two contacts for parallel axes).
	for _, off := range []float64{0.2, 0.101, 0.08, 0.03} {
		con := collideOne(t, c, at(0, 0, 0), c, at(off, 0, 0), 0.01)
		want := off - 0.1
		if want >= 0.01 {
			if len(con) != 0 {
				t.Fatal("contact beyond margin")
			}
			continue
		}
		if len(con) != 2 {
			t.Fatalf("off=%v: %d contacts, want 2", off, len(con))
		}
		for i, z := range []float64{0.2, -0.2} {
			near(t, "parallel capsule dist", con[i].Dist, want, 1e-12)
			nearVec(t, "parallel capsule normal", con[i].Normal(), Vec3{1, 0, 0}, 1e-12)
			nearVec(t, "parallel capsule pos", con[i].Pos, Vec3{off / 2, 0, z}, 1e-12)
		}
	}
	// Parallel, offset along the axis: the segments overlap on z ∈ [0.1,
	// 0.2]; the contacts are at the two ends of the overlap.
	con := collideOne(t, c, at(0, 0, 0), c, at(0.09, 0, 0.3), 0)
	if len(con) != 2 {
		t.Fatalf("offset parallel capsules: %d contacts, want 2", len(con))
	}
	for i, z := range []float64{0.2, 0.1} {
		near(t, "offset parallel dist", con[i].Dist, -0.01, 1e-12)
		nearVec(t, "offset parallel pos", con[i].Pos, Vec3{0.045, 0, z}, 1e-12)
	}
	// Crossed capsules: segments along z and along y, offset along x.
	ry := AxisAngle(Vec3{1, 0, 0}, math.Pi/2)
	for _, off := range []float64{0.12, 0.09, 0.02} {
		con := collideOne(t, c, at(0, 0, 0), c, posed(Vec3{off, 0.05, -0.03}, ry), 0.05)
		if len(con) != 1 {
			t.Fatalf("crossed off=%v: %d contacts", off, len(con))
		}
		near(t, "crossed capsule dist", con[0].Dist, off-0.1, 1e-12)
		nearVec(t, "crossed pos", con[0].Pos, Vec3{off / 2, 0, -0.03}, 1e-12)
	}
	// Segments that intersect: depth from EPA on the full capsules, 2r.
	con = collideOne(t, c, at(0, 0, 0), c, posed(Vec3{0, 0, 0}, ry), 0)
	if len(con) != 1 {
		t.Fatalf("intersecting segments: %d contacts", len(con))
	}
	near(t, "intersecting capsule dist", con[0].Dist, -0.1, 1e-4)
}

func TestBoxBoxClosedForms(t *testing.T) {
	a := &Shape{Kind: Box, Size: Vec3{0.5, 0.5, 0.5}}
	b := &Shape{Kind: Box, Size: Vec3{0.2, 0.3, 0.1}}
	ha, hb := boxHull(t, a.Size), boxHull(t, b.Size)
	// Box b on top of box a, shifted so that it overhangs in x: its bottom
	// face clipped by a's top face is a 0.3 × 0.6 rectangle.
	for _, gap := range []float64{0.01, 0.0, -0.02} {
		p2 := at(0.4, 0.1, 0.5+0.1+gap)
		con := collideOne(t, a, at(0, 0, 0), b, p2, 0.02)
		if len(con) != 4 {
			t.Fatalf("gap %v: %d box-box contacts, want 4", gap, len(con))
		}
		for _, c := range con {
			near(t, "box-box dist", c.Dist, boxFaceDistScale*gap, 1e-12)
			nearVec(t, "box-box normal", c.Normal(), Vec3{0, 0, 1}, 1e-12)
			near(t, "contact height", c.Pos[2], 0.5+gap/2, 1e-12)
			if c.Pos[0] < 0.2-1e-12 || c.Pos[0] > 0.5+1e-12 || math.Abs(c.Pos[1]-0.1) > 0.3+1e-12 {
				t.Fatalf("contact %v outside the overlap rectangle", c.Pos)
			}
		}
		// The same pair as two hulls through GJK/EPA: one contact, same dist.
		con = collideOne(t, ha, at(0, 0, 0), hb, p2, 0.02)
		if len(con) != 1 {
			t.Fatalf("hull-hull gap %v: %d contacts", gap, len(con))
		}
		near(t, "hull-hull dist", con[0].Dist, gap, 1e-9)
		nearVec(t, "hull-hull normal", con[0].Normal(), Vec3{0, 0, 1}, 1e-9)
	}
	// Deep overlap along x only: depth is the smallest overlap.
	con := collideOne(t, ha, at(0, 0, 0), hb, at(0.6, 0, 0), 0)
	near(t, "overlap dist", con[0].Dist, 0.6-0.7, 1e-9)
	nearVec(t, "overlap normal", con[0].Normal(), Vec3{1, 0, 0}, 1e-9)
	// Corner-to-corner separation: distance between nearest corners.
	con = collideOne(t, a, at(0, 0, 0), a, at(1.1, 1.1, 1.1), 1)
	if len(con) != 1 {
		t.Fatalf("corner-corner: %d contacts", len(con))
	}
	near(t, "corner-corner box dist", con[0].Dist, math.Sqrt(3)*0.1, 1e-9)
	nearVec(t, "corner-corner pos", con[0].Pos, Vec3{0.55, 0.55, 0.55}, 1e-9)
	// A cube on a cube turned 45° about z: the overlap of the faces is a
	// regular octagon, 8 contacts, all on the circle of radius
	// 0.5/cos(22.5°) around the axis.
	con = collideOne(t, a, at(0, 0, 0), a, posed(Vec3{0, 0, 1 - 0.003}, AxisAngle(Vec3{0, 0, 1}, math.Pi/4)), 0)
	if len(con) != 8 {
		t.Fatalf("turned cube on cube: %d contacts, want 8", len(con))
	}
	for _, c := range con {
		near(t, "octagon dist", c.Dist, boxFaceDistScale*-0.003, 1e-12)
		near(t, "octagon radius", math.Hypot(c.Pos[0], c.Pos[1]), 0.5/math.Cos(math.Pi/8), 1e-12)
	}
	// Edge across edge: a cube turned 45° about y (top edge along y) under a
	// cube turned 45° about x (bottom edge along x): one contact where the
	// edges cross, normal +z, dist the gap.
	ry := AxisAngle(Vec3{0, 1, 0}, math.Pi/4)
	rx := AxisAngle(Vec3{1, 0, 0}, math.Pi/4)
	for _, g := range []float64{0.004, -0.004} {
		con = collideOne(t, a, posed(Vec3{}, ry), a, posed(Vec3{0, 0, math.Sqrt2 + g}, rx), 0.01)
		if len(con) != 1 {
			t.Fatalf("edge-edge gap %v: %d contacts", g, len(con))
		}
		near(t, "edge-edge dist", con[0].Dist, g, 1e-12)
		nearVec(t, "edge-edge normal", con[0].Normal(), Vec3{0, 0, 1}, 1e-12)
		nearVec(t, "edge-edge pos", con[0].Pos, Vec3{0, 0, math.Sqrt2/2 + g/2}, 1e-12)
	}
	near(t, "corner-corner hull dist", collideOne(t, ha, at(0, 0, 0), ha, at(1.1, 1.1, 1.1), 1)[0].Dist, math.Sqrt(3)*0.1, 1e-9)
}

// supportGap is h_A(u) + h_B(−u), the support function of A − B. Over
// unit u its minimum is minus the signed distance (separation or
// penetration depth), attained at the contact normal.
func supportGap(s1 *Shape, p1 *Pose, s2 *Shape, p2 *Pose, u Vec3) float64 {
	return u.Dot(s1.Support(p1, u)) - u.Dot(s2.Support(p2, u.Scale(-1)))
}

// mujocoManifold reports pairs that MuJoCo collides with its own
// multi-contact colliders rather than by least penetration.
func mujocoManifold(s1, s2 *Shape) bool {
	k1, k2 := s1.Kind, s2.Kind
	return k1 == Box && k2 == Box || k1 == Capsule && k2 == Box || k1 == Box && k2 == Capsule
}

func polytope(s *Shape) bool { return s.Kind == Box || s.Kind == Mesh }

func randomHull(t testing.TB, rng *rand.Rand, n int, scale Vec3) *Shape {
	pts := make([]Vec3, n)
	for i := range pts {
		pts[i] = Vec3{rng.NormFloat64() * scale[0], rng.NormFloat64() * scale[1], rng.NormFloat64() * scale[2]}
	}
	h, err := BuildHull(pts, HullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return &Shape{Kind: Mesh, Hull: h}
}

func randomShape(t testing.TB, rng *rand.Rand) *Shape {
	s := func() float64 { return 0.05 + 0.2*rng.Float64() }
	switch rng.IntN(6) {
	case 0:
		return &Shape{Kind: Sphere, Size: Vec3{s()}}
	case 1:
		return &Shape{Kind: Capsule, Size: Vec3{s(), s()}}
	case 2:
		return &Shape{Kind: Ellipsoid, Size: Vec3{s(), s(), s()}}
	case 3:
		return &Shape{Kind: Cylinder, Size: Vec3{s(), s()}}
	case 4:
		return &Shape{Kind: Box, Size: Vec3{s(), s(), s()}}
	}
	return randomHull(t, rng, 6+rng.IntN(40), Vec3{s(), s(), s()})
}

// TestNarrowPhaseAgainstSupportOptimum checks, for random pairs of every
// kind, that the reported normal attains the minimum of the support gap
// over all directions and that the minimum is −dist.
func TestNarrowPhaseAgainstSupportOptimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 1))
	// Fibonacci sphere of directions, plus local refinement around the best.
	const nd = 4000
	dirs := make([]Vec3, nd)
	for i := range dirs {
		z := 1 - 2*(float64(i)+0.5)/nd
		r := math.Sqrt(1 - z*z)
		phi := float64(i) * math.Pi * (3 - math.Sqrt(5))
		dirs[i] = Vec3{r * math.Cos(phi), r * math.Sin(phi), z}
	}
	var c Collider
	var con []Contact
	pen, sep := 0, 0
	rb := rand.New(rand.NewPCG(42, 2)) // brute force's own stream
	for trial := 0; trial < 400; trial++ {
		s1, s2 := randomShape(t, rng), randomShape(t, rng)
		if mujocoManifold(s1, s2) {
			continue // MuJoCo's own colliders: tested against MuJoCo
		}
		p1 := posed(Vec3{rng.NormFloat64() * 0.1, rng.NormFloat64() * 0.1, rng.NormFloat64() * 0.1}, randRot(rng))
		p2 := posed(Vec3{rng.NormFloat64() * 0.2, rng.NormFloat64() * 0.2, rng.NormFloat64() * 0.2}, randRot(rng))
		var err error
		con, err = c.Collide(con[:0], s1, p1, s2, p2, 10, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(con) != 1 {
			t.Fatalf("trial %d %v-%v: %d contacts with a 10 m margin", trial, s1.Kind, s2.Kind, len(con))
		}
		d, n := con[0].Dist, con[0].Normal()
		// Brute force: best sampled direction, refined by shrinking steps.
		best, bu := math.Inf(1), Vec3{}
		for _, u := range dirs {
			if g := supportGap(s1, p1, s2, p2, u); g < best {
				best, bu = g, u
			}
		}
		for step := 0.05; step > 1e-7; step *= 0.7 {
			for k := 0; k < 60; k++ {
				u := bu.Add(Vec3{rb.NormFloat64(), rb.NormFloat64(), rb.NormFloat64()}.Scale(step)).Unit()
				if g := supportGap(s1, p1, s2, p2, u); g < best {
					best, bu = g, u
				}
			}
		}
		// dist is attained along the normal (so the true signed distance is
		// at least dist), and no direction does better (so it is at most
		// dist): the normal is the optimum of the support gap. Polytopes
		// converge to rounding; curved pairs to MuJoCo's default
		// ccd_tolerance, 1e-6 m.
		tol := 1e-6
		if polytope(s1) && polytope(s2) {
			tol = 1e-10
		}
		if d < 0 {
			pen++
		} else {
			sep++
		}
		if got := supportGap(s1, p1, s2, p2, n); math.Abs(got+d) > tol {
			t.Fatalf("trial %d %v-%v: gap along the normal %v is %.9g, want −dist = %.9g", trial, s1.Kind, s2.Kind, n, got, -d)
		}
		if best < -d-tol {
			t.Fatalf("trial %d %v-%v: direction %v has gap %.9g < −dist %.9g: dist %.9g is not the optimum", trial, s1.Kind, s2.Kind, bu, best, -d, d)
		}
		// The contact point sits between the surfaces along the normal.
		w1 := n.Dot(s1.Support(p1, n))
		w2 := n.Dot(s2.Support(p2, n.Scale(-1)))
		near(t, "pos along normal", n.Dot(con[0].Pos), (w1+w2)/2, tol)
	}
	if pen < 50 || sep < 50 {
		t.Fatalf("only %d penetrating and %d separated trials; widen the sampling", pen, sep)
	}
}

func TestRigidMotionInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	var c Collider
	for trial := 0; trial < 200; trial++ {
		s1, s2 := randomShape(t, rng), randomShape(t, rng)
		p1 := posed(Vec3{rng.NormFloat64() * 0.1, 0, 0}, randRot(rng))
		p2 := posed(Vec3{rng.NormFloat64() * 0.2, rng.NormFloat64() * 0.2, 0}, randRot(rng))
		a, err := c.Collide(nil, s1, p1, s2, p2, 0.5, 0)
		if err != nil {
			t.Fatal(err)
		}
		T := Pose{Pos: Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}, Rot: randRot(rng)}
		q1, q2 := T.Compose(*p1), T.Compose(*p2)
		b, err := c.Collide(nil, s1, &q1, s2, &q2, 0.5, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(a) != len(b) {
			t.Fatalf("trial %d %v-%v: %d contacts, %d after a rigid motion", trial, s1.Kind, s2.Kind, len(a), len(b))
		}
		// Polytopes agree to rounding. Curved pairs agree to the solver
		// tolerance in dist; their normal and point move by about
		// sqrt(tolerance × radius) along a flat-ish optimum.
		tol, ntol := 1e-9, 1e-7
		if !polytope(s1) || !polytope(s2) {
			tol, ntol = 1e-6, 3e-3
		}
		for i := range a {
			near(t, "dist after motion", b[i].Dist, a[i].Dist, tol)
			nearVec(t, "pos after motion", b[i].Pos, T.Transform(a[i].Pos), ntol)
			nearVec(t, "normal after motion", b[i].Normal(), T.Rot.MulVec(a[i].Normal()), ntol)
		}
	}
}

func TestSwapFlipsNormal(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var c Collider
	for trial := 0; trial < 100; trial++ {
		s1, s2 := randomShape(t, rng), randomShape(t, rng)
		if s1.Kind == Box && s2.Kind == Box {
			continue
		}
		p1 := posed(Vec3{}, randRot(rng))
		p2 := posed(Vec3{rng.NormFloat64() * 0.3, rng.NormFloat64() * 0.3, 0}, randRot(rng))
		a, _ := c.Collide(nil, s1, p1, s2, p2, 1, 0)
		b, _ := c.Collide(nil, s2, p2, s1, p1, 1, 0)
		if len(a) != len(b) || len(a) == 0 {
			t.Fatalf("%v-%v: %d and %d contacts", s1.Kind, s2.Kind, len(a), len(b))
		}
		tol, ntol := 1e-9, 1e-7
		if !polytope(s1) || !polytope(s2) {
			tol, ntol = 1e-6, 3e-3
		}
		for i := range a {
			near(t, "dist swapped", b[i].Dist, a[i].Dist, tol)
			nearVec(t, "normal swapped", b[i].Normal(), a[i].Normal().Scale(-1), ntol)
		}
	}
}

func TestPlaneContacts(t *testing.T) {
	plane := &Shape{Kind: Plane}
	tilt := AxisAngle(Vec3{1, 1, 0}, 0.3)
	pp := posed(Vec3{0, 0, 0.1}, tilt)
	n := tilt.Col(2)
	// Box resting on the tilted plane, 2 mm into it: 4 bottom corners.
	box := &Shape{Kind: Box, Size: Vec3{0.1, 0.2, 0.05}}
	bp := posed(pp.Pos.AddScaled(n, 0.05-0.002), tilt.Mul(AxisAngle(Vec3{0, 0, 1}, 0.7)))
	con := collideOne(t, plane, pp, box, bp, 0.001)
	if len(con) != 4 {
		t.Fatalf("box on plane: %d contacts, want 4", len(con))
	}
	for _, c := range con {
		near(t, "box corner dist", c.Dist, -0.002, 1e-12)
		nearVec(t, "plane normal", c.Normal(), n, 1e-12)
		// Midway: 1 mm below the plane surface... i.e. −dist/2 above the corner.
		near(t, "pos height", n.Dot(c.Pos.Sub(pp.Pos)), -0.001, 1e-12)
	}
	// Reversed order: normal points from the box to the plane.
	var cl Collider
	rev, _ := cl.Collide(nil, box, bp, plane, pp, 0.001, 0)
	if len(rev) != 4 {
		t.Fatalf("box–plane reversed: %d contacts", len(rev))
	}
	nearVec(t, "reversed normal", rev[0].Normal(), n.Scale(-1), 1e-12)
	// Horizontal capsule: one contact per end.
	cap := &Shape{Kind: Capsule, Size: Vec3{0.03, 0.2}}
	cp := posed(pp.Pos.AddScaled(n, 0.03+0.0005), tilt.Mul(AxisAngle(Vec3{1, 0, 0}, math.Pi/2)))
	con = collideOne(t, plane, pp, cap, cp, 0.001)
	if len(con) != 2 {
		t.Fatalf("capsule on plane: %d contacts, want 2", len(con))
	}
	for _, c := range con {
		near(t, "capsule end dist", c.Dist, 0.0005, 1e-12)
	}
	// A hull cube resting flat: mjc_PlaneConvex gives the deepest vertex
	// and up to two neighbours within margin, 3 in all.
	hc := boxHull(t, Vec3{0.1, 0.1, 0.1})
	hp := posed(pp.Pos.AddScaled(n, 0.1-0.001), tilt)
	con = collideOne(t, plane, pp, hc, hp, 0)
	if len(con) != 3 {
		t.Fatalf("hull cube on plane: %d contacts, want 3", len(con))
	}
	for i, c := range con {
		near(t, "hull vertex dist", c.Dist, -0.001, 1e-12)
		for j := 0; j < i; j++ {
			if c.Pos.Sub(con[j].Pos).Norm() < tolPlaneMesh*hc.Hull.RBound {
				t.Fatalf("contacts %d and %d closer than 0.3 rbound", i, j)
			}
		}
	}
	// Tipped on an edge the cube touches with 2 vertices only.
	hp = posed(pp.Pos.AddScaled(n, 0.1*math.Sqrt2-0.001), tilt.Mul(AxisAngle(Vec3{1, 0, 0}, math.Pi/4)))
	con = collideOne(t, plane, pp, hc, hp, 0)
	if len(con) != 2 {
		t.Fatalf("hull cube on an edge: %d contacts, want 2", len(con))
	}
	// Sphere and ellipsoid: the lowest point.
	for _, s := range []*Shape{{Kind: Sphere, Size: Vec3{0.1}}, {Kind: Ellipsoid, Size: Vec3{0.3, 0.2, 0.1}}} {
		sp := posed(pp.Pos.AddScaled(n, 0.1-0.003), tilt)
		con = collideOne(t, plane, pp, s, sp, 0)
		if len(con) != 1 {
			t.Fatalf("%v on plane: %d contacts", s.Kind, len(con))
		}
		near(t, s.Kind.String()+" on plane dist", con[0].Dist, -0.003, 1e-12)
	}
	// Cylinder standing on its cap, 3 mm in: three rim points 120° apart
	// (mjc_PlaneCylinder); lying on its side: one rim point per cap.
	cyl := &Shape{Kind: Cylinder, Size: Vec3{0.2, 0.1}}
	con = collideOne(t, plane, pp, cyl, posed(pp.Pos.AddScaled(n, 0.1-0.003), tilt), 0)
	if len(con) != 3 {
		t.Fatalf("standing cylinder: %d contacts, want 3", len(con))
	}
	for i, c := range con {
		near(t, "standing cylinder dist", c.Dist, -0.003, 1e-12)
		// On the rim: 0.2 m from the axis; 120° apart: 0.2·√3 from each other.
		rel := c.Pos.Sub(pp.Pos)
		near(t, "rim radius", rel.Sub(n.Scale(n.Dot(rel))).Norm(), 0.2, 1e-12)
		for j := 0; j < i; j++ {
			near(t, "rim spacing", c.Pos.Sub(con[j].Pos).Norm(), 0.2*math.Sqrt(3), 1e-12)
		}
	}
	lying := tilt.Mul(AxisAngle(Vec3{1, 0, 0}, math.Pi/2))
	con = collideOne(t, plane, pp, cyl, posed(pp.Pos.AddScaled(n, 0.2-0.003), lying), 0)
	if len(con) != 2 {
		t.Fatalf("lying cylinder: %d contacts, want 2", len(con))
	}
	near(t, "lying cylinder contacts apart", con[0].Pos.Sub(con[1].Pos).Norm(), 0.2, 1e-12)
}

func TestCollideRejectsBadInput(t *testing.T) {
	var c Collider
	good := &Shape{Kind: Sphere, Size: Vec3{0.1}}
	bad := []*Shape{
		{Kind: Sphere, Size: Vec3{-1}},
		{Kind: Box, Size: Vec3{1, 0, 1}},
		{Kind: Capsule, Size: Vec3{math.NaN(), 1}},
		{Kind: Mesh},
		{Kind: 42, Size: Vec3{1, 1, 1}},
		nil,
	}
	for _, s := range bad {
		if _, err := c.Collide(nil, good, at(0, 0, 0), s, at(0, 0, 0), 0, 0); err == nil {
			t.Errorf("shape %+v accepted", s)
		}
	}
	if _, err := c.Collide(nil, good, at(math.NaN(), 0, 0), good, at(0, 0, 0), 0, 0); err == nil {
		t.Error("NaN pose accepted")
	}
	badRot := at(0, 0, 0)
	badRot.Rot[7] = math.Inf(1)
	if _, err := c.Collide(nil, good, at(0, 0, 0), good, badRot, 0, 0); err == nil {
		t.Error("infinite rotation accepted")
	}
	if _, err := c.Collide(nil, good, nil, good, at(0, 0, 0), 0, 0); err == nil {
		t.Error("nil pose accepted")
	}
	if _, err := c.Collide(nil, good, at(0, 0, 0), good, at(0, 0, 0), -1, 0); err == nil {
		t.Error("negative margin accepted")
	}
}

func TestNarrowPhaseAllocatesNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	h1, h2 := randomHull(t, rng, 60, Vec3{0.1, 0.1, 0.1}), randomHull(t, rng, 60, Vec3{0.1, 0.2, 0.1})
	box := &Shape{Kind: Box, Size: Vec3{0.1, 0.1, 0.1}}
	sph := &Shape{Kind: Sphere, Size: Vec3{0.1}}
	capS := &Shape{Kind: Capsule, Size: Vec3{0.05, 0.1}}
	plane := &Shape{Kind: Plane}
	p1 := posed(Vec3{}, randRot(rng))
	p2 := posed(Vec3{0.05, 0.02, 0.1}, randRot(rng))
	cyl := &Shape{Kind: Cylinder, Size: Vec3{0.1, 0.1}}
	ell := &Shape{Kind: Ellipsoid, Size: Vec3{0.1, 0.05, 0.08}}
	pairs := [][2]*Shape{{h1, h2}, {box, box}, {sph, capS}, {capS, capS}, {plane, h1}, {plane, box}, {h1, box}, {box, sph},
		{plane, cyl}, {cyl, ell}, {ell, h1}}
	var c Collider
	dst := make([]Contact, 0, MaxContacts)
	check := func(s1 *Shape, q1 *Pose, s2 *Shape, q2 *Pose) {
		t.Helper()
		dst, _ = c.Collide(dst[:0], s1, q1, s2, q2, 0.01, 0) // warm-up
		if len(dst) == 0 {
			t.Errorf("%v-%v: no contact to measure", s1.Kind, s2.Kind)
		}
		allocs := testing.AllocsPerRun(100, func() {
			dst, _ = c.Collide(dst[:0], s1, q1, s2, q2, 0.01, 0)
		})
		if allocs != 0 {
			t.Errorf("%v-%v: %v allocations per call after warm-up", s1.Kind, s2.Kind, allocs)
		}
	}
	for _, pr := range pairs {
		check(pr[0], p1, pr[1], p2)
	}
	// Parallel capsules (two contacts) and a standing cylinder (three).
	check(capS, at(0, 0, 0), capS, at(0.09, 0, 0))
	check(plane, at(0, 0, 0), cyl, at(0, 0, 0.099))
	check(plane, at(0, 0, 0), capS, posed(Vec3{0, 0, 0.049}, AxisAngle(Vec3{1, 0, 0}, math.Pi/2)))
	// Box on box across an edge axis (the edge-case manifold).
	big := &Shape{Kind: Box, Size: Vec3{0.5, 0.5, 0.5}}
	check(big, posed(Vec3{}, AxisAngle(Vec3{0, 1, 0}, math.Pi/4)), big, posed(Vec3{0, 0, math.Sqrt2 - 0.004}, AxisAngle(Vec3{1, 0, 0}, math.Pi/4)))
	// A capsule lying on a box: two contacts (MuJoCo's capsule–box).
	check(capS, posed(Vec3{0, 0, 0.149}, AxisAngle(Vec3{1, 0, 0}, math.Pi/2)), box, at(0, 0, 0))
}

// TestCylinderSupport: the support point of a cylinder is the rim point
// of the cap the direction leans towards, and no sampled point of the
// cylinder lies farther along it; a direction whose radial part is below
// mjMINVAL (1e-15) gives the cap's centre, as mjc_cylinderSupport does.
func TestCylinderSupport(t *testing.T) {
	s := &Shape{Kind: Cylinder, Size: Vec3{0.02, 0.03}}
	rng := rand.New(rand.NewPCG(5, 7))
	for i := 0; i < 1000; i++ {
		d := Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		p := s.SupportLocal(d)
		if r := math.Hypot(p[0], p[1]); math.Abs(r-0.02) > 1e-16 {
			t.Fatalf("dir %v: support %v is %g m off the axis, want the radius 0.02", d, p, r)
		}
		if want := math.Copysign(0.03, d[2]); p[2] != want {
			t.Fatalf("dir %v: support z %g, want %g", d, p[2], want)
		}
		best := p.Dot(d)
		for k := 0; k < 64; k++ {
			a := 2 * math.Pi * float64(k) / 64
			for _, z := range []float64{-0.03, 0.03} {
				if q := (Vec3{0.02 * math.Cos(a), 0.02 * math.Sin(a), z}); q.Dot(d) > best+1e-15 {
					t.Fatalf("dir %v: rim point %v lies farther (%g) than the support %v (%g)", d, q, q.Dot(d), p, best)
				}
			}
		}
		// the posed support is the local one moved with the pose
		pose := Pose{Pos: Vec3{0.1, -0.2, 0.3}, Rot: randRot(rng)}
		w := s.Support(&pose, pose.Rot.MulVec(d))
		if e := w.Sub(pose.Transform(p)).Norm(); e > 1e-15 {
			t.Fatalf("dir %v: posed support %v differs from the moved local one by %g m", d, w, e)
		}
	}
	for _, d := range []Vec3{{1e-16, 0, 1}, {0, -5e-16, -2}, {0, 0, 1}} {
		want := Vec3{0, 0, math.Copysign(0.03, d[2])}
		if p := s.SupportLocal(d); p != want {
			t.Errorf("dir %v (radial part below mjMINVAL): support %v, want the cap centre %v", d, p, want)
		}
	}
}
