package articulated

import (
	"fmt"
	"math"
)

// MaxVal bounds |qpos|, |qvel| and |qacc| as MuJoCo's mjMAXVAL: beyond it,
// or on NaN, the state is reset and a warning counted.
const MaxVal = 1e10

// Warnings counts the problems Step met (MuJoCo's mjWARN_BADQPOS,
// mjWARN_BADQVEL, mjWARN_BADQACC); each reset the state to qpos0.
type Warnings struct {
	BadQpos, BadQvel, BadQacc int
	// Contacts counts contacts dropped over Model.MaxContacts
	// (mjWARN_CONTACTFULL); the state is kept.
	Contacts int
	// Time is the simulation time of the last warning.
	Time float64
}

// Total returns the number of warnings.
func (w Warnings) Total() int { return w.BadQpos + w.BadQvel + w.BadQacc + w.Contacts }

// Data is the dynamic state and everything the pipeline computes from it
// (MuJoCo's mjData, the part implemented). All buffers are allocated by
// NewData; Step allocates nothing.
type Data struct {
	Time float64
	Qpos []float64 // NQ
	Qvel []float64 // NV
	Ctrl []float64 // NU
	// tenJ is the tendons' Jacobians (len(Tendons)×NV): the model's
	// constant rows for fixed tendons, recomputed each Forward for spatial
	// ones (spatial.go); tenScratch holds two point Jacobians.
	tenJ, tenScratch []float64
	// Act are the actuators' activations (NA), ActDot their derivative at
	// the last Forward (dyn.go).
	Act, ActDot []float64
	Qacc        []float64 // NV: the acceleration of the last Forward
	// MocapPos and MocapQuat (w x y z, normalized by kinematics) are the
	// frames of Model.MocapBodies, set by the caller (mocap.go).
	MocapPos  [][3]float64
	MocapQuat [][4]float64

	// Position-dependent, per body: frame, inertial frame, subtree com.
	Xpos, Xipos, SubtreeCom [][3]float64
	Xquat                   [][4]float64
	Xmat, Ximat             [][9]float64
	// Per joint: anchor and axis in the world.
	Xanchor, Xaxis [][3]float64
	// com-based quantities: body inertias, dof motions, composite inertias.
	cinert, crb []sinert
	Cdof        [][6]float64 // NV: (angular, linear) at the root subtree's com
	Cvel        [][6]float64 // per body
	CdofDot     [][6]float64 // NV
	cacc, cfrc  [][6]float64

	// QM is the joint-space inertia (NV×NV row-major; entries between dofs
	// on different branches are zero), armature on the diagonal.
	QM []float64
	// qLD is the sparse LᵀDL factor of the matrix solved for qacc,
	// compressed over the tree (MuJoCo's layout, see ldIdx): D in
	// qLD[:NV], then each dof's row of unit L at its ancestors, nearest
	// first.
	qLD []float64
	// qLDIsM: qLD holds M's own factor (Forward's), not H's
	qLDIsM bool
	// qM0 and qMF: this Forward's M in qLD's layout, loaded (loadLD, no
	// diagonal added) and factored: the Newton solver starts H's tree
	// factor from the first and the damped Euler step M + h·damping's
	// from the second when qLD holds H's (copies, not a gather and a
	// whole factorization again; mValid: set by Forward)
	qM0, qMF []float64
	mValid   bool

	QfrcBias, QfrcSpring, QfrcDamper, QfrcGravcomp, QfrcPassive []float64
	ActuatorLength, ActuatorVelocity, ActuatorForce             []float64
	QfrcActuator, QfrcSmooth, QaccSmooth                        []float64
	// TenLength and TenVelocity are the tendons' lengths and velocities.
	TenLength, TenVelocity []float64

	tmp []float64
	// Implicit: the dense M − h·∂f/∂qvel, bias differences, LU pivots
	implA, implB []float64
	implP        []int
	// RK4 stages: qpos, qvel and qacc of each, and the combined increment
	rkQpos, rkQvel, rkF [4][]float64
	rkDX                []float64

	// Constraints (joint limits): NEfc active rows of at most
	// Model.nLimitRows, each on one joint (EfcJnt) with its Jacobian on the
	// joint's dofs (efcJac: 1 value, 3 for a ball), distance EfcPos,
	// impedance-derived inverse regularizer efcD, reference acceleration
	// EfcAref and force EfcForce (MuJoCo's efc_* arrays).
	NEfc               int
	EfcType, EfcJnt    []int
	efcDof, efcN       []int
	efcJac             [][3]float64
	EfcPos, efcD, efcR []float64
	efcFloss           []float64
	EfcAref            []float64
	EfcForce           []float64
	efcActive          []bool
	// elliptic contacts (cone.go), on a block's first row: its dim, the
	// regularized cone's mu and whether it is in the middle zone
	efcDim  []int
	efcMu   []float64
	efcCone []bool
	// efcPyr holds, on the first edge row of a condim-3 or condim-4
	// pyramidal contact (contact.go), its number of edge rows (4 or 6),
	// which J·x and Jᵀf visit together; 0 on every other row
	efcPyr []uint8
	// PGS (pgs.go): A = J·M⁻¹·Jᵀ + R, M⁻¹·Jᵀ, the visiting order, and
	// the last step's qacc (MuJoCo's qacc_warmstart)
	pgsA, pgsW []float64
	pgsIdx     []int
	qaccWarm   []float64
	// a contact's dofs: those moving either body (contact.go), for the
	// last colSlots body pairs asked (conKey: b1, b2; conLen: how many)
	conCols             []int
	conMark, conColMark []uint8
	conKey              [colSlots][2]int
	conLen              [colSlots]int
	conNext             int
	efcJar, efcJp       []float64
	QfrcConstraint      []float64
	efcG, efcP          []float64
	efcMx, efcMp        []float64 // NV: M·x and M·p of the Newton iterate and direction
	efcJd, efcH, efcRow []float64 // dense rows (equalities), dense H, one row
	efcNZ               []int     // a dense row's nonzero columns
	kbMemo              kbMemo    // pyramidParams' last k and b
	efcFlip             []int     // rows whose quadratic state changed this Newton iteration
	efcSpan             []int     // per dense row: first and one past last nonzero column
	efcPyrSpan          []int     // at a pyramid's first row (efcPyr ≠ 0): its rows' span union
	eqJac               []float64 // point Jacobians of connect constraints
	// SolverIter is the number of Newton iterations of the last constraint
	// solve (MuJoCo's solver_niter).
	SolverIter int

	// contactData: geom frames and contacts (collision.go).
	contactData

	Warnings Warnings
}

// NewData allocates a Data for m, reset to qpos0.
func NewData(m *Model) *Data {
	nb, nj, nv, nu := len(m.Bodies), len(m.Joints), m.NV, m.NU
	v := func() []float64 { return make([]float64, nv) }
	d := &Data{
		Qpos: make([]float64, m.NQ), Qvel: v(), Ctrl: make([]float64, nu), Qacc: v(),
		Act: make([]float64, m.NA), ActDot: make([]float64, m.NA),
		Xpos: make([][3]float64, nb), Xipos: make([][3]float64, nb), SubtreeCom: make([][3]float64, nb),
		Xquat: make([][4]float64, nb), Xmat: make([][9]float64, nb), Ximat: make([][9]float64, nb),
		Xanchor: make([][3]float64, nj), Xaxis: make([][3]float64, nj),
		cinert: make([]sinert, nb), crb: make([]sinert, nb),
		Cdof: make([][6]float64, nv), Cvel: make([][6]float64, nb), CdofDot: make([][6]float64, nv),
		cacc: make([][6]float64, nb), cfrc: make([][6]float64, nb),
		QM: make([]float64, nv*nv), qLD: make([]float64, nv+m.ancAdr[nv]),
		qM0: make([]float64, nv+m.ancAdr[nv]), qMF: make([]float64, nv+m.ancAdr[nv]),
		QfrcBias: v(), QfrcSpring: v(), QfrcDamper: v(), QfrcGravcomp: v(), QfrcPassive: v(),
		ActuatorLength: make([]float64, nu), ActuatorVelocity: make([]float64, nu), ActuatorForce: make([]float64, nu),
		QfrcActuator: v(), QfrcSmooth: v(), QaccSmooth: v(), tmp: v(),
		QfrcConstraint: v(), efcG: v(), efcP: v(), efcMx: v(), efcMp: v(), qaccWarm: v(),
		conCols: make([]int, colSlots*nv), conMark: make([]uint8, nv), conColMark: make([]uint8, colSlots*nv),
		TenLength: make([]float64, len(m.Tendons)), TenVelocity: make([]float64, len(m.Tendons)),
		MocapPos: make([][3]float64, len(m.MocapBodies)), MocapQuat: make([][4]float64, len(m.MocapBodies)),
		tenJ: append([]float64(nil), m.tenJ...), tenScratch: make([]float64, 12*nv),
	}
	d.initContacts(m) // collision.go
	if m.Opt.Integrator == RK4 {
		for i := range 4 {
			d.rkQpos[i], d.rkQvel[i], d.rkF[i] = make([]float64, m.NQ), v(), v()
		}
		d.rkDX = make([]float64, 2*nv)
	}
	nr := m.nLimitRows + m.nFrictionRows + m.nEqRows + m.nTendonRows
	nr += m.contactRowCap() // contact.go
	f := func() []float64 { return make([]float64, nr) }
	d.EfcType, d.EfcJnt, d.efcDof, d.efcN = make([]int, nr), make([]int, nr), make([]int, nr), make([]int, nr)
	d.efcJac = make([][3]float64, nr)
	d.EfcPos, d.efcD, d.efcR, d.efcFloss, d.EfcAref, d.EfcForce = f(), f(), f(), f(), f(), f()
	d.efcJar, d.efcJp = f(), f()
	d.efcActive = make([]bool, nr)
	d.efcDim, d.efcMu, d.efcCone = make([]int, nr), f(), make([]bool, nr)
	d.efcPyr = make([]uint8, nr)
	d.efcFlip = make([]int, 0, nr)
	if m.Opt.Solver == PGS {
		// A is nr² (2 MB at 512 rows); beyond that it grows with the rows
		// a step actually has (pgs.go)
		d.pgsIdx = make([]int, 0, nr)
		if nr <= 512 {
			d.pgsA, d.pgsW = make([]float64, nr*nr), make([]float64, nr*nv)
		}
		if d.efcRow == nil {
			d.efcRow, d.efcSpan, d.efcPyrSpan = make([]float64, nv), make([]int, 2*nr), make([]int, 2*nr)
		}
	}
	if m.nEqRows+m.nTendonRows > 0 || len(m.Tendons) > 0 || m.contactRowCap() > 0 {
		d.efcJd, d.efcH, d.efcRow = make([]float64, nr*nv), make([]float64, nv*nv), make([]float64, nv)
		d.efcNZ, d.efcSpan, d.efcPyrSpan = make([]int, 0, 2*nv+2), make([]int, 2*nr), make([]int, 2*nr)
		d.eqJac = make([]float64, 12*nv)
	}
	Reset(m, d)
	return d
}

