package articulated

import "math"

// Equality types (MuJoCo's mjtEq, the ones implemented).
const (
	EqConnect = 0 // a point of Body1 held on a point of Body2 (3 rows)
	EqWeld    = 1 // Body1's pose held relative to Body2's (6 rows)
	EqJoint   = 2 // joint 1 = polynomial of joint 2 (1 row)
	EqTendon  = 3 // tendon 1's length = polynomial of tendon 2's (1 row)
)

// Equality is an equality constraint, MuJoCo's soft model: rows always
// on, impedance from SolImp at the violation, reference acceleration from
// SolRef (all zero: MuJoCo's defaults 0.02, 1 and 0.9, 0.95, 0.001, 0.5,
// 2).
type Equality struct {
	Name string
	Type int
	// EqConnect: bodies Obj1 and Obj2 (0: the world); Anchor is the point
	// in Obj1's frame, held where it is at qpos0 in Obj2's frame.
	// EqWeld: bodies Obj1 and Obj2; Anchor is the weld point in Obj2's
	// frame; the relative pose is the one at qpos0; TorqueScale (0: 1)
	// scales the rotation rows.
	// EqJoint: hinge or slide joints Obj1 and Obj2 (-1: none; then joint 1
	// is held at qpos0 + PolyCoef[0]); q1 − q1₀ = Σ PolyCoef[k]·(q2 −
	// q2₀)^k. EqTendon: the same with tendons Obj1, Obj2 and their
	// lengths at qpos0 (only in NewSpec, which has tendons).
	Obj1, Obj2  int
	Anchor      [3]float64
	PolyCoef    [5]float64
	TorqueScale float64
	SolRef      [2]float64
	SolImp      [5]float64
	// Inactive equalities make no rows (MJCF active="false").
	Inactive bool
	// Sites switches a connect or weld to site semantics (MJCF site1,
	// site2): the points are the sites' origins, SitePos[k] in body Obj1
	// (k = 0) and Obj2 (k = 1); a weld holds the sites' frames (SiteQuat)
	// together, and Anchor is unused.
	Sites    bool
	SitePos  [2][3]float64
	SiteQuat [2][4]float64

	anchor2 [3]float64 // connect: Anchor's point in Obj2's frame at qpos0; weld: in Obj1's
	relpose [4]float64 // weld: neg(xquat1)·xquat2 at qpos0
}

// validateEqualities checks m.Equalities and counts their rows.
func (m *Model) validateEqualities(bad func(string, ...any)) {
	for i := range m.Equalities {
		e := &m.Equalities[i]
		if e.SolRef == [2]float64{} {
			e.SolRef = [2]float64{0.02, 1}
		}
		if e.SolImp == [5]float64{} {
			e.SolImp = [5]float64{0.9, 0.95, 0.001, 0.5, 2}
		}
		if e.Sites && (e.Type == EqConnect || e.Type == EqWeld) {
			for k := range 2 {
				q, ok := normQuat(e.SiteQuat[k])
				if !ok || !finite(e.SitePos[k][:]...) || !finite(e.SiteQuat[k][:]...) {
					bad("equality %d (%q): site %d has a non-finite position or a zero quaternion", i, e.Name, k+1)
				}
				e.SiteQuat[k] = q
			}
		}
		if !finite(e.Anchor[:]...) || !finite(e.PolyCoef[:]...) || !finite(e.SolRef[:]...) || !finite(e.SolImp[:]...) {
			bad("equality %d (%q): a non-finite parameter", i, e.Name)
			continue
		}
		if (e.SolRef[0] > 0) != (e.SolRef[1] > 0) {
			bad("equality %d (%q): solref %v mixes the standard and direct formats", i, e.Name, e.SolRef)
		}
		switch e.Type {
		case EqConnect:
			if e.Obj1 < 0 || e.Obj1 >= len(m.Bodies) || e.Obj2 < 0 || e.Obj2 >= len(m.Bodies) || e.Obj1 == e.Obj2 {
				bad("equality %d (%q): connect needs two different bodies (got %d, %d)", i, e.Name, e.Obj1, e.Obj2)
				continue
			}
			if !e.Inactive {
				m.nEqRows += 3
			}
		case EqWeld:
			if e.Obj1 < 0 || e.Obj1 >= len(m.Bodies) || e.Obj2 < 0 || e.Obj2 >= len(m.Bodies) || e.Obj1 == e.Obj2 {
				bad("equality %d (%q): weld needs two different bodies (got %d, %d)", i, e.Name, e.Obj1, e.Obj2)
				continue
			}
			if e.TorqueScale == 0 {
				e.TorqueScale = 1
			}
			if !finite(e.TorqueScale) {
				bad("equality %d (%q): torquescale must be finite", i, e.Name)
			}
			if !e.Inactive {
				m.nEqRows += 6
			}
		case EqJoint:
			ok := func(j int) bool {
				return j >= 0 && j < len(m.Joints) && (m.Joints[j].Type == Hinge || m.Joints[j].Type == Slide)
			}
			if !ok(e.Obj1) || (e.Obj2 != -1 && (!ok(e.Obj2) || e.Obj2 == e.Obj1)) {
				bad("equality %d (%q): a joint equality needs a hinge or slide joint and optionally another (got %d, %d)", i, e.Name, e.Obj1, e.Obj2)
				continue
			}
			if !e.Inactive {
				m.nEqRows++
			}
		case EqTendon:
			ok := func(t int) bool { return t >= 0 && t < len(m.Tendons) }
			if !ok(e.Obj1) || (e.Obj2 != -1 && (!ok(e.Obj2) || e.Obj2 == e.Obj1)) {
				bad("equality %d (%q): a tendon equality needs a tendon and optionally another (got %d, %d)", i, e.Name, e.Obj1, e.Obj2)
				continue
			}
			if !e.Inactive {
				m.nEqRows++
			}
		default:
			bad("equality %d (%q): type %d: only connect (0), weld (1), joint (2) and tendon (3) are implemented", i, e.Name, e.Type)
		}
	}
}

