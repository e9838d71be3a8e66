package convex

import "math"

// Solver constants (unitless unless said). Lengths scale with the shapes'
// bounding radii so that millimetre and metre scenes converge alike.
const (
	gjkMaxIter = 64    // GJK iterations; polytopes converge in a handful
	gjkRelTol  = 1e-10 // stop when |v|² − v·w ≤ gjkRelTol·|v|² (distance to ~5e-11 relative)
	epaMaxIter = 128   // EPA expansions; smooth shapes need the most
	epaRelTol  = 1e-10 // stop when the support gains < epaRelTol·scale (m)
	hitRelTol  = 1e-12 // |v| below hitRelTol·scale counts as touching
)

// sobj is a posed convex set seen through its support function; for a
// sphere or capsule with coreOnly it is the centre point or the segment.
type sobj struct {
	s        *Shape
	p        *Pose
	coreOnly bool
	halfLen  float64
}

func (o *sobj) support(dir Vec3) Vec3 {
	if o.coreOnly {
		if o.halfLen == 0 {
			return o.p.Pos
		}
		z := o.p.Rot.Col(2)
		if dir.Dot(z) >= 0 {
			return o.p.Pos.AddScaled(z, o.halfLen)
		}
		return o.p.Pos.AddScaled(z, -o.halfLen)
	}
	return o.s.Support(o.p, dir)
}

// svert is a vertex of the Minkowski difference A − B with its two parts.
type svert struct{ w, a, b Vec3 }

func supportPair(A, B *sobj, dir Vec3) svert {
	var v svert
	supportPairTo(&v, A, B, dir[0], dir[1], dir[2])
	return v
}

// supportPairTo writes the vertex of A − B along (d0, d1, d2) into v: A's
// support point along it, B's along its negation (dir.Scale(-1), exactly).
func supportPairTo(v *svert, A, B *sobj, d0, d1, d2 float64) {
	A.supportTo(&v.a, d0, d1, d2)
	B.supportTo(&v.b, -d0, -d1, -d2)
	v.w[0], v.w[1], v.w[2] = v.a[0]-v.b[0], v.a[1]-v.b[1], v.a[2]-v.b[2]
}

// supportTo is support written into out (Shape.Support's operations).
func (o *sobj) supportTo(out *Vec3, d0, d1, d2 float64) {
	if o.coreOnly {
		*out = o.support(Vec3{d0, d1, d2})
		return
	}
	o.s.supportTo(out, o.p, d0, d1, d2)
}

type simplex struct {
	v   [4]svert
	lam [4]float64
	n   int
}

// gjk finds the distance between A and B. It returns early with
// dist > cutoff once a lower bound proves the sets farther than cutoff.
// hit reports intersection (or touching); then c.smp holds the final simplex.
//
// The simplex lives in two buffers, c.smp and c.smp2: each iteration
// appends the new support point to the current one and writes the reduced
// simplex into the other, so that going back (no progress) drops the new
// point and moving on swaps the two, with no copy of a whole simplex.
func (c *Collider) gjk(A, B *sobj, cutoff, scale float64) (dist float64, pa, pb Vec3, hit bool) {
	smp, nxt := &c.smp, &c.smp2
	d := A.p.Pos.Sub(B.p.Pos)
	if d.Dot(d) == 0 {
		d = Vec3{1, 0, 0}
	}
	smp.n = 1
	supportPairTo(&smp.v[0], A, B, -d[0], -d[1], -d[2]) // d.Scale(-1)
	smp.lam[0] = 1
	// v, the point of the simplex nearest the origin, in scalars: Go
	// passes arrays through memory, and copies of points just stored stall
	v0, v1, v2 := smp.v[0].w[0], smp.v[0].w[1], smp.v[0].w[2]
	hitTol := hitRelTol * scale
	maxIter := gjkMaxIter
	if c.MaxIterations > 0 {
		maxIter = c.MaxIterations
	}
	for iter := 0; iter < maxIter; iter++ {
		vv := v0*v0 + v1*v1 + v2*v2
		if vv <= hitTol*hitTol {
			c.keep(smp)
			return 0, Vec3{}, Vec3{}, true
		}
		// the new point, written in place; it counts only once n grows
		w := &smp.v[smp.n]
		supportPairTo(w, A, B, -v0, -v1, -v2) // v.Scale(-1)
		vw := v0*w.w[0] + v1*w.w[1] + v2*w.w[2]
		// Lower bound on the distance: v·w/|v|.
		if vw > 0 && vw*vw > cutoff*cutoff*vv && cutoff >= 0 {
			return math.Sqrt(vv), Vec3{}, Vec3{}, false
		}
		if vv-vw <= gjkRelTol*vv {
			break
		}
		dup := false
		for i := 0; i < smp.n; i++ {
			if u := &smp.v[i].w; u[0] == w.w[0] && u[1] == w.w[1] && u[2] == w.w[2] {
				dup = true
			}
		}
		if dup {
			break
		}
		smp.n++
		n0, n1, n2, inside := smp.closestTo(nxt)
		if inside {
			c.keep(smp)
			return 0, Vec3{}, Vec3{}, true
		}
		if n0*n0+n1*n1+n2*n2 >= vv {
			// No progress: rounding has the better answer in the old simplex.
			smp.n--
			break
		}
		smp, nxt = nxt, smp
		v0, v1, v2 = n0, n1, n2
	}
	for i := 0; i < smp.n; i++ {
		pa = pa.AddScaled(smp.v[i].a, smp.lam[i])
		pb = pb.AddScaled(smp.v[i].b, smp.lam[i])
	}
	return math.Sqrt(v0*v0 + v1*v1 + v2*v2), pa, pb, false
}

