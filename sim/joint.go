package sim

import "math"

// prepareJoints sets each joint's softness for this step.
func prepareJoints(m *Model, s *State, jointSoft, limitSoft softness, h float64) {
	for i := range s.ws.joints {
		j := &s.ws.joints[i]
		j.limSoft = limitSoft
		if j.kind == Weld {
			jd := &m.Joints[i]
			hz := 1 / (2 * math.Pi * jd.WeldTimeConst * jd.WeldDampingRatio)
			j.soft = makeSoft(hz, jd.WeldDampingRatio, h)
			j.angSoft = makeSoft(min(hz*jd.WeldTorqueScale, 0.25/h), jd.WeldDampingRatio, h)
		} else {
			j.soft = jointSoft
			j.angSoft = jointSoft
		}
	}
}

// updateJoints recomputes each joint's geometry and errors from the current
// poses (at the step start, first, and after every substep's position
// update), and its effective masses with them, or only at the step start
// when Options.JointMassPerStep holds them for the step.
func updateJoints(m *Model, s *State, h float64, first bool) {
	if !first && m.Opt.JointMassPerStep {
		updateJointErrors(m, s)
		return
	}
	bodies := s.ws.bodies
	acts := s.ws.acts
	held := m.Opt.JointMassPerStep
	for i := range s.ws.joints {
		j := &s.ws.joints[i]
		if j.grouped {
			continue
		}
		p, c := &bodies[j.p], &bodies[j.c]
		j.anchors(p, c, m.Opt.MaxJointPush)
		mP, mC := p.invMass, c.invMass
		switch j.kind {
		case Weld, Revolute:
			k := pointK(mP, mC, &p.invI, &c.invI, j.rP, j.rC)
			j.kLin = inverse(&k)
		}
		switch j.kind {
		case Weld, Prismatic:
			j.angErr = j.rotationError(p, c)
			// the inverse inertias are fixed for the step: kAng once
			if first {
				var k Mat3
				for t := range k {
					k[t] = p.invI[t] + c.invI[t]
				}
				j.kAng = inverse(&k)
			}
		}
		if j.kind == Weld {
			continue
		}
		j.axis = p.q.Rotate(j.axisP)
		j.t1, j.t2 = perp(j.axis)
		j.t10, j.t20 = j.t1, j.t2
		var kax float64
		if j.kind == Revolute {
			aC := c.q.Rotate(j.axisC)
			j.angErr = j.axis.Cross(aC)
			a1 := p.invI.MulVec(j.t1).Add(c.invI.MulVec(j.t1))
			a2 := p.invI.MulVec(j.t2).Add(c.invI.MulVec(j.t2))
			j.kAng = inverse2(j.t1.Dot(a1), j.t1.Dot(a2), j.t2.Dot(a1), j.t2.Dot(a2))
			sa, w := j.hingeParts(p, c)
			j.q = j.hingeAngle(wrapAngle(2 * math.Atan2(sa, w)))
			j.qs, j.qw = sa, w
			kax = j.axis.Dot(p.invI.MulVec(j.axis)) + j.axis.Dot(c.invI.MulVec(j.axis))
		} else {
			j.prismaticJacobians(p, c)
			k11 := mP + mC + j.pS[0].Dot(j.iS[0]) + j.pC[0].Dot(j.iC[0])
			k12 := j.pS[0].Dot(j.iS[1]) + j.pC[0].Dot(j.iC[1])
			k22 := mP + mC + j.pS[1].Dot(j.iS[1]) + j.pC[1].Dot(j.iC[1])
			j.kLin = inverse2(k11, k12, k12, k22)
			j.q = j.d.Dot(j.axis)
			kax = mP + mC + j.pS[2].Dot(j.iS[2]) + j.pC[2].Dot(j.iC[2])
		}
		j.axMass = 0
		if kax > 0 {
			j.axMass = 1 / kax
		}
		if j.arm > 0 {
			j.rotorMass()
		}
		j.axisCoefs(acts, h)
		if held && j.kind == Revolute {
			j.revoluteImages(p, c)
		}
	}
}

// anchors refreshes j's world levers and anchor separation; the
// separation of a revolute joint is capped so that its correction speed
// stays within cp (Options.MaxJointPush; 0: no cap).
func (j *jointSim) anchors(p, c *bodySim, cp float64) {
	j.rP = p.q.Rotate(j.lp)
	j.rC = c.q.Rotate(j.lc)
	j.d = c.c.Add(j.rC).Sub(p.c.Add(j.rP))
	if cp > 0 && j.kind == Revolute {
		if n := j.d.Norm(); n*j.soft.biasRate > cp {
			j.d = j.d.Scale(cp / (n * j.soft.biasRate))
		}
	}
}

