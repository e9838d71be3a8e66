package convex

import (
	"math"
	"math/bits"
)

// sphereBox is MuJoCo's sphere–box contact (geom1 the sphere of radius r
// centred at c, world; geom2 the box): outside the box, from the closest
// box point to the sphere; with the centre inside, through the nearest face.
func sphereBox(dst []Contact, c Vec3, r float64, sb *Shape, pb *Pose, margin float64) []Contact {
	lc := pb.Rot.MulTVec(c.Sub(pb.Pos)) // centre in the box frame
	var cl Vec3
	for k := 0; k < 3; k++ {
		cl[k] = math.Max(-sb.Size[k], math.Min(sb.Size[k], lc[k]))
	}
	dir := cl.Sub(lc)
	d := dir.Norm()
	if d-r > margin {
		return dst
	}
	var pos, n Vec3
	var dist float64
	if d <= 1e-15 {
		// Inside: the nearest face; the normal points from the sphere into
		// the box, away from that face.
		closest, k, sg := math.Inf(1), 0, 1.0
		for f := 0; f < 6; f++ {
			face := sb.Size[f/2]
			if f%2 == 0 {
				face = -face
			}
			if g := math.Abs(face - lc[f/2]); g < closest {
				closest, k = g, f/2
				sg = 1
				if f%2 == 1 {
					sg = -1
				}
			}
		}
		n[k] = sg
		pos = lc.AddScaled(n, (r-closest)/2)
		dist = -closest - r
	} else {
		n = dir.Scale(1 / d)
		pos = cl.Add(lc.AddScaled(n, r)).Scale(0.5)
		dist = d - r
	}
	wn := pb.Rot.MulVec(n)
	return append(dst, Contact{Dist: dist, Pos: pb.Transform(pos), Frame: Mat3{wn[0], wn[1], wn[2]}})
}