// keep leaves the simplex s (one of c's two buffers) in c.smp, where EPA
// looks for it.
func (c *Collider) keep(s *simplex) {
	if s != &c.smp {
		c.smp = *s
	}
}

// sub is a sub-simplex of a simplex: n of its vertices by index, with
// barycentric weights.
type sub struct {
	n   int
	i   [3]int
	lam [3]float64
}

// one sets r to vertex i alone and returns it.
func (s *simplex) one(i int, r *sub) (float64, float64, float64) {
	r.n, r.i[0], r.lam[0] = 1, i, 1
	a := &s.v[i].w
	return a[0], a[1], a[2]
}

// to writes the sub-simplex r of s into d (d ≠ s).
func (s *simplex) to(d *simplex, r *sub) {
	for k := 0; k < r.n; k++ {
		d.v[k] = s.v[r.i[k]]
		d.lam[k] = r.lam[k]
	}
	d.n = r.n
}

// closestTo writes into d (d ≠ s) the smallest sub-simplex of s whose
// affine hull holds its point nearest the origin, with its barycentric
// weights, and returns that point. inside reports a tetrahedron holding
// the origin; then d is not written. Points travel as scalars (in
// registers) throughout.
func (s *simplex) closestTo(d *simplex) (p0, p1, p2 float64, inside bool) {
	var r sub
	switch s.n {
	case 1:
		p0, p1, p2 = s.one(0, &r)
	case 2:
		p0, p1, p2 = s.segment(0, 1, &r)
	case 3:
		p0, p1, p2 = s.triangle(0, 1, 2, &r)
	default:
		if p0, p1, p2, inside = s.tetra(&r); inside {
			return 0, 0, 0, true
		}
	}
	s.to(d, &r)
	return p0, p1, p2, false
}

// tetra is closestTo's tetrahedron: the origin is inside when it is behind
// every face; else the nearest of the faces' closest points, its
// sub-simplex in best.
func (s *simplex) tetra(best *sub) (p0, p1, p2 float64, inside bool) {
	bd := math.Inf(1)
	var bufs [2]sub // the best face's sub-simplex and the next candidate's
	bi, ci := -1, 0
	inside = true
	faces := [4][4]int{{0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 3, 1}, {1, 2, 3, 0}}
	for _, f := range faces {
		// n = (b − a) × (c − a), so = n·(o − a), sOrig = n·(−a): Sub's,
		// Cross's and Dot's operations in their order, in scalars
		a, b, cc, o := &s.v[f[0]].w, &s.v[f[1]].w, &s.v[f[2]].w, &s.v[f[3]].w
		u0, u1, u2 := b[0]-a[0], b[1]-a[1], b[2]-a[2]
		v0, v1, v2 := cc[0]-a[0], cc[1]-a[1], cc[2]-a[2]
		n0, n1, n2 := u1*v2-u2*v1, u2*v0-u0*v2, u0*v1-u1*v0
		so := n0*(o[0]-a[0]) + n1*(o[1]-a[1]) + n2*(o[2]-a[2])
		sOrig := n0*(-a[0]) + n1*(-a[1]) + n2*(-a[2])
		if so*sOrig >= 0 && so != 0 {
			continue // origin on the same side as the fourth vertex
		}
		inside = false
		q0, q1, q2 := s.triangle(f[0], f[1], f[2], &bufs[ci])
		if d := q0*q0 + q1*q1 + q2*q2; d < bd {
			bd, p0, p1, p2 = d, q0, q1, q2
			bi, ci = ci, 1-ci
		}
	}
	if bi >= 0 {
		*best = bufs[bi]
	}
	return p0, p1, p2, inside
}

