package convex

import (
	"fmt"
	"math"
)

// MaxContacts is the capacity of dst with which Collide never allocates:
// box–box builds up to 16 candidate contacts in place before MuJoCo's
// filter keeps at most 8 of them.
const MaxContacts = 16

// Contact is one contact point in MuJoCo's mjContact convention.
type Contact struct {
	// Dist is the signed distance between the surfaces (m): negative in
	// penetration. A contact exists while Dist < margin (≤ for the plane
	// colliders, as MuJoCo's code has it).
	Dist float64
	// Pos is the contact point (m, world): midway between the two surfaces.
	Pos Vec3
	// Frame is the contact frame, row-major: row 0 is the normal pointing
	// from geom1 to geom2, rows 1 and 2 the tangents, as mju_makeFrame
	// builds them.
	Frame Mat3
	// IncludeMargin is margin − gap (m): the solver treats the contact as
	// active only while Dist < IncludeMargin.
	IncludeMargin float64
}

// Normal returns the contact normal (row 0 of Frame).
func (c *Contact) Normal() Vec3 { return Vec3{c.Frame[0], c.Frame[1], c.Frame[2]} }

// Active reports whether the constraint solver would use the contact
// (MuJoCo: dist < margin − gap).
func (c *Contact) Active() bool { return c.Dist < c.IncludeMargin }

// PairMarginGap combines two geoms' margin and gap as MuJoCo does for
// dynamically found pairs: the larger of each.
func PairMarginGap(margin1, gap1, margin2, gap2 float64) (margin, gap float64) {
	return math.Max(margin1, margin2), math.Max(gap1, gap2)
}

// Collider runs the narrow phase. Its zero value is ready; it keeps scratch
// buffers between calls, so use one per goroutine.
type Collider struct {
	// Tolerance (m), when > 0, stops EPA as MuJoCo's native CCD does at
	// its ccd_tolerance: once the best upper bound on the penetration
	// depth (the least support value along a closest face's normal so
	// far) is within Tolerance of the closest face's distance, except on
	// pairs of polytopes (boxes and meshes, margin 0), which MuJoCo and
	// this package run to rounding. 0: every pair to rounding.
	Tolerance float64
	// MaxIterations, when > 0, bounds GJK's iterations and EPA's
	// expansions as MuJoCo's ccd_iterations; 0: the package's 64 and 128.
	MaxIterations int

	smp     simplex
	smp2    simplex // gjk's second buffer
	verts   []svert
	faces   []epaFace
	faceD   []float64 // per face: its offset d while alive, +Inf once removed
	horizon []epaEdge
	stamp   int32
}

// Collide appends to dst the contacts between shape s1 at pose p1 (geom1)
// and s2 at p2 (geom2) whose distance is below margin (m), and returns the
// extended slice. gap (m) only sets Contact.IncludeMargin = margin − gap.
// Normals point from geom1 to geom2; MuJoCo orders a pair by geom type
// (Kind), lower first, and callers that want its contacts should too.
// Plane pairs, parallel capsules, capsule–box and box–box give several
// contacts as MuJoCo's colliders do (see the package doc); every other pair
// gives at most one, from GJK (separated) or EPA (penetrating). It returns
// an error, and dst unchanged, for an invalid shape, a missing or
// non-finite pose, or a negative margin or gap.
func (c *Collider) Collide(dst []Contact, s1 *Shape, p1 *Pose, s2 *Shape, p2 *Pose, margin, gap float64) ([]Contact, error) {
	if err := s1.Validate(); err != nil {
		return dst, fmt.Errorf("geom1: %w", err)
	}
	if err := s2.Validate(); err != nil {
		return dst, fmt.Errorf("geom2: %w", err)
	}
	if p1 == nil || p2 == nil {
		return dst, fmt.Errorf("convex: nil pose; pass the geom's world pose")
	}
	if !finitePose(p1) || !finitePose(p2) {
		return dst, fmt.Errorf("convex: pose is not finite (geom1 %v %v, geom2 %v %v)", p1.Pos, p1.Rot, p2.Pos, p2.Rot)
	}
	if math.IsNaN(margin) || math.IsNaN(gap) || margin < 0 || gap < 0 {
		return dst, fmt.Errorf("convex: margin %v and gap %v must be ≥ 0 (m)", margin, gap)
	}
	return c.CollideValid(dst, s1, p1, s2, p2, margin, gap), nil
}

