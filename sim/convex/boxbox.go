package convex

import "math"

// boxFaceDistScale reproduces MuJoCo 3.3.8's mjc_BoxBox, which reports
// half the separation as dist for face contacts (it stores the point's
// height halved, for the midpoint, and uses it as dist too), while edge
// contacts carry the full separation. Contact positions are unaffected.
// Checked against MuJoCo's output in TestContactsAgainstMuJoCo.
const boxFaceDistScale = 0.5

// boxBox finds the axis of least penetration among the 15 separating-axis
// candidates (face normals of both boxes, cross products of their edges).
// On a face axis it clips the other box's most anti-parallel face against
// the reference face's sides and keeps the clipped points within margin of
// the reference face (up to 8); on an edge axis it gives the one contact
// between the two closest edges. MuJoCo's mjc_BoxBox also returns up to 8
// contacts, but by its own construction: counts and positions can differ.
//
// When the boxes are within margin but their faces do not overlap in
// projection (corner near corner), clipping finds nothing and boxBox
// reports fallback: the caller then uses GJK for one contact.
func boxBox(dst []Contact, s1 *Shape, p1 *Pose, s2 *Shape, p2 *Pose, margin float64) (_ []Contact, fallback bool) {
	// (axes, best axis and normal in scalars or written element by
	// element: no whole-array copies of floats just stored one by one,
	// which the store buffer cannot forward)
	var sat boxSAT
	ax1, ax2 := &sat.ax1, &sat.ax2
	r1, r2 := &p1.Rot, &p2.Rot
	for k := 0; k < 3; k++ {
		ax1[k][0], ax1[k][1], ax1[k][2] = r1[k], r1[3+k], r1[6+k]
		ax2[k][0], ax2[k][1], ax2[k][2] = r2[k], r2[3+k], r2[6+k]
	}
	sat.h1, sat.h2 = s1.Size, s2.Size
	t0, t1, t2 := p2.Pos[0]-p1.Pos[0], p2.Pos[1]-p1.Pos[1], p2.Pos[2]-p1.Pos[2]
	sat.t[0], sat.t[1], sat.t[2] = t0, t1, t2
	// Face axes in MuJoCo's order (box 1 axis i, then box 2 axis i), the
	// first strictly best kept, so ties resolve as in mjc_BoxBox.
	best, bestKind, bestI, bestJ := math.Inf(-1), 0, 0, 0
	var b0, b1, b2 float64 // the best axis
	for k := 0; k < 3; k++ {
		a := &ax1[k]
		if s := sat.sep(a[0], a[1], a[2]); s > best {
			best, bestKind, bestI, b0, b1, b2 = s, 1, k, a[0], a[1], a[2]
		}
		a = &ax2[k]
		if s := sat.sep(a[0], a[1], a[2]); s > best {
			best, bestKind, bestI, b0, b1, b2 = s, 2, k, a[0], a[1], a[2]
		}
	}
	if best > margin {
		return dst, false
	}
	// Edge axes replace a face axis only when strictly better, as in
	// mjc_BoxBox for penetrating boxes (penetration < best·(1 − 1e-12)).
	// For separated boxes MuJoCo's relative test lets an edge axis that
	// equals a face axis win the tie; here the face keeps it.
	// (in scalars: Cross's, Norm's and Scale's operations in their order)
	for i := 0; i < 3; i++ {
		a := &ax1[i]
		for j := 0; j < 3; j++ {
			b := &ax2[j]
			L0, L1, L2 := a[1]*b[2]-a[2]*b[1], a[2]*b[0]-a[0]*b[2], a[0]*b[1]-a[1]*b[0]
			l := math.Sqrt(L0*L0 + L1*L1 + L2*L2)
			if l < 1e-15 {
				continue
			}
			inv := 1 / l
			L0, L1, L2 = L0*inv, L1*inv, L2*inv
			s := sat.sep(L0, L1, L2)
			if s > margin {
				return dst, false
			}
			if s > best+1e-12*math.Abs(best) {
				best, bestKind, bestI, bestJ, b0, b1, b2 = s, 3, i, j, L0, L1, L2
			}
		}
	}
	if b0*t0+b1*t1+b2*t2 < 0 {
		b0, b1, b2 = b0*-1, b1*-1, b2*-1 // from box 1 towards box 2
	}
	var n Vec3
	n[0], n[1], n[2] = b0, b1, b2
	if bestKind == 3 {
		n0 := len(dst)
		dst = boxEdgeEdge(dst, s1, p1, ax1, s2, p2, ax2, bestI, bestJ, n, margin)
		return boxFilter(dst, n0, s1, p1, s2, p2, margin), false
	}
	n0 := len(dst)
	// Reference box R (owns the axis), incident box I.
	sR, pR, axR, sI, pI, axI := s1, p1, ax1, s2, p2, ax2
	var nr Vec3 // reference face normal, pointing towards I
	nr[0], nr[1], nr[2] = b0, b1, b2
	if bestKind == 2 {
		sR, pR, axR, sI, pI, axI = s2, p2, ax2, s1, p1, ax1
		nr[0], nr[1], nr[2] = b0*-1, b1*-1, b2*-1
	}
	// Incident feature as in mjc_BoxBox: the corner of I deepest along
	// −nr, extended along each axis of I that lies within 60° of the
	// reference face (|axis·nr| < 0.5): a corner, an edge or a face.
	// (in scalars, every point read and written element by element: the
	// Vec3 helpers' operations in their order, without the stalled 16-byte
	// reloads of points just stored as three floats)
	c0, c1, c2 := pI.Pos[0], pI.Pos[1], pI.Pos[2]
	var free [2][3]float64
	nf := 0
	for k := 0; k < 3; k++ {
		a := &axI[k]
		d := a[0]*nr[0] + a[1]*nr[1] + a[2]*nr[2]
		sg := -1.0
		if d < 0 {
			sg = 1
		}
		s := sg * sI.Size[k]
		c0, c1, c2 = c0+a[0]*s, c1+a[1]*s, c2+a[2]*s
		if math.Abs(d) < 0.5 && nf < 2 {
			f := -2 * sg * sI.Size[k]
			free[nf][0], free[nf][1], free[nf][2] = a[0]*f, a[1]*f, a[2]*f
			nf++
		}
	}
	// the polygon is clipped from one buffer into the other
	var bufA, bufB [MaxContacts + 4][3]float64
	poly, tmp := &bufA, &bufB
	set := func(q *[3]float64, x, y, z float64) { q[0], q[1], q[2] = x, y, z }
	np := 0
	f0, f1 := &free[0], &free[1]
	switch nf {
	case 0:
		set(&poly[0], c0, c1, c2)
		np = 1
	case 1:
		set(&poly[0], c0, c1, c2)
		set(&poly[1], c0+f0[0], c1+f0[1], c2+f0[2])
		np = 2
	default:
		set(&poly[0], c0, c1, c2)
		set(&poly[1], c0+f0[0], c1+f0[1], c2+f0[2])
		set(&poly[2], (c0+f0[0])+f1[0], (c1+f0[1])+f1[1], (c2+f0[2])+f1[2])
		set(&poly[3], c0+f1[0], c1+f1[1], c2+f1[2])
		np = 4
	}
	// Clip against the four side planes of the reference face.
	for k := 0; k < 3; k++ {
		if k == bestI {
			continue
		}
		for _, sg := range [2]float64{1, -1} {
			ak := &axR[k]
			pn0, pn1, pn2 := ak[0]*sg, ak[1]*sg, ak[2]*sg
			off := pn0*pR.Pos[0] + pn1*pR.Pos[1] + pn2*pR.Pos[2] + sR.Size[k]
			switch np {
			case 1:
				q := &poly[0]
				if pn0*q[0]+pn1*q[1]+pn2*q[2]-off > 0 {
					np = 0
				}
			case 2:
				// A segment: clip its parameter range.
				a, b := &poly[0], &poly[1]
				a0, a1, a2, b0, b1, b2 := a[0], a[1], a[2], b[0], b[1], b[2]
				da, db := pn0*a0+pn1*a1+pn2*a2-off, pn0*b0+pn1*b1+pn2*b2-off
				switch {
				case da > 0 && db > 0:
					np = 0
				case da > 0:
					s := da / (da - db)
					set(a, a0+(b0-a0)*s, a1+(b1-a1)*s, a2+(b2-a2)*s)
				case db > 0:
					s := da / (da - db)
					set(b, a0+(b0-a0)*s, a1+(b1-a1)*s, a2+(b2-a2)*s)
				}
			default:
				nt := 0
				var dist [MaxContacts + 4]float64 // each vertex's pn·v − off, once
				for i := 0; i < np; i++ {
					q := &poly[i]
					dist[i] = pn0*q[0] + pn1*q[1] + pn2*q[2] - off
				}
				for i := 0; i < np; i++ {
					j := (i + 1) % np
					a, b := &poly[i], &poly[j]
					da, db := dist[i], dist[j]
					if da <= 0 {
						set(&tmp[nt], a[0], a[1], a[2])
						nt++
					}
					if (da < 0) != (db < 0) && da != db && nt < len(tmp) {
						s := da / (da - db)
						a0, a1, a2 := a[0], a[1], a[2]
						set(&tmp[nt], a0+(b[0]-a0)*s, a1+(b[1]-a1)*s, a2+(b[2]-a2)*s)
						nt++
					}
				}
				poly, tmp = tmp, poly
				np = nt
			}
			if np == 0 {
				return dst, true
			}
		}
	}
	refOff := nr.Dot(pR.Pos) + sR.Size[bestI]
	cnt := 0
	for i := 0; i < np && cnt < MaxContacts; i++ {
		q := &poly[i]
		q0, q1, q2 := q[0], q[1], q[2]
		d := nr[0]*q0 + nr[1]*q1 + nr[2]*q2 - refOff
		if d > margin {
			continue
		}
		h := -0.5 * d
		dst = append(dst, Contact{})
		c := &dst[len(dst)-1]
		c.Dist = boxFaceDistScale * d
		c.Pos[0], c.Pos[1], c.Pos[2] = q0+nr[0]*h, q1+nr[1]*h, q2+nr[2]*h
		c.Frame[0], c.Frame[1], c.Frame[2] = b0, b1, b2
		cnt++
	}
	dst = boxFilter(dst, n0, s1, p1, s2, p2, margin)
	return dst, len(dst) == n0
}