// keep2 sets r to the edge (i, j) with weights 1 − u, u and returns
// (1 − u)·v_i + u·v_j (Scale's and Add's operations).
func (s *simplex) keep2(i, j int, u float64, r *sub) (float64, float64, float64) {
	a, b := &s.v[i].w, &s.v[j].w
	t := 1 - u
	r.n, r.i[0], r.i[1], r.lam[0], r.lam[1] = 2, i, j, t, u
	return a[0]*t + b[0]*u, a[1]*t + b[1]*u, a[2]*t + b[2]*u
}

func (s *simplex) segment(i, j int, r *sub) (float64, float64, float64) {
	a, b := &s.v[i].w, &s.v[j].w
	// ab = b − a; den = ab·ab; t = −(a·ab)/den: Sub's and Dot's operations
	ab0, ab1, ab2 := b[0]-a[0], b[1]-a[1], b[2]-a[2]
	den := ab0*ab0 + ab1*ab1 + ab2*ab2
	if den == 0 {
		return s.one(i, r)
	}
	t := -(a[0]*ab0 + a[1]*ab1 + a[2]*ab2) / den
	if t <= 0 {
		return s.one(i, r)
	}
	if t >= 1 {
		return s.one(j, r)
	}
	return s.keep2(i, j, t, r)
}

// triangle is Ericson's closest point on a triangle (Real-Time Collision
// Detection §5.1.5) with the query point at the origin.
func (s *simplex) triangle(i, j, k int, r *sub) (float64, float64, float64) {
	// in scalars: the operations of Sub, Scale(-1), Dot, Add and Scale
	// in their order (ap = −a, bp = −b, cp = −c)
	a, b, c := &s.v[i].w, &s.v[j].w, &s.v[k].w
	ab0, ab1, ab2 := b[0]-a[0], b[1]-a[1], b[2]-a[2]
	ac0, ac1, ac2 := c[0]-a[0], c[1]-a[1], c[2]-a[2]
	d1 := ab0*(-a[0]) + ab1*(-a[1]) + ab2*(-a[2])
	d2 := ac0*(-a[0]) + ac1*(-a[1]) + ac2*(-a[2])
	if d1 <= 0 && d2 <= 0 {
		return s.one(i, r)
	}
	d3 := ab0*(-b[0]) + ab1*(-b[1]) + ab2*(-b[2])
	d4 := ac0*(-b[0]) + ac1*(-b[1]) + ac2*(-b[2])
	if d3 >= 0 && d4 <= d3 {
		return s.one(j, r)
	}
	vc := d1*d4 - d3*d2
	if vc <= 0 && d1 >= 0 && d3 <= 0 {
		return s.keep2(i, j, d1/(d1-d3), r)
	}
	d5 := ab0*(-c[0]) + ab1*(-c[1]) + ab2*(-c[2])
	d6 := ac0*(-c[0]) + ac1*(-c[1]) + ac2*(-c[2])
	if d6 >= 0 && d5 <= d6 {
		return s.one(k, r)
	}
	vb := d5*d2 - d1*d6
	if vb <= 0 && d2 >= 0 && d6 <= 0 {
		return s.keep2(i, k, d2/(d2-d6), r)
	}
	va := d3*d6 - d5*d4
	if va <= 0 && d4-d3 >= 0 && d5-d6 >= 0 {
		return s.keep2(j, k, (d4-d3)/((d4-d3)+(d5-d6)), r)
	}
	den := va + vb + vc
	if den == 0 {
		return s.segment(i, j, r)
	}
	v, w := vb/den, vc/den
	r.n, r.i[0], r.i[1], r.i[2] = 3, i, j, k
	r.lam[0], r.lam[1], r.lam[2] = 1-v-w, v, w
	return a[0] + ab0*v + ac0*w, a[1] + ab1*v + ac1*w, a[2] + ab2*v + ac2*w
}