// CollideValid is Collide without its checks, for callers that validated
// the shapes once (Shape.Validate) and know the poses are finite and
// margin and gap ≥ 0 (an engine's inner loop, where the checks cost as
// much as a separated box–box test). Invalid input gives meaningless
// contacts.
func (c *Collider) CollideValid(dst []Contact, s1 *Shape, p1 *Pose, s2 *Shape, p2 *Pose, margin, gap float64) []Contact {
	n0 := len(dst)
	switch {
	case s1.Kind == Plane && s2.Kind == Plane:
		return dst // MuJoCo does not collide planes with planes
	case s2.Kind == Plane:
		// Collide with the plane first, then flip the normals.
		dst = c.plane(dst, p2, s1, p1, margin)
		for i := n0; i < len(dst); i++ {
			for k := 0; k < 3; k++ {
				dst[i].Frame[k] = -dst[i].Frame[k]
			}
		}
	case s1.Kind == Plane:
		dst = c.plane(dst, p1, s2, p2, margin)
	case s1.Kind == Box && s2.Kind == Box:
		var fallback bool
		if dst, fallback = boxBox(dst, s1, p1, s2, p2, margin); fallback {
			dst = c.convexPair(dst, s1, p1, s2, p2, margin)
		}
	case s1.Kind == Capsule && s2.Kind == Box:
		dst = capsuleBox(dst, s1, p1, s2, p2, margin)
	case s1.Kind == Box && s2.Kind == Capsule:
		dst = capsuleBox(dst, s2, p2, s1, p1, margin)
		for i := n0; i < len(dst); i++ {
			for k := 0; k < 3; k++ {
				dst[i].Frame[k] = -dst[i].Frame[k]
			}
		}
	case s1.Kind == Capsule && s2.Kind == Capsule && parallelCapsules(p1, p2):
		dst = capsulesParallel(dst, s1, p1, s2, p2, margin)
	default:
		dst = c.convexPair(dst, s1, p1, s2, p2, margin)
	}
	for i := n0; i < len(dst); i++ {
		if i > n0 && [3]float64(dst[i].Frame[:3]) == [3]float64(dst[i-1].Frame[:3]) && [3]float64(dst[i].Frame[3:6]) == [3]float64{} {
			for k := range 9 { // the same normal, completed already
				dst[i].Frame[k] = dst[i-1].Frame[k] // (element by element: just stored so)
			}
		} else {
			makeFrame(&dst[i].Frame)
		}
		dst[i].IncludeMargin = margin - gap
	}
	return dst
}

func finitePose(p *Pose) bool {
	return finite(p.Pos) && finite(Vec3(p.Rot[0:3])) && finite(Vec3(p.Rot[3:6])) && finite(Vec3(p.Rot[6:9]))
}

// parallelCapsules reports capsule axes parallel to within MuJoCo's
// mjMINVAL (1e-15) on sin² of their angle; such pairs get up to two
// contacts in mjc_CapsuleCapsule.
func parallelCapsules(p1, p2 *Pose) bool {
	c := p1.Rot.Col(2).Cross(p2.Rot.Col(2))
	return c.Dot(c) < 1e-15
}

// capsulesParallel tests, as sphere pairs, each end of segment 1 against
// its projection clamped onto segment 2, then, while fewer than two
// contacts were found, each end of segment 2 against segment 1.
func capsulesParallel(dst []Contact, s1 *Shape, p1 *Pose, s2 *Shape, p2 *Pose, margin float64) []Contact {
	a1, a2 := p1.Rot.Col(2).Scale(s1.Size[1]), p2.Rot.Col(2).Scale(s2.Size[1])
	r1, r2 := s1.Size[0], s2.Size[0]
	clampOn := func(q, c, a Vec3) Vec3 {
		t := q.Sub(c).Dot(a) / a.Dot(a)
		return c.AddScaled(a, math.Max(-1, math.Min(1, t)))
	}
	n := 0
	sphere := func(q1, q2 Vec3) {
		d := q2.Sub(q1)
		l := d.Norm()
		if l-r1-r2 > margin || l == 0 {
			return
		}
		nrm := d.Scale(1 / l)
		dist := l - r1 - r2
		dst = append(dst, Contact{Dist: dist, Pos: q1.AddScaled(nrm, r1+dist/2), Frame: Mat3{nrm[0], nrm[1], nrm[2]}})
		n++
	}
	for _, sg := range [2]float64{1, -1} {
		e := p1.Pos.AddScaled(a1, sg)
		sphere(e, clampOn(e, p2.Pos, a2))
	}
	for _, sg := range [2]float64{1, -1} {
		if n >= 2 {
			break
		}
		e := p2.Pos.AddScaled(a2, sg)
		sphere(clampOn(e, p1.Pos, a1), e)
	}
	return dst
}

