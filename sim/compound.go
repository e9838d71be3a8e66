package sim

import "math"

// Compound hinges: two or three Revolute joints between the same two bodies,
// applied in sequence (MuJoCo's several hinge joints in one body). The
// relative motion has k = 2 or 3 rotational degrees of freedom; the group is
// solved as one joint with 6 − k locked rows (three on the last hinge's
// anchor, one angular row when k = 2) and k coordinate rows (the members'
// limits, springs, damping and actuators, through solveAxis). No
// intermediate bodies: the child carries all of its mass.
//
// Kinematics in the parent frame at the initial poses (the product of
// exponentials): with unit axes u_i through anchors p_i, the child's
// rotation relative to its initial one is Q(q) = exp(u_1 q_1)·…·exp(u_k q_k)
// and a child point y moves to T_1(…T_k(y)), T_i rotating about u_i through
// p_i by q_i. The coordinates q are recovered from the bodies' relative
// rotation by Newton's method from the previous values.

// maxCompound is the largest number of hinges in a compound joint.
const maxCompound = 3

// compoundSim is the solver's working set of one compound joint.
type compoundSim struct {
	p, c   int32
	k      int32
	member [maxCompound]int32 // joint indices, in sequence
	u      [maxCompound]Vec3  // axes in the parent frame (unit)
	anc    [maxCompound]Vec3  // anchors in the parent frame, relative to its COM
	lc     Vec3               // last anchor in the child frame, relative to its COM
	relRot Quat               // conj(qP)·qC at the initial poses
	// per-substep geometry
	rows  int32       // 3 or 4 locked rows
	linC  [4]Vec3     // linear Jacobian on the child (the parent's is −linC)
	angC  [4]Vec3     // angular Jacobian on the child
	angP  [4]Vec3     // angular Jacobian on the parent
	iangC [4]Vec3     // I_C⁻¹·angC
	iangP [4]Vec3     // I_P⁻¹·angP
	err   [4]float64  // position error of each locked row
	kInv  [16]float64 // inverse effective mass of the locked block
	imp   [4]float64  // accumulated impulses of the locked rows
	soft  softness    // locked rows' softness (the joints')
	angE  Vec3        // rotation residual after Newton (world)
	qv    [maxCompound]float64
}

// initCompounds fills the workspace's compound joints from the model.
func (w *workspace) initCompounds(m *Model) {
	w.compounds = w.compounds[:0]
	for i := 0; i < len(m.Joints); i++ {
		jd := &m.Joints[i]
		if jd.Kind != Revolute || jd.Compound || i+1 >= len(m.Joints) || !m.Joints[i+1].Compound {
			continue
		}
		cs := compoundSim{p: int32(jd.Parent), c: int32(jd.Child), relRot: jd.relRot}
		for n := i; n < len(m.Joints) && (n == i || m.Joints[n].Compound); n++ {
			md := &m.Joints[n]
			cs.member[cs.k] = int32(n)
			cs.u[cs.k] = md.localAxisP
			cs.anc[cs.k] = md.localAnchorP.Sub(m.bodyCOM[jd.Parent])
			cs.lc = md.localAnchorC.Sub(m.bodyCOM[jd.Child])
			w.joints[n].grouped = true
			cs.k++
		}
		w.compounds = append(w.compounds, cs)
		i += int(cs.k) - 1
	}
}

// hingeAngles updates q (the coordinates) so that Q(q) matches the relative
// rotation r (parent frame) and returns the world-independent axes w_i of the
// current configuration (parent frame) and the residual rotation vector.
func (cs *compoundSim) hingeAngles(r Quat, q *[maxCompound]float64, iters int) (w [maxCompound]Vec3, res Vec3) {
	w, res, _ = cs.hingeAnglesRot(r, q, iters)
	return w, res
}

