package sim

import "math"

// The joint rows under Options.JointMassPerStep: the effective masses and
// the coefficients that depend on them are computed once per Step by
// updateJoints, and the substeps' updates (updateJointErrors) refresh only
// the geometry, the errors, the coordinates and the inverse-inertia images
// that solveRevoluteHeld and warmStartRevoluteHeld apply.

// axisBiases recomputes the parts of j's axis-row coefficients that depend
// on its coordinate only (the effective mass held, JointMassPerStep).
func (j *jointSim) axisBiases(acts []actSim) {
	if j.hasSpring {
		j.springBias = j.springS.biasRate * (j.q - j.ref)
	}
	if j.motor {
		j.motorBias = j.motorS.biasRate * (j.q - j.target)
	}
	for i := j.act0; i < j.act1; i++ {
		if a := &acts[i]; a.x != 0 {
			a.off = (a.k*j.q - a.f0) / a.hkc
		}
	}
}

// updateJointErrors is updateJoints after a substep's position update under
// Options.JointMassPerStep: the levers, anchor separation, axis, angular
// error and coordinate follow the poses, while the effective masses and
// the row coefficients that depend on them stay those of the step start
// (as the contacts' do). The perpendicular rows turn with the parent
// (t = dq·t₀, dq the parent's rotation since the step start), so they stay
// orthogonal to the axis in the basis the held angular mass was computed in.
func updateJointErrors(m *Model, s *State) {
	bodies := s.ws.bodies
	acts := s.ws.acts
	cp := m.Opt.MaxJointPush
	for i := range s.ws.joints {
		j := &s.ws.joints[i]
		if j.grouped {
			continue
		}
		p, c := &bodies[j.p], &bodies[j.c]
		j.anchors(p, c, cp)
		if j.kind != Revolute {
			j.angErr = j.rotationError(p, c)
		}
		if j.kind == Weld {
			continue
		}
		j.axis = p.q.Rotate(j.axisP)
		j.t1, j.t2 = j.t10, j.t20
		if p.moves {
			j.t1, j.t2 = p.dq.Rotate(j.t10), p.dq.Rotate(j.t20)
		}
		if j.kind == Revolute {
			j.angErr = j.axis.Cross(c.q.Rotate(j.axisC))
			j.q = j.hingeStep(j.hingeParts(p, c))
			j.revoluteImages(p, c)
		} else {
			j.prismaticJacobians(p, c)
			j.q = j.d.Dot(j.axis)
		}
		j.axisBiases(acts)
	}
}

// hingeStep returns a Revolute joint's coordinate after a substep's
// position update under JointMassPerStep, from its rotation's axial sine
// and cosine parts (sa, w; half-angle, not normalised): the previous
// coordinate plus the change δ since the previous update, with
// tan(δ/2) = (sa·w₀ − w·sa₀)/(w·w₀ + sa·sa₀) and atan by its Taylor series,
// which for |tan(δ/2)| ≤ 0.05 (δ ≤ 0.1 rad in a substep) is exact to
// 1e-15 rad. A larger change takes hingeAngle's atan2. The step-start
// update recomputes q with atan2, so the sums never run longer than a Step.
func (j *jointSim) hingeStep(sa, w float64) float64 {
	num, den := sa*j.qw-w*j.qs, w*j.qw+sa*j.qs
	j.qs, j.qw = sa, w
	if den > 0 && math.Abs(num) <= 0.05*den {
		t := num / den
		t2 := t * t
		return j.q + 2*t*(1-t2*(1.0/3-t2*(1.0/5-t2*(1.0/7-t2*(1.0/9)))))
	}
	return j.hingeAngle(wrapAngle(2 * math.Atan2(sa, w)))
}