// hingeParts returns the axial sine and cosine parts (half-angle, not
// normalised) of a Revolute joint's rotation, from which its angle is
// 2·atan2(sa, w).
func (j *jointSim) hingeParts(p, c *bodySim) (sa, w float64) {
	r := p.q0Rel(c, j.relRot)
	return r.X*j.axisP.X + r.Y*j.axisP.Y + r.Z*j.axisP.Z, r.W
}

// prismaticJacobians sets a Prismatic joint's lever sP and the angular
// Jacobians of its rows t1, t2 and axis, with their inverse-inertia images.
func (j *jointSim) prismaticJacobians(p, c *bodySim) {
	j.sP = j.rP.Add(j.d)
	for r, u := range [3]Vec3{j.t1, j.t2, j.axis} {
		j.pS[r], j.pC[r] = j.sP.Cross(u), j.rC.Cross(u)
		j.iS[r], j.iC[r] = p.invI.MulVec(j.pS[r]), c.invI.MulVec(j.pC[r])
	}
}

// rotationError returns the small-angle rotation vector that takes the
// child's orientation to the one the joint holds (welds and prismatic
// joints lock all three rotations).
func (j *jointSim) rotationError(p, c *bodySim) Vec3 {
	e := c.q.Mul(p.q.Mul(j.relRot).Conj())
	if e.W < 0 {
		e = Quat{-e.W, -e.X, -e.Y, -e.Z}
	}
	return Vec3{2 * e.X, 2 * e.Y, 2 * e.Z}
}

// axisCoefs computes the coefficients of j's axis rows that depend on its
// coordinate and its effective mass, the rotor's included (updateJoints and
// updateCompounds, once per joint update): 1/axMass and the spring's,
// motor's and actuators' row coefficients.
func (j *jointSim) axisCoefs(acts []actSim, h float64) {
	j.invAx = 0
	if j.axMass > 0 {
		j.invAx = 1 / j.axMass
	}
	if j.hasSpring {
		j.springS = springSoft(j.stiff, j.damp, j.axMass, h)
		j.springCoef = -j.axMass * j.springS.massScale
		j.springBias = j.springS.biasRate * (j.q - j.ref)
	}
	if j.motor {
		j.motorS = springSoft(j.kp, j.kd, j.axMass, h)
		j.motorCoef = -j.axMass * j.motorS.massScale
		j.motorBias = j.motorS.biasRate * (j.q - j.target)
	}
	if j.act1 > j.act0 {
		updateActuators(acts, j)
	}
}

// hingeAngle turns a Revolute joint's angle w, wrapped to (−π, π], into
// its continuous coordinate: w plus the whole turns made since the pose was
// set, a turn added or removed when w jumps by more than π from the
// previous coordinate (a joint update sees the angle change by far less
// per substep). A joint that never leaves (−π, π] gets w itself, bit for
// bit.
func (j *jointSim) hingeAngle(w float64) float64 {
	if !j.qSet {
		j.turns, j.qSet = 0, true
		return w
	}
	q := w
	if j.turns != 0 {
		q += 2 * math.Pi * j.turns
	}
	switch d := q - j.q; {
	case d > math.Pi:
		j.turns--
		q = w + 2*math.Pi*j.turns
	case d < -math.Pi:
		j.turns++
		q = w + 2*math.Pi*j.turns
	}
	return q
}

// q0Rel returns the joint rotation conj(qP)·qC·conj(relRot) (parent frame).
func (p *bodySim) q0Rel(c *bodySim, relRot Quat) Quat {
	return p.q.Conj().Mul(c.q).Mul(relRot.Conj())
}

// pointK returns the 3×3 inverse effective mass of a point constraint. A
// body with zero inverse mass has a zero inverse inertia (prepareBodies),
// whose term is ±0 and leaves every entry of k unchanged (k starts at +0 or
// mP+mC > 0), so it is skipped.
func pointK(mP, mC float64, iP, iC *Mat3, rP, rC Vec3) Mat3 {
	var k Mat3
	k[0], k[4], k[8] = mP+mC, mP+mC, mP+mC
	if mP > 0 {
		addSkewInertia(&k, iP, rP)
	}
	if mC > 0 {
		addSkewInertia(&k, iC, rC)
	}
	return k
}