// convexPair is the general narrow phase: GJK between the cores (spheres
// and capsules shrunk to points and segments), EPA on the full shapes when
// the cores overlap.
func (c *Collider) convexPair(dst []Contact, s1 *Shape, p1 *Pose, s2 *Shape, p2 *Pose, margin float64) []Contact {
	r1, h1, round1 := s1.core()
	r2, h2, round2 := s2.core()
	A := sobj{s: s1, p: p1, coreOnly: round1, halfLen: h1}
	B := sobj{s: s2, p: p2, coreOnly: round2, halfLen: h2}
	scale := s1.RBound() + s2.RBound()
	rsum := r1 + r2
	dist, pa, pb, hit := c.gjk(&A, &B, margin+rsum, scale)
	if !hit {
		if dist-rsum >= margin || dist == 0 {
			return dst
		}
		n := pb.Sub(pa).Scale(1 / dist)
		pa = pa.AddScaled(n, r1)
		pb = pb.AddScaled(n, -r2)
		return append(dst, Contact{Dist: dist - rsum, Pos: pa.Add(pb).Scale(0.5), Frame: Mat3{n[0], n[1], n[2]}})
	}
	if round1 || round2 {
		// The cores touch: penetration deeper than the radii. Run GJK on
		// the full shapes to get a simplex for EPA.
		A.coreOnly, B.coreOnly = false, false
		if _, _, _, hit = c.gjk(&A, &B, -1, scale); !hit {
			return dst
		}
	}
	tol := 0.0
	if c.Tolerance > 0 && (margin != 0 || !discreteKind(s1.Kind) || !discreteKind(s2.Kind)) {
		tol = c.Tolerance
	}
	depth, n, pa, pb, ok := c.epa(&A, &B, scale, tol)
	if !ok {
		return dst
	}
	if n == (Vec3{}) {
		n = Vec3{0, 0, 1}
	}
	return append(dst, Contact{Dist: -depth, Pos: pa.Add(pb).Scale(0.5), Frame: Mat3{n[0], n[1], n[2]}})
}

// discreteKind reports a kind MuJoCo's CCD treats as discrete (mjGEOM_BOX,
// mjGEOM_MESH): EPA runs to rounding on a pair of them.
func discreteKind(k Kind) bool { return k == Box || k == Mesh }

// plane collides the plane at pp (normal: its local z) with s at p.
func (c *Collider) plane(dst []Contact, pp *Pose, s *Shape, p *Pose, margin float64) []Contact {
	n := pp.Rot.Col(2)
	h := n.Dot(p.Pos.Sub(pp.Pos)) // height of the geom centre above the plane
	add := func(pt Vec3, d float64) { dst = planeContact(dst, n, pt[0], pt[1], pt[2], d) }
	switch s.Kind {
	case Sphere:
		// mjc_PlaneSphere.
		if d := h - s.Size[0]; d <= margin {
			add(p.Pos.AddScaled(n, -s.Size[0]), d)
		}
	case Capsule:
		// mjc_PlaneCapsule: a sphere at each end of the segment; the
		// capsule axis is the frame's first tangent.
		z := p.Rot.Col(2)
		for _, sg := range [2]float64{1, -1} {
			e := p.Pos.AddScaled(z, sg*s.Size[1])
			if d := n.Dot(e.Sub(pp.Pos)) - s.Size[0]; d <= margin {
				add(e.AddScaled(n, -s.Size[0]), d)
				copy(dst[len(dst)-1].Frame[3:6], z[:])
			}
		}
	case Cylinder:
		dst = planeCylinder(dst, n, pp.Pos, s, p, margin)
	case Box:
		// mjc_PlaneBox: corners below the centre and within margin, at most 4.
		cnt := 0
		for i := 0; i < 8 && cnt < 4; i++ {
			v := Vec3{-s.Size[0], -s.Size[1], -s.Size[2]}
			if i&1 != 0 {
				v[0] = s.Size[0]
			}
			if i&2 != 0 {
				v[1] = s.Size[1]
			}
			if i&4 != 0 {
				v[2] = s.Size[2]
			}
			// corner := p.Rot.MulVec(v) and n·corner, in scalars
			R := &p.Rot
			c0 := R[0]*v[0] + R[1]*v[1] + R[2]*v[2]
			c1 := R[3]*v[0] + R[4]*v[1] + R[5]*v[2]
			c2 := R[6]*v[0] + R[7]*v[1] + R[8]*v[2]
			ld := n[0]*c0 + n[1]*c1 + n[2]*c2
			if h+ld > margin || ld > 0 {
				continue
			}
			dst = planeContact(dst, n, p.Pos[0]+c0, p.Pos[1]+c1, p.Pos[2]+c2, h+ld)
			cnt++
		}
	case Mesh:
		dst = planeMesh(dst, n, pp.Pos, s.Hull, p, margin)
	default:
		// Ellipsoid: the deepest support point, one contact (MuJoCo runs
		// mjc_PlaneConvex, which stops there for non-meshes).
		pt := s.Support(p, n.Scale(-1))
		if d := n.Dot(pt.Sub(pp.Pos)); d <= margin {
			add(pt, d)
		}
	}
	return dst
}

