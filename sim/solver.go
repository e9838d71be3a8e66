package sim

import "math"

// Solver constants that are not per-Model options.
const (
	// maxManifoldPoints is the size of a contact manifold (Box2D: 2 in 2D;
	// 4 points span a face contact in 3D).
	maxManifoldPoints = 4
	// matchDist2 is the squared distance (m²) within which a new contact
	// point inherits the impulses of an old one (warm start), measured in
	// body A's frame.
	matchDist2 = 0.003 * 0.003
	// deepPenetration (m) counts a contact in Warnings.Penetration.
	deepPenetration = 0.01
	// angularSlop (rad) is the revolute-limit violation that is not pushed
	// back (the angular twin of Options.LinearSlop): without it the stiff
	// limit rebounds a door that hits it hard.
	angularSlop = 0.002
	// maxSpecMargin (m) caps the speculative contact margin of a shape.
	maxSpecMargin = 0.05
	// maxSubsteps bounds Options.Substeps and Options.Iterations (Build).
	maxSubsteps = 64
	// defaultFriction is the sliding friction μ of a shape whose Friction
	// is 0 (MuJoCo's default friction is 1).
	defaultFriction = 1
	// defaultWeldTimeConst (s) and defaultWeldDampingRatio are a Weld's
	// softness when unset: MuJoCo's default solref (0.02, 1).
	defaultWeldTimeConst    = 0.02
	defaultWeldDampingRatio = 1
	// defaultWeldTorqueScale stiffens a weld's rotational rows (time
	// constant WeldTimeConst/5): MetaWorld's reset_mocap_welds value.
	defaultWeldTorqueScale = 5
	// boxCylinderSearchIters is the number of ternary-search iterations
	// for the closest point of a box to a cylinder's axis segment
	// ((2/3)^40 ≈ 1e-7 of the segment).
	boxCylinderSearchIters = 40
	// planeCullSlack is the relative clearance (of the shape's distance
	// and extent, in m) above which a plane-shape pair skips the narrow
	// phase (broadPhase): far above any rounding of the plane routines.
	planeCullSlack = 1e-9
)

// softness holds the coefficients of a soft constraint (Box2D v3 b2Softness).
type softness struct{ biasRate, massScale, impulseScale float64 }

// makeSoft returns the soft-constraint coefficients for a spring of the
// given frequency (Hz) and damping ratio solved with substep h (s); a zero
// frequency gives a rigid constraint (Catto, "Solver2D", 2024).
func makeSoft(hertz, zeta, h float64) softness {
	if hertz == 0 {
		return softness{0, 1, 0}
	}
	omega := 2 * math.Pi * hertz
	a1 := 2*zeta + h*omega
	a2 := h * omega * a1
	a3 := 1 / (1 + a2)
	return softness{omega / a1, a2 * a3, a3}
}

// springSoft returns the soft coefficients of a physical spring-damper of
// stiffness k and damping c acting on a row of effective mass meff,
// integrated implicitly over h: bias multiplies the position error.
func springSoft(k, c, meff, h float64) softness {
	x := h * (h*k + c)
	if x == 0 || meff == 0 {
		return softness{0, 0, 1}
	}
	return softness{k / (h*k + c), x / (meff + x), meff / (meff + x)}
}

// bodySim is the solver's per-body working set.
type bodySim struct {
	c, v, w Vec3 // centre of mass (m), velocity (m/s), angular velocity (rad/s)
	q       Quat
	c0      Vec3 // centre at the start of the step
	q0      Quat
	dq      Quat // q·conj(q0)
	invMass float64
	invI    Mat3 // world inverse inertia (1/(kg·m²))
	linDamp float64
	angDamp float64
	gravity float64 // 1 or 0
	free    bool    // no contact or joint this step: ballistic integration
	moves   bool    // dynamic or mocap (static bodies never move)
	diagI   bool    // invIBody is diagonal: cheap world inertia
	capped  bool
}