// hingeAnglesRot is hingeAngles that also returns each hinge's rotation
// exp(u_i q_i) at the returned coordinates.
func (cs *compoundSim) hingeAnglesRot(r Quat, q *[maxCompound]float64, iters int) (w [maxCompound]Vec3, res Vec3, rot [maxCompound]Quat) {
	k := int(cs.k)
	for it := 0; it < iters; it++ {
		qq := Identity()
		for i := 0; i < k; i++ {
			w[i] = qq.Rotate(cs.u[i])
			rot[i] = QuatFromAxisAngle(cs.u[i], q[i])
			qq = qq.Mul(rot[i])
		}
		res = rotVec(r.Mul(qq.Conj()))
		if res.Norm2() < 1e-26 || it == iters-1 {
			return w, res, rot
		}
		d, ok := dualAxes(w, k)
		if !ok {
			return w, res, rot
		}
		for i := 0; i < k; i++ {
			q[i] += d[i].Dot(res)
		}
	}
	return w, res, rot
}

// rotVec returns the rotation vector (axis·angle) of the unit quaternion q.
func rotVec(q Quat) Vec3 {
	if q.W < 0 {
		q = Quat{-q.W, -q.X, -q.Y, -q.Z}
	}
	v := Vec3{q.X, q.Y, q.Z}
	s := v.Norm()
	if s < 1e-12 {
		return v.Scale(2)
	}
	return v.Scale(2 * math.Atan2(s, q.W) / s)
}

// dualAxes returns vectors b_i with b_i·w_j = δ_ij (and, for k = 2, b_i
// orthogonal to w_1 × w_2): b_i·ω is the rate of coordinate i for a
// relative angular velocity ω in the span of the axes. ok is false when
// the axes are (nearly) parallel or coplanar.
func dualAxes(w [maxCompound]Vec3, k int) (b [maxCompound]Vec3, ok bool) {
	if k == 2 {
		n := w[0].Cross(w[1])
		d0 := w[0].Dot(w[1].Cross(n))
		d1 := w[1].Dot(n.Cross(w[0]))
		if math.Abs(d0) < 1e-12 || math.Abs(d1) < 1e-12 {
			return b, false
		}
		b[0] = w[1].Cross(n).Scale(1 / d0)
		b[1] = n.Cross(w[0]).Scale(1 / d1)
		return b, true
	}
	det := w[0].Dot(w[1].Cross(w[2]))
	if math.Abs(det) < 1e-9 {
		return b, false
	}
	b[0] = w[1].Cross(w[2]).Scale(1 / det)
	b[1] = w[2].Cross(w[0]).Scale(1 / det)
	b[2] = w[0].Cross(w[1]).Scale(1 / det)
	return b, true
}

// updateCompounds recomputes the compound joints' coordinates, coordinate
// rows (in their member joints) and locked rows from the current poses.
// After a position update (moved) the coordinates are first advanced by
// h·q̇, so one evaluation and one Newton correction leave them within
// O(h²·q̈) of the poses; otherwise the poses have not moved since the last
// update and Newton starts from its coordinates.
func updateCompounds(ws *workspace, h float64, cp float64, moved, held, perStep bool) {
	bodies := ws.bodies
	for ci := range ws.compounds {
		cs := &ws.compounds[ci]
		p, c := &bodies[cs.p], &bodies[cs.c]
		ww, b, hr, ok := cs.coordinates(ws, p, c, h, moved)
		cs.lockedRows(p, c, ww, b, hr, cp, ws.joints[cs.member[0]].soft.biasRate)
		cs.lockedMass(p, c, held)
		cs.coordinateRows(ws, p, c, b, ok, h, held)
		if perStep && ok {
			cs.axisImages(ws, p, c)
		}
	}
}

// coordinates is updateCompounds' first stage: the hinge coordinates
// (predicted over the substep when moved, then Newton-corrected), the
// world hinge axes ww, their dual axes b (ok false when singular) and the
// hinges' rotations hr.
func (cs *compoundSim) coordinates(ws *workspace, p, c *bodySim, h float64, moved bool) (ww, b [maxCompound]Vec3, hr [maxCompound]Quat, ok bool) {
	k := int(cs.k)
	wRel := c.w.Sub(p.w)
	for i := 0; i < k; i++ {
		j := &ws.joints[cs.member[i]]
		cs.qv[i] = j.q
		if moved {
			cs.qv[i] += h * j.axis.Dot(wRel)
		}
	}
	iters := 2
	if moved {
		iters = 1
	}
	wl, res, hr := cs.hingeAnglesRot(p.q0Rel(c, cs.relRot), &cs.qv, iters)
	for i := 0; i < k; i++ {
		ww[i] = p.q.Rotate(wl[i])
	}
	b, ok = dualAxes(ww, k)
	cs.angE = p.q.Rotate(res)
	if moved && ok {
		// the Newton correction of the coordinates; the geometry stays
		// that of the prediction, within the residual of it
		for i := 0; i < k; i++ {
			cs.qv[i] += b[i].Dot(cs.angE)
		}
	}
	return ww, b, hr, ok
}