type epaFace struct {
	i     [3]int32
	nb    [3]int32 // face across edge i[k]→i[(k+1)%3]
	n     Vec3
	d     float64
	alive bool
	visit int32
}

type epaEdge struct{ a, b, outer int32 }

// epa expands the GJK simplex in c.smp (holding the origin) into the
// polytope of A − B and returns the penetration depth (m), the unit
// direction n along which moving B by depth·n separates the sets (it points
// from A into B), and the witness points on A and B. The polytope keeps
// face adjacency; the faces that see a new support point are found by a
// walk from the closest face, so the horizon is always one closed loop.
//
// ccdTol > 0 stops it as MuJoCo's epa at ccd_tolerance: when the least
// support value along a closest face's normal seen so far (an upper bound
// on the depth) is within ccdTol of the closest face's distance (a lower
// bound), or, should the closest face lie beyond that upper bound, with
// the previous closest face.
func (c *Collider) epa(A, B *sobj, scale, ccdTol float64) (depth float64, n, pa, pb Vec3, ok bool) {
	if !c.blowUp(A, B, scale) {
		return 0, Vec3{}, Vec3{}, Vec3{}, false
	}
	c.verts = c.verts[:0]
	c.faces = c.faces[:0]
	c.faceD = c.faceD[:0]
	c.verts = append(c.verts, c.smp.v[:]...)
	p := [4]Vec3{c.verts[0].w, c.verts[1].w, c.verts[2].w, c.verts[3].w}
	if p[1].Sub(p[0]).Cross(p[2].Sub(p[0])).Dot(p[3].Sub(p[0])) > 0 {
		c.verts[1], c.verts[2] = c.verts[2], c.verts[1]
	}
	c.addFace(0, 1, 2)
	c.addFace(0, 3, 1)
	c.addFace(1, 3, 2)
	c.addFace(2, 3, 0)
	// the face across each directed edge, reversed, of these four faces
	for f, nb := range [4][3]int32{{1, 2, 3}, {3, 2, 0}, {1, 3, 0}, {2, 1, 0}} {
		c.faces[f].nb = nb
	}
	tol := epaRelTol * scale
	visTol := 1e-13 * scale
	maxIter := epaMaxIter
	if c.MaxIterations > 0 {
		maxIter = c.MaxIterations
	}
	best := -1
	upper := math.Inf(1) // MuJoCo's upper bound on the depth (ccdTol > 0)
	for iter := 0; iter < maxIter; iter++ {
		prev := best
		best = -1
		bd := math.Inf(1)
		for f, fd := range c.faceD {
			if fd < bd { // removed faces hold +Inf
				bd, best = fd, f
			}
		}
		if ccdTol > 0 && bd > upper && prev >= 0 {
			best = prev // MuJoCo: the face is not valid, keep the previous
			break
		}
		if best < 0 {
			return 0, Vec3{}, Vec3{}, Vec3{}, false
		}
		bf := &c.faces[best]
		c.verts = append(c.verts, svert{})
		iw := int32(len(c.verts) - 1)
		w := &c.verts[iw]
		supportPairTo(w, A, B, bf.n[0], bf.n[1], bf.n[2])
		// w·n in scalars (Dot's operations): no copy of the fresh point
		wn := w.w[0]*bf.n[0] + w.w[1]*bf.n[1] + w.w[2]*bf.n[2]
		if ccdTol > 0 {
			upper = min(upper, wn)
			if upper-bf.d < ccdTol {
				c.verts = c.verts[:iw]
				break
			}
		}
		if wn-bf.d <= tol {
			c.verts = c.verts[:iw]
			break
		}
		c.stamp++
		c.horizon = c.horizon[:0]
		c.faces[best].visit = c.stamp
		c.faces[best].alive = false
		c.faceD[best] = math.Inf(1)
		c.epaWalk(int32(best), -1, &w.w, visTol)
		first := int32(len(c.faces))
		for _, h := range c.horizon {
			nf := int32(len(c.faces))
			c.addFace(h.a, h.b, iw)
			c.faces[nf].nb[0] = h.outer
			of := &c.faces[h.outer]
			switch {
			case of.i[0] == h.b && of.i[1] == h.a:
				of.nb[0] = nf
			case of.i[1] == h.b && of.i[2] == h.a:
				of.nb[1] = nf
			case of.i[2] == h.b && of.i[0] == h.a:
				of.nb[2] = nf
			}
		}
		// the walk records the horizon as one loop, in order: edge i+1
		// (mod nh) starts where edge i ends; the search is the fallback
		nh := int32(len(c.horizon))
		for i := int32(0); i < nh; i++ {
			j := i + 1
			if j == nh {
				j = 0
			}
			if c.horizon[j].a != c.horizon[i].b {
				for j = 0; j < nh && c.horizon[j].a != c.horizon[i].b; j++ {
				}
				if j == nh {
					continue
				}
			}
			c.faces[first+i].nb[1] = first + j
			c.faces[first+j].nb[2] = first + i
		}
	}
	bf := &c.faces[best]
	// Barycentric weights of the origin's projection n·d on the face, and
	// the witness points (Scale's and Add's operations), through pointers
	a, b, cc := &c.verts[bf.i[0]], &c.verts[bf.i[1]], &c.verts[bf.i[2]]
	l0, l1, l2 := barycentric(bf.n[0]*bf.d, bf.n[1]*bf.d, bf.n[2]*bf.d, &a.w, &b.w, &cc.w)
	for k := 0; k < 3; k++ {
		pa[k] = a.a[k]*l0 + b.a[k]*l1 + cc.a[k]*l2
		pb[k] = a.b[k]*l0 + b.b[k]*l1 + cc.b[k]*l2
	}
	// A − B's boundary point is n·d: pa − pb = n·d, so B must move by +n·d.
	return bf.d, bf.n, pa, pb, true
}