// contactPoint is one point of a manifold.
type contactPoint struct {
	p      Vec3    // world point at collide (m)
	local  Vec3    // point in body A's frame, for warm-start matching
	sep    float64 // separation at collide (m), negative = penetration
	rA, rB Vec3    // levers from the centres of mass at the step start
	adjSep float64 // sep - n·(rB - rA)
	nMass  float64 // 1/(J M⁻¹ Jᵀ) along the normal (kg)
	t1Mass float64
	t2Mass float64
	ni     float64 // accumulated normal impulse (N·s)
	f1, f2 float64 // accumulated friction impulses along t1, t2 (N·s)
	fw     Vec3    // friction impulse in world frame (warm-start carrier)
	maxNi  float64
	relVel float64 // normal relative velocity at prepare (m/s)
	// Jacobian angular parts (r × d) and their images under the inverse
	// inertias, fixed for the step (the inverse inertias are too)
	rnA, rnB, r1A, r1B, r2A, r2B Vec3
	inA, inB, i1A, i1B, i2A, i2B Vec3
}

// manifold is the contact between two shapes, with a shared normal.
type manifold struct {
	key            uint64 // pairKey(shapeA, shapeB)
	shapeA, shapeB int32
	bodyA, bodyB   int32
	n, t1, t2      Vec3 // normal from A to B and tangents
	npts           int32
	pts            [maxManifoldPoints]contactPoint
	friction       float64
	torsion        float64
	restitution    float64
	ti             float64 // accumulated torsional impulse (N·m·s)
	tMass          float64
	tnA, tnB       Vec3 // inverse inertias applied to n (torsion)
}

// jointSim is the solver's per-joint working set.
type jointSim struct {
	kind             JointKind
	p, c             int32
	lp, lc           Vec3 // anchors relative to the centres of mass in body frames
	axisP            Vec3 // axis in P's frame
	axisC            Vec3 // axis in C's frame (revolute alignment)
	relRot           Quat
	hasSpring        bool
	motor            bool
	limited          bool
	stiff, damp, ref float64
	kp, kd, maxF     float64
	lower, upper     float64
	slop             float64 // limit violation left to the relax stage (m or rad)
	// prismatic rows t1, t2, axis: sP×u, rC×u and their inverse-inertia images
	pS, pC, iS, iC [3]Vec3
	ctrl           int32
	act0, act1     int32 // this joint's actuators: workspace.acts[act0:act1]
	// grouped marks a member of a compound joint (compound.go): its
	// geometry comes from updateCompounds and only its axis rows act
	grouped bool
	// rotor (Armature): its inertia, the coordinate velocity at the start
	// of the substep, its accumulated impulse, and the bodies' own
	// coordinate mass (axMass less arm)
	arm, armV0, armImp, axLocal float64
	soft                        softness // rigid rows (linear rows of a weld)
	angSoft                     softness // angular rows of a weld
	limSoft                     softness // limit rows
	// per-substep geometry
	rP, rC Vec3 // world levers (m)
	sP     Vec3 // rP + d for prismatic rows
	d      Vec3 // anchor separation (m)
	axis   Vec3 // world axis
	t1, t2 Vec3 // world perpendiculars
	// the perpendiculars at the step start (JointMassPerStep turns them
	// with the parent)
	t10, t20 Vec3
	// inverse-inertia images of the axis and perpendiculars of a Revolute
	// joint under JointMassPerStep (revoluteImages)
	iaP, iaC, i1P, i1C, i2P, i2C Vec3
	q                            float64 // coordinate (m or rad; a Revolute's is continuous, see hingeAngle)
	// turns counts a Revolute joint's full revolutions past ±π since the
	// pose was set (Reset, SetBodyPose), so that q stays continuous beyond
	// ±π as MuJoCo's hinge qpos does; qSet says q holds this State's
	// previous coordinate (false until the first joint update after a pose
	// was set).
	turns float64
	qSet  bool
	// qs, qw: the axial sine and cosine parts of the rotation at the last
	// update (hingeStep)
	qs, qw  float64
	angErr  Vec3
	kLin    Mat3 // inverse effective mass of point/perpendicular block
	kAng    Mat3 // inverse effective mass of angular block
	axMass  float64
	invAx   float64 // 1/axMass (0 when axMass is 0)
	springS softness
	motorS  softness
	target  float64
	// per-update coefficients of the spring and motor rows:
	// imp = coef·(cdot + bias) − impulseScale·accumulated
	springCoef, springBias float64
	motorCoef, motorBias   float64
	// accumulated impulses
	linImp, angImp      Vec3
	springImp, motorImp float64
	lowerImp, upperImp  float64
}