// lockedRows is the second stage: the locked rows' Jacobians and errors —
// three linear rows at the last anchor (the earlier hinges' motion of it
// projected out along b) and, for two hinges, the angular row about their
// common normal. cp caps the correction speed (Options.MaxJointPush) at
// the joints' bias rate br.
func (cs *compoundSim) lockedRows(p, c *bodySim, ww, b [maxCompound]Vec3, hr [maxCompound]Quat, cp, br float64) {
	k := int(cs.k)
	// anchors carried by the earlier hinges (parent frame), the last
	// one being where the child's last anchor should be
	var x [maxCompound]Vec3
	for i := 0; i < k; i++ {
		y := cs.anc[i]
		for n := i - 1; n >= 0; n-- {
			y = cs.anc[n].Add(hr[n].Rotate(y.Sub(cs.anc[n])))
		}
		x[i] = p.q.Rotate(y)
	}
	rC := c.q.Rotate(cs.lc)
	rP := x[k-1]
	d := c.c.Add(rC).Sub(p.c.Add(rP))
	// l_i: velocity of the last anchor per unit rate of hinge i
	var l [maxCompound]Vec3
	for i := 0; i < k-1; i++ {
		l[i] = ww[i].Cross(rP.Sub(x[i]))
	}
	e := [3]Vec3{{X: 1}, {Y: 1}, {Z: 1}}
	for r := 0; r < 3; r++ {
		var g Vec3
		for i := 0; i < k-1; i++ {
			g = g.AddScaled(b[i], l[i].Dot(e[r]))
		}
		cs.linC[r] = e[r]
		cs.angC[r] = rC.Cross(e[r]).Sub(g)
		cs.angP[r] = rP.Cross(e[r]).Neg().Add(g)
		cs.err[r] = d.Dot(e[r])
	}
	if cp > 0 && d.Norm()*br > cp {
		f := cp / (d.Norm() * br)
		for r := 0; r < 3; r++ {
			cs.err[r] *= f
		}
	}
	cs.rows = 3
	if k == 2 {
		n := ww[0].Cross(ww[1]).Normalize()
		cs.linC[3] = Vec3{}
		cs.angC[3] = n
		cs.angP[3] = n.Neg()
		cs.err[3] = n.Dot(cs.angE)
		cs.rows = 4
	}
}

// lockedMass is the third stage: the locked rows' inverse-inertia images
// and the block's inverse effective mass (kept from the step start when
// held, Options.JointMassPerStep).
func (cs *compoundSim) lockedMass(p, c *bodySim, held bool) {
	nr := int(cs.rows)
	for r := 0; r < nr; r++ {
		cs.iangC[r] = c.invI.MulVec(cs.angC[r])
		cs.iangP[r] = p.invI.MulVec(cs.angP[r])
	}
	if held {
		return
	}
	var kk [16]float64
	mm := p.invMass + c.invMass
	for a := 0; a < nr; a++ {
		for bb := 0; bb < nr; bb++ {
			kk[a*4+bb] = mm*cs.linC[a].Dot(cs.linC[bb]) + cs.angC[a].Dot(cs.iangC[bb]) + cs.angP[a].Dot(cs.iangP[bb])
		}
	}
	if nr == 3 {
		k3 := Mat3{kk[0], kk[1], kk[2], kk[4], kk[5], kk[6], kk[8], kk[9], kk[10]}
		i3 := inverse(&k3)
		cs.kInv = [16]float64{i3[0], i3[1], i3[2], 0, i3[3], i3[4], i3[5], 0, i3[6], i3[7], i3[8]}
	} else {
		cs.kInv = invertSmall(kk, nr)
	}
}