// boxSAT holds two boxes' axes, half-sizes and centre offset for the
// separating-axis test.
type boxSAT struct {
	ax1, ax2 [3]Vec3
	h1, h2   Vec3
	t        Vec3
}

// sep is the boxes' separation along L: |t·L| minus both projected
// radii (in scalars; the Dot products in their order).
func (b *boxSAT) sep(L0, L1, L2 float64) float64 {
	a, c := &b.ax1, &b.ax2
	r1 := b.h1[0]*math.Abs(a[0][0]*L0+a[0][1]*L1+a[0][2]*L2) + b.h1[1]*math.Abs(a[1][0]*L0+a[1][1]*L1+a[1][2]*L2) +
		b.h1[2]*math.Abs(a[2][0]*L0+a[2][1]*L1+a[2][2]*L2)
	r2 := b.h2[0]*math.Abs(c[0][0]*L0+c[0][1]*L1+c[0][2]*L2) + b.h2[1]*math.Abs(c[1][0]*L0+c[1][1]*L1+c[1][2]*L2) +
		b.h2[2]*math.Abs(c[2][0]*L0+c[2][1]*L1+c[2][2]*L2)
	return math.Abs(b.t[0]*L0+b.t[1]*L1+b.t[2]*L2) - r1 - r2
}

