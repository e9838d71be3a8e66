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
	var ax1, ax2 [3]Vec3
	for k := 0; k < 3; k++ {
		ax1[k], ax2[k] = p1.Rot.Col(k), p2.Rot.Col(k)
	}
	t := p2.Pos.Sub(p1.Pos)
	sep := func(L Vec3) float64 {
		r1 := s1.Size[0]*math.Abs(ax1[0].Dot(L)) + s1.Size[1]*math.Abs(ax1[1].Dot(L)) + s1.Size[2]*math.Abs(ax1[2].Dot(L))
		r2 := s2.Size[0]*math.Abs(ax2[0].Dot(L)) + s2.Size[1]*math.Abs(ax2[1].Dot(L)) + s2.Size[2]*math.Abs(ax2[2].Dot(L))
		return math.Abs(t.Dot(L)) - r1 - r2
	}
	// Face axes in MuJoCo's order (box 1 axis i, then box 2 axis i), the
	// first strictly best kept, so ties resolve as in mjc_BoxBox.
	best, bestKind, bestI, bestJ := math.Inf(-1), 0, 0, 0
	var bestL Vec3
	for k := 0; k < 3; k++ {
		if s := sep(ax1[k]); s > best {
			best, bestKind, bestI, bestL = s, 1, k, ax1[k]
		}
		if s := sep(ax2[k]); s > best {
			best, bestKind, bestI, bestL = s, 2, k, ax2[k]
		}
	}
	if best > margin {
		return dst, false
	}
	// Edge axes replace a face axis only when strictly better, as in
	// mjc_BoxBox for penetrating boxes (penetration < best·(1 − 1e-12)).
	// For separated boxes MuJoCo's relative test lets an edge axis that
	// equals a face axis win the tie; here the face keeps it.
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			L := ax1[i].Cross(ax2[j])
			l := L.Norm()
			if l < 1e-15 {
				continue
			}
			L = L.Scale(1 / l)
			s := sep(L)
			if s > margin {
				return dst, false
			}
			if s > best+1e-12*math.Abs(best) {
				best, bestKind, bestI, bestJ, bestL = s, 3, i, j, L
			}
		}
	}
	n := bestL
	if n.Dot(t) < 0 {
		n = n.Scale(-1) // from box 1 towards box 2
	}
	frame := Mat3{n[0], n[1], n[2]}
	if bestKind == 3 {
		// Closest points of the two edges chosen by the supports along ±n.
		c1 := p1.Pos
		c2 := p2.Pos
		for k := 0; k < 3; k++ {
			if k != bestI {
				c1 = c1.AddScaled(ax1[k], math.Copysign(s1.Size[k], ax1[k].Dot(n)))
			}
			if k != bestJ {
				c2 = c2.AddScaled(ax2[k], -math.Copysign(s2.Size[k], ax2[k].Dot(n)))
			}
		}
		d1, d2 := ax1[bestI], ax2[bestJ]
		r := c1.Sub(c2)
		b := d1.Dot(d2)
		den := 1 - b*b
		e, f := d1.Dot(r), d2.Dot(r)
		u := (b*f - e) / den
		v := (f - b*e) / den
		u = math.Max(-s1.Size[bestI], math.Min(s1.Size[bestI], u))
		v = math.Max(-s2.Size[bestJ], math.Min(s2.Size[bestJ], v))
		q1 := c1.AddScaled(d1, u)
		q2 := c2.AddScaled(d2, v)
		return append(dst, Contact{Dist: best, Pos: q1.Add(q2).Scale(0.5), Frame: frame}), false
	}
	// Reference box R (owns the axis), incident box I.
	sR, pR, axR, sI, pI, axI := s1, p1, ax1, s2, p2, ax2
	nr := n // reference face normal, pointing towards I
	if bestKind == 2 {
		sR, pR, axR, sI, pI, axI = s2, p2, ax2, s1, p1, ax1
		nr = n.Scale(-1)
	}
	// Incident feature as in mjc_BoxBox: the corner of I deepest along
	// −nr, extended along each axis of I that lies within 60° of the
	// reference face (|axis·nr| < 0.5): a corner, an edge or a face.
	corner := pI.Pos
	var free [2]Vec3
	nf := 0
	for k := 0; k < 3; k++ {
		d := axI[k].Dot(nr)
		sg := -1.0
		if d < 0 {
			sg = 1
		}
		corner = corner.AddScaled(axI[k], sg*sI.Size[k])
		if math.Abs(d) < 0.5 && nf < 2 {
			free[nf] = axI[k].Scale(-2 * sg * sI.Size[k])
			nf++
		}
	}
	var poly, tmp [MaxContacts + 4]Vec3
	np := 0
	switch nf {
	case 0:
		poly[0], np = corner, 1
	case 1:
		poly[0], poly[1], np = corner, corner.Add(free[0]), 2
	default:
		poly[0], poly[1], poly[2], poly[3] = corner, corner.Add(free[0]), corner.Add(free[0]).Add(free[1]), corner.Add(free[1])
		np = 4
	}
	// Clip against the four side planes of the reference face.
	for k := 0; k < 3; k++ {
		if k == bestI {
			continue
		}
		for _, sg := range [2]float64{1, -1} {
			pn := axR[k].Scale(sg)
			off := pn.Dot(pR.Pos) + sR.Size[k]
			switch np {
			case 1:
				if pn.Dot(poly[0])-off > 0 {
					np = 0
				}
			case 2:
				// A segment: clip its parameter range.
				a, b := poly[0], poly[1]
				da, db := pn.Dot(a)-off, pn.Dot(b)-off
				switch {
				case da > 0 && db > 0:
					np = 0
				case da > 0:
					poly[0] = a.Add(b.Sub(a).Scale(da / (da - db)))
				case db > 0:
					poly[1] = a.Add(b.Sub(a).Scale(da / (da - db)))
				}
			default:
				nt := 0
				for i := 0; i < np; i++ {
					a, b := poly[i], poly[(i+1)%np]
					da, db := pn.Dot(a)-off, pn.Dot(b)-off
					if da <= 0 {
						tmp[nt] = a
						nt++
					}
					if (da < 0) != (db < 0) && da != db && nt < len(tmp) {
						tmp[nt] = a.Add(b.Sub(a).Scale(da / (da - db)))
						nt++
					}
				}
				np = copy(poly[:], tmp[:nt])
			}
			if np == 0 {
				return dst, true
			}
		}
	}
	refOff := nr.Dot(pR.Pos) + sR.Size[bestI]
	cnt := 0
	for i := 0; i < np && cnt < MaxContacts; i++ {
		d := nr.Dot(poly[i]) - refOff
		if d > margin {
			continue
		}
		dst = append(dst, Contact{Dist: boxFaceDistScale * d, Pos: poly[i].AddScaled(nr, -0.5*d), Frame: frame})
		cnt++
	}
	return dst, cnt == 0
}
