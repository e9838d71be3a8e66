package sim

import (
	"math"
)

// cand is a candidate contact point: world midpoint and separation (m).
type cand struct {
	p   Vec3
	sep float64
}

// candBuf collects candidate points before reduction to a manifold.
type candBuf struct {
	n int
	c [16]cand
}

func (b *candBuf) add(p Vec3, sep float64) {
	if b.n < len(b.c) {
		b.c[b.n] = cand{p, sep}
		b.n++
	}
}

// collide is the Step1 stage: shape poses and AABBs, sweep-and-prune broad
// phase, narrow phase into manifolds, and warm-start matching with the
// previous step's manifolds.
func collide(m *Model, s *State) {
	collideManifolds(m, s)
	fillContacts(m, s, false)
}

// collideManifolds is collide without the public contact list.
func collideManifolds(m *Model, s *State) {
	s.oldMan, s.man = s.man, s.oldMan[:0]
	s.oldIdx, s.manIdx = s.manIdx, s.oldIdx[:0]
	bodyReach(m, s)
	shapeBounds(m, s)
	broadPhase(m, s)
	indexManifolds(s)
	matchManifolds(s)
}

// bodyReach stores each dynamic body's world centre of mass and speculative
// reach: a point at distance l from the centre can move dt·(|v| + |w|·l)
// this step.
func bodyReach(m *Model, s *State) {
	ws := &s.ws
	for i := range m.Bodies {
		d := &m.Bodies[i]
		bs := &s.Bodies[i]
		if d.invMass > 0 {
			ws.bodyCOM[i] = bs.Pos.Add(bs.Rot.Rotate(m.bodyCOM[i]))
			ws.bodyReach[i] = [2]float64{m.Opt.Timestep * bs.Vel.Norm(), m.Opt.Timestep * bs.AngVel.Norm()}
		}
	}
}

// shapeBounds computes the colliding shapes' world poses, speculative
// margins and margin-grown AABBs (static shapes once).
func shapeBounds(m *Model, s *State) {
	ws := &s.ws
	margin := m.Opt.ContactMargin
	for i := range m.Shapes {
		sd := &m.Shapes[i]
		if sd.NoCollide || (ws.staticReady && ws.shapeStatic[i]) {
			continue
		}
		bs := &s.Bodies[sd.Body]
		q := bs.Rot.Mul(sd.Rot)
		c := bs.Pos.Add(bs.Rot.Rotate(sd.Pos))
		r := q.Mat3()
		ws.shapePos[i], ws.shapeRot[i] = c, r
		if sd.Kind == Plane {
			continue
		}
		e := shapeExtent(sd, &r)
		// speculative margin: the base margin plus how far the shape can
		// move this step, so fast bodies get contacts before they touch
		mg := margin
		if d := &m.Bodies[sd.Body]; d.invMass > 0 {
			lever := c.Sub(ws.bodyCOM[sd.Body]).Norm() + m.shapeRadius[i]
			mg += ws.bodyReach[sd.Body][0] + ws.bodyReach[sd.Body][1]*lever
		} else if d.Mocap {
			mg += s.mocapPos[sd.Body].Sub(bs.Pos).Norm() + 2*m.shapeRadius[i]*quatDist(s.mocapRot[sd.Body], bs.Rot)
		}
		mg = math.Min(mg, maxSpecMargin)
		ws.shapeMargin[i] = mg
		e = e.Add(Vec3{mg, mg, mg})
		ws.aabbLo[i], ws.aabbHi[i] = c.Sub(e), c.Add(e)
	}
	ws.staticReady = true
}

