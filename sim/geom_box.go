package sim

import "math"

// faceTol (m) prefers face contacts over edge contacts and A's faces over
// B's unless the other is clearly better, which keeps manifolds stable.
const faceTol = 1e-4

// boxBox is the separating-axis test over the 15 axes of two boxes with a
// reference-face/incident-face clip for face contacts (up to 8 points before
// reduction) and closest edge points for edge contacts (Gottschalk's OBB
// test; the clipping of Box2D-Lite and ODE's dBoxBox).
func boxBox(ca Vec3, ra *Mat3, ha Vec3, cb Vec3, rb *Mat3, hb Vec3, margin float64, buf *candBuf) Vec3 {
	var ua, ub [3]Vec3
	for i := 0; i < 3; i++ {
		ua[i], ub[i] = ra.Col(i), rb.Col(i)
	}
	hA := [3]float64{ha.X, ha.Y, ha.Z}
	hB := [3]float64{hb.X, hb.Y, hb.Z}
	t := cb.Sub(ca)
	var R, absR [3][3]float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			R[i][j] = ua[i].Dot(ub[j])
			absR[i][j] = math.Abs(R[i][j]) + 1e-9
		}
	}
	var tA, tB [3]float64
	for i := 0; i < 3; i++ {
		tA[i] = t.Dot(ua[i])
		tB[i] = t.Dot(ub[i])
	}
	// faces of A
	bestA, sepA := 0, math.Inf(-1)
	for i := 0; i < 3; i++ {
		s := math.Abs(tA[i]) - (hA[i] + hB[0]*absR[i][0] + hB[1]*absR[i][1] + hB[2]*absR[i][2])
		if s > margin {
			return Vec3{}
		}
		if s > sepA {
			bestA, sepA = i, s
		}
	}
	bestB, sepB := 0, math.Inf(-1)
	for j := 0; j < 3; j++ {
		s := math.Abs(tB[j]) - (hB[j] + hA[0]*absR[0][j] + hA[1]*absR[1][j] + hA[2]*absR[2][j])
		if s > margin {
			return Vec3{}
		}
		if s > sepB {
			bestB, sepB = j, s
		}
	}
	// edges
	bestEi, bestEj, sepE := -1, -1, math.Inf(-1)
	var nE Vec3
	for i := 0; i < 3; i++ {
		i1, i2 := (i+1)%3, (i+2)%3
		for j := 0; j < 3; j++ {
			j1, j2 := (j+1)%3, (j+2)%3
			l := math.Sqrt(math.Max(0, 1-R[i][j]*R[i][j]))
			if l < 1e-6 {
				continue
			}
			// t · (ua_i × ub_j) = tA[i2]·R[i1][j] − tA[i1]·R[i2][j]
			tl := tA[i2]*R[i1][j] - tA[i1]*R[i2][j]
			rA := hA[i1]*absR[i2][j] + hA[i2]*absR[i1][j]
			rB := hB[j1]*absR[i][j2] + hB[j2]*absR[i][j1]
			s := (math.Abs(tl) - rA - rB) / l
			if s > margin {
				return Vec3{}
			}
			if s > sepE {
				sepE, bestEi, bestEj = s, i, j
				nE = ua[i].Cross(ub[j]).Scale(1 / l)
				if tl < 0 {
					nE = nE.Neg()
				}
			}
		}
	}
	faceMax := math.Max(sepA, sepB)
	if bestEi >= 0 && sepE > faceMax+faceTol {
		buf.add(edgeContact(ca, ua, hA, bestEi, cb, ub, hB, bestEj, nE), sepE)
		return nE
	}
	if sepB > sepA+faceTol {
		// reference face on B; normal from B toward A, then flipped
		n := ub[bestB]
		if tB[bestB] > 0 {
			n = n.Neg()
		}
		clipFace(cb, ub, hB, bestB, n, ca, ua, hA, margin, buf)
		return n.Neg()
	}
	n := ua[bestA]
	if tA[bestA] < 0 {
		n = n.Neg()
	}
	clipFace(ca, ua, hA, bestA, n, cb, ub, hB, margin, buf)
	return n
}