// planeCylinder gives MuJoCo's plane–cylinder contacts (mjc_PlaneCylinder):
// the rim point of the cap nearer the plane that lies deepest, the rim
// point of the other cap on the same side, and, when the near cap is close
// enough, two more rim points of the near cap 120° either side of the
// first, each kept while within margin. If the deepest point is beyond
// margin there are none.
func planeCylinder(dst []Contact, n, p0 Vec3, s *Shape, p *Pose, margin float64) []Contact {
	// In scalars, with the operations of Col, Dot, Scale, Sub, Norm, Add,
	// AddScaled, Cross and Unit in their order: Vec3 temporaries went
	// through memory (reach's plane–puck pair runs this every step).
	r, h := s.Size[0], s.Size[1]
	R := &p.Rot
	a0, a1, a2 := R[2], R[5], R[8] // the axis, Col(2)
	na := n[0]*a0 + n[1]*a1 + n[2]*a2
	if na > 0 {
		a0, a1, a2, na = a0*-1, a1*-1, a2*-1, -na // axis towards the plane
	}
	d0 := n[0]*(p.Pos[0]-p0[0]) + n[1]*(p.Pos[1]-p0[1]) + n[2]*(p.Pos[2]-p0[2])
	// Radial direction in the caps' plane that points most into the plane.
	v0, v1, v2 := a0*na-n[0], a1*na-n[1], a2*na-n[2]
	if l := math.Sqrt(v0*v0 + v1*v1 + v2*v2); l >= 1e-15 {
		sc := r / l
		v0, v1, v2 = v0*sc, v1*sc, v2*sc
	} else {
		v0, v1, v2 = R[0]*r, R[3]*r, R[6]*r // cap parallel to the plane: any radius
	}
	nv := n[0]*v0 + n[1]*v1 + n[2]*v2
	h0, h1, h2 := a0*h, a1*h, a2*h
	d1 := d0 + h*na + nv
	if d1 > margin {
		return dst
	}
	x0, x1, x2 := p.Pos[0]+v0, p.Pos[1]+v1, p.Pos[2]+v2
	dst = planeContact(dst, n, x0+h0, x1+h1, x2+h2, d1)
	if d2 := d0 - h*na + nv; d2 <= margin {
		dst = planeContact(dst, n, x0-h0, x1-h1, x2-h2, d2)
	}
	if d3 := d0 + h*na - nv/2; d3 <= margin {
		// w = unit(v × ha)·r·√3/2
		w0, w1, w2 := v1*h2-v2*h1, v2*h0-v0*h2, v0*h1-v1*h0
		if l := math.Sqrt(w0*w0 + w1*w1 + w2*w2); l == 0 {
			w0, w1, w2 = 0, 0, 0
		} else {
			u := 1 / l
			w0, w1, w2 = w0*u, w1*u, w2*u
		}
		sc := r * math.Sqrt(3) / 2
		w0, w1, w2 = w0*sc, w1*sc, w2*sc
		// c = pos + ha − v/2
		c0, c1, c2 := (p.Pos[0]+h0)+v0*-0.5, (p.Pos[1]+h1)+v1*-0.5, (p.Pos[2]+h2)+v2*-0.5
		dst = planeContact(dst, n, c0+w0, c1+w1, c2+w2, d3)
		dst = planeContact(dst, n, c0-w0, c1-w1, c2-w2, d3)
	}
	return dst
}