// addSkewInertia adds -[r]× I [r]× to k, one column e at a time:
// -[r]× I [r]× e = (I (r × e)) × r, with r × e written out for the unit
// vectors (r × x̂ = (0, r_z, −r_y), r × ŷ = (−r_z, 0, r_x), r × ẑ = (r_y,
// −r_x, 0)). The products with the zero components that the general Cross
// and MulVec would form are ±0 and only change the sign of a zero
// intermediate; k starts at +0 or mP+mC > 0, so its entries are the same
// bits either way.
func addSkewInertia(k *Mat3, in *Mat3, r Vec3) {
	u := Vec3{in[1]*r.Z - in[2]*r.Y, in[4]*r.Z - in[5]*r.Y, in[7]*r.Z - in[8]*r.Y}
	v := u.Cross(r)
	k[0] += v.X
	k[3] += v.Y
	k[6] += v.Z
	u = Vec3{in[2]*r.X - in[0]*r.Z, in[5]*r.X - in[3]*r.Z, in[8]*r.X - in[6]*r.Z}
	v = u.Cross(r)
	k[1] += v.X
	k[4] += v.Y
	k[7] += v.Z
	u = Vec3{in[0]*r.Y - in[1]*r.X, in[3]*r.Y - in[4]*r.X, in[6]*r.Y - in[7]*r.X}
	v = u.Cross(r)
	k[2] += v.X
	k[5] += v.Y
	k[8] += v.Z
}

// inverse2 returns the inverse of [[a b][c d]] in the top-left of a Mat3.
func inverse2(a, b, c, d float64) Mat3 {
	det := a*d - b*c
	if det == 0 || math.IsNaN(det) {
		return Mat3{}
	}
	id := 1 / det
	return Mat3{d * id, -b * id, 0, -c * id, a * id, 0, 0, 0, 0}
}

// totalAxial returns the summed impulse along the joint axis.
func (j *jointSim) totalAxial() float64 {
	return j.springImp + j.motorImp + j.lowerImp - j.upperImp + j.armImp
}

// warmStartJoints applies the accumulated joint impulses.
func warmStartJoints(ws *workspace, held bool) {
	bodies := ws.bodies
	for i := range ws.joints {
		j := &ws.joints[i]
		p, c := &bodies[j.p], &bodies[j.c]
		if held && j.kind == Revolute {
			warmStartRevoluteHeld(ws, j, p, c)
			continue
		}
		switch j.kind {
		case Weld:
			applyImpulse(p, c, j.rP, j.rC, j.linImp)
			applyAngular(p, c, j.angImp)
		case Revolute:
			ax := j.totalAxial()
			if j.act1 > j.act0 {
				ax += actuatorTotal(ws.acts, j)
			}
			applyImpulse(p, c, j.rP, j.rC, j.linImp)
			applyAngular(p, c, j.angImp.Add(j.axis.Scale(ax)))
		case Prismatic:
			ax := j.totalAxial()
			if j.act1 > j.act0 {
				ax += actuatorTotal(ws.acts, j)
			}
			prismaticImpulse(j, p, c, j.linImp.Dot(j.t1), j.linImp.Dot(j.t2), ax)
			applyAngular(p, c, j.angImp)
		}
	}
}

// applyAngular applies angular impulse l to c and -l to p. A static body's
// w is +0 and its inverse inertia 0, so w − I⁻¹l stays +0: it is skipped
// unless l is not finite (then w becomes NaN, as it always did).
func applyAngular(p, c *bodySim, l Vec3) {
	bad := !finite(l.X + l.Y + l.Z)
	if p.moves || bad {
		p.w = p.w.Sub(p.invI.MulVec(l))
	}
	if c.moves || bad {
		c.w = c.w.Add(c.invI.MulVec(l))
	}
}