// edgeContact returns the midpoint of the closest points of edge ei of box
// A and edge ej of box B, the supporting edges along normal nE (A to B).
func edgeContact(ca Vec3, ua [3]Vec3, hA [3]float64, ei int, cb Vec3, ub [3]Vec3, hB [3]float64, ej int, nE Vec3) Vec3 {
	pa := ca
	for k := 0; k < 3; k++ {
		if k != ei {
			pa = pa.AddScaled(ua[k], math.Copysign(hA[k], ua[k].Dot(nE)))
		}
	}
	pb := cb
	for k := 0; k < 3; k++ {
		if k != ej {
			pb = pb.AddScaled(ub[k], -math.Copysign(hB[k], ub[k].Dot(nE)))
		}
	}
	da := ua[ei].Scale(2 * hA[ei])
	db := ub[ej].Scale(2 * hB[ej])
	s, u := segmentClosest(pa.AddScaled(da, -0.5), da, pb.AddScaled(db, -0.5), db)
	qa := pa.AddScaled(da, s-0.5)
	qb := pb.AddScaled(db, u-0.5)
	return qa.Add(qb).Scale(0.5)
}

// clipFace clips the incident face of box I (centre ci) against the side
// planes of reference face k of box R (normal n pointing from R to I) and
// adds the points within margin.
func clipFace(cr Vec3, ur [3]Vec3, hr [3]float64, k int, n Vec3, ci Vec3, ui [3]Vec3, hi [3]float64, margin float64, buf *candBuf) {
	// incident face: the face of I most anti-parallel to n
	best, bd := 0, 0.0
	for j := 0; j < 3; j++ {
		if d := math.Abs(ui[j].Dot(n)); d > bd {
			best, bd = j, d
		}
	}
	fn := ui[best]
	if fn.Dot(n) > 0 {
		fn = fn.Neg()
	}
	fc := ci.AddScaled(fn, hi[best])
	j1, j2 := (best+1)%3, (best+2)%3
	e1, e2 := ui[j1].Scale(hi[j1]), ui[j2].Scale(hi[j2])
	var poly, tmp [8]Vec3
	poly[0] = fc.Add(e1).Add(e2)
	poly[1] = fc.Sub(e1).Add(e2)
	poly[2] = fc.Sub(e1).Sub(e2)
	poly[3] = fc.Add(e1).Sub(e2)
	np := 4
	k1, k2 := (k+1)%3, (k+2)%3
	for _, side := range [4]struct {
		axis int
		sgn  float64
	}{{k1, 1}, {k1, -1}, {k2, 1}, {k2, -1}} {
		u := ur[side.axis].Scale(side.sgn)
		off := u.Dot(cr) + hr[side.axis]
		np = clipPoly(poly[:np], tmp[:], u, off)
		copy(poly[:], tmp[:np])
		if np == 0 {
			return
		}
	}
	rc := cr.AddScaled(n, hr[k])
	for _, v := range poly[:np] {
		sep := v.Sub(rc).Dot(n)
		if sep <= margin {
			buf.add(v.AddScaled(n, -0.5*sep), sep)
		}
	}
}

// clipPoly keeps the part of polygon in where u·x <= off (Sutherland-Hodgman)
// and writes it to out, returning the vertex count (at most len(out)).
func clipPoly(in []Vec3, out []Vec3, u Vec3, off float64) int {
	n := 0
	if len(in) == 0 {
		return 0
	}
	prev := in[len(in)-1]
	dp := prev.Dot(u) - off
	for _, cur := range in {
		dc := cur.Dot(u) - off
		if dc <= 0 {
			if dp > 0 && n < len(out) {
				out[n] = prev.Add(cur.Sub(prev).Scale(dp / (dp - dc)))
				n++
			}
			if n < len(out) {
				out[n] = cur
				n++
			}
		} else if dp <= 0 && n < len(out) {
			out[n] = prev.Add(cur.Sub(prev).Scale(dp / (dp - dc)))
			n++
		}
		prev, dp = cur, dc
	}
	return n
}