// Reset puts d at qpos0 with zero velocity, controls and time
// (mj_resetData); the warning counts are kept.
func Reset(m *Model, d *Data) {
	copy(d.Qpos, m.Qpos0)
	clear(d.Qvel)
	clear(d.Ctrl)
	clear(d.Act)
	clear(d.ActDot)
	clear(d.Qacc)
	clear(d.qaccWarm)
	d.Time = 0
	resetMocap(m, d, nil)
}

// ResetKey resets d and applies keyframe k (mj_resetDataKeyframe).
func ResetKey(m *Model, d *Data, k int) error {
	if k < 0 || k >= len(m.Keys) {
		return fmt.Errorf("articulated: keyframe %d does not exist (the model has %d)", k, len(m.Keys))
	}
	Reset(m, d)
	key := &m.Keys[k]
	d.Time = key.Time
	if key.Qpos != nil {
		copy(d.Qpos, key.Qpos)
	}
	if key.Qvel != nil {
		copy(d.Qvel, key.Qvel)
	}
	if key.Ctrl != nil {
		copy(d.Ctrl, key.Ctrl)
	}
	resetMocap(m, d, key)
	if key.Act != nil {
		copy(d.Act, key.Act)
	}
	return nil
}

// Step advances d by one timestep as mj_step: check the state, Forward,
// check the acceleration, integrate. A non-finite or huge qpos, qvel or
// qacc resets d to qpos0 and counts a warning instead of failing.
func Step(m *Model, d *Data) {
	if bad(d.Qpos) {
		d.Warnings.BadQpos++
		d.warnReset(m)
	} else if bad(d.Qvel) {
		d.Warnings.BadQvel++
		d.warnReset(m)
	}
	Forward(m, d)
	if bad(d.Qacc) {
		d.Warnings.BadQacc++
		d.warnReset(m)
		Forward(m, d)
	}
	copy(d.qaccWarm, d.Qacc) // before the integrator: RK4 overwrites Qacc
	integrate(m, d)
}

func (d *Data) warnReset(m *Model) {
	t := d.Time
	Reset(m, d)
	d.Warnings.Time = t
}

func bad(x []float64) bool {
	for _, v := range x {
		if !(math.Abs(v) <= MaxVal) {
			return true
		}
	}
	return false
}

// Forward computes everything from (qpos, qvel, ctrl) up to qacc
// (mj_forward): position, velocity, actuation, acceleration.
func Forward(m *Model, d *Data) {
	kinematics(m, d)
	comPos(m, d)
	crbMass(m, d)
	collision(m, d) // collision.go
	comVel(m, d)
	tendons(m, d)
	passive(m, d)
	rne(m, d)
	actuation(m, d)
	for i := range m.NV {
		d.QfrcSmooth[i] = d.QfrcPassive[i] - d.QfrcBias[i] + d.QfrcActuator[i]
	}
	// the plain factor of M gives qacc (M loaded and factored kept)
	loadLD(m, d, d.qLD, 0, nil)
	copy(d.qM0, d.qLD)
	factorLD(m, d.qLD)
	copy(d.qMF, d.qLD)
	d.qLDIsM, d.mValid = true, true
	copy(d.QaccSmooth, d.QfrcSmooth)
	solveLD(m, d.qLD, d.QaccSmooth)
	copy(d.Qacc, d.QaccSmooth)
	clear(d.QfrcConstraint)
	makeConstraints(m, d)
	makeContactRows(m, d) // contact.go
	switch {
	case d.NEfc == 0:
	case m.Opt.Solver == PGS:
		solvePGS(m, d) // pgs.go
	default:
		solveConstraints(m, d)
	}
}

// kinematics computes the body and joint frames (mj_kinematics). The
// frame is carried in scalars (registers) through each body's joints; the
// operations and their order are those of add3/mulQuat/rotVecQuat.
func kinematics(m *Model, d *Data) {
	d.Xquat[0] = [4]float64{1, 0, 0, 0}
	d.Xmat[0] = quatMat(d.Xquat[0])
	d.Ximat[0] = d.Xmat[0]
	qpos, qpos0 := d.Qpos, m.Qpos0
	for i := 1; i < len(m.Bodies); i++ {
		b := &m.Bodies[i]
		p := b.Parent
		px, py, pz := b.Pos[0], b.Pos[1], b.Pos[2]
		qw, qx, qy, qz := b.Quat[0], b.Quat[1], b.Quat[2], b.Quat[3]
		if p > 0 {
			pp, pm, pq := &d.Xpos[p], &d.Xmat[p], &d.Xquat[p]
			px, py, pz = pp[0]+(pm[0]*b.Pos[0]+pm[1]*b.Pos[1]+pm[2]*b.Pos[2]),
				pp[1]+(pm[3]*b.Pos[0]+pm[4]*b.Pos[1]+pm[5]*b.Pos[2]),
				pp[2]+(pm[6]*b.Pos[0]+pm[7]*b.Pos[1]+pm[8]*b.Pos[2])
			qw, qx, qy, qz = mulQuatS(pq[0], pq[1], pq[2], pq[3], qw, qx, qy, qz)
		} else if k := m.bodyMocap[i]; k >= 0 {
			// a mocap body sits where the caller put it (mj_kinematics)
			mp, mq := &d.MocapPos[k], &d.MocapQuat[k]
			px, py, pz = mp[0], mp[1], mp[2]
			qw, qx, qy, qz = mq[0], mq[1], mq[2], mq[3]
		}
		for j := m.bodyJntAdr[i]; j < m.bodyJntAdr[i]+m.bodyJntNum[i]; j++ {
			jt := &m.Joints[j]
			a := m.jntQposAdr[j]
			if jt.Type == Free {
				px, py, pz = qpos[a], qpos[a+1], qpos[a+2]
				qw, qx, qy, qz = normQuatS(qpos[a+3], qpos[a+4], qpos[a+5], qpos[a+6])
				d.Xanchor[j], d.Xaxis[j] = vec3{px, py, pz}, vec3{0, 0, 1}
				continue
			}
			ax, ay, az := rotVecQuatS(jt.Axis[0], jt.Axis[1], jt.Axis[2], qw, qx, qy, qz)
			jx, jy, jz := rotVecQuatS(jt.Pos[0], jt.Pos[1], jt.Pos[2], qw, qx, qy, qz)
			nx, ny, nz := jx+px, jy+py, jz+pz
			d.Xanchor[j], d.Xaxis[j] = vec3{nx, ny, nz}, vec3{ax, ay, az}
			switch jt.Type {
			case Slide:
				dq := qpos[a] - qpos0[a]
				px, py, pz = px+ax*dq, py+ay*dq, pz+az*dq
			case Ball, Hinge:
				var l0, l1, l2, l3 float64
				if jt.Type == Ball {
					l0, l1, l2, l3 = normQuatS(qpos[a], qpos[a+1], qpos[a+2], qpos[a+3])
				} else {
					sn, cs := math.Sincos((qpos[a] - qpos0[a]) / 2)
					l0, l1, l2, l3 = cs, jt.Axis[0]*sn, jt.Axis[1]*sn, jt.Axis[2]*sn
				}
				qw, qx, qy, qz = mulQuatS(qw, qx, qy, qz, l0, l1, l2, l3)
				// correct for off-centre rotation
				jx, jy, jz = rotVecQuatS(jt.Pos[0], jt.Pos[1], jt.Pos[2], qw, qx, qy, qz)
				px, py, pz = nx-jx, ny-jy, nz-jz
			}
		}
		qw, qx, qy, qz = normQuatS(qw, qx, qy, qz)
		xp, xq := &d.Xpos[i], &d.Xquat[i]
		xp[0], xp[1], xp[2] = px, py, pz
		xq[0], xq[1], xq[2], xq[3] = qw, qx, qy, qz
		xm := &d.Xmat[i]
		quatMatTo(xm, qw, qx, qy, qz)
		ip, xi := &b.IPos, &d.Xipos[i]
		xi[0] = px + (xm[0]*ip[0] + xm[1]*ip[1] + xm[2]*ip[2])
		xi[1] = py + (xm[3]*ip[0] + xm[4]*ip[1] + xm[5]*ip[2])
		xi[2] = pz + (xm[6]*ip[0] + xm[7]*ip[1] + xm[8]*ip[2])
		iq := &b.IQuat
		iw, ix, iy, iz := mulQuatS(qw, qx, qy, qz, iq[0], iq[1], iq[2], iq[3])
		quatMatTo(&d.Ximat[i], iw, ix, iy, iz)
	}
}

// comPos computes the subtree coms, the body inertias and the dof motions
// about each root subtree's com (mj_comPos).
func comPos(m *Model, d *Data) {
	// (in scalars, points read and written element by element: the vec3
	// helpers' operations in their order, without the stalled 16-byte
	// reloads of values just stored as three floats)
	nb := len(m.Bodies)
	for i := range nb {
		x, s, mass := &d.Xipos[i], &d.SubtreeCom[i], m.Bodies[i].Mass
		s[0], s[1], s[2] = x[0]*mass, x[1]*mass, x[2]*mass
		d.tmpMass(i, mass)
	}
	for i := nb - 1; i > 0; i-- {
		p := m.Bodies[i].Parent
		sp, si := &d.SubtreeCom[p], &d.SubtreeCom[i]
		sp[0], sp[1], sp[2] = sp[0]+si[0], sp[1]+si[1], sp[2]+si[2]
		d.crb[p].m += d.crb[i].m
	}
	for i := range nb {
		s := &d.SubtreeCom[i]
		if mm := d.crb[i].m; mm > 1e-15 {
			inv := 1 / mm
			s[0], s[1], s[2] = s[0]*inv, s[1]*inv, s[2]*inv
		} else {
			x := &d.Xipos[i]
			s[0], s[1], s[2] = x[0], x[1], x[2]
		}
	}
	for i := 1; i < nb; i++ {
		b := &m.Bodies[i]
		ref := &d.SubtreeCom[m.bodyRoot[i]]
		r0, r1, r2 := ref[0], ref[1], ref[2]
		// rotational inertia about the com in world axes: R diag(I) Rᵀ
		R := &d.Ximat[i]
		i0, i1, i2 := b.Inertia[0], b.Inertia[1], b.Inertia[2]
		I0 := R[0]*i0*R[0] + R[1]*i1*R[1] + R[2]*i2*R[2] // (r, c) = 00 11 22 01 02 12
		I1 := R[3]*i0*R[3] + R[4]*i1*R[4] + R[5]*i2*R[5]
		I2 := R[6]*i0*R[6] + R[7]*i1*R[7] + R[8]*i2*R[8]
		I3 := R[0]*i0*R[3] + R[1]*i1*R[4] + R[2]*i2*R[5]
		I4 := R[0]*i0*R[6] + R[1]*i1*R[7] + R[2]*i2*R[8]
		I5 := R[3]*i0*R[6] + R[4]*i1*R[7] + R[5]*i2*R[8]
		x := &d.Xipos[i]
		o0, o1, o2 := x[0]-r0, x[1]-r1, x[2]-r2
		mm := b.Mass
		dd := o0*o0 + o1*o1 + o2*o2
		I0 += mm * (dd - o0*o0)
		I1 += mm * (dd - o1*o1)
		I2 += mm * (dd - o2*o2)
		I3 -= mm * o0 * o1
		I4 -= mm * o0 * o2
		I5 -= mm * o1 * o2
		ci := &d.cinert[i] // field by field: no temporary struct copy
		ci.I[0], ci.I[1], ci.I[2], ci.I[3], ci.I[4], ci.I[5] = I0, I1, I2, I3, I4, I5
		ci.h[0], ci.h[1], ci.h[2], ci.m = o0*mm, o1*mm, o2*mm, mm
		for j := m.bodyJntAdr[i]; j < m.bodyJntAdr[i]+m.bodyJntNum[i]; j++ {
			jt := &m.Joints[j]
			da := m.jntDofAdr[j]
			switch jt.Type {
			case Free:
				for k := range 3 {
					c := &d.Cdof[da+k]
					c[0], c[1], c[2], c[3], c[4], c[5] = 0, 0, 0, 0, 0, 0
					c[3+k] = 1
				}
				da += 3
				fallthrough
			case Ball:
				an := &d.Xanchor[j]
				f0, f1, f2 := r0-an[0], r1-an[1], r2-an[2]
				xm := &d.Xmat[i]
				for k := range 3 {
					a0, a1, a2 := xm[k], xm[3+k], xm[6+k]
					c := &d.Cdof[da+k] // (ax, cross3(ax, ref − anchor))
					c[0], c[1], c[2] = a0, a1, a2
					c[3], c[4], c[5] = a1*f2-a2*f1, a2*f0-a0*f2, a0*f1-a1*f0
				}
			case Hinge:
				ax, an := &d.Xaxis[j], &d.Xanchor[j]
				f0, f1, f2 := r0-an[0], r1-an[1], r2-an[2]
				c := &d.Cdof[da] // cross3(ax, ref − anchor), in place
				c[0], c[1], c[2] = ax[0], ax[1], ax[2]
				c[3], c[4], c[5] = ax[1]*f2-ax[2]*f1, ax[2]*f0-ax[0]*f2, ax[0]*f1-ax[1]*f0
			case Slide:
				ax := &d.Xaxis[j]
				c := &d.Cdof[da]
				c[0], c[1], c[2], c[3], c[4], c[5] = 0, 0, 0, ax[0], ax[1], ax[2]
			}
		}
	}
	d.cinert[0] = sinert{}
}