// capsuleBox follows the case analysis of MuJoCo's capsule–box collider
// (mjraw_CapsuleBox), re-derived here: find the point of the capsule's
// segment closest to the box, among the segment's ends against the faces
// and the segment against the twelve edges; collide a sphere there. Then,
// from how the segment lies against the closest feature (a corner, the
// middle of an edge, or a face), pick a second point along the segment
// where it leaves the box's extent, and collide a sphere there too: up to
// two contacts. Geom1 is the capsule, geom2 the box.
func capsuleBox(dst []Contact, sc *Shape, pc *Pose, sb *Shape, pb *Pose, margin float64) []Contact {
	s := sb.Size
	r, h := sc.Size[0], sc.Size[1]
	p := pb.Rot.MulTVec(pc.Pos.Sub(pb.Pos)) // capsule centre, box frame
	axis := pb.Rot.MulTVec(pc.Rot.Col(2))   // capsule axis, box frame
	ha := axis.Scale(h)                     // half segment
	axisdir := 0
	for k := 0; k < 3; k++ {
		if ha[k] > 0 {
			axisdir |= 1 << k
		}
	}
	const none = -4
	best := margin + 2*(r+h+s[0]+s[1]+s[2])
	best *= best
	bsp, bbp := 0.0, 0.0 // closest point: segment and edge parameters in [−1, 1]
	cltype, clface, clcorner, cledge := none, -1, 0, 0

	// Segment ends against the faces: an end whose clamp to the box moves
	// at most one coordinate projects onto a face (or lies inside).
	for _, i := range [2]float64{-1, 1} {
		e := p.AddScaled(ha, i)
		clamped, face, q := 0, -1, e
		for k := 0; k < 3; k++ {
			if q[k] < -s[k] {
				q[k], clamped, face = -s[k], clamped+1, k
			} else if q[k] > s[k] {
				q[k], clamped, face = s[k], clamped+1, k
			}
		}
		if clamped > 1 {
			continue
		}
		if d := q.Sub(e); d.Dot(d) < best {
			best, bsp, cltype, clface = d.Dot(d), i, int(i)-2, face
		}
	}
	// The segment against each edge (axis j, through the corners whose
	// other coordinates are given by the bits of i).
	for j := 0; j < 3; j++ {
		for i := 0; i < 8; i++ {
			if i&(1<<j) != 0 {
				continue
			}
			var m Vec3
			for k := 0; k < 3; k++ {
				if k == j {
					continue
				}
				m[k] = -s[k]
				if i&(1<<k) != 0 {
					m[k] = s[k]
				}
			}
			dif := m.Sub(p)
			ma, mb, mc := s[j]*s[j], -s[j]*ha[j], h*h
			u, v := -s[j]*dif[j], ha.Dot(dif)
			det := ma*mc - mb*mb
			if math.Abs(det) < 1e-15 {
				continue
			}
			x1, x2 := (mc*u-mb*v)/det, (ma*v-mb*u)/det
			s1, s2 := 1, 1 // 0, 1, 2: clamped low, inside, clamped high
			if x1 > 1 {
				x1, s1, x2 = 1, 2, (v-mb)/mc
			} else if x1 < -1 {
				x1, s1, x2 = -1, 0, (v+mb)/mc
			}
			clampX1 := func() {
				if x1 > 1 {
					x1, s1 = 1, 2
				} else if x1 < -1 {
					x1, s1 = -1, 0
				}
			}
			if x2 > 1 {
				x2, s2, x1 = 1, 2, (u-mb)/ma
				clampX1()
			} else if x2 < -1 {
				x2, s2, x1 = -1, 0, (u+mb)/ma
				clampX1()
			}
			d := dif.AddScaled(ha, -x2)
			d[j] += s[j] * x1
			if dd := d.Dot(d); dd < best-1e-15 {
				best, bsp, bbp = dd, x2, x1
				code := s1*3 + s2
				clcorner = i
				if code/6 == 1 {
					clcorner += 1 << j // the upper end of the edge
				}
				cledge, cltype = j, code
			}
		}
	}
	if cltype == none {
		return dst
	}

	second := math.Inf(-1) // offset of the second point along the segment
	switch {
	case cltype >= 0 && cltype/3 != 1:
		// Closest at a box corner: a second point unless the segment points
		// straight at or away from the corner.
		c1 := axisdir ^ clcorner
		if c1 == 0 || c1 == 7 {
			break
		}
		mul, de, dp := 1.0, 1-bsp, 1+bsp
		if bits.OnesCount(uint(c1)) == 2 {
			mul, c1, dp, de = -1, 7-c1, 1-bsp, 1+bsp
		}
		ax := bits.TrailingZeros(uint(c1))
		ax1, ax2 := (ax+1)%3, (ax+2)%3
		if axis[ax]*axis[ax] > 0.5 { // along the edge
			second = math.Min(de, 2*s[ax]/math.Abs(ha[ax])) * mul
		} else { // along a face
			second = math.Min(dp, math.Min(2*s[ax1]/math.Abs(ha[ax1]), 2*s[ax2]/math.Abs(ha[ax2]))) * -mul
		}
	case cltype >= 0:
		// Closest in the middle of an edge: a second point when the segment
		// crosses the edge (an X), not when it meets it end on (a T).
		c1 := (axisdir ^ clcorner) & (7 - (1 << cledge))
		if c1 != 1 && c1 != 2 && c1 != 4 {
			break
		}
		ax := cledge
		ax1, ax2 := (ax+1)%3, (ax+2)%3
		if math.Abs(axis[ax1]) > math.Abs(axis[ax2]) {
			ax1 = ax2
		}
		ax2 = 3 - ax - ax1
		mul, sp := -1.0, 1+bsp
		if c1&(1<<ax2) != 0 {
			mul, sp = 1, 1-bsp
		}
		sp = math.Min(sp, 2*s[ax2]/math.Abs(ha[ax2]))
		e2 := 1 + bbp
		if (axisdir&(1<<ax) != 0) == (c1&(1<<ax2) != 0) {
			e2 = 1 - bbp
		}
		sp = math.Min(sp, s[ax]*e2/math.Abs(ha[ax]))
		second = sp * mul
	default:
		// Closest at a segment end over a face: the second point is where
		// the segment, followed from that end, leaves the face's extent.
		if clface == -1 {
			break // the end is inside the box
		}
		mul := -1.0
		if cltype == -3 {
			mul = 1
		}
		sp := 2.0
		q := p.AddScaled(ha, -mul)
		for i := 0; i < 3; i++ {
			if i == clface {
				continue
			}
			for _, bound := range [2]float64{s[i], -s[i]} {
				if e1 := (bound - q[i]) / ha[i] * mul; e1 > 0 && e1 < sp {
					sp = e1
				}
			}
		}
		second = sp * mul
	}

	dst = sphereBox(dst, pb.Transform(p.AddScaled(ha, bsp)), r, sb, pb, margin)
	if second > -3 {
		dst = sphereBox(dst, pb.Transform(p.AddScaled(ha, bsp+second)), r, sb, pb, margin)
	}
	return dst
}