// shapeExtent returns the half extents (m) of the world AABB of a non-plane
// shape with world rotation r.
func shapeExtent(sd *ShapeDesc, r *Mat3) Vec3 {
	switch sd.Kind {
	case Box:
		h := sd.Size
		return Vec3{
			math.Abs(r[0])*h.X + math.Abs(r[1])*h.Y + math.Abs(r[2])*h.Z,
			math.Abs(r[3])*h.X + math.Abs(r[4])*h.Y + math.Abs(r[5])*h.Z,
			math.Abs(r[6])*h.X + math.Abs(r[7])*h.Y + math.Abs(r[8])*h.Z,
		}
	case Sphere:
		return Vec3{sd.Size.X, sd.Size.X, sd.Size.X}
	case Capsule:
		rad, hh := sd.Size.X, sd.Size.Y
		return Vec3{math.Abs(r[2])*hh + rad, math.Abs(r[5])*hh + rad, math.Abs(r[8])*hh + rad}
	case Cylinder:
		rad, hh := sd.Size.X, sd.Size.Y
		return Vec3{
			math.Abs(r[2])*hh + rad*math.Sqrt(math.Max(0, 1-r[2]*r[2])),
			math.Abs(r[5])*hh + rad*math.Sqrt(math.Max(0, 1-r[5]*r[5])),
			math.Abs(r[8])*hh + rad*math.Sqrt(math.Max(0, 1-r[8]*r[8])),
		}
	}
	return Vec3{}
}

// broadPhase sorts the AABBs along x (insertion sort exploits temporal
// coherence), sweeps for overlapping pairs, and tests every plane against
// every shape of a dynamic body, running the narrow phase on each pair.
func broadPhase(m *Model, s *State) {
	ws := &s.ws
	order := ws.order
	lo := ws.aabbLo
	for i := 1; i < len(order); i++ {
		v := order[i]
		x := lo[v].X
		j := i - 1
		for j >= 0 && (lo[order[j]].X > x || (lo[order[j]].X == x && order[j] > v)) {
			order[j+1] = order[j]
			j--
		}
		order[j+1] = v
	}
	hi := ws.aabbHi
	for ii, a := range order {
		ahi := hi[a]
		alo := lo[a]
		for _, b := range order[ii+1:] {
			if lo[b].X > ahi.X {
				break
			}
			if lo[b].Y > ahi.Y || hi[b].Y < alo.Y || lo[b].Z > ahi.Z || hi[b].Z < alo.Z {
				continue
			}
			narrow(m, s, a, b)
		}
	}
	for _, p := range ws.planes {
		p0, n := planeFrame(ws.shapePos[p], &ws.shapeRot[p])
		an := n.Abs()
		extra := ws.shapeMargin[p] - m.Opt.ContactMargin
		for _, b := range order {
			if m.Bodies[m.Shapes[b].Body].invMass == 0 {
				continue
			}
			if aboveThePlane(p0, n, an, lo[b], hi[b], extra) {
				continue
			}
			narrow(m, s, p, b)
		}
	}
}

// aboveThePlane reports whether the margin-grown AABB [lo, hi] of a shape
// lies wholly above the plane through p0 with unit normal n (an = |n|
// component-wise) by more than extra (the pair's margin beyond the
// shape's own: the plane's margin less Options.ContactMargin) and a
// rounding slack. The plane routines find a candidate only where the shape
// comes within the pair's margin of the plane; the AABB holds the shape
// grown by its own margin, so such a pair would give no contact: skipping
// its narrow phase changes nothing.
func aboveThePlane(p0, n, an, lo, hi Vec3, extra float64) bool {
	c := lo.Add(hi).Scale(0.5)
	e := hi.Sub(lo).Scale(0.5)
	d, ext := c.Sub(p0).Dot(n), an.Dot(e)
	return d-ext-extra > planeCullSlack*(1+math.Abs(d)+ext)
}

// indexManifolds sorts the manifolds by pair key into s.manIdx (insertion
// sort: few, nearly sorted).
func indexManifolds(s *State) {
	for i := range s.man {
		k := keyIdx{s.man[i].key, int32(i)}
		j := len(s.manIdx)
		s.manIdx = append(s.manIdx, k)
		for j > 0 && s.manIdx[j-1].key > k.key {
			s.manIdx[j] = s.manIdx[j-1]
			j--
		}
		s.manIdx[j] = k
	}
}