// boxCapsule: box A, capsule B. The closest points of the capsule's segment
// and the box give the normal; when the normal is a face normal the segment
// is clipped to that face for a two-point line contact.
func boxCapsule(cb Vec3, rb *Mat3, h Vec3, cc Vec3, rc *Mat3, r, hh, margin float64, buf *candBuf) Vec3 {
	a := rc.Col(2)
	p0 := rb.MulTVec(cc.AddScaled(a, -hh).Sub(cb))
	p1 := rb.MulTVec(cc.AddScaled(a, hh).Sub(cb))
	d := p1.Sub(p0)
	dist2 := func(t float64) float64 {
		p := p0.AddScaled(d, t)
		c := Vec3{clamp(p.X, h.X), clamp(p.Y, h.Y), clamp(p.Z, h.Z)}
		return p.Sub(c).Norm2()
	}
	// the distance from a line to a convex set is convex along the line
	lo, hi := 0.0, 1.0
	for it := 0; it < 40; it++ {
		m1 := lo + (hi-lo)/3
		m2 := hi - (hi-lo)/3
		if dist2(m1) <= dist2(m2) {
			hi = m2
		} else {
			lo = m1
		}
	}
	t := 0.5 * (lo + hi)
	p := p0.AddScaled(d, t)
	c := Vec3{clamp(p.X, h.X), clamp(p.Y, h.Y), clamp(p.Z, h.Z)}
	dl := p.Sub(c)
	dist := dl.Norm()
	if dist > 1e-9 {
		if dist-r > margin {
			return rb.MulVec(dl.Scale(1 / dist))
		}
		nl := dl.Scale(1 / dist)
		// face-aligned normal: clip the segment to the face for two points
		for k := 0; k < 3; k++ {
			if math.Abs(nl.Get(k)) > 0.999 {
				sgn := math.Copysign(1, nl.Get(k))
				if capsuleFace(p0, p1, h, k, sgn, r, margin, rb, cb, buf) {
					return rb.Col(k).Scale(sgn)
				}
				buf.n = 0
				break
			}
		}
		n := rb.MulVec(nl)
		sep := dist - r
		buf.add(cb.Add(rb.MulVec(c)).AddScaled(n, 0.5*sep), sep)
		return n
	}
	// the segment enters the box: least-penetration face
	bestK, bestS, bestSep := 0, 1.0, math.Inf(-1)
	hv := [3]float64{h.X, h.Y, h.Z}
	for k := 0; k < 3; k++ {
		for _, sgn := range [2]float64{-1, 1} {
			s := math.Min(sgn*p0.Get(k), sgn*p1.Get(k)) - r - hv[k]
			if s > bestSep {
				bestK, bestS, bestSep = k, sgn, s
			}
		}
	}
	if !capsuleFace(p0, p1, h, bestK, bestS, r, margin, rb, cb, buf) {
		// segment entirely outside the face's slab: use its deepest end
		e := p0
		if bestS*p1.Get(bestK) < bestS*p0.Get(bestK) {
			e = p1
		}
		n := rb.Col(bestK).Scale(bestS)
		sep := bestS*e.Get(bestK) - r - hv[bestK]
		buf.add(cb.Add(rb.MulVec(e)).AddScaled(n, -(r+0.5*sep)), sep)
	}
	return rb.Col(bestK).Scale(bestS)
}

