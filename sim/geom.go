package sim

import "math"

// Narrow-phase routines. Each takes two shapes in world frame, writes the
// candidate contact points (world midpoint between the surfaces, separation
// in m, negative when overlapping) whose separation is at most margin, and
// returns the contact normal pointing from the first shape to the second.

// planeFrame returns the plane's point and unit normal (local +z).
func planeFrame(pp Vec3, rp *Mat3) (Vec3, Vec3) { return pp, rp.Col(2) }

func planeSphere(pp Vec3, rp *Mat3, c Vec3, r, margin float64, buf *candBuf) Vec3 {
	p0, n := planeFrame(pp, rp)
	sep := c.Sub(p0).Dot(n) - r
	if sep <= margin {
		buf.add(c.AddScaled(n, -(r+0.5*sep)), sep)
	}
	return n
}

func planeCapsule(pp Vec3, rp *Mat3, c Vec3, rc *Mat3, r, hh, margin float64, buf *candBuf) Vec3 {
	p0, n := planeFrame(pp, rp)
	a := rc.Col(2)
	for _, sgn := range [2]float64{-1, 1} {
		e := c.AddScaled(a, sgn*hh)
		sep := e.Sub(p0).Dot(n) - r
		if sep <= margin {
			buf.add(e.AddScaled(n, -(r+0.5*sep)), sep)
		}
	}
	return n
}

func planeBox(pp Vec3, rp *Mat3, c Vec3, rb *Mat3, h Vec3, margin float64, buf *candBuf) Vec3 {
	p0, n := planeFrame(pp, rp)
	u0, u1, u2 := rb.Col(0).Scale(h.X), rb.Col(1).Scale(h.Y), rb.Col(2).Scale(h.Z)
	d0 := c.Sub(p0).Dot(n)
	e0, e1, e2 := u0.Dot(n), u1.Dot(n), u2.Dot(n)
	// quick reject: the lowest vertex is above the margin
	if d0-math.Abs(e0)-math.Abs(e1)-math.Abs(e2) > margin {
		return n
	}
	for k := 0; k < 8; k++ {
		s0, s1, s2 := float64(k&1*2-1), float64(k>>1&1*2-1), float64(k>>2&1*2-1)
		sep := d0 + s0*e0 + s1*e1 + s2*e2
		if sep <= margin {
			v := c.AddScaled(u0, s0).AddScaled(u1, s1).AddScaled(u2, s2)
			buf.add(v.AddScaled(n, -0.5*sep), sep)
		}
	}
	return n
}

// planeCylinder samples the cap rims: four points per cap when the cap is
// (nearly) parallel to the plane, otherwise the lowest rim point and the two
// rim points at ±90° from it.
func planeCylinder(pp Vec3, rp *Mat3, c Vec3, rc *Mat3, r, hh, margin float64, buf *candBuf) Vec3 {
	p0, n := planeFrame(pp, rp)
	a := rc.Col(2)
	an := a.Dot(n)
	lowest := n.AddScaled(a, -an).Neg()
	l := lowest.Norm()
	var d1, d2, d3 Vec3
	flat := l < 1e-3
	if flat {
		d1, d2 = rc.Col(0), rc.Col(1)
	} else {
		d1 = lowest.Scale(1 / l)
		d2 = a.Cross(d1)
	}
	for _, sgn := range [2]float64{-1, 1} {
		cc := c.AddScaled(a, sgn*hh)
		if cc.Sub(p0).Dot(n)-r*l > margin+r*1e-3 {
			continue
		}
		try := func(v Vec3) {
			sep := v.Sub(p0).Dot(n)
			if sep <= margin {
				buf.add(v.AddScaled(n, -0.5*sep), sep)
			}
		}
		if flat {
			try(cc.AddScaled(d1, r))
			try(cc.AddScaled(d1, -r))
			try(cc.AddScaled(d2, r))
			try(cc.AddScaled(d2, -r))
		} else {
			d3 = d2
			try(cc.AddScaled(d1, r))
			try(cc.AddScaled(d3, r))
			try(cc.AddScaled(d3, -r))
		}
	}
	return n
}

func sphereSphere(ca Vec3, ra float64, cb Vec3, rb, margin float64, buf *candBuf) Vec3 {
	d := cb.Sub(ca)
	dist := d.Norm()
	n := Vec3{0, 0, 1}
	if dist > 1e-12 {
		n = d.Scale(1 / dist)
	}
	sep := dist - ra - rb
	if sep <= margin {
		buf.add(ca.AddScaled(n, ra+0.5*sep), sep)
	}
	return n
}

// closestOnSegment returns the point of segment [p, q] closest to x.
func closestOnSegment(p, q, x Vec3) Vec3 {
	d := q.Sub(p)
	dd := d.Norm2()
	if dd == 0 {
		return p
	}
	t := x.Sub(p).Dot(d) / dd
	t = math.Max(0, math.Min(1, t))
	return p.AddScaled(d, t)
}

func capsuleSphere(cc Vec3, rc *Mat3, r, hh float64, cs Vec3, rs, margin float64, buf *candBuf) Vec3 {
	a := rc.Col(2)
	q := closestOnSegment(cc.AddScaled(a, -hh), cc.AddScaled(a, hh), cs)
	return sphereSphere(q, r, cs, rs, margin, buf)
}