// planeContact appends the contact at the surface point pt (depth d along
// the plane normal n): Pos = pt − n·d/2, frame row 0 = n, written in place.
func planeContact(dst []Contact, n Vec3, pt0, pt1, pt2, d float64) []Contact {
	k := len(dst)
	if k < cap(dst) {
		dst = dst[:k+1]
	} else {
		dst = append(dst, Contact{})
	}
	c := &dst[k]
	sc := -0.5 * d
	c.Dist = d
	c.Pos[0], c.Pos[1], c.Pos[2] = pt0+n[0]*sc, pt1+n[1]*sc, pt2+n[2]*sc
	c.Frame = Mat3{n[0], n[1], n[2]}
	c.IncludeMargin = 0
	return dst
}

// Plane–mesh constants of MuJoCo 3.x's mjc_PlaneConvex.
const (
	maxPlaneMesh = 3   // contacts per plane–mesh pair
	tolPlaneMesh = 0.3 // skip vertices closer than this × rbound to the first contact
)

// planeMesh follows mjc_PlaneConvex: the hull's deepest vertex first, then
// its hull-graph neighbours that lie within margin of the plane and farther
// than tolPlaneMesh·rbound from the first contact, up to maxPlaneMesh.
func planeMesh(dst []Contact, n, p0 Vec3, h *Hull, p *Pose, margin float64) []Contact {
	frame := Mat3{n[0], n[1], n[2]}
	ib := h.Support(p.Rot.MulTVec(n.Scale(-1)))
	pt := p.Transform(h.Verts[ib])
	d := n.Dot(pt.Sub(p0))
	if d > margin {
		return dst
	}
	first := pt.AddScaled(n, -0.5*d)
	dst = append(dst, Contact{Dist: d, Pos: first, Frame: frame})
	count := 1
	for _, j := range h.Adj[ib] {
		if count >= maxPlaneMesh {
			break
		}
		q := p.Transform(h.Verts[j])
		dq := n.Dot(q.Sub(p0))
		if dq >= margin || q.Sub(first).Norm() < tolPlaneMesh*h.RBound {
			continue
		}
		dst = append(dst, Contact{Dist: dq, Pos: q.AddScaled(n, -0.5*dq), Frame: frame})
		count++
	}
	return dst
}

// makeFrame completes a contact frame from its normal (row 0) as
// mju_makeFrame does: row 1, when a collider left a tangent hint there
// (length ≥ 0.5; plane–capsule puts the capsule axis), else (0,1,0), or
// (0,0,1) when the normal is close to y, made orthogonal to the normal;
// row 2 = normal × row 1.
//
// In scalars (the Vec3 temporaries stayed in memory); the operations and
// their order are Unit's, Norm's, Dot's and Cross's.
func makeFrame(f *Mat3) {
	x0, x1, x2 := f[0], f[1], f[2]
	if n := math.Sqrt(x0*x0 + x1*x1 + x2*x2); n == 0 {
		x0, x1, x2 = 0, 0, 0
	} else {
		s := 1 / n
		x0, x1, x2 = x0*s, x1*s, x2*s
	}
	y0, y1, y2 := f[3], f[4], f[5]
	if math.Sqrt(y0*y0+y1*y1+y2*y2) < 0.5 {
		if math.Abs(x1) < 0.5 {
			y0, y1, y2 = 0, 1, 0
		} else {
			y0, y1, y2 = 0, 0, 1
		}
	}
	xy := x0*y0 + x1*y1 + x2*y2
	y0, y1, y2 = y0-x0*xy, y1-x1*xy, y2-x2*xy
	if n := math.Sqrt(y0*y0 + y1*y1 + y2*y2); n == 0 {
		y0, y1, y2 = 0, 0, 0
	} else {
		s := 1 / n
		y0, y1, y2 = y0*s, y1*s, y2*s
	}
	*f = Mat3{x0, x1, x2, y0, y1, y2, x1*y2 - x2*y1, x2*y0 - x0*y2, x0*y1 - x1*y0}
}