// tmpMass zeroes crb[i] but its mass (the subtree mass accumulator of
// comPos; crbMass overwrites crb afterwards).
func (d *Data) tmpMass(i int, mass float64) { d.crb[i] = sinert{m: mass} }

// crbMass computes the composite inertias and the joint-space inertia
// (mj_crb) with armature on the diagonal.
func crbMass(m *Model, d *Data) {
	nb, nv := len(m.Bodies), m.NV
	copy(d.crb, d.cinert)
	for i := nb - 1; i > 0; i-- {
		if p := m.Bodies[i].Parent; p > 0 {
			d.crb[p].add(&d.crb[i])
		}
	}
	// only M's tree nonzeros are ever written: the rest stays zero from
	// NewData, so there is nothing to clear
	for i := range nv {
		// f = crb·cdof in scalars (registers across the ancestors' dots)
		f0, f1, f2, f3, f4, f5 := d.crb[m.dofBody[i]].mul6(&d.Cdof[i])
		cd := &d.Cdof[i]
		d.QM[i*nv+i] = cd[0]*f0 + cd[1]*f1 + cd[2]*f2 + cd[3]*f3 + cd[4]*f4 + cd[5]*f5 + m.dofArmature[i]
		for _, j := range m.ancestors[i] {
			cj := &d.Cdof[j]
			v := cj[0]*f0 + cj[1]*f1 + cj[2]*f2 + cj[3]*f3 + cj[4]*f4 + cj[5]*f5
			d.QM[i*nv+j], d.QM[j*nv+i] = v, v
		}
	}
}

// comVel computes the body velocities and the dof motion derivatives
// (mj_comVel).
func comVel(m *Model, d *Data) {
	d.Cvel[0] = motion{}
	for i := 1; i < len(m.Bodies); i++ {
		// the velocity sums in scalars (an array's entries summed in a
		// loop go through the stack, each dof waiting on the last store)
		pv := &d.Cvel[m.Bodies[i].Parent]
		v0, v1, v2, v3, v4, v5 := pv[0], pv[1], pv[2], pv[3], pv[4], pv[5]
		for j := m.bodyJntAdr[i]; j < m.bodyJntAdr[i]+m.bodyJntNum[i]; j++ {
			jt := &m.Joints[j]
			da := m.jntDofAdr[j]
			n := jt.Type.NV()
			k0 := 0
			if jt.Type == Free {
				// the translations' derivatives are zero
				for k := range 3 {
					d.CdofDot[da+k] = motion{}
					cd, q := &d.Cdof[da+k], d.Qvel[da+k]
					v0 += cd[0] * q
					v1 += cd[1] * q
					v2 += cd[2] * q
					v3 += cd[3] * q
					v4 += cd[4] * q
					v5 += cd[5] * q
				}
				k0 = 3
			}
			for k := k0; k < n; k++ {
				crossMotionS(&d.CdofDot[da+k], v0, v1, v2, v3, v4, v5, &d.Cdof[da+k])
			}
			for k := k0; k < n; k++ {
				cd, q := &d.Cdof[da+k], d.Qvel[da+k]
				v0 += cd[0] * q
				v1 += cd[1] * q
				v2 += cd[2] * q
				v3 += cd[3] * q
				v4 += cd[4] * q
				v5 += cd[5] * q
			}
		}
		c := &d.Cvel[i]
		c[0], c[1], c[2], c[3], c[4], c[5] = v0, v1, v2, v3, v4, v5
	}
}

// rne computes the bias forces (Coriolis, centrifugal, gravity) by
// recursive Newton–Euler with zero joint acceleration (mj_rne).
func rne(m *Model, d *Data) {
	var g vec3
	if m.Opt.Disable&DisableGravity == 0 {
		g = m.Opt.Gravity
	}
	d.cacc[0] = motion{0, 0, 0, -g[0], -g[1], -g[2]}
	for i := 1; i < len(m.Bodies); i++ {
		// the parent's acceleration plus Σ cdof_dot·q̇ in scalars (an
		// array's entries summed in a loop go through the stack, each dof
		// waiting on the last one's store)
		pa := &d.cacc[m.Bodies[i].Parent]
		a0, a1, a2, a3, a4, a5 := pa[0], pa[1], pa[2], pa[3], pa[4], pa[5]
		for k := m.bodyDofAdr[i]; k < m.bodyDofAdr[i]+m.bodyDofNum[i]; k++ {
			cd, q := &d.CdofDot[k], d.Qvel[k]
			a0 += cd[0] * q
			a1 += cd[1] * q
			a2 += cd[2] * q
			a3 += cd[3] * q
			a4 += cd[4] * q
			a5 += cd[5] * q
		}
		ca := &d.cacc[i] // element by element: a is read from it below
		ca[0], ca[1], ca[2], ca[3], ca[4], ca[5] = a0, a1, a2, a3, a4, a5
		a := ca
		var mom, cf motion
		f := &d.cfrc[i]
		d.cinert[i].mulTo(f, a)
		d.cinert[i].mulTo(&mom, &d.Cvel[i])
		crossForceTo(&cf, &d.Cvel[i], &mom)
		for r := range 6 {
			f[r] += cf[r]
		}
	}
	for i := len(m.Bodies) - 1; i > 0; i-- {
		if p := m.Bodies[i].Parent; p > 0 {
			for r := range 6 {
				d.cfrc[p][r] += d.cfrc[i][r]
			}
		}
	}
	for k := range m.NV {
		d.QfrcBias[k] = dot6(&d.Cdof[k], &d.cfrc[m.dofBody[k]])
	}
}

// passive computes the spring, damper and gravity-compensation forces
// (mj_passive).
func passive(m *Model, d *Data) {
	clear(d.QfrcSpring)
	clear(d.QfrcDamper)
	clear(d.QfrcGravcomp)
	if m.Opt.Disable&DisableSpring == 0 {
		for j := range m.Joints {
			jt := &m.Joints[j]
			k := jt.Stiffness
			if k == 0 {
				continue
			}
			a, da := m.jntQposAdr[j], m.jntDofAdr[j]
			switch jt.Type {
			case Free:
				for r := range 3 {
					d.QfrcSpring[da+r] = -k * (d.Qpos[a+r] - m.QposSpring[a+r])
				}
				a += 3
				da += 3
				fallthrough
			case Ball:
				q, _ := normQuat([4]float64{d.Qpos[a], d.Qpos[a+1], d.Qpos[a+2], d.Qpos[a+3]})
				qs := [4]float64{m.QposSpring[a], m.QposSpring[a+1], m.QposSpring[a+2], m.QposSpring[a+3]}
				dif := subQuat(q, qs)
				for r := range 3 {
					d.QfrcSpring[da+r] = -k * dif[r]
				}
			default:
				d.QfrcSpring[da] = -k * (d.Qpos[a] - m.QposSpring[a])
			}
		}
	}
	if m.Opt.Disable&DisableDamper == 0 {
		for k := range m.NV {
			d.QfrcDamper[k] = -m.dofDamping[k] * d.Qvel[k]
		}
	}
	if m.Opt.Disable&DisableGravity == 0 {
		g := m.Opt.Gravity
		for i := 1; i < len(m.Bodies); i++ {
			b := &m.Bodies[i]
			if b.Gravcomp == 0 || b.Mass == 0 {
				continue
			}
			f := scale3(g, -b.Mass*b.Gravcomp)
			off := sub3(d.Xipos[i], d.SubtreeCom[m.bodyRoot[i]])
			// every dof from the body to the root
			k := m.bodyDofAdr[i] + m.bodyDofNum[i] - 1
			if m.bodyDofNum[i] == 0 {
				k = lastAncestorDof(m, i)
			}
			// jl = v + w × off, then jl·f, in scalars (add3's, cross3's
			// and dot3's operations in their order)
			o0, o1, o2 := off[0], off[1], off[2]
			f0, f1, f2 := f[0], f[1], f[2]
			for ; k >= 0; k = m.dofParent[k] {
				c := &d.Cdof[k]
				w0, w1, w2 := c[0], c[1], c[2]
				j0 := c[3] + (w1*o2 - w2*o1)
				j1 := c[4] + (w2*o0 - w0*o2)
				j2 := c[5] + (w0*o1 - w1*o0)
				d.QfrcGravcomp[k] += j0*f0 + j1*f1 + j2*f2
			}
		}
	}
	tendonPassive(m, d)
	for k := range m.NV {
		d.QfrcPassive[k] = d.QfrcSpring[k] + d.QfrcDamper[k] + d.QfrcGravcomp[k]
	}
}

// lastAncestorDof returns the last dof of body i's nearest ancestor with
// dofs (-1 when none).
func lastAncestorDof(m *Model, i int) int {
	for p := m.Bodies[i].Parent; p > 0; p = m.Bodies[p].Parent {
		if m.bodyDofNum[p] > 0 {
			return m.bodyDofAdr[p] + m.bodyDofNum[p] - 1
		}
	}
	return -1
}