// capsuleFace clips the local segment p0-p1 to the slab of box face
// (k, sgn) and adds its two ends; it reports whether any point was added.
func capsuleFace(p0, p1, h Vec3, k int, sgn, r, margin float64, rb *Mat3, cb Vec3, buf *candBuf) bool {
	t0, t1 := 0.0, 1.0
	d := p1.Sub(p0)
	hv := [3]float64{h.X, h.Y, h.Z}
	for ax := 0; ax < 3; ax++ {
		if ax == k {
			continue
		}
		pa, da := p0.Get(ax), d.Get(ax)
		if math.Abs(da) < 1e-12 {
			if math.Abs(pa) > hv[ax] {
				return false
			}
			continue
		}
		ta, tb := (-hv[ax]-pa)/da, (hv[ax]-pa)/da
		if ta > tb {
			ta, tb = tb, ta
		}
		t0, t1 = math.Max(t0, ta), math.Min(t1, tb)
	}
	if t0 > t1 {
		return false
	}
	n := rb.Col(k).Scale(sgn)
	added := false
	for _, tt := range [2]float64{t0, t1} {
		e := p0.AddScaled(d, tt)
		sep := sgn*e.Get(k) - r - hv[k]
		if sep <= margin {
			buf.add(cb.Add(rb.MulVec(e)).AddScaled(n, -(r+0.5*sep)), sep)
			added = true
		}
		if t1-t0 < 1e-9 {
			break
		}
	}
	return added
}

// Cylinders against capsules, and against cylinders whose axes are not
// parallel, are approximated by the square prism that circumscribes them
// (half extents r, r, hh in the cylinder frame): face contacts get full
// manifolds, and a cylinder rolling on its side over another behaves like a
// square prism. Cylinder-plane, cylinder-sphere, cylinder-box and parallel
// cylinder-cylinder are exact up to the 8-gon sampling of the cap rims.

// boxCyl holds a box-cylinder pair in world frame for the stages of
// boxCylinder.
type boxCyl struct {
	cb, cc Vec3       // box and cylinder centres (m)
	rb, rc *Mat3      // their rotations
	u      [3]Vec3    // box axes
	hv     [3]float64 // box half extents (m)
	a      Vec3       // cylinder axis
	t      Vec3       // cc − cb
	r, hh  float64    // cylinder radius and half height (m)
}

// boxCylinder contact kinds: a box face against the cylinder, a cylinder
// cap against the box, or one point between the closest features.
const (
	boxCylFace = iota
	boxCylCap
	boxCylPoint
)

// boxCylinder: box A, cylinder B, by separating axes (box faces, cylinder
// axis, box edges × cylinder axis, and the direction between the closest
// points of the box and the cylinder's axis) with a clipped face or cap
// manifold, or a single point for edge and side contacts.
func boxCylinder(cb Vec3, rb *Mat3, h Vec3, cc Vec3, rc *Mat3, r, hh, margin float64, buf *candBuf) Vec3 {
	g := boxCyl{cb: cb, cc: cc, rb: rb, rc: rc, a: rc.Col(2), t: cc.Sub(cb), r: r, hh: hh,
		u: [3]Vec3{rb.Col(0), rb.Col(1), rb.Col(2)}, hv: [3]float64{h.X, h.Y, h.Z}}
	kind, face, best, n, boxQ, sep := g.bestAxis(h, margin)
	if sep {
		return n
	}
	if n.Dot(g.t) < 0 {
		n = n.Neg()
	}
	switch kind {
	case boxCylFace:
		if g.faceManifold(face, n, margin, buf) {
			return n
		}
	case boxCylCap:
		if g.capManifold(n, margin, buf) {
			return n
		}
	}
	// edge or side contact: one point between the closest features
	buf.add(boxQ.AddScaled(n, 0.5*best), best)
	return n
}

// sepAxis returns the separation (m) of the pair along unit axis l.
func (g *boxCyl) sepAxis(l Vec3) float64 {
	al := g.a.Dot(l)
	boxR := g.hv[0]*math.Abs(g.u[0].Dot(l)) + g.hv[1]*math.Abs(g.u[1].Dot(l)) + g.hv[2]*math.Abs(g.u[2].Dot(l))
	cylR := g.hh*math.Abs(al) + g.r*math.Sqrt(max(0, 1-al*al))
	return math.Abs(g.t.Dot(l)) - boxR - cylR
}