// coordinateRows is the last stage: each member's axis row along its dual
// axis b_i (spring, actuators, limits, rotor), none when b is singular.
func (cs *compoundSim) coordinateRows(ws *workspace, p, c *bodySim, b [maxCompound]Vec3, ok bool, h float64, held bool) {
	for i := 0; i < int(cs.k); i++ {
		j := &ws.joints[cs.member[i]]
		j.q = cs.qv[i]
		j.kLin, j.kAng = Mat3{}, Mat3{}
		j.rP, j.rC, j.d, j.angErr = Vec3{}, Vec3{}, Vec3{}, Vec3{}
		if !ok {
			j.axMass, j.invAx = 0, 0
			continue
		}
		j.axis = b[i]
		if held {
			j.axisBiases(ws.acts)
			continue
		}
		j.axMass, j.invAx = 0, 0
		kax := b[i].Dot(p.invI.MulVec(b[i])) + b[i].Dot(c.invI.MulVec(b[i]))
		if kax > 0 {
			j.axMass = 1 / kax
		}
		if j.arm > 0 {
			j.rotorMass()
		}
		j.axisCoefs(ws.acts, h)
	}
}

// axisImages refreshes the members' axis images (JointMassPerStep: the
// dual axes follow every update, the masses are held).
func (cs *compoundSim) axisImages(ws *workspace, p, c *bodySim) {
	for i := 0; i < int(cs.k); i++ {
		ws.joints[cs.member[i]].axisImages(p, c)
	}
}

// invertSmall inverts the leading n×n block of a row-major 4×4 matrix by
// Gauss–Jordan elimination with partial pivoting (zero when singular).
func invertSmall(a [16]float64, n int) [16]float64 {
	var inv [16]float64
	for i := 0; i < n; i++ {
		inv[i*4+i] = 1
	}
	for col := 0; col < n; col++ {
		piv, best := col, math.Abs(a[col*4+col])
		for r := col + 1; r < n; r++ {
			if v := math.Abs(a[r*4+col]); v > best {
				piv, best = r, v
			}
		}
		if !(best > 1e-300) {
			return [16]float64{}
		}
		if piv != col {
			for t := 0; t < 4; t++ {
				a[col*4+t], a[piv*4+t] = a[piv*4+t], a[col*4+t]
				inv[col*4+t], inv[piv*4+t] = inv[piv*4+t], inv[col*4+t]
			}
		}
		d := 1 / a[col*4+col]
		for t := 0; t < 4; t++ {
			a[col*4+t] *= d
			inv[col*4+t] *= d
		}
		for r := 0; r < n; r++ {
			if r == col {
				continue
			}
			f := a[r*4+col]
			if f == 0 {
				continue
			}
			for t := 0; t < 4; t++ {
				a[r*4+t] -= f * a[col*4+t]
				inv[r*4+t] -= f * inv[col*4+t]
			}
		}
	}
	return inv
}

// applyCompound applies impulse lam of locked row r.
func (cs *compoundSim) apply(p, c *bodySim, r int, lam float64) {
	if lam == 0 {
		return
	}
	c.v = c.v.AddScaled(cs.linC[r], lam*c.invMass)
	p.v = p.v.AddScaled(cs.linC[r], -lam*p.invMass)
	c.w = c.w.AddScaled(cs.iangC[r], lam)
	p.w = p.w.AddScaled(cs.iangP[r], lam)
}

// warmStartCompounds applies the locked rows' accumulated impulses (the
// coordinate rows are warm started with the member joints).
func warmStartCompounds(ws *workspace) {
	for ci := range ws.compounds {
		cs := &ws.compounds[ci]
		p, c := &ws.bodies[cs.p], &ws.bodies[cs.c]
		for r := 0; r < int(cs.rows); r++ {
			cs.apply(p, c, r, cs.imp[r])
		}
	}
}