// setEqualityConst computes what MuJoCo's mj_setConst does for
// equalities and body_invweight0, from d at qpos0 (kinematics, com
// quantities and the factor of M done).
func (m *Model) setEqualityConst(d *Data, hasChild []bool) {
	nv := m.NV
	m.bodyInvWeight0 = make([][2]float64, len(m.Bodies))
	jac := make([]float64, 6*nv)
	tmp := make([]float64, nv)
	for b := 1; b < len(m.Bodies); b++ {
		if m.lastDof(b) < 0 {
			continue
		}
		if m.simpleSlides(b, hasChild) {
			m.bodyInvWeight0[b] = [2]float64{1 / max(1e-15, m.Bodies[b].Mass), 0}
			continue
		}
		// A = J M⁻¹ Jᵀ for the body's com (translation rows, then rotation)
		d.jacPoint(m, b, d.Xipos[b], jac[:3*nv], jac[3*nv:])
		var diag [6]float64
		for r := range 6 {
			copy(tmp, jac[r*nv:r*nv+nv])
			solveLD(m, d.qLD, tmp)
			s := 0.0
			for k := range nv {
				s += jac[r*nv+k] * tmp[k]
			}
			diag[r] = s
		}
		m.bodyInvWeight0[b] = [2]float64{(diag[0] + diag[1] + diag[2]) / 3, (diag[3] + diag[4] + diag[5]) / 3}
	}
	for i := range m.Equalities {
		e := &m.Equalities[i]
		if e.Sites {
			continue
		}
		switch e.Type {
		case EqConnect:
			p := add3(d.Xpos[e.Obj1], mulMatVec(&d.Xmat[e.Obj1], e.Anchor))
			e.anchor2 = mulMatTVec(&d.Xmat[e.Obj2], sub3(p, d.Xpos[e.Obj2]))
		case EqWeld:
			p := add3(d.Xpos[e.Obj2], mulMatVec(&d.Xmat[e.Obj2], e.Anchor))
			e.anchor2 = mulMatTVec(&d.Xmat[e.Obj1], sub3(p, d.Xpos[e.Obj1]))
			q1 := d.Xquat[e.Obj1]
			e.relpose = mulQuat([4]float64{q1[0], -q1[1], -q1[2], -q1[3]}, d.Xquat[e.Obj2])
		}
	}
}

// lastDof returns the last dof moving body b (its own or an ancestor's;
// -1 when none).
func (m *Model) lastDof(b int) int {
	if m.bodyDofNum[b] > 0 {
		return m.bodyDofAdr[b] + m.bodyDofNum[b] - 1
	}
	return lastAncestorDof(m, b)
}