// bestAxis tests the candidate axes and returns the contact kind, the box
// face, the largest separation (m) and its axis, and the box point closest
// to the cylinder's axis segment; sep says an axis separates by more than
// margin (n is that axis).
func (g *boxCyl) bestAxis(h Vec3, margin float64) (kind, face int, best float64, n, boxQ Vec3, sep bool) {
	kind, best = boxCylFace, math.Inf(-1)
	for i := 0; i < 3; i++ {
		sp := g.sepAxis(g.u[i])
		if sp > margin {
			return 0, 0, 0, g.u[i], Vec3{}, true
		}
		if sp > best {
			kind, face, best, n = boxCylFace, i, sp, g.u[i]
		}
	}
	if sp := g.sepAxis(g.a); sp > margin {
		return 0, 0, 0, g.a, Vec3{}, true
	} else if sp > best+faceTol {
		kind, best, n = boxCylCap, sp, g.a
	}
	for i := 0; i < 3; i++ {
		l := g.u[i].Cross(g.a)
		ln := l.Norm()
		if ln < 1e-6 {
			continue
		}
		l = l.Scale(1 / ln)
		if sp := g.sepAxis(l); sp > margin {
			return 0, 0, 0, l, Vec3{}, true
		} else if sp > best+faceTol {
			kind, best, n = boxCylPoint, sp, l
		}
	}
	boxQ, segQ := g.closestToAxis(h)
	if dp := segQ.Sub(boxQ); dp.Norm2() > 1e-18 {
		l := dp.AddScaled(g.a, -g.a.Dot(dp))
		if ln := l.Norm(); ln > 1e-9 {
			l = l.Scale(1 / ln)
			if sp := g.sepAxis(l); sp > margin {
				return 0, 0, 0, l, Vec3{}, true
			} else if sp > best+faceTol {
				kind, best, n = boxCylPoint, sp, l
			}
		}
	}
	return kind, face, best, n, boxQ, false
}

// closestToAxis returns the closest points of the box and of the
// cylinder's axis segment (side contacts), by ternary search on the
// segment's parameter (the distance is convex along it).
func (g *boxCyl) closestToAxis(h Vec3) (boxQ, segQ Vec3) {
	p0 := g.rb.MulTVec(g.cc.AddScaled(g.a, -g.hh).Sub(g.cb))
	d := g.rb.MulTVec(g.a.Scale(2 * g.hh))
	dist2 := func(tt float64) float64 {
		q := p0.AddScaled(d, tt)
		c := Vec3{clamp(q.X, h.X), clamp(q.Y, h.Y), clamp(q.Z, h.Z)}
		return q.Sub(c).Norm2()
	}
	lo, hi := 0.0, 1.0
	for it := 0; it < boxCylinderSearchIters; it++ {
		m1, m2 := lo+(hi-lo)/3, hi-(hi-lo)/3
		if dist2(m1) <= dist2(m2) {
			hi = m2
		} else {
			lo = m1
		}
	}
	ql := p0.AddScaled(d, 0.5*(lo+hi))
	boxQ = g.cb.Add(g.rb.MulVec(Vec3{clamp(ql.X, h.X), clamp(ql.Y, h.Y), clamp(ql.Z, h.Z)}))
	segQ = g.cb.Add(g.rb.MulVec(ql))
	return boxQ, segQ
}