// solveCompounds solves the locked rows of every compound joint as one
// block, soft with bias in the solve stage and rigid in the relax stage.
func solveCompounds(ws *workspace, useBias bool) {
	for ci := range ws.compounds {
		cs := &ws.compounds[ci]
		p, c := &ws.bodies[cs.p], &ws.bodies[cs.c]
		soft := softness{0, 1, 0}
		if useBias {
			soft = ws.joints[cs.member[0]].soft
		}
		nr := int(cs.rows)
		var b [4]float64
		for r := 0; r < nr; r++ {
			b[r] = cs.linC[r].Dot(c.v.Sub(p.v)) + cs.angC[r].Dot(c.w) + cs.angP[r].Dot(p.w) + soft.biasRate*cs.err[r]
		}
		for r := 0; r < nr; r++ {
			var kb float64
			for t := 0; t < nr; t++ {
				kb += cs.kInv[r*4+t] * b[t]
			}
			lam := -soft.massScale*kb - soft.impulseScale*cs.imp[r]
			cs.imp[r] += lam
			cs.apply(p, c, r, lam)
		}
	}
}

// compoundIndex returns the compound joint containing joint j and j's
// position in it, or -1.
func (w *workspace) compoundIndex(j int32) (int, int) {
	for ci := range w.compounds {
		cs := &w.compounds[ci]
		for i := 0; i < int(cs.k); i++ {
			if cs.member[i] == j {
				return ci, i
			}
		}
	}
	return -1, -1
}

// compoundPos returns the coordinate of member joint j from the current
// body poses (Newton from the solver's last value).
func (s *State) compoundPos(m *Model, j JointID) (float64, Vec3) {
	ci, i := s.ws.compoundIndex(int32(j))
	if ci < 0 {
		return 0, Vec3{}
	}
	cs := &s.ws.compounds[ci]
	var q [maxCompound]float64
	for n := 0; n < int(cs.k); n++ {
		q[n] = s.ws.joints[cs.member[n]].q
	}
	p, c := &s.Bodies[cs.p], &s.Bodies[cs.c]
	r := p.Rot.Conj().Mul(c.Rot).Mul(cs.relRot.Conj())
	w, _ := cs.hingeAngles(r, &q, 12)
	for n := 0; n < int(cs.k); n++ {
		w[n] = p.Rot.Rotate(w[n])
	}
	b, _ := dualAxes(w, int(cs.k))
	return q[i], b[i]
}

// resetCompounds forgets the locked-row impulses and coordinates of the
// compound joints touching body b (all when b < 0), as Reset and
// SetBodyPose do for the other joints.
func (s *State) resetCompounds(b BodyID) {
	for ci := range s.ws.compounds {
		cs := &s.ws.compounds[ci]
		if b >= 0 && cs.p != int32(b) && cs.c != int32(b) {
			continue
		}
		cs.imp = [4]float64{}
		if b < 0 {
			for i := 0; i < int(cs.k); i++ {
				s.ws.joints[cs.member[i]].q = 0
			}
		}
	}
}

// buildCompounds validates the compound joint groups.
func buildCompounds(m *Model, e *buildErrs) {
	for i := range m.Joints {
		j := &m.Joints[i]
		first := i+1 < len(m.Joints) && m.Joints[i+1].Compound && !j.Compound
		if !j.Compound && !first {
			continue
		}
		if j.Kind != Revolute || j.Motor {
			e.bad("joint %d (%q): a compound group holds Revolute joints without Motor", i, j.Name)
			continue
		}
		if !j.Compound {
			// the group's head: check its size and axes
			k := 1
			for k < len(m.Joints)-i && m.Joints[i+k].Compound {
				k++
			}
			if k > maxCompound {
				e.bad("joint %d (%q): a compound group has %d hinges; at most %d", i, j.Name, k, maxCompound)
				continue
			}
			var w [maxCompound]Vec3
			for n := 0; n < k; n++ {
				w[n] = m.Joints[i+n].Axis.Normalize()
			}
			if _, ok := dualAxes(w, k); !ok {
				e.bad("joint %d (%q): the axes of a compound group must be independent (not parallel, or for three hinges not coplanar)", i, j.Name)
			}
			continue
		}
		if i == 0 {
			e.bad("joint 0 (%q): Compound needs a Revolute joint before it", j.Name)
			continue
		}
		prev := &m.Joints[i-1]
		if prev.Kind != Revolute || prev.Parent != j.Parent || prev.Child != j.Child {
			e.bad("joint %d (%q): Compound needs the joint before it to be a Revolute joint between the same bodies", i, j.Name)
		}
	}
}