// epaWalk removes the faces that see w, reached from face f through
// visible neighbours, and records the horizon edges in loop order.
func (c *Collider) epaWalk(f, from int32, w *Vec3, visTol float64) {
	start := 0
	if from >= 0 {
		for k := 0; k < 3; k++ {
			if c.faces[f].nb[k] == from {
				start = k + 1
			}
		}
	}
	for j := 0; j < 3; j++ {
		if from >= 0 && j == 2 {
			break
		}
		k := start + j // (start + j) mod 3: start ≤ 3, j ≤ 2
		if k >= 3 {
			k -= 3
		}
		nb := c.faces[f].nb[k]
		if c.faces[nb].visit == c.stamp {
			continue
		}
		fn := &c.faces[nb]
		if fn.alive {
			// n·(w − v0), Sub's and Dot's operations in their order
			v := &c.verts[fn.i[0]].w
			if fn.n[0]*(w[0]-v[0])+fn.n[1]*(w[1]-v[1])+fn.n[2]*(w[2]-v[2]) > visTol {
				fn.visit = c.stamp
				fn.alive = false
				c.faceD[nb] = math.Inf(1)
				c.epaWalk(nb, f, w, visTol)
				continue
			}
		}
		k1 := k + 1
		if k1 == 3 {
			k1 = 0
		}
		// in place, field by field (as addFace)
		nh := len(c.horizon)
		if nh < cap(c.horizon) {
			c.horizon = c.horizon[:nh+1]
		} else {
			c.horizon = append(c.horizon, epaEdge{})
		}
		e := &c.horizon[nh]
		e.a, e.b, e.outer = c.faces[f].i[k], c.faces[f].i[k1], nb
	}
}