// faceManifold clips the cylinder's feature facing box face `face` (its cap
// as an 8-gon, or its nearest side line) to that face; false if no point
// is within margin.
func (g *boxCyl) faceManifold(face int, n Vec3, margin float64, buf *candBuf) bool {
	a, cc, r, hh := g.a, g.cc, g.r, g.hh
	e1, e2 := g.rc.Col(0), g.rc.Col(1)
	var poly, tmp [16]Vec3
	np := 0
	ad := a.Dot(n)
	if math.Abs(ad) > 0.7 {
		// the cap facing the box, as an 8-gon
		cap := cc.AddScaled(a, -math.Copysign(hh, ad))
		for k := 0; k < 8; k++ {
			sn, cs := math.Sincos(float64(k) * math.Pi / 4)
			poly[np] = cap.AddScaled(e1, r*cs).AddScaled(e2, r*sn)
			np++
		}
	} else {
		// the side line nearest the box
		w := n.AddScaled(a, -ad).Neg().Normalize()
		poly[0] = cc.AddScaled(a, -hh).AddScaled(w, r)
		poly[1] = cc.AddScaled(a, hh).AddScaled(w, r)
		np = 2
	}
	k1, k2 := (face+1)%3, (face+2)%3
	for _, side := range [4]struct {
		axis int
		sgn  float64
	}{{k1, 1}, {k1, -1}, {k2, 1}, {k2, -1}} {
		uu := g.u[side.axis].Scale(side.sgn)
		np = clipPoly(poly[:np], tmp[:], uu, uu.Dot(g.cb)+g.hv[side.axis])
		copy(poly[:], tmp[:np])
		if np == 0 {
			break
		}
	}
	fc := g.cb.AddScaled(n, g.hv[face])
	for _, v := range poly[:np] {
		sp := v.Sub(fc).Dot(n)
		if sp <= margin {
			buf.add(v.AddScaled(n, -0.5*sp), sp)
		}
	}
	return buf.n > 0
}

// capManifold clips the box face facing the cylinder to the cylinder's cap
// (an 8-gon); false if no point is within margin.
func (g *boxCyl) capManifold(n Vec3, margin float64, buf *candBuf) bool {
	u, hv := g.u, g.hv
	e1, e2 := g.rc.Col(0), g.rc.Col(1)
	cap := g.cc.AddScaled(n, -g.hh)
	j, bd := 0, 0.0
	for i := 0; i < 3; i++ {
		if dd := math.Abs(u[i].Dot(n)); dd > bd {
			j, bd = i, dd
		}
	}
	f := u[j]
	if f.Dot(n) < 0 {
		f = f.Neg()
	}
	fc := g.cb.AddScaled(f, hv[j])
	j1, j2 := (j+1)%3, (j+2)%3
	v1, v2 := u[j1].Scale(hv[j1]), u[j2].Scale(hv[j2])
	var poly, tmp [16]Vec3
	poly[0], poly[1], poly[2], poly[3] = fc.Add(v1).Add(v2), fc.Sub(v1).Add(v2), fc.Sub(v1).Sub(v2), fc.Add(v1).Sub(v2)
	np := 4
	for k := 0; k < 8 && np > 0; k++ {
		sn, cs := math.Sincos(float64(k) * math.Pi / 4)
		dir := e1.Scale(cs).AddScaled(e2, sn)
		np = clipPoly(poly[:np], tmp[:], dir, dir.Dot(cap)+g.r)
		copy(poly[:], tmp[:np])
	}
	for _, v := range poly[:np] {
		sp := cap.Sub(v).Dot(n)
		if sp <= margin {
			buf.add(v.AddScaled(n, 0.5*sp), sp)
		}
	}
	return buf.n > 0
}