// workspace is preallocated by NewState; Step allocates nothing.
type workspace struct {
	bodies      []bodySim
	joints      []jointSim
	prevPos     []Vec3
	prevRot     []Quat
	shapePos    []Vec3
	shapeRot    []Mat3
	shapeMargin []float64
	aabbLo      []Vec3
	aabbHi      []Vec3
	order       []int32 // sweep-and-prune order of non-plane colliding shapes
	// shapeStatic marks shapes of static bodies, whose poses are computed
	// once (staticReady) until a body is moved by hand
	shapeStatic []bool
	staticReady bool
	bodyCOM     []Vec3
	bodyReach   [][2]float64
	planes      []int32
	acts        []actSim // actuators sorted by joint
	compounds   []compoundSim
	armature    bool    // some joint has Armature
	actOf       []int32 // acts[k] is Model.Actuators[actOf[k]]
	// shapeType and shapeAff are the contact bitmasks (filtered models)
	shapeType, shapeAff []uint32
}

func (w *workspace) init(m *Model) {
	nb, ns := len(m.Bodies), len(m.Shapes)
	w.bodies = make([]bodySim, nb)
	w.prevPos = make([]Vec3, nb)
	w.prevRot = make([]Quat, nb)
	w.shapePos = make([]Vec3, ns)
	w.shapeRot = make([]Mat3, ns)
	w.aabbLo = make([]Vec3, ns)
	w.shapeMargin = make([]float64, ns)
	w.shapeStatic = make([]bool, ns)
	w.bodyCOM = make([]Vec3, nb)
	w.bodyReach = make([][2]float64, nb)
	w.aabbHi = make([]Vec3, ns)
	for i := range m.Shapes {
		sd := &m.Shapes[i]
		if sd.NoCollide {
			continue
		}
		w.shapeStatic[i] = m.IsStatic(sd.Body)
		if sd.Kind == Plane {
			w.shapeMargin[i] = m.Opt.ContactMargin
			w.planes = append(w.planes, int32(i))
		} else {
			w.order = append(w.order, int32(i))
		}
	}
	w.joints = make([]jointSim, len(m.Joints))
	for i := range m.Joints {
		jd := &m.Joints[i]
		j := &w.joints[i]
		*j = jointSim{
			kind: jd.Kind, p: int32(jd.Parent), c: int32(jd.Child),
			lp:      jd.localAnchorP.Sub(m.bodyCOM[jd.Parent]),
			lc:      jd.localAnchorC.Sub(m.bodyCOM[jd.Child]),
			axisP:   jd.localAxisP,
			relRot:  jd.relRot,
			limited: jd.Limited, lower: jd.Lower, upper: jd.Upper,
			stiff: jd.Stiffness, damp: jd.Damping, ref: jd.SpringRef,
			hasSpring: jd.Stiffness > 0 || jd.Damping > 0,
			motor:     jd.Motor, kp: jd.Kp, kd: jd.Kd, maxF: jd.MaxForce, ctrl: int32(jd.CtrlIndex),
		}
		j.axisC = jd.relRot.InvRotate(jd.localAxisP)
		if jd.Armature > 0 {
			j.arm = jd.Armature
			w.armature = true
		}
		j.slop = m.Opt.LinearSlop
		if jd.Kind == Revolute {
			j.slop = angularSlop
		}
	}
	w.initActuators(m)
	w.initCompounds(m)
	if m.filtered {
		w.shapeType = make([]uint32, ns)
		w.shapeAff = make([]uint32, ns)
		for i := range m.Shapes {
			t, a := m.Shapes[i].ContactType, m.Shapes[i].ContactAffinity
			if t == 0 && a == 0 {
				t, a = 1, 1
			}
			w.shapeType[i], w.shapeAff[i] = t, a
		}
	}
}