// boxOutRatio is the relative band around a box (1%) that boxFilter
// tolerates, as MuJoCo's box–box post-pass with mju_outsideBox.
const boxOutRatio = 1.01

// boxFilter is the pass MuJoCo 3.x runs over its box–box contacts
// (dst[n0:]): it drops a contact whose point lies outside one box (grown by
// margin, then by 1%) unless it is inside the other (grown by margin,
// shrunk by 1%), drops a contact whose point equals a later one's, and
// keeps at most 8.
func boxFilter(dst []Contact, n0 int, s1 *Shape, p1 *Pose, s2 *Shape, p2 *Pose, margin float64) []Contact {
	// (the contacts were just stored field by field: their points are
	// read element by element and a kept contact is copied only when it
	// moves, no whole-struct reloads the store buffer cannot forward)
	outside := func(q *Vec3, s *Shape, p *Pose) int {
		// p.Rot.MulTVec(q.Sub(p.Pos)) in scalars
		R := &p.Rot
		d0, d1, d2 := q[0]-p.Pos[0], q[1]-p.Pos[1], q[2]-p.Pos[2]
		l := [3]float64{R[0]*d0 + R[3]*d1 + R[6]*d2, R[1]*d0 + R[4]*d1 + R[7]*d2, R[2]*d0 + R[5]*d1 + R[8]*d2}
		in := true
		for k := 0; k < 3; k++ {
			size := s.Size[k] + margin
			if math.Abs(l[k]) > size*boxOutRatio {
				return 1
			}
			if math.Abs(l[k]) >= size/boxOutRatio {
				in = false
			}
		}
		if in {
			return -1
		}
		return 0
	}
	k := n0
	for i := n0; i < len(dst); i++ {
		q := &dst[i].Pos
		o1, o2 := outside(q, s1, p1), outside(q, s2, p2)
		if o1 == 1 && o2 != -1 || o2 == 1 && o1 != -1 {
			continue
		}
		dup := false
		for j := i + 1; j < len(dst); j++ {
			if r := &dst[j].Pos; r[0] == q[0] && r[1] == q[1] && r[2] == q[2] {
				dup = true
				break
			}
		}
		if dup || k-n0 >= 8 {
			continue
		}
		if k != i {
			dst[k] = dst[i]
		}
		k++
	}
	return dst[:k]
}