// actuation computes the actuator lengths, velocities, forces and their
// generalized forces (mj_fwdActuation) with ctrlrange, forcerange and the
// joints' actuatorfrcrange.
func actuation(m *Model, d *Data) {
	clear(d.QfrcActuator)
	if m.Opt.Disable&DisableActuation != 0 {
		clear(d.ActuatorForce)
		return
	}
	for i := range m.Actuators {
		a := &m.Actuators[i]
		var q, v float64
		if a.Trn == TrnTendon {
			q, v = d.TenLength[a.Tendon], d.TenVelocity[a.Tendon]
		} else {
			q, v = d.Qpos[m.jntQposAdr[a.Joint]], d.Qvel[m.jntDofAdr[a.Joint]]
		}
		l, lv := a.Gear*q, a.Gear*v
		d.ActuatorLength[i], d.ActuatorVelocity[i] = l, lv
		ctrl := d.Ctrl[i]
		if a.CtrlLimited && m.Opt.Disable&DisableClampCtrl == 0 {
			ctrl = min(max(ctrl, a.CtrlRange[0]), a.CtrlRange[1])
		}
		gain := a.GainPrm[0]
		if a.GainType == GainAffine {
			gain += a.GainPrm[1]*l + a.GainPrm[2]*lv
		}
		var bias float64
		if a.BiasType == BiasAffine {
			bias = a.BiasPrm[0] + a.BiasPrm[1]*l + a.BiasPrm[2]*lv
		}
		f := gain*d.actInput(m, i, ctrl) + bias
		if a.ForceLimited {
			f = min(max(f, a.ForceRange[0]), a.ForceRange[1])
		}
		d.ActuatorForce[i] = f
		if a.Trn == TrnTendon {
			nv := m.NV
			for k, x := range d.tenJ[a.Tendon*nv : a.Tendon*nv+nv] {
				d.QfrcActuator[k] += a.Gear * x * f
			}
		} else {
			d.QfrcActuator[m.jntDofAdr[a.Joint]] += a.Gear * f
		}
	}
	for j := range m.Joints {
		jt := &m.Joints[j]
		if !jt.ActFrcLimited {
			continue
		}
		da := m.jntDofAdr[j]
		for k := da; k < da+jt.Type.NV(); k++ {
			d.QfrcActuator[k] = min(max(d.QfrcActuator[k], jt.ActFrcRange[0]), jt.ActFrcRange[1])
		}
	}
}

// ldIdx returns the index in the compressed factor of entry (r, c), c
// being r itself or its ii-th ancestor (ii = −1 for the diagonal).
func ldIdx(m *Model, r, ii int) int {
	if ii < 0 {
		return r
	}
	return m.NV + m.ancAdr[r] + ii
}

// loadLD writes M's tree entries (diagonal plus h·diag, diag nil: none)
// into the compressed L.
func loadLD(m *Model, d *Data, L []float64, h float64, diag []float64) {
	nv := m.NV
	for i := range nv {
		L[i] = d.QM[i*nv+i]
		if diag != nil {
			L[i] += h * diag[i]
		}
		row := L[nv+m.ancAdr[i] : nv+m.ancAdr[i+1]]
		qm := d.QM[i*nv : i*nv+nv]
		for ii, j := range m.ancestors[i] {
			row[ii] = qm[j]
		}
	}
}

// loadLDRows is loadLD for the rows ks only.
func loadLDRows(m *Model, d *Data, L []float64, h float64, diag []float64, ks []int) {
	nv := m.NV
	for _, i := range ks {
		L[i] = d.QM[i*nv+i] + h*diag[i]
		row := L[nv+m.ancAdr[i] : nv+m.ancAdr[i+1]]
		qm := d.QM[i*nv : i*nv+nv]
		for ii, j := range m.ancestors[i] {
			row[ii] = qm[j]
		}
	}
}

// factorInto factors QM + h·diag(diag) (diag nil: QM alone) into qLD.
func factorInto(m *Model, d *Data, h float64, diag []float64) {
	loadLD(m, d, d.qLD, h, diag)
	factorLD(m, d.qLD)
}

// factorLD factors the symmetric matrix in the compressed L (diagonal and
// ancestor entries) in place into LᵀDL over the tree (Featherstone's
// LTDL: only ancestors fill in). An ancestor i's own ancestors are the
// ones after it in k's list, so row i's update is contiguous.
func factorLD(m *Model, L []float64) {
	factorLDRows(m, L, m.dofsDesc)
}

// factorLDRows is factorLD's elimination over the rows ks, descending:
// every dof (factorLD), or whole trees, whose rows no other tree's touch.
func factorLDRows(m *Model, L []float64, ks []int) {
	nv := m.NV
	D, off := L[:nv], L[nv:]
	ancs, adr := m.ancestors[:nv], m.ancAdr[:nv+1]
	for _, k := range ks {
		anc := ancs[k]
		rowk := off[adr[k] : adr[k]+len(anc)] // (lengths spelled out: no bounds checks inside)
		dk := D[k]
		for ii, i := range anc {
			lki := rowk[ii]
			a := lki / dk
			D[i] -= lki * a
			if ii+1 < len(rowk) { // (the root-most ancestor has none above it)
				src := rowk[ii+1:]
				rowi := off[adr[i] : adr[i]+len(src)]
				for t, v := range src {
					rowi[t] -= v * a
				}
			}
			rowk[ii] = a
		}
	}
}

// solveLD solves (LᵀDL) x = x in place (L compressed, from factorLD).
func solveLD(m *Model, L, x []float64) {
	nv := m.NV
	x = x[:nv]
	D, off := L[:nv], L[nv:]
	ancs, adr := m.ancestors[:nv], m.ancAdr[:nv+1]
	for k := nv - 1; k >= 0; k-- {
		xk := x[k]
		if xk == 0 {
			continue
		}
		anc := ancs[k]
		rowk := off[adr[k] : adr[k]+len(anc)]
		for ii, i := range anc {
			x[i] -= rowk[ii] * xk
		}
	}
	for k := range nv {
		x[k] /= D[k]
	}
	for k := range nv {
		anc := ancs[k]
		rowk := off[adr[k] : adr[k]+len(anc)]
		s := x[k]
		for ii, i := range anc {
			s -= rowk[ii] * x[i]
		}
		x[k] = s
	}
}

// integrate advances qvel, qpos and time with the model's integrator.
func integrate(m *Model, d *Data) {
	h := m.Opt.Timestep
	acc := d.Qacc
	if m.Opt.Integrator == RK4 {
		rungeKutta(m, d)
		return
	}
	switch {
	case m.Opt.Integrator == ImplicitFast:
		L := loadImplicitFast(m, d, h)
		D := d.tmp
		factorLD(m, L)
		for k := range m.NV {
			D[k] = d.QfrcSmooth[k] + d.QfrcConstraint[k]
		}
		solveLD(m, L, D)
		acc = D
	case m.Opt.Integrator == Implicit:
		acc = implicitAcc(m, d, h) // implicit.go
	case m.hasDamping && m.Opt.Disable&(DisableEulerDamp|DisableDamper) == 0:
		if !d.qLDIsM && d.mValid {
			copy(d.qLD, d.qMF) // M's factor again (qLD holds H's)
			d.qLDIsM = true
		}
		if d.qLDIsM {
			// an undamped tree's rows of M + h·damping are M's: only
			// the damped trees' rows are loaded and factored again
			// (the same operations on them as in full, bit for bit)
			loadLDRows(m, d, d.qLD, h, m.dofDamping, m.dampDofs)
			factorLDRows(m, d.qLD, m.dampDofs)
		} else {
			factorInto(m, d, h, m.dofDamping)
		}
		d.qLDIsM = false
		for k := range m.NV {
			d.tmp[k] = d.QfrcSmooth[k] + d.QfrcConstraint[k]
		}
		solveLD(m, d.qLD, d.tmp)
		acc = d.tmp
	}
	advanceAct(m, d) // dyn.go
	for k := range m.NV {
		d.Qvel[k] += h * acc[k]
	}
	integratePos(m, d.Qpos, d.Qvel, h)
	d.Time += h
}

// loadImplicitFast writes M − h·D into the compressed qLD (not yet
// factored) and returns it: D = ∂(passive + actuator)/∂qvel as
// implicitfast keeps it: dof dampers and joint actuators on the diagonal;
// tendon dampers and tendon actuators add h·c·JᵀJ, kept (as MuJoCo) only
// where M has entries: a dof and its ancestors.
func loadImplicitFast(m *Model, d *Data, h float64) []float64 {
	D := d.tmp
	for k := range m.NV {
		D[k] = 0
		if m.Opt.Disable&DisableDamper == 0 {
			D[k] = m.dofDamping[k]
		}
	}
	if m.Opt.Disable&DisableActuation == 0 {
		for i := range m.Actuators {
			if a := &m.Actuators[i]; a.Trn == TrnJoint {
				D[m.jntDofAdr[a.Joint]] -= a.Gear * a.Gear * actuatorDV(a, d.dvInput(m, i))
			}
		}
	}
	nv := m.NV
	L := d.qLD
	loadLD(m, d, L, h, D)
	addJJ := func(t int, c float64) {
		J := d.tenJ[t*nv : t*nv+nv]
		for r, x := range J {
			if x == 0 {
				continue
			}
			L[r] += h * c * x * x
			for ii, k := range m.ancestors[r] {
				L[ldIdx(m, r, ii)] += h * c * x * J[k]
			}
		}
	}
	if m.Opt.Disable&DisableDamper == 0 {
		for t := range m.Tendons {
			if b := m.Tendons[t].Damping; b > 0 {
				addJJ(t, b)
			}
		}
	}
	if m.Opt.Disable&DisableActuation == 0 {
		for i := range m.Actuators {
			if a := &m.Actuators[i]; a.Trn == TrnTendon {
				if dv := actuatorDV(a, d.dvInput(m, i)); dv != 0 {
					addJJ(a.Tendon, -a.Gear*a.Gear*dv)
				}
			}
		}
	}
	return L
}

// integratePos advances qpos by qvel·h (mj_integratePos): ball and free
// quaternions rotate by the body-frame angular velocity.
func integratePos(m *Model, qpos, qvel []float64, h float64) {
	for j := range m.Joints {
		a, da := m.jntQposAdr[j], m.jntDofAdr[j]
		switch m.Joints[j].Type {
		case Free:
			for r := range 3 {
				qpos[a+r] += h * qvel[da+r]
			}
			a += 3
			da += 3
			fallthrough
		case Ball:
			q := quatIntegrate([4]float64{qpos[a], qpos[a+1], qpos[a+2], qpos[a+3]}, vec3{qvel[da], qvel[da+1], qvel[da+2]}, h)
			copy(qpos[a:a+4], q[:])
		default:
			qpos[a] += h * qvel[da]
		}
	}
}

// Constraint row types (MuJoCo's mjtConstraint, the ones implemented).
const (
	RowEquality       = 0 // mjCNSTR_EQUALITY: always-on rows of equality constraints
	RowFriction       = 1 // mjCNSTR_FRICTION_DOF: joint frictionloss on one dof
	RowFrictionTendon = 2 // mjCNSTR_FRICTION_TENDON
	RowLimit          = 3 // mjCNSTR_LIMIT_JOINT
	RowLimitTendon    = 4 // mjCNSTR_LIMIT_TENDON
)