// solveJoints runs one pass over the joints: axis rows (spring, motor,
// limits) then the locked rows, soft with bias in the solve stage and rigid
// in the relax stage (welds stay soft in both, like Box2D's soft weld).
func solveJoints(ws *workspace, h, invH float64, useBias, held bool) {
	bodies := ws.bodies
	for i := range ws.joints {
		j := &ws.joints[i]
		p, c := &bodies[j.p], &bodies[j.c]
		if held && j.kind == Revolute {
			solveRevoluteHeld(j, p, c, ws.acts, h, invH, useBias)
			continue
		}
		if j.kind != Weld {
			solveAxis(j, p, c, ws.acts, h, invH, useBias)
		}
		soft, angSoft := softness{0, 1, 0}, softness{0, 1, 0}
		if useBias || j.kind == Weld {
			soft, angSoft = j.soft, j.angSoft
		}
		switch j.kind {
		case Weld, Revolute:
			// point-on-point
			cdot := c.v.Add(c.w.Cross(j.rC)).Sub(p.v.Add(p.w.Cross(j.rP)))
			b := cdot.AddScaled(j.d, soft.biasRate)
			imp := j.kLin.MulVec(b).Scale(-soft.massScale).AddScaled(j.linImp, -soft.impulseScale)
			j.linImp = j.linImp.Add(imp)
			applyImpulse(p, c, j.rP, j.rC, imp)
		case Prismatic:
			dv := c.v.Sub(p.v)
			b1 := dv.Dot(j.t1) + j.pC[0].Dot(c.w) - j.pS[0].Dot(p.w) + soft.biasRate*j.d.Dot(j.t1)
			b2 := dv.Dot(j.t2) + j.pC[1].Dot(c.w) - j.pS[1].Dot(p.w) + soft.biasRate*j.d.Dot(j.t2)
			a1, a2 := j.linImp.Dot(j.t1), j.linImp.Dot(j.t2)
			l1 := -soft.massScale*(j.kLin[0]*b1+j.kLin[1]*b2) - soft.impulseScale*a1
			l2 := -soft.massScale*(j.kLin[3]*b1+j.kLin[4]*b2) - soft.impulseScale*a2
			j.linImp = j.linImp.Add(j.t1.Scale(l1).AddScaled(j.t2, l2))
			prismaticImpulse(j, p, c, l1, l2, 0)
		}
		switch j.kind {
		case Weld, Prismatic:
			cdot := c.w.Sub(p.w)
			b := cdot.AddScaled(j.angErr, angSoft.biasRate)
			imp := j.kAng.MulVec(b).Scale(-angSoft.massScale).AddScaled(j.angImp, -angSoft.impulseScale)
			j.angImp = j.angImp.Add(imp)
			applyAngular(p, c, imp)
		case Revolute:
			cdot := c.w.Sub(p.w)
			b1 := cdot.Dot(j.t1) + angSoft.biasRate*j.angErr.Dot(j.t1)
			b2 := cdot.Dot(j.t2) + angSoft.biasRate*j.angErr.Dot(j.t2)
			a1, a2 := j.angImp.Dot(j.t1), j.angImp.Dot(j.t2)
			l1 := -angSoft.massScale*(j.kAng[0]*b1+j.kAng[1]*b2) - angSoft.impulseScale*a1
			l2 := -angSoft.massScale*(j.kAng[3]*b1+j.kAng[4]*b2) - angSoft.impulseScale*a2
			imp := j.t1.Scale(l1).AddScaled(j.t2, l2)
			if p.moves {
				// kept in the current perpendiculars (solveRevoluteHeld)
				j.angImp = j.t1.Scale(a1+l1).AddScaled(j.t2, a2+l2)
			} else {
				j.angImp = j.angImp.Add(imp)
			}
			applyAngular(p, c, imp)
		}
	}
}

// axisVel returns the joint coordinate velocity (m/s or rad/s).
func axisVel(j *jointSim, p, c *bodySim) float64 {
	if j.kind == Revolute {
		return c.w.Sub(p.w).Dot(j.axis)
	}
	return c.v.Sub(p.v).Dot(j.axis) + j.pC[2].Dot(c.w) - j.pS[2].Dot(p.w)
}

// prismaticImpulse applies impulses l1, l2 (perpendicular rows) and la
// (axis) of a prismatic joint with the precomputed Jacobians.
func prismaticImpulse(j *jointSim, p, c *bodySim, l1, l2, la float64) {
	lin := j.t1.Scale(l1).AddScaled(j.t2, l2).AddScaled(j.axis, la)
	if p.invMass > 0 {
		p.v = p.v.AddScaled(lin, -p.invMass)
		p.w = p.w.Sub(j.iS[0].Scale(l1).AddScaled(j.iS[1], l2).AddScaled(j.iS[2], la))
	}
	if c.invMass > 0 {
		c.v = c.v.AddScaled(lin, c.invMass)
		c.w = c.w.Add(j.iC[0].Scale(l1).AddScaled(j.iC[1], l2).AddScaled(j.iC[2], la))
	}
}

// applyAxial applies impulse (N·s or N·m·s) along the joint axis.
func applyAxial(j *jointSim, p, c *bodySim, imp float64) {
	if j.kind == Revolute {
		applyAngular(p, c, j.axis.Scale(imp))
		return
	}
	prismaticImpulse(j, p, c, 0, 0, imp)
}

// solveAxis solves the spring-damper, PD motor and limit rows of a
// prismatic or revolute joint. All four rows share one Jacobian, so the
// joint velocity is computed once and updated by imp/axMass after each row.
func solveAxis(j *jointSim, p, c *bodySim, acts []actSim, h, invH float64, useBias bool) {
	if j.axMass == 0 {
		return
	}
	total := axisRows(j, acts, axisVel(j, p, c), h, invH, useBias)
	if total != 0 {
		applyAxial(j, p, c, total)
	}
	if j.arm > 0 {
		solveRotor(j, p, c)
	}
}