// solveRevoluteHeld is solveJoints' pass over a revolute joint under
// Options.JointMassPerStep: the axis rows of solveAxis and the rotor's, then
// the locked rows, with the inverse-inertia images of the axis and the
// perpendiculars (revoluteImages) in place of products with the inverse
// inertias, and the axis rows' and the rotor's impulses applied together:
// the rotor row reads the coordinate velocity the axis impulse leaves,
// v₀ + total/axLocal, instead of measuring it after applying it.
func solveRevoluteHeld(j *jointSim, p, c *bodySim, acts []actSim, h, invH float64, useBias bool) {
	if j.axMass != 0 {
		v0 := c.w.Sub(p.w).Dot(j.axis)
		total := axisRows(j, acts, v0, h, invH, useBias)
		if j.arm > 0 && j.axLocal != 0 {
			v := v0 + total/j.axLocal
			imp := -j.axLocal / (j.axLocal + j.arm) * (j.arm*(v-j.armV0) + j.armImp)
			j.armImp += imp
			total += imp
		}
		if total != 0 {
			if p.moves {
				p.w = p.w.AddScaled(j.iaP, -total)
			}
			c.w = c.w.AddScaled(j.iaC, total)
		}
	}
	if j.grouped {
		// a compound joint's member: its locked rows are the compound's
		return
	}
	soft, angSoft := softness{0, 1, 0}, softness{0, 1, 0}
	if useBias {
		soft, angSoft = j.soft, j.angSoft
	}
	cdot := c.v.Add(c.w.Cross(j.rC)).Sub(p.v.Add(p.w.Cross(j.rP)))
	b := cdot.AddScaled(j.d, soft.biasRate)
	imp := j.kLin.MulVec(b).Scale(-soft.massScale).AddScaled(j.linImp, -soft.impulseScale)
	j.linImp = j.linImp.Add(imp)
	applyImpulse(p, c, j.rP, j.rC, imp)

	w := c.w.Sub(p.w)
	b1 := w.Dot(j.t1) + angSoft.biasRate*j.angErr.Dot(j.t1)
	b2 := w.Dot(j.t2) + angSoft.biasRate*j.angErr.Dot(j.t2)
	a1, a2 := j.angImp.Dot(j.t1), j.angImp.Dot(j.t2)
	l1 := -angSoft.massScale*(j.kAng[0]*b1+j.kAng[1]*b2) - angSoft.impulseScale*a1
	l2 := -angSoft.massScale*(j.kAng[3]*b1+j.kAng[4]*b2) - angSoft.impulseScale*a2
	// the accumulated impulse is kept in the current perpendiculars: an
	// axial part left over from turned ones would act on the axis at the
	// next warm start
	j.angImp = j.t1.Scale(a1+l1).AddScaled(j.t2, a2+l2)
	if p.moves {
		p.w = p.w.Sub(j.i1P.Scale(l1).AddScaled(j.i2P, l2))
	}
	c.w = c.w.Add(j.i1C.Scale(l1).AddScaled(j.i2C, l2))
}

// axisImages computes the inverse-inertia images of j's axis that
// solveRevoluteHeld applies (a compound joint's member: its dual axis).
func (j *jointSim) axisImages(p, c *bodySim) {
	j.iaC = c.invI.MulVec(j.axis)
	if p.moves {
		j.iaP = p.invI.MulVec(j.axis)
	}
}

// revoluteImages computes the inverse-inertia images of a revolute
// joint's axis and perpendiculars that solveRevoluteHeld applies.
func (j *jointSim) revoluteImages(p, c *bodySim) {
	j.iaC, j.i1C, j.i2C = c.invI.MulVec(j.axis), c.invI.MulVec(j.t1), c.invI.MulVec(j.t2)
	if p.moves {
		j.iaP, j.i1P, j.i2P = p.invI.MulVec(j.axis), p.invI.MulVec(j.t1), p.invI.MulVec(j.t2)
	}
}

// warmStartRevoluteHeld is warmStartJoints for a revolute joint under
// Options.JointMassPerStep, with its inverse-inertia images: the angular
// impulse is taken in the current perpendiculars.
func warmStartRevoluteHeld(ws *workspace, j *jointSim, p, c *bodySim) {
	ax := j.totalAxial()
	if j.act1 > j.act0 {
		ax += actuatorTotal(ws.acts, j)
	}
	dwP, dwC := j.iaP.Scale(ax), j.iaC.Scale(ax)
	if !j.grouped {
		applyImpulse(p, c, j.rP, j.rC, j.linImp)
		a1, a2 := j.angImp.Dot(j.t1), j.angImp.Dot(j.t2)
		dwP = dwP.AddScaled(j.i1P, a1).AddScaled(j.i2P, a2)
		dwC = dwC.AddScaled(j.i1C, a1).AddScaled(j.i2C, a2)
	}
	if p.moves {
		p.w = p.w.Sub(dwP)
	}
	c.w = c.w.Add(dwC)
}
