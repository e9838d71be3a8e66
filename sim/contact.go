package sim

import "math"

// prepareContacts computes levers, effective masses and restitution speeds
// for every manifold point at the step start (Box2D b2PrepareContacts).
func prepareContacts(m *Model, s *State) {
	bodies := s.ws.bodies
	for mi := range s.man {
		mf := &s.man[mi]
		a, b := &bodies[mf.bodyA], &bodies[mf.bodyB]
		n := mf.n
		mf.t1, mf.t2 = perp(n)
		mA, mB := a.invMass, b.invMass
		for k := 0; k < int(mf.npts); k++ {
			cp := &mf.pts[k]
			cp.rA = cp.p.Sub(a.c)
			cp.rB = cp.p.Sub(b.c)
			cp.adjSep = cp.sep - cp.rB.Sub(cp.rA).Dot(n)
			cp.nMass = invEff(mA, mB, &a.invI, &b.invI, cp.rA, cp.rB, n)
			cp.t1Mass = invEff(mA, mB, &a.invI, &b.invI, cp.rA, cp.rB, mf.t1)
			cp.t2Mass = invEff(mA, mB, &a.invI, &b.invI, cp.rA, cp.rB, mf.t2)
			cp.rnA, cp.rnB = cp.rA.Cross(n), cp.rB.Cross(n)
			cp.r1A, cp.r1B = cp.rA.Cross(mf.t1), cp.rB.Cross(mf.t1)
			cp.r2A, cp.r2B = cp.rA.Cross(mf.t2), cp.rB.Cross(mf.t2)
			cp.inA, cp.inB = a.invI.MulVec(cp.rnA), b.invI.MulVec(cp.rnB)
			cp.i1A, cp.i1B = a.invI.MulVec(cp.r1A), b.invI.MulVec(cp.r1B)
			cp.i2A, cp.i2B = a.invI.MulVec(cp.r2A), b.invI.MulVec(cp.r2B)
			// carry the warm-start friction impulse into the new tangent basis
			cp.f1 = cp.fw.Dot(mf.t1)
			cp.f2 = cp.fw.Dot(mf.t2)
			cp.maxNi = 0
			vA := a.v.Add(a.w.Cross(cp.rA))
			vB := b.v.Add(b.w.Cross(cp.rB))
			cp.relVel = vB.Sub(vA).Dot(n)
		}
		mf.tnA, mf.tnB = a.invI.MulVec(n), b.invI.MulVec(n)
		k := n.Dot(mf.tnA) + n.Dot(mf.tnB)
		mf.tMass = 0
		if k > 0 {
			mf.tMass = 1 / k
		}
	}
}

// invEff returns the effective mass 1/(J M⁻¹ Jᵀ) of a point constraint
// along direction d with levers rA, rB; 0 when both bodies are immovable.
func invEff(mA, mB float64, iA, iB *Mat3, rA, rB, d Vec3) float64 {
	ra := rA.Cross(d)
	rb := rB.Cross(d)
	k := mA + mB + ra.Dot(iA.MulVec(ra)) + rb.Dot(iB.MulVec(rb))
	if k > 0 {
		return 1 / k
	}
	return 0
}

// applyImpulse applies impulse P at levers rA (negative) and rB (positive).
// Static and mocap bodies (invMass 0, invI 0) are skipped.
func applyImpulse(a, b *bodySim, rA, rB, p Vec3) {
	if a.invMass > 0 {
		a.v = a.v.AddScaled(p, -a.invMass)
		a.w = a.w.Sub(a.invI.MulVec(rA.Cross(p)))
	}
	if b.invMass > 0 {
		b.v = b.v.AddScaled(p, b.invMass)
		b.w = b.w.Add(b.invI.MulVec(rB.Cross(p)))
	}
}

// warmStartContacts applies last substep's accumulated impulses.
func warmStartContacts(man []manifold, bodies []bodySim) {
	for mi := range man {
		mf := &man[mi]
		a, b := &bodies[mf.bodyA], &bodies[mf.bodyB]
		var p, dwA, dwB Vec3
		for k := 0; k < int(mf.npts); k++ {
			cp := &mf.pts[k]
			p = p.AddScaled(mf.n, cp.ni).AddScaled(mf.t1, cp.f1).AddScaled(mf.t2, cp.f2)
			dwA = dwA.AddScaled(cp.inA, cp.ni).AddScaled(cp.i1A, cp.f1).AddScaled(cp.i2A, cp.f2)
			dwB = dwB.AddScaled(cp.inB, cp.ni).AddScaled(cp.i1B, cp.f1).AddScaled(cp.i2B, cp.f2)
		}
		dwA = dwA.AddScaled(mf.tnA, mf.ti)
		dwB = dwB.AddScaled(mf.tnB, mf.ti)
		// a static body stays at +0 (+0 ± ±0 = +0) unless an impulse is
		// not finite
		bad := !finite(p.X + p.Y + p.Z + dwA.X + dwA.Y + dwA.Z + dwB.X + dwB.Y + dwB.Z)
		if a.moves || bad {
			a.v = a.v.AddScaled(p, -a.invMass)
			a.w = a.w.Sub(dwA)
		}
		if b.moves || bad {
			b.v = b.v.AddScaled(p, b.invMass)
			b.w = b.w.Add(dwB)
		}
	}
}