// matchManifolds lets each new contact point inherit the impulses of the
// nearest old point of the same shape pair within matchDist2 (warm start).
func matchManifolds(s *State) {
	old := s.oldIdx
	for mi := range s.man {
		mf := &s.man[mi]
		lo, hi := 0, len(old)
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if old[mid].key < mf.key {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		if lo == len(old) || old[lo].key != mf.key {
			continue
		}
		om := &s.oldMan[old[lo].idx]
		if om.shapeA != mf.shapeA {
			continue
		}
		mf.ti = om.ti
		for pi := 0; pi < int(mf.npts); pi++ {
			cp := &mf.pts[pi]
			best, bestD := -1, matchDist2
			for oi := 0; oi < int(om.npts); oi++ {
				if d := om.pts[oi].local.Sub(cp.local).Norm2(); d < bestD {
					best, bestD = oi, d
				}
			}
			if best >= 0 {
				cp.ni = om.pts[best].ni
				cp.fw = om.pts[best].fw
			}
		}
	}
}

// keyIdx indexes a manifold by its shape-pair key.
type keyIdx struct {
	key uint64
	idx int32
}

// narrow filters a candidate pair and runs the narrow phase for it.
func narrow(m *Model, s *State, a, b int32) {
	sa, sb := &m.Shapes[a], &m.Shapes[b]
	ba, bb := int32(sa.Body), int32(sb.Body)
	if ba == bb {
		return
	}
	if m.Bodies[ba].invMass == 0 && m.Bodies[bb].invMass == 0 {
		return
	}
	if len(m.exclude) > 0 && m.excluded(ba, bb) {
		return
	}
	if ws := &s.ws; m.filtered && ws.shapeType[a]&ws.shapeAff[b] == 0 && ws.shapeType[b]&ws.shapeAff[a] == 0 {
		return
	}
	// order the pair so that kind(A) <= kind(B) (routines take a fixed order)
	if sa.Kind > sb.Kind || (sa.Kind == sb.Kind && a > b) {
		a, b = b, a
	}
	ws := &s.ws
	margin := ws.shapeMargin[a] + ws.shapeMargin[b] - m.Opt.ContactMargin
	var buf candBuf
	n, flip := dispatch(m, ws, a, b, margin, &buf)
	if buf.n == 0 {
		return
	}
	if len(s.man) >= m.Opt.MaxContacts {
		s.Warnings.ContactCap++
		return
	}
	if flip {
		a, b = b, a
	}
	addManifold(m, s, a, b, n, &buf)
}

// dispatch runs the narrow-phase routine for shapes a and b (kind(a) <=
// kind(b)) and returns the normal; flip says the routine took the shapes in
// the other order, so the normal points from b to a.
func dispatch(m *Model, ws *workspace, a, b int32, margin float64, buf *candBuf) (n Vec3, flip bool) {
	sa, sb := &m.Shapes[a], &m.Shapes[b]
	pa, pb := ws.shapePos[a], ws.shapePos[b]
	ra, rb := &ws.shapeRot[a], &ws.shapeRot[b]
	switch sa.Kind {
	case Box:
		switch sb.Kind {
		case Box:
			return boxBox(pa, ra, sa.Size, pb, rb, sb.Size, margin, buf), false
		case Sphere:
			return boxSphere(pa, ra, sa.Size, pb, sb.Size.X, margin, buf), false
		case Capsule:
			return boxCapsule(pa, ra, sa.Size, pb, rb, sb.Size.X, sb.Size.Y, margin, buf), false
		case Cylinder:
			return boxCylinder(pa, ra, sa.Size, pb, rb, sb.Size.X, sb.Size.Y, margin, buf), false
		case Plane:
			return planeBox(pb, rb, pa, ra, sa.Size, margin, buf), true
		}
	case Sphere:
		switch sb.Kind {
		case Sphere:
			return sphereSphere(pa, sa.Size.X, pb, sb.Size.X, margin, buf), false
		case Capsule:
			return capsuleSphere(pb, rb, sb.Size.X, sb.Size.Y, pa, sa.Size.X, margin, buf), true
		case Cylinder:
			return cylinderSphere(pb, rb, sb.Size.X, sb.Size.Y, pa, sa.Size.X, margin, buf), true
		case Plane:
			return planeSphere(pb, rb, pa, sa.Size.X, margin, buf), true
		}
	case Capsule:
		switch sb.Kind {
		case Capsule:
			return capsuleCapsule(pa, ra, sa.Size.X, sa.Size.Y, pb, rb, sb.Size.X, sb.Size.Y, margin, buf), false
		case Cylinder:
			return cylinderCapsule(pb, rb, sb.Size.X, sb.Size.Y, pa, ra, sa.Size.X, sa.Size.Y, margin, buf), true
		case Plane:
			return planeCapsule(pb, rb, pa, ra, sa.Size.X, sa.Size.Y, margin, buf), true
		}
	case Cylinder:
		switch sb.Kind {
		case Cylinder:
			return cylinderCylinder(pa, ra, sa.Size.X, sa.Size.Y, pb, rb, sb.Size.X, sb.Size.Y, margin, buf), false
		case Plane:
			return planeCylinder(pb, rb, pa, ra, sa.Size.X, sa.Size.Y, margin, buf), true
		}
	}
	return Vec3{}, false
}

// addManifold appends the manifold of shapes a and b (normal n from a to b)
// reduced from the candidates in buf, with the pair's combined material.
func addManifold(m *Model, s *State, a, b int32, n Vec3, buf *candBuf) {
	sa, sb := &m.Shapes[a], &m.Shapes[b]
	ba, bb := int32(sa.Body), int32(sb.Body)
	s.man = append(s.man, manifold{})
	mf := &s.man[len(s.man)-1]
	mf.key = pairKey(a, b)
	mf.shapeA, mf.shapeB = a, b
	mf.bodyA, mf.bodyB = ba, bb
	mf.n = n
	mf.friction = math.Max(sa.Friction, sb.Friction)
	mf.torsion = math.Max(sa.TorsionalFriction, sb.TorsionalFriction)
	mf.restitution = math.Max(sa.Restitution, sb.Restitution)
	reduce(buf, mf)
	bA := &s.Bodies[ba]
	for k := 0; k < int(mf.npts); k++ {
		cp := &mf.pts[k]
		cp.local = bA.Rot.InvRotate(cp.p.Sub(bA.Pos))
	}
}

// quatDist returns an upper bound of the rotation angle (rad) between a and b.
func quatDist(a, b Quat) float64 {
	d := math.Abs(a.W*b.W + a.X*b.X + a.Y*b.Y + a.Z*b.Z)
	return 2 * math.Acos(math.Min(1, d))
}

// reduce keeps at most maxManifoldPoints candidates: the deepest, the one
// farthest from it, the one that maximises the triangle area, and the one
// farthest outside that triangle's edges (a standard 4-point reduction).
func reduce(buf *candBuf, mf *manifold) {
	if buf.n <= maxManifoldPoints {
		for k := 0; k < buf.n; k++ {
			mf.pts[k] = contactPoint{p: buf.c[k].p, sep: buf.c[k].sep}
		}
		mf.npts = int32(buf.n)
		return
	}
	c := buf.c[:buf.n]
	i0 := 0
	for k := range c {
		if c[k].sep < c[i0].sep {
			i0 = k
		}
	}
	i1, best := -1, -1.0
	for k := range c {
		if d := c[k].p.Sub(c[i0].p).Norm2(); d > best {
			i1, best = k, d
		}
	}
	i2, best := -1, -1.0
	e := c[i1].p.Sub(c[i0].p)
	for k := range c {
		if k == i0 || k == i1 {
			continue
		}
		if a := e.Cross(c[k].p.Sub(c[i0].p)).Norm2(); a > best {
			i2, best = k, a
		}
	}
	i3, best := -1, -1.0
	for k := range c {
		if k == i0 || k == i1 || k == i2 {
			continue
		}
		// the point that adds the most area to the triangle
		p := c[k].p
		a := math.Max(c[i0].p.Sub(p).Cross(c[i1].p.Sub(p)).Norm2(),
			math.Max(c[i1].p.Sub(p).Cross(c[i2].p.Sub(p)).Norm2(), c[i2].p.Sub(p).Cross(c[i0].p.Sub(p)).Norm2()))
		if a > best {
			i3, best = k, a
		}
	}
	for k, idx := range [4]int{i0, i1, i2, i3} {
		mf.pts[k] = contactPoint{p: c[idx].p, sep: c[idx].sep}
	}
	mf.npts = 4
}