// makeConstraints makes the rows of the dofs' frictionloss and of the
// active joint limits with their impedance and reference acceleration
// (mj_instantiateFriction, mj_instantiateLimit, mj_makeImpedance,
// mj_referenceConstraint): a limit row activates when its distance to
// the limit is below the joint's margin.
func makeConstraints(m *Model, d *Data) {
	d.NEfc = 0
	if m.Opt.Disable&DisableConstraint != 0 {
		return
	}
	if m.Opt.Disable&DisableEquality == 0 && len(m.Equalities) > 0 {
		makeEqualities(m, d)
	}
	if m.Opt.Disable&DisableFrictionLoss == 0 && m.nFrictionRows > 0 {
		for j := range m.Joints {
			jt := &m.Joints[j]
			if jt.FrictionLoss == 0 {
				continue
			}
			da := m.jntDofAdr[j]
			for k := da; k < da+jt.Type.NV(); k++ {
				d.addRow(m, RowFriction, j, k, 1, [3]float64{1}, 0, 0, 0, jt.FrictionLoss, d.Qvel[k], m.dofInvWeight0[k], jt.SolRefFriction, jt.SolImpFriction)
			}
		}
	}
	if len(m.Tendons) > 0 && m.Opt.Disable&DisableFrictionLoss == 0 {
		makeTendonRows(m, d, true)
	}
	if m.Opt.Disable&DisableLimit != 0 {
		return
	}
	if len(m.Tendons) > 0 {
		makeTendonRows(m, d, false)
	}
	for j := range m.Joints {
		jt := &m.Joints[j]
		if !jt.Limited {
			continue
		}
		a, da := m.jntQposAdr[j], m.jntDofAdr[j]
		switch jt.Type {
		case Hinge, Slide:
			for _, side := range [2]float64{-1, 1} {
				r := jt.Range[0]
				if side > 0 {
					r = jt.Range[1]
				}
				dist := side * (r - d.Qpos[a])
				if dist < jt.Margin {
					d.addRow(m, RowLimit, j, da, 1, [3]float64{-side}, dist, dist, jt.Margin, 0, d.Qvel[da]*-side, m.dofInvWeight0[da], jt.SolRef, jt.SolImp)
				}
			}
		case Ball:
			q, _ := normQuat([4]float64{d.Qpos[a], d.Qpos[a+1], d.Qpos[a+2], d.Qpos[a+3]})
			v := subQuat(q, [4]float64{1, 0, 0, 0})
			angle := norm3(v)
			if angle > 0 {
				v = scale3(v, 1/angle)
			}
			dist := max(jt.Range[0], jt.Range[1]) - angle
			if dist < jt.Margin {
				jac := scale3(v, -1)
				d.addRow(m, RowLimit, j, da, 3, jac, dist, dist, jt.Margin, 0, dot3(jac, vec3{d.Qvel[da], d.Qvel[da+1], d.Qvel[da+2]}), m.dofInvWeight0[da], jt.SolRef, jt.SolImp)
			}
		}
	}
}

// addRow appends one constraint row on dofs dof..dof+n−1 with Jacobian
// jac, distance dist, margin, frictionloss floss (friction rows), J·q̇ vel
// and the solver parameters.
//
// The impedance is a function of impDist (MuJoCo's getposdim: the norm of
// a connect's 3-vector violation, else dist).
func (d *Data) addRow(m *Model, typ, j, dof, n int, jac [3]float64, dist, impDist, margin, floss, vel, invw float64, solref [2]float64, solimp [5]float64) {
	imp, dmax := impedance(&solimp, impDist, margin)
	d.addRowImp(m, typ, j, dof, n, jac, dist, margin, floss, vel, invw, &solref, imp, dmax)
}

// impedance returns MuJoCo's getimpedance (a sigmoid of |impDist −
// margin| / width) and solimp's clamped dmax.
func impedance(solimp *[5]float64, impDist, margin float64) (imp, dmax float64) {
	si := solimp
	dmin := min(0.9999, max(0.0001, si[0]))
	dmax = min(0.9999, max(0.0001, si[1]))
	width, mid, power := max(0, si[2]), min(0.9999, max(0.0001, si[3])), max(1, si[4])
	if dmin == dmax || width <= 1e-15 {
		imp = 0.5 * (dmin + dmax)
	} else {
		x := math.Abs((impDist - margin) / width)
		switch {
		case x >= 1:
			imp = dmax
		case x <= 0:
			imp = dmin
		default:
			var y float64
			switch {
			case power == 1:
				y = x
			case power == 2: // math.Pow(x, 2) is x·x exactly
				if x <= mid {
					y = x * x / mid
				} else {
					y = 1 - (1-x)*(1-x)/(1-mid)
				}
			case x <= mid:
				y = math.Pow(x, power) / math.Pow(mid, power-1)
			default:
				y = 1 - math.Pow(1-x, power)/math.Pow(1-mid, power-1)
			}
			imp = dmin + y*(dmax-dmin)
		}
	}
	return imp, dmax
}

// addRowImp is addRow with the impedance already computed (the rows of
// one connect or weld share it).
func (d *Data) addRowImp(m *Model, typ, j, dof, n int, jac [3]float64, dist, margin, floss, vel, invw float64, solref *[2]float64, imp, dmax float64) {
	// R = (1 − imp)/imp · diagApprox (dof_invweight0, or the bodies' or
	// joints' sum for equalities)
	R := max(1e-15, (1-imp)*invw/imp)
	k, b := refStiffDamp(m, typ, solref, dmax)
	d.addRowKB(typ, j, dof, n, jac, dist, margin, floss, vel, imp, R, 1/R, k, b)
}

// addRowKB is addRowImp with the regularizer R, D = 1/R and the
// reference stiffness k and damping b already computed (rows that share
// them).
func (d *Data) addRowKB(typ, j, dof, n int, jac [3]float64, dist, margin, floss, vel, imp, R, D, k, b float64) {
	i := d.NEfc
	d.NEfc++
	d.EfcType[i], d.EfcJnt[i], d.efcDof[i], d.efcN[i] = typ, j, dof, n
	d.efcPyr[i] = 0
	d.efcJac[i], d.EfcPos[i], d.efcFloss[i] = jac, dist, floss
	d.efcR[i], d.efcD[i] = R, D
	d.EfcAref[i] = -b*vel - k*imp*(dist-margin)
}

// refStiffDamp returns the reference acceleration's stiffness and damping
// (aref = −b·vel − k·imp·(dist − margin)) from solref (time constant and
// damping ratio, or direct −stiffness and −damping) and dmax.
func refStiffDamp(m *Model, typ int, solref *[2]float64, dmax float64) (k, b float64) {
	ref := *solref
	if m.Opt.Disable&DisableRefSafe == 0 && ref[0] > 0 {
		ref[0] = max(ref[0], 2*m.Opt.Timestep)
	}
	switch {
	case typ == RowFriction:
	case ref[0] > 0:
		k = 1 / max(1e-15, dmax*dmax*ref[0]*ref[0]*ref[1]*ref[1])
	default:
		k = -ref[0] / max(1e-15, dmax*dmax)
	}
	if ref[1] > 0 {
		b = 2 / max(1e-15, dmax*ref[0])
	} else {
		b = -ref[1] / max(1e-15, dmax)
	}
	return k, b
}

// rowJar returns J_i·x − aref_i.
func (d *Data) rowJar(i int, x []float64) float64 {
	if d.efcN[i] == 0 {
		nv := len(x)
		lo, hi := d.efcSpan[2*i], d.efcSpan[2*i+1]
		s := 0.0
		xs := x[lo:hi]
		J := d.efcJd[i*nv+lo : i*nv+hi]
		xs = xs[:len(J)] // (no bounds checks in the loop)
		for k, v := range J {
			s += v * xs[k]
		}
		return s - d.EfcAref[i]
	}
	da := d.efcDof[i]
	s := d.efcJac[i][0] * x[da]
	if d.efcN[i] == 3 {
		s += d.efcJac[i][1]*x[da+1] + d.efcJac[i][2]*x[da+2]
	}
	return s - d.EfcAref[i]
}

// rowForce returns row i's force at jar and whether it is in its
// quadratic zone (MuJoCo's mjCNSTRSTATE_QUADRATIC): a limit pushes
// (−D·jar) only when jar < 0; frictionloss is −D·jar clamped to
// ±frictionloss.
func (d *Data) rowForce(i int, jar float64) (float64, bool) {
	// kept under the inliner's budget: the line search calls it per row
	switch t := d.EfcType[i]; {
	case t == RowEquality:
	case t == RowFriction || t == RowFrictionTendon:
		f := d.efcFloss[i]
		r := d.efcR[i] * f // −R·f ≡ −(R·f)
		if jar <= -r {
			return f, false
		}
		if jar >= r {
			return -f, false
		}
	case !(jar < 0):
		return 0, false
	}
	return -d.efcD[i] * jar, true
}

// forceOf is rowForce for a row of type t with frictionloss floss,
// regularizer R and D = 1/R.
func forceOf(t int, floss, R, D, jar float64) (float64, bool) {
	switch {
	case t == RowEquality:
	case t == RowFriction || t == RowFrictionTendon:
		r := R * floss // −R·f ≡ −(R·f)
		if jar <= -r {
			return floss, false
		}
		if jar >= r {
			return -floss, false
		}
	case !(jar < 0):
		return 0, false
	}
	return -D * jar, true
}