// solve runs the soft-step solver for one Timestep (Step2's body).
func solve(m *Model, s *State) {
	opt := &m.Opt
	dt := opt.Timestep
	n := opt.Substeps
	h := dt / float64(n)
	invH := 1 / h
	ws := &s.ws

	prepareBodies(m, s, dt)
	for mi := range s.man {
		ws.bodies[s.man[mi].bodyA].free = false
		ws.bodies[s.man[mi].bodyB].free = false
	}
	for ji := range ws.joints {
		ws.bodies[ws.joints[ji].p].free = false
		ws.bodies[ws.joints[ji].c].free = false
	}
	contactSoft := makeSoft(min(opt.ContactHertz, 0.25/h), opt.ContactDampingRatio, h)
	jointSoft := makeSoft(min(opt.JointHertz, 0.25/h), opt.JointDampingRatio, h)
	prepareContacts(m, s)
	limitSoft := makeSoft(min(opt.LimitHertz, 0.25/h), opt.LimitDampingRatio, h)
	prepareJoints(m, s, jointSoft, limitSoft, h)

	// joint geometry follows the positions: computed here and after every
	// position update, so the relax stage sees the limits where they are
	updateJoints(m, s, h, true)
	compound := len(ws.compounds) > 0
	if compound {
		updateCompounds(ws, h, opt.MaxJointPush, false, false, opt.JointMassPerStep)
	}
	for sub := 0; sub < n; sub++ {
		if ws.armature {
			startArmature(ws)
		}
		integrateVelocities(m, ws, opt.Gravity, h)
		warmStartJoints(ws, opt.JointMassPerStep)
		if compound {
			warmStartCompounds(ws)
		}
		warmStartContacts(s.man, ws.bodies)
		for it := 0; it < opt.Iterations; it++ {
			solveJoints(ws, h, invH, true, opt.JointMassPerStep)
			if compound {
				solveCompounds(ws, true)
			}
			solveContacts(s.man, ws.bodies, contactSoft, invH, opt.MaxPushSpeed, opt.LinearSlop, true)
		}
		integratePositions(m, ws, opt.Gravity, h, opt.MaxSpeed, opt.MaxAngularSpeed)
		updateJoints(m, s, h, false)
		if compound {
			updateCompounds(ws, h, opt.MaxJointPush, true, opt.JointMassPerStep, opt.JointMassPerStep)
		}
		solveJoints(ws, h, invH, false, opt.JointMassPerStep)
		if compound {
			solveCompounds(ws, false)
		}
		solveContacts(s.man, ws.bodies, contactSoft, invH, opt.MaxPushSpeed, opt.LinearSlop, false)
	}
	applyRestitution(s.man, ws.bodies, opt.RestitutionThreshold)
	finishStep(m, s, dt)
}

// prepareBodies loads State.Bodies into the solver arrays, applies Ctrl
// sanitising and turns mocap targets into velocities.
func prepareBodies(m *Model, s *State, dt float64) {
	ws := &s.ws
	for i := range m.Bodies {
		d := &m.Bodies[i]
		bs := &s.Bodies[i]
		b := &ws.bodies[i]
		ws.prevPos[i], ws.prevRot[i] = bs.Pos, bs.Rot
		b.q = bs.Rot
		b.c = bs.Pos.Add(bs.Rot.Rotate(m.bodyCOM[i]))
		b.c0, b.q0 = b.c, b.q
		b.dq = Identity()
		b.invMass = d.invMass
		b.moves = d.invMass > 0 || d.Mocap
		ib := &m.invInertiaBody[i]
		b.diagI = ib[1] == 0 && ib[2] == 0 && ib[3] == 0 && ib[5] == 0 && ib[6] == 0 && ib[7] == 0
		b.linDamp, b.angDamp = d.LinearDamping, d.AngularDamping
		b.gravity = 1
		if d.GravityOff || d.invMass == 0 {
			b.gravity = 0
		}
		b.capped = false
		b.free = true
		if d.invMass > 0 {
			b.v, b.w = bs.Vel, bs.AngVel
			b.invI = worldInvInertia(b.q, &m.invInertiaBody[i], b.diagI)
		} else {
			b.v, b.w = Vec3{}, Vec3{}
			b.invI = Mat3{}
		}
	}
	// mocap: constant velocity that reaches the target at the end of the step
	for _, i := range m.mocap {
		b := &ws.bodies[i]
		tp, tq := s.mocapPos[i], s.mocapRot[i]
		if !tp.IsFinite() || !finite(tq.W+tq.X+tq.Y+tq.Z) {
			s.Warnings.BadCtrl++
			continue
		}
		b.v = tp.Sub(b.c).Scale(1 / dt)
		dq := tq.Mul(b.q.Conj())
		if dq.W < 0 {
			dq = Quat{-dq.W, -dq.X, -dq.Y, -dq.Z}
		}
		sinHalf := math.Sqrt(dq.X*dq.X + dq.Y*dq.Y + dq.Z*dq.Z)
		if sinHalf > 1e-12 {
			ang := 2 * math.Atan2(sinHalf, dq.W)
			b.w = Vec3{dq.X, dq.Y, dq.Z}.Scale(ang / sinHalf / dt)
		}
	}
	for c, j := range m.ctrlJoint {
		u := s.Ctrl[c]
		if !finite(u) {
			s.Warnings.BadCtrl++
			u = s.lastCtrl[c]
			s.Ctrl[c] = u
		}
		jd := &m.Joints[j]
		if jd.CtrlLow < jd.CtrlHigh {
			u = max(jd.CtrlLow, min(jd.CtrlHigh, u))
		}
		s.lastCtrl[c] = u
		ws.joints[j].target = u
	}
	if len(ws.acts) > 0 {
		prepareActuators(m, s)
	}
}