// axisRows solves the spring, actuator, motor and limit rows of j at the
// coordinate velocity cdot and returns their summed impulse along the
// axis, not yet applied to the bodies.
func axisRows(j *jointSim, acts []actSim, cdot, h, invH float64, useBias bool) float64 {
	kax := j.invAx
	var total float64
	if j.hasSpring {
		imp := j.springCoef*(cdot+j.springBias) - j.springS.impulseScale*j.springImp
		j.springImp += imp
		total += imp
		cdot += imp * kax
	}
	if j.act1 > j.act0 {
		total += solveActuators(acts, j, &cdot)
	}
	if j.motor {
		imp := j.motorCoef*(cdot+j.motorBias) - j.motorS.impulseScale*j.motorImp
		old := j.motorImp
		nv := old + imp
		if j.maxF > 0 {
			lim := j.maxF * h
			nv = max(-lim, min(lim, nv))
		}
		j.motorImp = nv
		total += nv - old
		cdot += (nv - old) * kax
	}
	if j.limited {
		// lower limit: C = q - lower >= 0
		cpos := j.q - j.lower
		if cpos <= 0 || cdot < -cpos*invH || j.lowerImp != 0 {
			bias, ms, is := 0.0, 1.0, 0.0
			if cpos > 0 {
				bias = cpos * invH
			} else if useBias {
				bias, ms, is = j.limSoft.biasRate*min(cpos+j.slop, 0), j.limSoft.massScale, j.limSoft.impulseScale
			}
			imp := -j.axMass*ms*(cdot+bias) - is*j.lowerImp
			nv := max(j.lowerImp+imp, 0)
			imp = nv - j.lowerImp
			j.lowerImp = nv
			total += imp
			cdot += imp * kax
		}
		// upper limit: C = upper - q >= 0
		cpos = j.upper - j.q
		if cpos <= 0 || -cdot < -cpos*invH || j.upperImp != 0 {
			bias, ms, is := 0.0, 1.0, 0.0
			if cpos > 0 {
				bias = cpos * invH
			} else if useBias {
				bias, ms, is = j.limSoft.biasRate*min(cpos+j.slop, 0), j.limSoft.massScale, j.limSoft.impulseScale
			}
			imp := -j.axMass*ms*(-cdot+bias) - is*j.upperImp
			nv := max(j.upperImp+imp, 0)
			imp = nv - j.upperImp
			j.upperImp = nv
			total -= imp
		}
	}
	return total
}

// solveRotor solves a joint's rotor row (Armature): after it,
// arm·(q̇ − q̇0) + (rotor impulse this substep) = 0 on the bodies' own
// coordinate mass axLocal. The other axis rows already count the rotor in
// their effective mass (axMass = axLocal + arm), so this row takes back
// the share of their impulse that accelerates the rotor.
func solveRotor(j *jointSim, p, c *bodySim) {
	if j.axLocal == 0 {
		return
	}
	v := axisVel(j, p, c)
	imp := -j.axLocal / (j.axLocal + j.arm) * (j.arm*(v-j.armV0) + j.armImp)
	j.armImp += imp
	applyAxial(j, p, c, imp)
}

// resetImpulses forgets the joint's warm-start impulses.
func (j *jointSim) resetImpulses() {
	j.qSet = false // the pose was set: the coordinate restarts in (−π, π]
	j.linImp, j.angImp = Vec3{}, Vec3{}
	j.springImp, j.motorImp, j.lowerImp, j.upperImp = 0, 0, 0, 0
	j.armImp = 0
}

// startArmature records each rotor's coordinate velocity at the start of a
// substep, before gravity and the constraints (and the warm start, which
// reapplies the rotor's last impulse) change it: over the substep the rotor
// row makes the bodies pay for Armature·Δq̇.
func startArmature(ws *workspace) {
	bodies := ws.bodies
	for i := range ws.joints {
		j := &ws.joints[i]
		if j.arm == 0 || j.axLocal == 0 {
			continue
		}
		j.armV0 = axisVel(j, &bodies[j.p], &bodies[j.c])
	}
}

// rotorMass adds the rotor inertia to the axis rows' effective mass and
// keeps the bodies' own in axLocal.
func (j *jointSim) rotorMass() {
	j.axLocal = j.axMass
	if j.axMass > 0 {
		j.axMass += j.arm
	}
}