// boxEdgeEdge builds the manifold of an edge-axis contact as mjc_BoxBox
// does, re-derived: the reference face is the face of box 1 next to its
// contact edge whose in-plane axis runs most along box 2's edge; the
// incident quad is the face of box 2 that holds its contact edge and runs
// most along box 1's edge. The quad is projected along the normal onto the
// reference face's plane, and contacts come from (1) the quad's edges
// crossing the face's rectangle, (2) the rectangle's corners inside the
// quad, (3) the quad's corners inside the rectangle, each midway between
// the two surfaces with dist the gap between them (not halved here).
func boxEdgeEdge(dst []Contact, s1 *Shape, p1 *Pose, ax1 *[3]Vec3, s2 *Shape, p2 *Pose, ax2 *[3]Vec3,
	i, j int, n Vec3, margin float64) []Contact {
	a, b := s1.Size, s2.Size
	frame := Mat3{n[0], n[1], n[2]}
	// Box 2's non-edge axes, the one most along box 1's edge first; box 1's
	// likewise against box 2's edge. Ties keep MuJoCo's default order.
	others := func(k int) (int, int) {
		switch k {
		case 0:
			return 1, 2
		case 1:
			return 0, 2
		}
		return 1, 0
	}
	bx1, bx2 := others(j)
	if math.Abs(ax1[i].Dot(ax2[bx1])) < math.Abs(ax1[i].Dot(ax2[bx2])) {
		bx1, bx2 = bx2, bx1
	}
	px1, px2 := others(i)
	if math.Abs(ax2[j].Dot(ax1[px1])) < math.Abs(ax2[j].Dot(ax1[px2])) {
		px1, px2 = px2, px1
	}
	// Reference face of box 1: normal ±A[px2] on the side facing box 2.
	zs := 1.0
	if ax1[px2].Dot(n) <= 0 {
		zs = -1
	}
	zr := ax1[px2].Scale(zs)
	F := p1.Pos.AddScaled(zr, a[px2])
	xr, yr := ax1[i], ax1[px1]
	half := [2]float64{a[i], a[px1]}
	nz := n.Dot(zr)
	if math.Abs(nz) < 1e-15 {
		return dst
	}
	innorm := 1 / nz
	local := func(w Vec3) Vec3 {
		d := w.Sub(F)
		return Vec3{d.Dot(xr), d.Dot(yr), d.Dot(zr)}
	}
	world := func(l Vec3) Vec3 {
		return F.AddScaled(xr, l[0]).AddScaled(yr, l[1]).AddScaled(zr, l[2])
	}
	ln := Vec3{n.Dot(xr), n.Dot(yr), nz}
	// Incident quad of box 2: its contact edge (U0, U1) and the opposite
	// edge of the same face (U2, U3), all in the reference frame.
	sg := func(k int) float64 { // side of box 2's contact edge along axis k
		if ax2[k].Dot(n) < 0 {
			return 1
		}
		return -1
	}
	e := p2.Pos.AddScaled(ax2[bx1], sg(bx1)*b[bx1]).AddScaled(ax2[bx2], sg(bx2)*b[bx2])
	e2 := p2.Pos.AddScaled(ax2[bx1], -sg(bx1)*b[bx1]).AddScaled(ax2[bx2], sg(bx2)*b[bx2])
	U := [4]Vec3{
		local(e.AddScaled(ax2[j], b[j])), local(e.AddScaled(ax2[j], -b[j])),
		local(e2.AddScaled(ax2[j], b[j])), local(e2.AddScaled(ax2[j], -b[j])),
	}
	var P [4]Vec3 // projections along n onto the face plane z = 0
	for k := range U {
		P[k] = U[k].AddScaled(ln, -U[k][2]/ln[2])
	}
	add := func(l Vec3, d float64) {
		dst = append(dst, Contact{Dist: d, Pos: world(l), Frame: frame})
	}
	count := 0
	// (1) Quad edges crossing the rectangle's sides.
	type seg struct{ p0, dp, u0, du Vec3 }
	segs := [4]seg{
		{P[0], P[1].Sub(P[0]), U[0], U[1].Sub(U[0])},
		{P[0], P[2].Sub(P[0]), U[0], U[2].Sub(U[0])},
		{P[1], P[2].Sub(P[0]), U[1], U[2].Sub(U[0])},
		{P[2], P[1].Sub(P[0]), U[2], U[1].Sub(U[0])},
	}
	for _, sgm := range segs {
		for q := 0; q < 2; q++ {
			if math.Abs(sgm.dp[q]) <= 1e-15 {
				continue
			}
			for _, side := range [2]float64{-1, 1} {
				l := half[q] * side
				t := (l - sgm.p0[q]) / sgm.dp[q]
				if t < 0 || t > 1 {
					continue
				}
				c2 := sgm.p0[1-q] + sgm.dp[1-q]*t
				if math.Abs(c2) > half[1-q] {
					continue
				}
				up := sgm.u0.AddScaled(sgm.du, t)
				if up[2]*innorm > margin || count >= MaxContacts {
					continue
				}
				var pr Vec3
				pr[q], pr[1-q] = l, c2
				add(up.Add(pr).Scale(0.5), up[2]*innorm)
				count++
			}
		}
	}
	nl := count
	// (2) Rectangle corners inside the quad.
	pa, pb, pc, pd := P[1][0]-P[0][0], P[2][0]-P[0][0], P[1][1]-P[0][1], P[2][1]-P[0][1]
	det := pa*pd - pb*pc
	for k := 0; k < 4 && det != 0; k++ {
		cx, cy := -half[0], -half[1]
		if k/2 == 1 {
			cx = half[0]
		}
		if k%2 == 1 {
			cy = half[1]
		}
		x, y := cx-P[0][0], cy-P[0][1]
		u := (x*pd - y*pb) / det
		v := (y*pa - x*pc) / det
		uOut, vOut := u < 0 || u > 1, v < 0 || v > 1
		if nl == 0 && uOut && vOut || nl > 0 && (uOut || vOut) {
			continue
		}
		u = math.Max(0, math.Min(1, u))
		v = math.Max(0, math.Min(1, v))
		T := U[0].Scale(1-u-v).AddScaled(U[1], u).AddScaled(U[2], v)
		C := Vec3{cx, cy, 0}
		d2 := C.Sub(T).Dot(C.Sub(T))
		// MuJoCo 3.3.8 keeps the quad's determinant and this squared
		// distance in one variable, so the corners after the first one to
		// get here are solved with d2 as the determinant. Reproduced: it
		// decides which corners MuJoCo keeps.
		det = d2
		if T[2] > 0 && d2 > margin*margin || count >= MaxContacts {
			continue
		}
		d := math.Sqrt(d2)
		if T[2] < 0 {
			d = -d
		}
		add(C.Add(T).Scale(0.5), d)
		count++
	}
	nf := count
	// (3) Quad corners inside the rectangle.
	for k := 0; k < 4; k++ {
		x, y := P[k][0], P[k][1]
		xOut, yOut := x < -half[0] || x > half[0], y < -half[1] || y > half[1]
		switch {
		case nl == 0 && nf == 0:
		case nl == 0:
			if xOut && yOut {
				continue
			}
		default:
			if xOut || yOut {
				continue
			}
		}
		var cl Vec3
		d2 := 0.0
		for q := 0; q < 2; q++ {
			cl[q] = P[k][q]
			if P[k][q] < -half[q] {
				d2 += (P[k][q] + half[q]) * (P[k][q] + half[q])
				cl[q] = -half[q]
			} else if P[k][q] > half[q] {
				d2 += (P[k][q] - half[q]) * (P[k][q] - half[q])
				cl[q] = half[q]
			}
		}
		d2 += U[k][2] * innorm * U[k][2] * innorm
		if U[k][2] > 0 && d2 > margin*margin || count >= MaxContacts {
			continue
		}
		d := math.Sqrt(d2)
		if U[k][2] < 0 {
			d = -d
		}
		add(cl.Add(U[k]).Scale(0.5), d)
		count++
	}
	return dst
}