// integrateVelocities applies gravity and damping over h.
func integrateVelocities(m *Model, ws *workspace, g Vec3, h float64) {
	for _, i := range m.dynamic {
		b := &ws.bodies[i]
		b.v = b.v.AddScaled(g, h*b.gravity)
		if b.linDamp > 0 {
			b.v = b.v.Scale(1 / (1 + h*b.linDamp))
		}
		if b.angDamp > 0 {
			b.w = b.w.Scale(1 / (1 + h*b.angDamp))
		}
		if m.Opt.Gyroscopic {
			b.w = gyroscopic(b.q, b.w, &m.inertiaBody[i], h)
		}
	}
}

// gyroscopic advances ω over h under the gyroscopic torque −ω×Iω with one
// Newton step of implicit Euler in the body frame (Catto, "Numerical
// Methods", GDC 2015): stable at any spin rate, unlike the explicit update.
func gyroscopic(q Quat, w Vec3, ib *Mat3, h float64) Vec3 {
	r := q.Mat3()
	wb := r.MulTVec(w)
	iw := ib.MulVec(wb)
	f := wb.Cross(iw).Scale(h)
	// J = Ib + h([ωb]× Ib − [Ib ωb]×)
	var j Mat3
	for c := 0; c < 3; c++ {
		col := Vec3{ib[c], ib[3+c], ib[6+c]}
		v := wb.Cross(col)
		j[c] = ib[c] + h*v.X
		j[3+c] = ib[3+c] + h*v.Y
		j[6+c] = ib[6+c] + h*v.Z
	}
	// − h [Ib ωb]×
	j[1] += h * iw.Z
	j[2] -= h * iw.Y
	j[3] -= h * iw.Z
	j[5] += h * iw.X
	j[6] += h * iw.Y
	j[7] -= h * iw.X
	ji := inverse(&j)
	wb = wb.Sub(ji.MulVec(f))
	return r.MulVec(wb)
}

// integratePositions moves bodies (dynamic and mocap) over h, caps speeds
// and refreshes world inverse inertias.
//
// The world inverse inertias stay those of the step start (like the contact
// Jacobians): a body turns by at most MaxAngularSpeed·Timestep in a step.
func integratePositions(m *Model, ws *workspace, g Vec3, h, maxV, maxW float64) {
	for i := 1; i < len(ws.bodies); i++ {
		b := &ws.bodies[i]
		if b.invMass == 0 && b.v == (Vec3{}) && b.w == (Vec3{}) {
			continue
		}
		if b.invMass > 0 {
			if v2 := b.v.Norm2(); v2 > maxV*maxV {
				b.v = b.v.Scale(maxV / math.Sqrt(v2))
				b.capped = true
			}
			if w2 := b.w.Norm2(); w2 > maxW*maxW {
				b.w = b.w.Scale(maxW / math.Sqrt(w2))
				b.capped = true
			}
		}
		b.c = b.c.AddScaled(b.v, h)
		if b.free {
			// unconstrained: v includes this substep's gravity, so removing
			// half of it makes ballistic flight exact (x0 + v0 t + g t²/2)
			b.c = b.c.AddScaled(g, -0.5*h*h*b.gravity)
		}
		w := b.w
		q := b.q
		hh := 0.5 * h
		q = Quat{
			q.W - hh*(w.X*q.X+w.Y*q.Y+w.Z*q.Z),
			q.X + hh*(w.X*q.W+w.Y*q.Z-w.Z*q.Y),
			q.Y + hh*(w.Y*q.W+w.Z*q.X-w.X*q.Z),
			q.Z + hh*(w.Z*q.W+w.X*q.Y-w.Y*q.X),
		}
		b.q = q.Normalize()
		b.dq = b.q.Mul(b.q0.Conj())
	}
}