// jacPoint writes the 3×nv translational and rotational Jacobians of the
// world point p moving with body b (row-major, zero for dofs not moving
// b).
func (d *Data) jacPoint(m *Model, b int, p [3]float64, jp, jr []float64) {
	nv := m.NV
	clear(jp[:3*nv])
	clear(jr[:3*nv])
	if b == 0 {
		return
	}
	off := sub3(p, d.SubtreeCom[m.bodyRoot[b]])
	o0, o1, o2 := off[0], off[1], off[2]
	for k := m.lastDof(b); k >= 0; k = m.dofParent[k] {
		// l = v + w × off in scalars (add3's and cross3's operations)
		c := &d.Cdof[k]
		w0, w1, w2 := c[0], c[1], c[2]
		jp[k], jr[k] = c[3]+(w1*o2-w2*o1), w0
		jp[nv+k], jr[nv+k] = c[4]+(w2*o0-w0*o2), w1
		jp[2*nv+k], jr[2*nv+k] = c[5]+(w0*o1-w1*o0), w2
	}
}

// makeEqualities adds the rows of the active equality constraints
// (mj_instantiateEquality) with dense Jacobians.
func makeEqualities(m *Model, d *Data) {
	nv := m.NV
	for ei := range m.Equalities {
		e := &m.Equalities[ei]
		if e.Inactive {
			continue
		}
		switch e.Type {
		case EqConnect:
			a1, a2 := e.Anchor, e.anchor2
			if e.Sites {
				a1, a2 = e.SitePos[0], e.SitePos[1]
			}
			p1 := add3(d.Xpos[e.Obj1], mulMatVec(&d.Xmat[e.Obj1], a1))
			p2 := add3(d.Xpos[e.Obj2], mulMatVec(&d.Xmat[e.Obj2], a2))
			j1, j2 := d.eqJac[:3*nv], d.eqJac[3*nv:6*nv]
			scratch := d.eqJac[6*nv : 9*nv]
			d.jacPoint(m, e.Obj1, p1, j1, scratch)
			d.jacPoint(m, e.Obj2, p2, j2, scratch)
			cpos := sub3(p1, p2)
			invw := m.bodyInvWeight0[e.Obj1][0] + m.bodyInvWeight0[e.Obj2][0]
			imp, dmax := impedance(&e.SolImp, norm3(cpos), 0)
			// the three rows share R, k and b (addRowImp's arithmetic, once)
			R := max(1e-15, (1-imp)*invw/imp)
			D := 1 / R
			kr, br := refStiffDamp(m, RowEquality, &e.SolRef, dmax)
			for r := range 3 {
				i := d.NEfc
				row := d.efcJd[i*nv : i*nv+nv]
				vel := 0.0
				for k := range nv {
					row[k] = j1[r*nv+k] - j2[r*nv+k]
					vel += row[k] * d.Qvel[k]
				}
				d.addRowKB(RowEquality, ei, 0, 0, [3]float64{}, cpos[r], 0, 0, vel, imp, R, D, kr, br)
			}
		case EqWeld:
			a0, a1 := e.anchor2, e.Anchor
			if e.Sites {
				a0, a1 = e.SitePos[0], e.SitePos[1]
			}
			p0 := add3(d.Xpos[e.Obj1], mulMatVec(&d.Xmat[e.Obj1], a0))
			p1 := add3(d.Xpos[e.Obj2], mulMatVec(&d.Xmat[e.Obj2], a1))
			jp0, jr0 := d.eqJac[:3*nv], d.eqJac[3*nv:6*nv]
			jp1, jr1 := d.eqJac[6*nv:9*nv], d.eqJac[9*nv:12*nv]
			d.jacPoint(m, e.Obj1, p0, jp0, jr0)
			d.jacPoint(m, e.Obj2, p1, jp1, jr1)
			var cpos [6]float64
			c := sub3(p0, p1)
			copy(cpos[:3], c[:])
			// orientation error: neg(q1)·q0·relpose, axis components
			quat := mulQuat(d.Xquat[e.Obj1], e.relpose)
			q1 := d.Xquat[e.Obj2]
			if e.Sites {
				quat = mulQuat(d.Xquat[e.Obj1], e.SiteQuat[0])
				q1 = mulQuat(d.Xquat[e.Obj2], e.SiteQuat[1])
			}
			quat1 := [4]float64{q1[0], -q1[1], -q1[2], -q1[3]}
			quat2 := mulQuat(quat1, quat)
			ts := e.TorqueScale
			cpos[3], cpos[4], cpos[5] = quat2[1]*ts, quat2[2]*ts, quat2[3]*ts
			norm := 0.0
			for _, v := range cpos {
				norm += v * v
			}
			norm = math.Sqrt(norm)
			i0 := d.NEfc
			imp, dmax := impedance(&e.SolImp, norm, 0)
			// only the dofs moving either body: the rows are zero elsewhere
			cols, _ := d.contactCols(m, e.Obj1, e.Obj2)
			for r := range 6 {
				row := d.efcJd[(i0+r)*nv : (i0+r)*nv+nv]
				clear(row)
				if r < 3 {
					for _, k := range cols {
						row[k] = jp0[r*nv+k] - jp1[r*nv+k]
					}
				}
			}
			// rotation rows: 0.5·neg(q1)·(jr0 − jr1)·q0·relpose, scaled
			r3, r4, r5 := d.efcJd[(i0+3)*nv:(i0+4)*nv], d.efcJd[(i0+4)*nv:(i0+5)*nv], d.efcJd[(i0+5)*nv:(i0+6)*nv]
			for _, k := range cols {
				// scalar quaternion products (registers, not arrays)
				a0, a1, a2, a3 := mulQuatS(quat1[0], quat1[1], quat1[2], quat1[3], 0, jr0[k]-jr1[k], jr0[nv+k]-jr1[nv+k], jr0[2*nv+k]-jr1[2*nv+k])
				_, q1, q2, q3 := mulQuatS(a0, a1, a2, a3, quat[0], quat[1], quat[2], quat[3])
				r3[k], r4[k], r5[k] = 0.5*q1*ts, 0.5*q2*ts, 0.5*q3*ts
			}
			// the six rows share k and b, the first three and the last
			// three their regularizer (addRowImp's arithmetic, once)
			k, b := refStiffDamp(m, RowEquality, &e.SolRef, dmax)
			var R, D [2]float64
			for w := range 2 {
				invw := m.bodyInvWeight0[e.Obj1][w] + m.bodyInvWeight0[e.Obj2][w]
				R[w] = max(1e-15, (1-imp)*invw/imp)
				D[w] = 1 / R[w]
			}
			for r := range 6 {
				row := d.efcJd[(i0+r)*nv : (i0+r)*nv+nv]
				vel := dotCols(row, d.Qvel, cols)
				d.addRowKB(RowEquality, ei, 0, 0, [3]float64{}, cpos[r], 0, 0, vel, imp, R[r/3], D[r/3], k, b)
			}
		case EqTendon:
			t1, t2 := e.Obj1, e.Obj2
			i := d.NEfc
			row := d.efcJd[i*nv : i*nv+nv]
			copy(row, d.tenJ[t1*nv:t1*nv+nv])
			c := e.PolyCoef
			l1 := d.TenLength[t1] - m.tenLength0[t1]
			cpos := l1 - c[0]
			invw := m.tenInvWeight0[t1]
			if t2 >= 0 {
				dif := d.TenLength[t2] - m.tenLength0[t2]
				cpos = l1 - c[0] - (c[1]*dif + c[2]*dif*dif + c[3]*dif*dif*dif + c[4]*dif*dif*dif*dif)
				deriv := c[1] + 2*c[2]*dif + 3*c[3]*dif*dif + 4*c[4]*dif*dif*dif
				for k, x := range d.tenJ[t2*nv : t2*nv+nv] {
					row[k] -= deriv * x
				}
				invw += m.tenInvWeight0[t2]
			}
			vel := 0.0
			for k := range nv {
				vel += row[k] * d.Qvel[k]
			}
			d.addRow(m, RowEquality, ei, 0, 0, [3]float64{}, cpos, cpos, 0, 0, vel, invw, e.SolRef, e.SolImp)
		case EqJoint:
			a1, d1 := m.jntQposAdr[e.Obj1], m.jntDofAdr[e.Obj1]
			i := d.NEfc
			row := d.efcJd[i*nv : i*nv+nv]
			clear(row)
			row[d1] = 1
			c := e.PolyCoef
			cpos := d.Qpos[a1] - m.Qpos0[a1] - c[0]
			invw := m.dofInvWeight0[d1]
			if e.Obj2 >= 0 {
				a2, d2 := m.jntQposAdr[e.Obj2], m.jntDofAdr[e.Obj2]
				dif := d.Qpos[a2] - m.Qpos0[a2]
				cpos = d.Qpos[a1] - m.Qpos0[a1] - c[0] - (c[1]*dif + c[2]*dif*dif + c[3]*dif*dif*dif + c[4]*dif*dif*dif*dif)
				row[d2] -= c[1] + 2*c[2]*dif + 3*c[3]*dif*dif + 4*c[4]*dif*dif*dif
				invw += m.dofInvWeight0[d2]
			}
			vel := 0.0
			for k := range nv {
				vel += row[k] * d.Qvel[k]
			}
			d.addRow(m, RowEquality, ei, 0, 0, [3]float64{}, cpos, cpos, 0, 0, vel, invw, e.SolRef, e.SolImp)
		}
	}
}