// addFace appends the face (a, b, d) with its unit normal and offset
// (Inf for a degenerate face). In scalars, with Sub's, Cross's, Norm's,
// Scale's and Dot's operations in their order; written in place.
func (c *Collider) addFace(a, b, d int32) {
	pa, pb, pc := &c.verts[a].w, &c.verts[b].w, &c.verts[d].w
	u0, u1, u2 := pb[0]-pa[0], pb[1]-pa[1], pb[2]-pa[2]
	v0, v1, v2 := pc[0]-pa[0], pc[1]-pa[1], pc[2]-pa[2]
	n0, n1, n2 := u1*v2-u2*v1, u2*v0-u0*v2, u0*v1-u1*v0
	l := math.Sqrt(n0*n0 + n1*n1 + n2*n2)
	// field by field into the slot: a struct literal went through the
	// stack and stalled the copy that followed it
	nf := len(c.faces)
	if nf < cap(c.faces) {
		c.faces = c.faces[:nf+1]
	} else {
		c.faces = append(c.faces, epaFace{})
	}
	f := &c.faces[nf]
	f.i[0], f.i[1], f.i[2] = a, b, d
	f.nb[0], f.nb[1], f.nb[2] = -1, -1, -1
	f.alive, f.visit = true, 0
	if l > 0 {
		s := 1 / l
		n0, n1, n2 = n0*s, n1*s, n2*s
		f.n[0], f.n[1], f.n[2] = n0, n1, n2
		f.d = n0*pa[0] + n1*pa[1] + n2*pa[2]
	} else {
		f.n[0], f.n[1], f.n[2] = 0, 0, 0
		f.d = math.Inf(1)
	}
	c.faceD = append(c.faceD, f.d)
}

// blowUp grows the GJK simplex to a tetrahedron of A − B with volume.
func (c *Collider) blowUp(A, B *sobj, scale float64) bool {
	s := &c.smp
	eps := 1e-9 * scale
	axes := [6]Vec3{{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}}
	if s.n == 1 {
		for _, d := range axes {
			w := supportPair(A, B, d)
			if w.w.Sub(s.v[0].w).Norm() > eps {
				s.v[1] = w
				s.n = 2
				break
			}
		}
		if s.n == 1 {
			return false
		}
	}
	if s.n == 2 {
		dir := s.v[1].w.Sub(s.v[0].w).Unit()
		// A unit vector perpendicular to dir, rotated about it in 60° steps.
		k := 0
		if math.Abs(dir[1]) < math.Abs(dir[k]) {
			k = 1
		}
		if math.Abs(dir[2]) < math.Abs(dir[k]) {
			k = 2
		}
		e := Vec3{}
		e[k] = 1
		perp := dir.Cross(e).Unit()
		rot := AxisAngle(dir, math.Pi/3)
		for i := 0; i < 6; i++ {
			w := supportPair(A, B, perp)
			r := w.w.Sub(s.v[0].w)
			if r.Sub(dir.Scale(r.Dot(dir))).Norm() > eps {
				s.v[2] = w
				s.n = 3
				break
			}
			perp = rot.MulVec(perp)
		}
		if s.n == 2 {
			return false
		}
	}
	if s.n == 3 {
		nrm := s.v[1].w.Sub(s.v[0].w).Cross(s.v[2].w.Sub(s.v[0].w)).Unit()
		for _, d := range [2]Vec3{nrm, nrm.Scale(-1)} {
			w := supportPair(A, B, d)
			if math.Abs(w.w.Sub(s.v[0].w).Dot(nrm)) > eps {
				s.v[3] = w
				s.n = 4
				break
			}
		}
		if s.n == 3 {
			return false
		}
	}
	return true
}

// barycentric returns the weights of p's projection on triangle abc.
//
// In scalars (p given as p0, p1, p2), with Sub's and Dot's operations in
// their order.
func barycentric(p0, p1, p2 float64, a, b, c *Vec3) (float64, float64, float64) {
	x0, x1, x2 := b[0]-a[0], b[1]-a[1], b[2]-a[2] // v0 = b − a
	y0, y1, y2 := c[0]-a[0], c[1]-a[1], c[2]-a[2] // v1 = c − a
	z0, z1, z2 := p0-a[0], p1-a[1], p2-a[2]       // v2 = p − a
	d00 := x0*x0 + x1*x1 + x2*x2
	d01 := x0*y0 + x1*y1 + x2*y2
	d11 := y0*y0 + y1*y1 + y2*y2
	d20 := z0*x0 + z1*x1 + z2*x2
	d21 := z0*y0 + z1*y1 + z2*y2
	den := d00*d11 - d01*d01
	if den == 0 {
		return 1, 0, 0
	}
	v := (d11*d20 - d01*d21) / den
	w := (d00*d21 - d01*d20) / den
	return 1 - v - w, v, w
}