// cylinderCylinder is exact for (nearly) parallel axes, the common case of
// upright pucks side by side (a two-point line contact) or stacked (the
// overlap of the caps, as 8-gons); other poses use the square prisms.
func cylinderCylinder(ca Vec3, ra *Mat3, r1, h1 float64, cb Vec3, rb *Mat3, r2, h2, margin float64, buf *candBuf) Vec3 {
	a, bz := ra.Col(2), rb.Col(2)
	ab := a.Dot(bz)
	if math.Abs(ab) < 0.999 {
		return boxBox(ca, ra, Vec3{r1, r1, h1}, cb, rb, Vec3{r2, r2, h2}, margin, buf)
	}
	t := cb.Sub(ca)
	ta := t.Dot(a)
	lat := t.AddScaled(a, -ta)
	dl := lat.Norm()
	sepAx := math.Abs(ta) - h1 - h2
	sepLat := dl - r1 - r2
	if sepAx > margin || sepLat > margin {
		return a
	}
	if sepAx >= sepLat || dl < 1e-9 {
		// stacked: the overlap of the facing caps
		n := a
		if ta < 0 {
			n = a.Neg()
		}
		capA := ca.AddScaled(n, h1)
		capB := cb.AddScaled(n, -h2)
		e1, e2 := ra.Col(0), ra.Col(1)
		var poly, tmp [16]Vec3
		for k := 0; k < 8; k++ {
			sn, cs := math.Sincos(float64(k) * math.Pi / 4)
			poly[k] = capB.AddScaled(e1, r2*cs).AddScaled(e2, r2*sn)
		}
		np := 8
		for k := 0; k < 8 && np > 0; k++ {
			sn, cs := math.Sincos(float64(k)*math.Pi/4 + math.Pi/8)
			dir := e1.Scale(cs).AddScaled(e2, sn)
			np = clipPoly(poly[:np], tmp[:], dir, dir.Dot(capA)+r1)
			copy(poly[:], tmp[:np])
		}
		for _, v := range poly[:np] {
			sp := v.Sub(capA).Dot(n)
			if sp <= margin {
				buf.add(v.AddScaled(n, -0.5*sp), sp)
			}
		}
		return n
	}
	// side by side: a line along the axes over their common length
	n := lat.Scale(1 / dl)
	lo := max(-h1, ta-h2)
	hi := min(h1, ta+h2)
	if lo > hi {
		return n
	}
	for _, z := range [2]float64{lo, hi} {
		p := ca.AddScaled(a, z).AddScaled(n, r1+0.5*sepLat)
		buf.add(p, sepLat)
		if hi-lo < 1e-9 {
			break
		}
	}
	return n
}

func cylinderCapsule(cc Vec3, rc *Mat3, r, hh float64, cp Vec3, rp *Mat3, rr, hp, margin float64, buf *candBuf) Vec3 {
	return boxCapsule(cc, rc, Vec3{r, r, hh}, cp, rp, rr, hp, margin, buf)
}

// cylinderSphere: cylinder A, sphere B (exact).
func cylinderSphere(cc Vec3, rc *Mat3, r, hh float64, cs Vec3, rs, margin float64, buf *candBuf) Vec3 {
	l := rc.MulTVec(cs.Sub(cc))
	rad := math.Hypot(l.X, l.Y)
	// closest point on the solid cylinder
	cl := l
	if rad > r {
		cl.X, cl.Y = l.X*r/rad, l.Y*r/rad
	}
	cl.Z = clamp(l.Z, hh)
	if cl != l {
		dl := l.Sub(cl)
		dist := dl.Norm()
		n := rc.MulVec(dl.Scale(1 / dist))
		sep := dist - rs
		if sep <= margin {
			buf.add(cc.Add(rc.MulVec(cl)).AddScaled(n, 0.5*sep), sep)
		}
		return n
	}
	// inside: nearest of side and caps
	dSide := r - rad
	dCap := hh - math.Abs(l.Z)
	var nl Vec3
	depth := dSide
	if dCap < dSide || rad < 1e-12 {
		depth = dCap
		nl = Vec3{0, 0, math.Copysign(1, l.Z)}
	} else {
		nl = Vec3{l.X / rad, l.Y / rad, 0}
	}
	n := rc.MulVec(nl)
	sep := -depth - rs
	buf.add(cs.AddScaled(n, depth).AddScaled(n, 0.5*sep), sep)
	return n
}