// solveConstraints finds the constrained acceleration: the minimizer of
// MuJoCo's primal cost ½(a − a₀)ᵀM(a − a₀) + Σ s_i(J_i·a − aref_i) (s_i:
// ½·D·jar² on a limit's compression side; frictionloss's Huber-like
// cost), by Newton's method with a line search stopped at MuJoCo's
// ls_tolerance (Option.LSTolerance), as MuJoCo's
// default solver, stopped by mj_solNewton's test (improvement or gradient
// norm, scaled by 1/(meaninertia·nv), below Option.Tolerance) or when the
// gradient is zero to rounding. As mj_solNewton, M·x and each row's
// jar are updated by α times the direction's after each line search,
// not recomputed, and the gradient's constraint force is QfrcConstraint.
func solveConstraints(m *Model, d *Data) {
	n, nv := d.NEfc, m.NV
	x, g, p := d.Qacc, d.efcG, d.efcP
	// the stopping test's force scale
	// (a compare, not max: max's NaN and signed-zero cases cost a chain
	// of branches per entry; scale ≥ 1 has neither, and a NaN force
	// fails every test that scale enters)
	scale := 1.0
	for _, v := range d.QfrcSmooth[:nv] {
		if v := math.Abs(v); v > scale {
			scale = v
		}
	}
	for _, v := range d.efcFloss[:n] {
		if v > scale {
			scale = v
		}
	}
	// the dense H and Cholesky only where a row couples dofs across
	// branches (or an elliptic block): else H = M + JᵀDJ keeps M's tree
	// sparsity and factors as M does
	dense := d.setSpans(m, n, nv)
	// start from the better of qacc_smooth (x on entry) and the last
	// step's acceleration (MuJoCo's warmstart); the minimizer is the same
	// (the rows' jar at the start point is kept for the first gradient)
	if m.Opt.Disable&DisableWarmstart == 0 {
		d.rowJars2(x, d.efcJar, d.qaccWarm, d.efcJp)
		if d.primalCost(m, d.qaccWarm, d.efcJp, d.tmp, false) < d.primalCost(m, x, d.efcJar, d.tmp, true) {
			copy(x, d.qaccWarm)
			copy(d.efcJar[:n], d.efcJp[:n])
		}
	} else {
		d.rowJars(x, d.efcJar)
	}
	// M·x once; after each line search M·x, like each row's jar, moves by
	// α times the direction's (MuJoCo's Newton updates Ma and Jaref so)
	Mx, Mp, qfrc := d.efcMx[:nv], d.efcMp[:nv], d.QfrcConstraint[:nv]
	// (every nv-vector sliced to nv and every row vector to n: no bounds
	// checks in the loops below)
	x, g, p = x[:nv], g[:nv], p[:nv]
	fs, qs := d.QfrcSmooth[:nv], d.QaccSmooth[:nv]
	jar, jp, aref, force := d.efcJar[:n], d.efcJp[:n], d.EfcAref[:n], d.EfcForce[:n]
	m.mulM(d.QM, x, Mx)
	// MuJoCo's stopping test after each step: the cost's improvement or
	// the gradient's norm, scaled by 1/(meaninertia·nv), below tolerance
	tol, maxIter := m.Opt.tolerance(), 100
	if m.Opt.Iterations > 0 {
		maxIter = m.Opt.Iterations
	}
	lsTol, lsIter := m.Opt.lsTolerance(), m.Opt.lsIterations()
	tolScale := 1 / (m.meanInertia * float64(max(1, nv)))
	if !(m.meanInertia > 0) {
		tolScale = 1 // no inertia to scale by: the raw improvement and gradient
	}
	cost := 0.0
	d.SolverIter = 0
	converged := false
	for iter := 0; iter < maxIter; iter++ {
		d.SolverIter = iter
		// gradient g = M(x − x₀) − Σ J_iᵀ f_i = Mx − qfrc_smooth − qfrc_constraint
		clear(qfrc)
		// H changes only with the set of quadratic rows: keep its factor
		// while that set stays (MuJoCo's Newton does the same)
		changed := iter == 0
		// the rows whose quadratic state flipped: MuJoCo's
		// HessianIncremental updates H's dense factor by ±√D·J_i for each
		// (no elliptic block: its cone Hessian is rebuilt in full here)
		flips, ell := d.efcFlip[:0], false
		for i := 0; i < n; i++ {
			if d.EfcType[i] == RowContactElliptic {
				ell = true
				// an elliptic block: its zone sets its rows' state; on
				// the cone's surface its Hessian moves with x
				var jar, f [6]float64
				copy(jar[:], d.efcJar[i:i+d.efcDim[i]])
				z := d.coneForce(i, &jar, &f)
				cone, quad := z == coneMiddle, z == coneBottom
				changed = changed || cone || d.efcCone[i]
				d.efcCone[i] = cone
				for j := range d.efcDim[i] {
					changed = changed || d.efcActive[i+j] != quad
					d.efcActive[i+j] = quad
					d.EfcForce[i+j] = f[j]
					d.addJT(i+j, f[j], qfrc)
				}
				i += d.efcDim[i] - 1
				continue
			}
			f, quad := d.rowForce(i, d.efcJar[i])
			if d.efcActive[i] != quad {
				changed = true
				flips = append(flips, i)
			}
			d.efcActive[i] = quad
			d.EfcForce[i] = f
			if np := int(d.efcPyr[i]); np != 0 {
				// a pyramid's four or six rows: when all push, Jᵀf in one
				// pass (the same sums per column, rows in order)
				all := f != 0
				for j := i + 1; j < i+np; j++ {
					fj, qj := d.rowForce(j, d.efcJar[j])
					if d.efcActive[j] != qj {
						changed = true
						flips = append(flips, j)
					}
					d.efcActive[j], d.EfcForce[j] = qj, fj
					all = all && fj != 0
				}
				switch {
				case all && np == 4:
					d.addJT4(i, qfrc)
				case all:
					d.addJT6(i, qfrc)
				default:
					for j := i; j < i+np; j++ {
						if d.EfcForce[j] != 0 {
							d.addJT(j, d.EfcForce[j], qfrc)
						}
					}
				}
				i += np - 1
				continue
			}
			if f != 0 { // 0·J adds nothing
				d.addJT(i, f, qfrc)
			}
		}
		// zero gradient to rounding: every |g_r| ≤ 1e-13·scale (max |g_r|
		// ≤ it, NaN failing, without a data-dependent branch per entry)
		g2, gauss, gtiny, gmin := 0.0, 0.0, true, 1e-13*scale
		for r := range nv {
			g[r] = Mx[r] - fs[r] - qfrc[r]
			gtiny = gtiny && math.Abs(g[r]) <= gmin
			g2 += g[r] * g[r]
			gauss += (Mx[r] - fs[r]) * (x[r] - qs[r])
		}
		if gtiny {
			converged = true // EfcForce holds the forces at x
			break
		}
		oldCost := cost
		cost = d.rowsCost(0.5*gauss, d.efcJar)
		if iter > 0 && (tolScale*(oldCost-cost) < tol || tolScale*math.Sqrt(g2) < tol) {
			converged = true
			break
		}
		// Newton direction: H p = −g, H = M + Σ_quadratic D JᵀJ
		for r := range nv {
			p[r] = -g[r]
		}
		switch {
		case dense && !changed:
			cholSubst(d.efcH, p, nv)
		case dense && iter > 0 && !ell && d.cholUpdateRows(flips, nv):
			cholSubst(d.efcH, p, nv)
		case dense:
			H := d.efcH
			copy(H, d.QM)
			for i := 0; i < n; i++ {
				if d.pyramidActive(i, n) {
					d.addPyramid4(i, H, nv)
					i += 3
					continue
				}
				if d.efcPyr[i] == 6 && d.efcActive[i] && d.efcActive[i+1] && d.efcActive[i+2] &&
					d.efcActive[i+3] && d.efcActive[i+4] && d.efcActive[i+5] {
					d.addPyramid6(i, H, nv)
					i += 5
					continue
				}
				if t := d.EfcType[i]; d.efcN[i] == 0 && (t == RowContactPyramidal || t == RowEquality) {
					// one constraint's consecutive rows (a pyramid's edges, a
					// weld's or connect's rows): the active ones in one pass
					e := i + 1
					for e < n && e < i+6 && d.EfcType[e] == t && d.EfcJnt[e] == d.EfcJnt[i] && d.efcN[e] == 0 {
						e++
					}
					d.addRowsH(i, e, H, nv)
					i = e - 1
					continue
				}
				if !d.efcActive[i] {
					continue
				}
				var J []float64
				if d.efcN[i] == 0 {
					J = d.efcJd[i*nv : i*nv+nv]
				} else {
					d.rowDense(i, nv)
					J = d.efcRow
				}
				// the row's nonzeros (adding D·J_r·0 changes nothing)
				lo, hi := 0, nv
				if d.efcN[i] == 0 {
					lo, hi = d.efcSpan[2*i], d.efcSpan[2*i+1]
				}
				d.addRowH(d.efcD[i], J, lo, hi, H, nv)
			}
			for i := 0; i < n; i++ {
				if d.EfcType[i] == RowContactElliptic {
					if d.efcCone[i] {
						var jar [6]float64
						d.coneJar(i, x, &jar)
						d.addConeHessian(i, &jar, H, nv)
					}
					i += d.efcDim[i] - 1
				}
			}
			cholFactor(H, nv)
			cholSubst(H, p, nv)
		case !changed:
			solveLD(m, d.qLD, p)
		default:
			L := d.qLD
			d.qLDIsM = false
			if d.mValid {
				copy(L, d.qM0) // loadLD(m, d, L, 0, nil) of this Forward
			} else {
				loadLD(m, d, L, 0, nil)
			}
			for i := range n {
				if !d.efcActive[i] {
					continue
				}
				if d.efcN[i] == 0 {
					d.addChainRow(m, i, L)
					continue
				}
				// a joint's dofs chain: dof da+c is da+r's (r−c−1)-th ancestor
				da := d.efcDof[i]
				for r := range d.efcN[i] {
					for c := 0; c <= r; c++ {
						L[ldIdx(m, da+r, r-c-1)] += d.efcD[i] * d.efcJac[i][r] * d.efcJac[i][c]
					}
				}
			}
			factorLD(m, L)
			solveLD(m, L, p)
		}
		// line search on the convex piecewise-quadratic cost along
		// p: φ'(α) = pᵀM(x − x₀) + α·pᵀMp − Σ (J_i p) f_i(jar_i + α J_i p)
		pMp, pg0 := 0.0, 0.0
		m.mulM(d.QM, p, Mp)
		for r := range nv {
			pMp += p[r] * Mp[r]
			pg0 += p[r] * g[r]
		}
		// pᵀg includes −Σ (J_i p) f_i at α = 0: add it back
		d.rowJars(p, d.efcJp)
		for i := range n {
			jp[i] += aref[i]
		}
		// (EfcForce holds each row's force at jar: set above, for this x)
		for i := range n {
			pg0 += jp[i] * force[i]
		}
		deriv := func(a float64) (float64, float64) {
			v, h := pg0+a*pMp, pMp
			if !ell {
				// no elliptic block: rowForce's arithmetic on sliced rows
				typ, D, fl, R := d.EfcType[:n], d.efcD[:n], d.efcFloss[:n], d.efcR[:n]
				for i := range n {
					f, quad := forceOf(typ[i], fl[i], R[i], D[i], jar[i]+a*jp[i])
					v -= jp[i] * f
					if quad {
						h += D[i] * jp[i] * jp[i]
					}
				}
				return v, h
			}
			for i := 0; i < n; i++ {
				if d.EfcType[i] == RowContactElliptic {
					cv, ch := d.coneLine(i, a)
					v, h = v+cv, h+ch
					i += d.efcDim[i] - 1
					continue
				}
				f, quad := d.rowForce(i, d.efcJar[i]+a*d.efcJp[i])
				v -= d.efcJp[i] * f
				if quad {
					h += d.efcD[i] * d.efcJp[i] * d.efcJp[i]
				}
			}
			return v, h
		}
		// MuJoCo's line search stops where |φ'| < tolerance·ls_tolerance·
		// ‖p‖/scale (mj_solNewton's gtol), or after ls_iterations
		// evaluations (α = 0 and the Newton point count, as there); with
		// no tolerance it runs to rounding
		pn := 0.0
		for r := range nv {
			pn += p[r] * p[r]
		}
		gtol := tol * lsTol * math.Sqrt(pn) / tolScale
		ftol := 1e-15 * (1 + math.Abs(pg0)) // rounding
		lo, hi := 0.0, 1.0
		v1, h1 := deriv(1) // the bracket's first end and the search's start
		evals := 2
		done := math.Abs(v1) < gtol // MuJoCo's test at its Newton point
		for k := 0; k < 60 && !done && evals < lsIter; k++ {
			v := v1
			if k > 0 {
				v, _ = deriv(hi)
				evals++
			}
			if v >= 0 {
				break
			}
			lo, hi = hi, 2*hi
		}
		a := 1.0
		for k := 0; k < 100 && !done; k++ {
			v, h := v1, h1
			if k > 0 {
				v, h = deriv(a)
				evals++
			}
			if math.Abs(v) < gtol || math.Abs(v) <= ftol {
				break
			}
			if v < 0 {
				lo = a
			} else {
				hi = a
			}
			next := a - v/h
			if !(next > lo && next < hi) {
				next = 0.5 * (lo + hi)
			}
			if next == a || evals >= lsIter {
				break // a is the last point evaluated
			}
			a = next
		}
		for r := range nv {
			x[r] += a * p[r]
			Mx[r] += a * Mp[r]
		}
		for i := range n {
			jar[i] += a * jp[i]
		}
	}
	if converged {
		return // EfcForce and QfrcConstraint are the forces at x
	}
	clear(d.QfrcConstraint)
	for i := 0; i < n; i++ {
		if d.EfcType[i] == RowContactElliptic {
			var jar, f [6]float64
			d.coneJar(i, x, &jar)
			d.coneForce(i, &jar, &f)
			for j := range d.efcDim[i] {
				d.EfcForce[i+j] = f[j]
				d.addJT(i+j, f[j], d.QfrcConstraint)
			}
			i += d.efcDim[i] - 1
			continue
		}
		d.EfcForce[i], _ = d.rowForce(i, d.rowJar(i, x))
		d.addJT(i, d.EfcForce[i], d.QfrcConstraint)
	}
}