// boxSphere: box A, sphere B.
func boxSphere(cb Vec3, rb *Mat3, h Vec3, cs Vec3, r, margin float64, buf *candBuf) Vec3 {
	l := rb.MulTVec(cs.Sub(cb))
	cl := Vec3{clamp(l.X, h.X), clamp(l.Y, h.Y), clamp(l.Z, h.Z)}
	if cl != l {
		dl := l.Sub(cl)
		dist := dl.Norm()
		nl := dl.Scale(1 / dist)
		n := rb.MulVec(nl)
		sep := dist - r
		if sep <= margin {
			buf.add(cb.Add(rb.MulVec(cl)).AddScaled(n, 0.5*sep), sep)
		}
		return n
	}
	// centre inside: push out through the nearest face
	k, depth := 0, h.X-math.Abs(l.X)
	if d := h.Y - math.Abs(l.Y); d < depth {
		k, depth = 1, d
	}
	if d := h.Z - math.Abs(l.Z); d < depth {
		k, depth = 2, d
	}
	sgn := 1.0
	if l.Get(k) < 0 {
		sgn = -1
	}
	n := rb.Col(k).Scale(sgn)
	surf := cs.AddScaled(n, depth)
	sep := -depth - r
	buf.add(surf.AddScaled(n, 0.5*sep), sep)
	return n
}

func clamp(x, h float64) float64 {
	if x > h {
		return h
	}
	if x < -h {
		return -h
	}
	return x
}

// segmentClosest returns the parameters s, t in [0, 1] of the closest points
// of segments p1+s·d1 and p2+t·d2 (Ericson, Real-Time Collision Detection 5.1.9).
func segmentClosest(p1, d1, p2, d2 Vec3) (float64, float64) {
	r := p1.Sub(p2)
	a, e, f := d1.Dot(d1), d2.Dot(d2), d2.Dot(r)
	const eps = 1e-18
	var s, t float64
	if a <= eps && e <= eps {
		return 0, 0
	}
	if a <= eps {
		return 0, math.Max(0, math.Min(1, f/e))
	}
	c := d1.Dot(r)
	if e <= eps {
		return math.Max(0, math.Min(1, -c/a)), 0
	}
	b := d1.Dot(d2)
	den := a*e - b*b
	if den > eps*a*e {
		s = math.Max(0, math.Min(1, (b*f-c*e)/den))
	}
	t = (b*s + f) / e
	if t < 0 {
		t = 0
		s = math.Max(0, math.Min(1, -c/a))
	} else if t > 1 {
		t = 1
		s = math.Max(0, math.Min(1, (b-c)/a))
	}
	return s, t
}

func capsuleCapsule(ca Vec3, raM *Mat3, ra, ha float64, cb Vec3, rbM *Mat3, rb, hb, margin float64, buf *candBuf) Vec3 {
	aa, ab := raM.Col(2), rbM.Col(2)
	pa, pb := ca.AddScaled(aa, -ha), cb.AddScaled(ab, -hb)
	da, db := aa.Scale(2*ha), ab.Scale(2*hb)
	s, t := segmentClosest(pa, da, pb, db)
	qa, qb := pa.AddScaled(da, s), pb.AddScaled(db, t)
	d := qb.Sub(qa)
	dist := d.Norm()
	var n Vec3
	if dist > 1e-9 {
		n = d.Scale(1 / dist)
	} else {
		n = aa.Cross(ab).Normalize()
		if n == (Vec3{}) {
			n, _ = perp(aa)
		}
		if n.Dot(cb.Sub(ca)) < 0 {
			n = n.Neg()
		}
	}
	sep := dist - ra - rb
	if sep > margin {
		return n
	}
	// nearly parallel: a second point from the overlap's ends
	if c := aa.Cross(ab).Norm(); c < 0.05 && ha > 0 && hb > 0 {
		var pts [4][2]Vec3
		pts[0] = [2]Vec3{pa, closestOnSegment(pb, pb.Add(db), pa)}
		pts[1] = [2]Vec3{pa.Add(da), closestOnSegment(pb, pb.Add(db), pa.Add(da))}
		pts[2] = [2]Vec3{closestOnSegment(pa, pa.Add(da), pb), pb}
		pts[3] = [2]Vec3{closestOnSegment(pa, pa.Add(da), pb.Add(db)), pb.Add(db)}
		for _, pp := range pts {
			// keep pairs whose connecting line is along n (inside the overlap)
			dd := pp[1].Sub(pp[0])
			if dd.Sub(n.Scale(dd.Dot(n))).Norm2() > 1e-10+0.01*dd.Norm2() {
				continue
			}
			sp := dd.Dot(n) - ra - rb
			if sp <= margin {
				buf.add(pp[0].AddScaled(n, ra+0.5*sp), sp)
			}
		}
		if buf.n >= 2 {
			return n
		}
		buf.n = 0
	}
	buf.add(qa.AddScaled(n, ra+0.5*sep), sep)
	return n
}