// solveContacts runs one Gauss-Seidel pass over the contacts: soft
// non-penetration with position bias when useBias (the solve stage), rigid
// without (the relax stage), then Coulomb friction and torsional friction.
// The Jacobians and their inverse-inertia images are precomputed per step;
// each manifold works on local copies of its two bodies' velocities.
func solveContacts(man []manifold, bodies []bodySim, soft softness, invH, maxPush, slop float64, useBias bool) {
	for mi := range man {
		mf := &man[mi]
		a, b := &bodies[mf.bodyA], &bodies[mf.bodyB]
		vA, wA, vB, wB := a.v, a.w, b.v, b.w
		mA, mB := a.invMass, b.invMass
		// a static body's v and w are +0 and its mass and inertia terms
		// ±0, so its updates (+0 ± ±0 = +0) are skipped unless an impulse
		// is not finite (then they make it NaN, as they always did)
		movesA, movesB := a.moves, b.moves
		n := mf.n
		dp := b.c.Sub(b.c0).Sub(a.c.Sub(a.c0))
		var total float64
		np := int(mf.npts)
		for k := 0; k < np; k++ {
			cp := &mf.pts[k]
			// current separation from the bodies' motion since the step start
			prA, prB := cp.rA, cp.rB
			if a.moves {
				prA = a.dq.Rotate(cp.rA)
			}
			if b.moves {
				prB = b.dq.Rotate(cp.rB)
			}
			sep := dp.Add(prB.Sub(prA)).Dot(n) + cp.adjSep
			bias, massScale, impulseScale := 0.0, 1.0, 0.0
			if sep > 0 {
				bias = sep * invH // speculative: allow closing the gap this substep
			} else if useBias {
				bias = max(soft.biasRate*min(sep+slop, 0), -maxPush)
				massScale, impulseScale = soft.massScale, soft.impulseScale
			}
			vn := vB.Sub(vA).Dot(n) + cp.rnB.Dot(wB) - cp.rnA.Dot(wA)
			imp := -cp.nMass*massScale*(vn+bias) - impulseScale*cp.ni
			newImp := max(cp.ni+imp, 0)
			imp = newImp - cp.ni
			cp.ni = newImp
			if imp > cp.maxNi {
				cp.maxNi = imp
			}
			if movesA || !finite(imp) {
				vA = vA.AddScaled(n, -mA*imp)
				wA = wA.AddScaled(cp.inA, -imp)
			}
			if movesB || !finite(imp) {
				vB = vB.AddScaled(n, mB*imp)
				wB = wB.AddScaled(cp.inB, imp)
			}
			total += newImp
		}
		mu := mf.friction
		t1, t2 := mf.t1, mf.t2
		for k := 0; k < np; k++ {
			cp := &mf.pts[k]
			dv := vB.Sub(vA)
			l1 := -cp.t1Mass * (dv.Dot(t1) + cp.r1B.Dot(wB) - cp.r1A.Dot(wA))
			l2 := -cp.t2Mass * (dv.Dot(t2) + cp.r2B.Dot(wB) - cp.r2A.Dot(wA))
			o1, o2 := cp.f1, cp.f2
			n1, n2 := o1+l1, o2+l2
			lim := mu * cp.ni
			if f2 := n1*n1 + n2*n2; f2 > lim*lim {
				sc := lim / math.Sqrt(f2)
				n1 *= sc
				n2 *= sc
			}
			cp.f1, cp.f2 = n1, n2
			d1, d2 := n1-o1, n2-o2
			p := t1.Scale(d1).AddScaled(t2, d2)
			if movesA || !finite(d1+d2) {
				vA = vA.AddScaled(p, -mA)
				wA = wA.Sub(cp.i1A.Scale(d1).AddScaled(cp.i2A, d2))
			}
			if movesB || !finite(d1+d2) {
				vB = vB.AddScaled(p, mB)
				wB = wB.Add(cp.i1B.Scale(d1).AddScaled(cp.i2B, d2))
			}
		}
		if mf.torsion > 0 && mf.tMass > 0 {
			wn := wB.Sub(wA).Dot(n)
			old := mf.ti
			lim := mf.torsion * total
			nt := max(-lim, min(lim, old-mf.tMass*wn))
			mf.ti = nt
			if movesA || !finite(nt-old) {
				wA = wA.AddScaled(mf.tnA, -(nt - old))
			}
			if movesB || !finite(nt-old) {
				wB = wB.AddScaled(mf.tnB, nt-old)
			}
		}
		a.v, a.w, b.v, b.w = vA, wA, vB, wB
	}
}

// applyRestitution adds the bounce impulse e·v⁻ to points that approached
// faster than the threshold and carried load (Box2D b2ApplyRestitution).
func applyRestitution(man []manifold, bodies []bodySim, threshold float64) {
	for mi := range man {
		mf := &man[mi]
		if mf.restitution == 0 {
			continue
		}
		a, b := &bodies[mf.bodyA], &bodies[mf.bodyB]
		for k := 0; k < int(mf.npts); k++ {
			cp := &mf.pts[k]
			if cp.relVel > -threshold || cp.maxNi == 0 {
				continue
			}
			vA := a.v.Add(a.w.Cross(cp.rA))
			vB := b.v.Add(b.w.Cross(cp.rB))
			vn := vB.Sub(vA).Dot(mf.n)
			imp := -cp.nMass * (vn + mf.restitution*cp.relVel)
			newImp := max(cp.ni+imp, 0)
			imp = newImp - cp.ni
			cp.ni = newImp
			applyImpulse(a, b, cp.rA, cp.rB, mf.n.Scale(imp))
		}
	}
}