// setSpans finds the nonzero span of each dense row (efcSpan): the
// products outside it are exact zeros, so J·x and Jᵀf over the span are
// the full sums. It reports whether a dense row's nonzeros are not one
// chain of ancestors (so JᵀJ fills H outside M's tree pattern) or a row
// is an elliptic block's.
func (d *Data) setSpans(m *Model, n, nv int) bool {
	fill := false
	pt, pj, oneChain := -1, -1, false
	for i := range n {
		if d.efcN[i] != 0 {
			continue
		}
		if fill && d.EfcType[i] >= RowContactFrictionless {
			continue // a contact row's span is set with the row; fill is known
		}
		lo, hi := 0, nv
		switch d.EfcType[i] {
		case RowContactFrictionless, RowContactPyramidal, RowContactElliptic:
			lo, hi = d.efcSpan[2*i], d.efcSpan[2*i+1] // set with the row (spanCols)
		default:
			row := d.efcJd[i*nv : i*nv+nv]
			for lo < hi && row[lo] == 0 {
				lo++
			}
			for hi > lo && row[hi-1] == 0 {
				hi--
			}
			d.efcSpan[2*i], d.efcSpan[2*i+1] = lo, hi
		}
		if fill || d.EfcType[i] == RowContactElliptic {
			fill = true
			continue
		}
		// a contact's, weld's or connect's rows are zero outside the dofs
		// moving its two bodies: when those are one chain, so are the
		// row's nonzeros (asked once per constraint)
		if t, j := d.EfcType[i], d.EfcJnt[i]; t != pt || j != pj {
			pt, pj, oneChain = t, j, d.rowsOneChain(m, t, j)
		}
		if oneChain {
			continue
		}
		// a chain: walking up from the last nonzero meets every other
		row := d.efcJd[i*nv : i*nv+nv]
		k := hi - 1
		for c := hi - 1; c >= lo; c-- {
			if row[c] == 0 {
				continue
			}
			for k > c {
				k = m.dofParent[k]
			}
			if k != c {
				fill = true
				break
			}
		}
	}
	return fill
}

// rowsOneChain reports whether the rows of type t for constraint j (a
// contact's index, an equality's) can be nonzero only on the dofs moving
// two bodies, and those dofs are one chain of ancestors.
func (d *Data) rowsOneChain(m *Model, t, j int) bool {
	var b1, b2 int
	switch t {
	case RowContactFrictionless, RowContactPyramidal:
		c := &d.Contacts[j]
		b1, b2 = m.Geoms[c.Geom1].Body, m.Geoms[c.Geom2].Body
	case RowEquality:
		e := &m.Equalities[j]
		if e.Type != EqWeld && e.Type != EqConnect {
			return false
		}
		b1, b2 = e.Obj1, e.Obj2
	default:
		return false
	}
	k1, k2 := m.lastDof(b1), m.lastDof(b2)
	if k1 < k2 {
		k1, k2 = k2, k1
	}
	if k2 < 0 {
		return true // one body moves with no dof: the other's chain
	}
	for k1 > k2 {
		k1 = m.dofParent[k1]
	}
	return k1 == k2 // the smaller last dof is an ancestor of the larger
}

// pyramidActive reports whether rows i..i+3 are the four edges of one
// condim-3 pyramidal contact (one regularizer D), all in their quadratic
// zone.
func (d *Data) pyramidActive(i, n int) bool {
	if i+4 > n || d.EfcType[i] != RowContactPyramidal || d.EfcType[i+3] != RowContactPyramidal {
		return false
	}
	c := d.EfcJnt[i]
	if d.EfcJnt[i+3] != c || (i > 0 && d.EfcType[i-1] == RowContactPyramidal && d.EfcJnt[i-1] == c) ||
		(i+4 < n && d.EfcType[i+4] == RowContactPyramidal && d.EfcJnt[i+4] == c) {
		return false // not exactly four rows: condim 4 or 6
	}
	return d.efcActive[i] && d.efcActive[i+1] && d.efcActive[i+2] && d.efcActive[i+3]
}

// addRowH adds D·JᵀJ of one row J, zero outside [lo, hi), to H's lower
// triangle: entry (r, c) gets (D·J_r)·J_c for the nonzero J_r and J_c
// (adding D·J_r·0 changes nothing), each entry once, the nonzero columns
// visited as runs of consecutive ones (no index per entry).
func (d *Data) addRowH(D float64, J []float64, lo, hi int, H []float64, nv int) {
	// runs of nonzeros: [runs[2k], runs[2k+1])
	runs := d.efcNZ[:0]
	for c := lo; c < hi; {
		if J[c] == 0 {
			c++
			continue
		}
		a := c
		for c < hi && J[c] != 0 {
			c++
		}
		runs = append(runs, a, c)
	}
	// the lower triangle: cholFactor reads no more
	for k := 0; k < len(runs); k += 2 {
		for r := runs[k]; r < runs[k+1]; r++ {
			Dr := D * J[r] // (D·J_r)·J_c, as before
			Hr := H[r*nv : r*nv+r+1]
			for q := 0; q <= k; q += 2 {
				a, b := runs[q], min(runs[q+1], r+1)
				Hc, Jc := Hr[a:b], J[a:b]
				Jc = Jc[:len(Hc)]
				for t, v := range Jc {
					Hc[t] += Dr * v
				}
			}
		}
	}
}

// addRowsH adds D_k·J_kᵀJ_k of the active ones among the dense rows
// i..e−1 (at most six) to H's lower triangle in one pass over the
// columns where any of them is nonzero, each entry's terms added one by
// one in row order: the sums of addRowH row by row (a row's zero columns
// add exact zeros), bit for bit.
func (d *Data) addRowsH(i, e int, H []float64, nv int) {
	var J [6][]float64
	var D [6]float64
	k, lo, hi := 0, nv, 0
	for r := i; r < e; r++ {
		if !d.efcActive[r] {
			continue
		}
		J[k], D[k] = d.efcJd[r*nv:r*nv+nv], d.efcD[r]
		lo, hi = min(lo, d.efcSpan[2*r]), max(hi, d.efcSpan[2*r+1])
		k++
	}
	switch k {
	case 0:
		return
	case 1:
		d.addRowH(D[0], J[0], lo, hi, H, nv)
		return
	}
	nz := d.efcNZ[:0]
	for c := lo; c < hi; c++ {
		for t := range k {
			if J[t][c] != 0 {
				nz = append(nz, c)
				break
			}
		}
	}
	for t := k; t < 6; t++ {
		J[t] = J[0] // never read: k rows only
	}
	J0, J1, J2, J3, J4, J5 := J[0][:nv], J[1][:nv], J[2][:nv], J[3][:nv], J[4][:nv], J[5][:nv]
	for q, r := range nz {
		Hr := H[r*nv : r*nv+nv]
		var a [6]float64
		for t := range k {
			a[t] = D[t] * J[t][r]
		}
		a0, a1, a2, a3, a4, a5 := a[0], a[1], a[2], a[3], a[4], a[5]
		for _, c := range nz[:q+1] {
			v := Hr[c]
			v += a0 * J0[c]
			v += a1 * J1[c]
			if k > 2 {
				v += a2 * J2[c]
				if k > 3 {
					v += a3 * J3[c]
					if k > 4 {
						v += a4 * J4[c]
						if k > 5 {
							v += a5 * J5[c]
						}
					}
				}
			}
			Hr[c] = v
		}
	}
}

// addPyramid4 adds D·Σ_k J_kᵀJ_k of the four active edge rows i..i+3 of
// one pyramid (pyramidActive) to H's lower triangle in one pass over the
// columns where any of them is nonzero.
func (d *Data) addPyramid4(i int, H []float64, nv int) {
	lo, hi := nv, 0
	for k := i; k < i+4; k++ {
		lo, hi = min(lo, d.efcSpan[2*k]), max(hi, d.efcSpan[2*k+1])
	}
	J0 := d.efcJd[i*nv : i*nv+nv]
	J1 := d.efcJd[(i+1)*nv : (i+1)*nv+nv]
	J2 := d.efcJd[(i+2)*nv : (i+2)*nv+nv]
	J3 := d.efcJd[(i+3)*nv : (i+3)*nv+nv]
	nz := d.efcNZ[:0]
	for c := lo; c < hi; c++ {
		if J0[c] != 0 || J1[c] != 0 || J2[c] != 0 || J3[c] != 0 {
			nz = append(nz, c)
		}
	}
	D := d.efcD[i]
	for k, r := range nz {
		Hr := H[r*nv : r*nv+nv]
		a0, a1, a2, a3 := D*J0[r], D*J1[r], D*J2[r], D*J3[r]
		for _, c := range nz[:k+1] {
			Hr[c] += a0*J0[c] + a1*J1[c] + a2*J2[c] + a3*J3[c]
		}
	}
}

// addPyramid6 adds D·J_kᵀJ_k of the six active edge rows i..i+5 of one
// condim-4 pyramid to H's lower triangle in one pass over the columns where
// any of them is nonzero, each entry's six terms added one by one in row
// order: the sums of six row-by-row passes (a row's zero columns add exact
// zeros), bit for bit.
func (d *Data) addPyramid6(i int, H []float64, nv int) {
	lo, hi := d.pyrSpan(i, 6)
	J0 := d.efcJd[i*nv : i*nv+nv]
	J1 := d.efcJd[(i+1)*nv : (i+1)*nv+nv]
	J2 := d.efcJd[(i+2)*nv : (i+2)*nv+nv]
	J3 := d.efcJd[(i+3)*nv : (i+3)*nv+nv]
	J4 := d.efcJd[(i+4)*nv : (i+4)*nv+nv]
	J5 := d.efcJd[(i+5)*nv : (i+5)*nv+nv]
	nz := d.efcNZ[:0]
	for c := lo; c < hi; c++ {
		if J0[c] != 0 || J1[c] != 0 || J2[c] != 0 || J3[c] != 0 || J4[c] != 0 || J5[c] != 0 {
			nz = append(nz, c)
		}
	}
	D := d.efcD[i]
	for k, r := range nz {
		Hr := H[r*nv : r*nv+nv]
		a0, a1, a2, a3, a4, a5 := D*J0[r], D*J1[r], D*J2[r], D*J3[r], D*J4[r], D*J5[r]
		for _, c := range nz[:k+1] {
			v := Hr[c]
			v += a0 * J0[c]
			v += a1 * J1[c]
			v += a2 * J2[c]
			v += a3 * J3[c]
			v += a4 * J4[c]
			v += a5 * J5[c]
			Hr[c] = v
		}
	}
}