// finishStep writes the solver state back into s.Bodies, stores friction
// impulses for the next warm start, fills the contact list and counts
// warnings.
func finishStep(m *Model, s *State, dt float64) {
	ws := &s.ws
	for _, i := range m.dynamic {
		b := &ws.bodies[i]
		bs := &s.Bodies[i]
		if b.capped {
			s.Warnings.SpeedCap++
		}
		if !b.c.IsFinite() || !b.v.IsFinite() || !b.w.IsFinite() || !finite(b.q.W+b.q.X+b.q.Y+b.q.Z) {
			s.Warnings.NaN++
			bs.Pos, bs.Rot = ws.prevPos[i], ws.prevRot[i]
			if !bs.Pos.IsFinite() || !finite(bs.Rot.W+bs.Rot.X+bs.Rot.Y+bs.Rot.Z) {
				// the pose was already bad (set by the caller): back to the model's
				bs.Pos, bs.Rot = m.Bodies[i].Pos, m.Bodies[i].Rot
			}
			bs.Vel, bs.AngVel = Vec3{}, Vec3{}
			continue
		}
		bs.Rot = b.q
		bs.Pos = b.c.Sub(b.q.Rotate(m.bodyCOM[i]))
		bs.Vel, bs.AngVel = b.v, b.w
	}
	for _, i := range m.mocap {
		b := &ws.bodies[i]
		bs := &s.Bodies[i]
		bs.Pos, bs.Rot = s.mocapPos[i], s.mocapRot[i]
		bs.Vel, bs.AngVel = b.v, b.w
	}
	fillContacts(m, s, true)
}

// fillContacts rebuilds the public contact list from the manifolds; forces
// come from the accumulated impulses (after Step2) or from the warm-start
// impulses of the previous step (after Step1). It also stores the friction
// impulses for the next warm start and counts deep penetrations.
func fillContacts(m *Model, s *State, solved bool) {
	invH := float64(m.Opt.Substeps) / m.Opt.Timestep
	s.contacts = s.contacts[:0]
	for mi := range s.man {
		mf := &s.man[mi]
		for k := 0; k < int(mf.npts); k++ {
			cp := &mf.pts[k]
			if solved {
				cp.fw = mf.t1.Scale(cp.f1).AddScaled(mf.t2, cp.f2)
				if cp.sep < -deepPenetration {
					s.Warnings.Penetration++
				}
			}
			if cp.sep <= 0 || cp.ni > 0 {
				s.contacts = append(s.contacts, Contact{
					ShapeA: ShapeID(mf.shapeA), ShapeB: ShapeID(mf.shapeB),
					Pos: cp.p, Normal: mf.n, Depth: -cp.sep,
					NormalForce: cp.ni * invH, FrictionForce: cp.fw.Scale(invH),
				})
			}
		}
	}
}

// worldInvInertia returns R·I⁻¹·Rᵀ for the rotation q; diag says the body
// inverse inertia is diagonal (18 multiplications instead of 54).
func worldInvInertia(q Quat, ib *Mat3, diag bool) Mat3 {
	r := q.Mat3()
	if !diag {
		return rotateInertia(&r, ib)
	}
	d0, d1, d2 := ib[0], ib[4], ib[8]
	a00 := r[0]*r[0]*d0 + r[1]*r[1]*d1 + r[2]*r[2]*d2
	a01 := r[0]*r[3]*d0 + r[1]*r[4]*d1 + r[2]*r[5]*d2
	a02 := r[0]*r[6]*d0 + r[1]*r[7]*d1 + r[2]*r[8]*d2
	a11 := r[3]*r[3]*d0 + r[4]*r[4]*d1 + r[5]*r[5]*d2
	a12 := r[3]*r[6]*d0 + r[4]*r[7]*d1 + r[5]*r[8]*d2
	a22 := r[6]*r[6]*d0 + r[7]*r[7]*d1 + r[8]*r[8]*d2
	return Mat3{a00, a01, a02, a01, a11, a12, a02, a12, a22}
}