// addChainRow adds D·JᵀJ of dense row i, whose nonzeros are one chain of
// ancestors, to the tree-compressed L (loadLD's layout).
func (d *Data) addChainRow(m *Model, i int, L []float64) {
	nv := m.NV
	J := d.efcJd[i*nv : i*nv+nv]
	lo, hi := d.efcSpan[2*i], d.efcSpan[2*i+1]
	D, off := L[:nv], L[nv:]
	ancs, adr := m.ancestors[:nv], m.ancAdr[:nv+1]
	Di := d.efcD[i]
	for r := hi - 1; r >= lo; r-- {
		Jr := J[r]
		if Jr == 0 {
			continue
		}
		Dr := Di * Jr
		D[r] += Dr * Jr
		anc := ancs[r]
		row := off[adr[r] : adr[r]+len(anc)] // (no bounds checks inside)
		for ii, a := range anc {
			if a < lo {
				break // ancestors come nearest first: the rest are below the span
			}
			if Ja := J[a]; Ja != 0 {
				row[ii] += Dr * Ja
			}
		}
	}
}

// addJT adds J_iᵀ·f to out.
func (d *Data) addJT(i int, f float64, out []float64) {
	if d.efcN[i] == 0 {
		nv := len(out)
		lo, hi := d.efcSpan[2*i], d.efcSpan[2*i+1]
		o := out[lo:hi]
		J := d.efcJd[i*nv+lo : i*nv+hi]
		o = o[:len(J)] // (no bounds checks in the loop)
		for k, v := range J {
			o[k] += v * f
		}
		return
	}
	da := d.efcDof[i]
	for r := range d.efcN[i] {
		out[da+r] += d.efcJac[i][r] * f
	}
}

// rowDense writes row i's Jacobian as a dense nv-vector into efcRow.
func (d *Data) rowDense(i, nv int) {
	if d.efcN[i] == 0 {
		copy(d.efcRow, d.efcJd[i*nv:i*nv+nv])
		return
	}
	clear(d.efcRow)
	for r := range d.efcN[i] {
		d.efcRow[d.efcDof[i]+r] = d.efcJac[i][r]
	}
}

// cholSolve solves H x = b in place (b becomes x) for symmetric positive
// definite H (nv×nv row-major, overwritten by its Cholesky factor).
func cholSolve(H, b []float64, nv int) {
	cholFactor(H, nv)
	cholSubst(H, b, nv)
}

// cholFactor overwrites the lower triangle of H with its Cholesky factor.
func cholFactor(H []float64, nv int) {
	H = H[:nv*nv]
	for j := range nv {
		Hj := H[j*nv : j*nv+j]
		s := H[j*nv+j]
		for _, v := range Hj {
			s -= v * v
		}
		s = math.Sqrt(max(s, 1e-300))
		H[j*nv+j] = s
		i := j + 1
		for ; i+1 < nv; i += 2 {
			// rows i and i+1 together (Hj read once), each sum as alone
			Hi := H[i*nv : i*nv+j]
			Hi2 := H[(i+1)*nv : (i+1)*nv+j]
			Hj := Hj[:len(Hi)]
			Hi2 = Hi2[:len(Hi)]
			t, t2 := H[i*nv+j], H[(i+1)*nv+j]
			for k, v := range Hi {
				w := Hj[k]
				t -= v * w
				t2 -= Hi2[k] * w
			}
			// the factor's transpose in the upper triangle too: the back
			// substitution then reads rows
			H[i*nv+j] = t / s
			H[j*nv+i] = H[i*nv+j]
			H[(i+1)*nv+j] = t2 / s
			H[j*nv+i+1] = H[(i+1)*nv+j]
		}
		for ; i < nv; i++ {
			Hi := H[i*nv : i*nv+j]
			Hj := Hj[:len(Hi)]
			t := H[i*nv+j]
			for k, v := range Hi {
				t -= v * Hj[k]
			}
			H[i*nv+j] = t / s
			H[j*nv+i] = H[i*nv+j]
		}
	}
}

// cholUpdateRows updates the dense factor in efcH (cholFactor's) from
// the Hessian of the rows' previous quadratic states to that of their
// states now (efcActive), one rank-1 update or downdate by √D_i·J_i per
// row in flips, in row order (MuJoCo 3.3.8's HessianIncremental). It
// reports false, with efcH spoiled, when a downdate loses rank (MuJoCo's
// mju_cholUpdate rank < nv), or untouched when the updates would cost
// more than refactoring: the caller then rebuilds H in full.
func (d *Data) cholUpdateRows(flips []int, nv int) bool {
	// a row's update rewrites the factor's columns from its first nonzero
	// on, (nv − lo)² entries with a square root and three divisions per
	// column; refactoring costs ~nv³/6 multiply-adds and nv²/2 divisions
	// plus rebuilding H: update only while the rows' entries stay within
	// 2·nv² (MuJoCo always updates; the factor is the same to rounding)
	work := 0
	for _, i := range flips {
		lo := d.efcDof[i]
		if d.efcN[i] == 0 {
			lo = d.efcSpan[2*i]
		}
		work += (nv - lo) * (nv - lo)
	}
	if work > 2*nv*nv {
		return false
	}
	H := d.efcH[:nv*nv]
	for _, i := range flips {
		d.rowDense(i, nv)
		x := d.efcRow[:nv]
		sd := math.Sqrt(d.efcD[i])
		for c := range x {
			x[c] *= sd
		}
		if !cholUpdate(H, x, nv, d.efcActive[i]) {
			return false
		}
	}
	return true
}

// cholUpdate overwrites the factor L in H (cholFactor's layout: lower
// triangle, its transpose mirrored above) with that of L·Lᵀ + x·xᵀ (plus)
// or L·Lᵀ − x·xᵀ, destroying x: MuJoCo's mju_cholUpdate, column by column
// from the first nonzero of x. It reports false where a downdated
// diagonal falls below MuJoCo's mjMINVAL (1e-15), i.e. rank is lost.
func cholUpdate(H, x []float64, nv int, plus bool) bool {
	const minVal = 1e-15
	ok := true
	for k := range nv {
		xk := x[k]
		if xk == 0 {
			continue
		}
		lkk := H[k*nv+k]
		t := lkk*lkk - xk*xk
		if plus {
			t = lkk*lkk + xk*xk
		}
		if t < minVal {
			t, ok = minVal, false
		}
		r := math.Sqrt(t)
		c := r / lkk
		cinv := 1 / c
		s := xk / lkk
		H[k*nv+k] = r
		for i := k + 1; i < nv; i++ {
			v := H[i*nv+k]
			if plus {
				v = (v + s*x[i]) * cinv
			} else {
				v = (v - s*x[i]) * cinv
			}
			H[i*nv+k], H[k*nv+i] = v, v
			x[i] = c*x[i] - s*v
		}
	}
	return ok
}

// cholSubst solves H x = b in place with H's factor from cholFactor.
func cholSubst(H, b []float64, nv int) {
	H, b = H[:nv*nv], b[:nv]
	i := 0
	for ; i+1 < nv; i += 2 {
		// rows i and i+1 together: row i+1's sum over k < i alongside row
		// i's, then its k = i term once b[i] is known (the same order)
		Hi := H[i*nv : i*nv+i]
		Hi2 := H[(i+1)*nv : (i+1)*nv+i]
		bi := b[:len(Hi)]
		Hi2 = Hi2[:len(Hi)]
		t, t2 := b[i], b[i+1]
		for k, v := range Hi {
			w := bi[k]
			t -= v * w
			t2 -= Hi2[k] * w
		}
		b[i] = t / H[i*nv+i]
		t2 -= H[(i+1)*nv+i] * b[i]
		b[i+1] = t2 / H[(i+1)*nv+i+1]
	}
	for ; i < nv; i++ {
		Hi := H[i*nv : i*nv+i]
		bi := b[:len(Hi)]
		t := b[i]
		for k, v := range Hi {
			t -= v * bi[k]
		}
		b[i] = t / H[i*nv+i]
	}
	for i := nv - 1; i >= 0; i-- {
		Hi := H[i*nv+i+1 : i*nv+nv]
		bi := b[i+1:]
		bi = bi[:len(Hi)]
		t := b[i]
		for k, v := range Hi {
			t -= v * bi[k]
		}
		b[i] = t / H[i*nv+i]
	}
}

// actuatorDV returns ∂force/∂velocity of an actuator's length velocity:
// the affine bias's and gain's velocity terms (MuJoCo's mjd_actuator_vel,
// with the unclamped ctrl).
func actuatorDV(a *Actuator, ctrl float64) float64 {
	dv := 0.0
	if a.BiasType == BiasAffine {
		dv += a.BiasPrm[2]
	}
	if a.GainType == GainAffine {
		dv += a.GainPrm[2] * ctrl
	}
	return dv
}

// rungeKutta advances d by MuJoCo's RK4 (mj_RungeKutta): stages at
// h/2, h/2 and h from the current Forward, positions integrated on the
// manifold (mj_integratePos) from the start state with the stages'
// velocity combinations.
func rungeKutta(m *Model, d *Data) {
	nv, h, t0 := m.NV, m.Opt.Timestep, d.Time
	a := [3]float64{0.5, 0.5, 1}
	b := [4]float64{1.0 / 6, 1.0 / 3, 1.0 / 3, 1.0 / 6}
	copy(d.rkQpos[0], d.Qpos)
	copy(d.rkQvel[0], d.Qvel)
	copy(d.rkF[0], d.Qacc)
	dx := d.rkDX
	for i := 1; i < 4; i++ {
		// dX = A(i, i−1)·(X[i−1] velocity, F[i−1]); X[i] = X[0] ⊕ h·dX
		for k := range nv {
			dx[k] = a[i-1] * d.rkQvel[i-1][k]
			dx[nv+k] = a[i-1] * d.rkF[i-1][k]
		}
		copy(d.rkQpos[i], d.rkQpos[0])
		integratePos(m, d.rkQpos[i], dx[:nv], h)
		for k := range nv {
			d.rkQvel[i][k] = d.rkQvel[0][k] + h*dx[nv+k]
		}
		copy(d.Qpos, d.rkQpos[i])
		copy(d.Qvel, d.rkQvel[i])
		d.Time = t0 + a[i-1]*h
		Forward(m, d)
		copy(d.rkF[i], d.Qacc)
	}
	for k := range nv {
		dx[k], dx[nv+k] = 0, 0
		for j := range 4 {
			dx[k] += b[j] * d.rkQvel[j][k]
			dx[nv+k] += b[j] * d.rkF[j][k]
		}
	}
	d.Time = t0
	copy(d.Qpos, d.rkQpos[0])
	copy(d.Qvel, d.rkQvel[0])
	for k := range nv {
		d.Qvel[k] += h * dx[nv+k]
	}
	integratePos(m, d.Qpos, dx[:nv], h)
	d.Time += h
}
