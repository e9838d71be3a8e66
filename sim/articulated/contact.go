package articulated

import "math"

// Contact constraint rows (issue 47, step 3), as mj_instantiateContact,
// mj_diagApprox and mj_makeImpedance build them for MuJoCo's default
// pyramidal cone: a contact of condim 1 is one frictionless row along the
// normal; condim 3, 4 and 6 give 2·(condim−1) pyramid edges
// J_n ± μ_k·J_k (k over the tangents, then torsion and rolling, with
// rotational Jacobians). Every row has the contact's dist and
// includemargin, its impedance from the mixed solimp at dist, and one
// regularizer for the whole pyramid: R = 2·μ²·R₀ with
// R₀ = (1−imp)/imp·(t + μ₀²·t) (t: the two bodies' translational
// invweight0), μ = μ₀/√impratio. The rows are one-sided, like limits: a
// row pushes only while J·a < aref.

// Constraint row types of contacts (mjtConstraint).
const (
	RowContactFrictionless = 5 // mjCNSTR_CONTACT_FRICTIONLESS
	RowContactPyramidal    = 6 // mjCNSTR_CONTACT_PYRAMIDAL
)

// contactRows is the number of constraint rows of a contact of condim
// dim on the pyramidal cone.
func contactRows(dim int) int {
	if dim <= 1 {
		return 1
	}
	return 2 * (dim - 1)
}

// contactRowCap is the most contact rows a Forward can add (NewData's
// hook sizes the constraint arrays with it).
func (m *Model) contactRowCap() int {
	n := 0
	for _, p := range m.pairs {
		n += p.maxCon * contactRows(p.condim)
	}
	return min(n, 10*m.contactCap())
}

// makeContactRows adds the rows of the contacts within their
// includemargin; Forward's hook after the other constraints. Rows that do
// not fit the arrays are dropped and counted in Warnings.Contacts.
func makeContactRows(m *Model, d *Data) {
	nv := m.NV
	if len(d.Contacts) == 0 || nv == 0 || m.Opt.Disable&(DisableConstraint|DisableContact) != 0 {
		return
	}
	if len(d.conJac) < 12*nv {
		d.conJac = make([]float64, 12*nv) // a Data made before SetGeoms: once
	}
	j1p, j1r := d.conJac[0:3*nv], d.conJac[3*nv:6*nv]
	impratio := m.ImpRatio
	if !(impratio > 0) {
		impratio = 1
	}
	lastB1, lastB2 := -1, -1 // the bodies whose columns cols holds
	var cols []int
	var marks []uint8
	for ci := range d.Contacts {
		c := &d.Contacts[ci]
		if !(c.Dist < c.IncludeMargin) {
			continue // in the gap: detected, not a constraint
		}
		dim := c.Condim
		nrow := contactRows(dim)
		elliptic := m.Opt.Cone == Elliptic && dim > 1
		if elliptic {
			nrow = dim
		}
		if d.NEfc+nrow > len(d.EfcType) || (d.NEfc+nrow)*nv > len(d.efcJd) {
			d.Warnings.Contacts++
			continue
		}
		b1, b2 := m.Geoms[c.Geom1].Body, m.Geoms[c.Geom2].Body
		// the Jacobian difference (body2 − body1) of the contact point in
		// the contact frame, column by column over the dofs on the two
		// bodies' chains (the others are zero in both point Jacobians):
		// rows 0..2 translational in j1p, 3..5 rotational in j1r, the
		// rotational ones only for condim 4 and 6, which use them. Each
		// column is jacPoint's arithmetic: l = cdof_lin + w × (p − com).
		// a geom pair's contacts come in a row: their bodies' columns once
		if b1 != lastB1 || b2 != lastB2 {
			cols, marks = d.contactCols(m, b1, b2)
			lastB1, lastB2 = b1, b2
		}
		var off1, off2 vec3
		if b1 != 0 {
			off1 = sub3(c.Pos, d.SubtreeCom[m.bodyRoot[b1]])
		}
		if b2 != 0 {
			off2 = sub3(c.Pos, d.SubtreeCom[m.bodyRoot[b2]])
		}
		f0 := vec3{c.Frame[0], c.Frame[1], c.Frame[2]}
		f1 := vec3{c.Frame[3], c.Frame[4], c.Frame[5]}
		f2 := vec3{c.Frame[6], c.Frame[7], c.Frame[8]}
		if dim == 3 && !elliptic {
			d.pyramid3Rows(m, ci, cols, marks, off1, off2, f0, f1, f2, impratio)
			continue
		}
		rotRows := dim > 3
		empty := true
		o1x, o1y, o1z := off1[0], off1[1], off1[2]
		o2x, o2y, o2z := off2[0], off2[1], off2[2]
		for j, k := range cols {
			// in scalars: l = v + w × off per body, dp = l₂ − l₁ and
			// dr = w₂ − w₁ with an absent body's terms exactly 0
			cd := &d.Cdof[k]
			wx, wy, wz, vx, vy, vz := cd[0], cd[1], cd[2], cd[3], cd[4], cd[5]
			var px, py, pz, rx, ry, rz float64
			switch marks[j] {
			case 1:
				px, py, pz = 0-(vx+(wy*o1z-wz*o1y)), 0-(vy+(wz*o1x-wx*o1z)), 0-(vz+(wx*o1y-wy*o1x))
				rx, ry, rz = 0-wx, 0-wy, 0-wz
			case 2:
				px, py, pz = vx+(wy*o2z-wz*o2y), vy+(wz*o2x-wx*o2z), vz+(wx*o2y-wy*o2x)
				rx, ry, rz = wx, wy, wz
			default:
				px = (vx + (wy*o2z - wz*o2y)) - (vx + (wy*o1z - wz*o1y))
				py = (vy + (wz*o2x - wx*o2z)) - (vy + (wz*o1x - wx*o1z))
				pz = (vz + (wx*o2y - wy*o2x)) - (vz + (wx*o1y - wy*o1x))
				rx, ry, rz = wx-wx, wy-wy, wz-wz
			}
			if px == 0 && py == 0 && pz == 0 && rx == 0 && ry == 0 && rz == 0 {
				for r := range 3 {
					j1p[r*nv+k], j1r[r*nv+k] = 0, 0
				}
				continue
			}
			j1p[k] = f0[0]*px + f0[1]*py + f0[2]*pz
			j1p[nv+k] = f1[0]*px + f1[1]*py + f1[2]*pz
			j1p[2*nv+k] = f2[0]*px + f2[1]*py + f2[2]*pz
			if rotRows {
				j1r[k] = f0[0]*rx + f0[1]*ry + f0[2]*rz
				j1r[nv+k] = f1[0]*rx + f1[1]*ry + f1[2]*rz
				j1r[2*nv+k] = f2[0]*rx + f2[1]*ry + f2[2]*rz
			}
			empty = false
		}
		if empty {
			continue // no dof moves either body (mjContact.exclude = 3)
		}
		frame := func(r int) []float64 {
			if r < 3 {
				return j1p[r*nv : r*nv+nv]
			}
			return j1r[(r-3)*nv : (r-3)*nv+nv]
		}
		tran := m.bodyInvWeight0[b1][0] + m.bodyInvWeight0[b2][0]
		rot := m.bodyInvWeight0[b1][1] + m.bodyInvWeight0[b2][1]
		if dim <= 1 {
			i := d.NEfc
			row := d.efcJd[i*nv : i*nv+nv]
			clear(row)
			for _, q := range cols {
				row[q] = frame(0)[q]
			}
			d.spanCols(i, row, cols)
			d.addRow(m, RowContactFrictionless, ci, 0, 0, [3]float64{}, c.Dist, c.Dist, c.IncludeMargin, 0, dotCols(row, d.Qvel, cols), tran, c.SolRef, c.SolImp)
			continue
		}
		if elliptic {
			d.ellipticRows(m, ci, frame, cols, tran, rot, impratio)
			continue
		}
		normal := frame(0)
		ka, br, rpy, dpy := d.pyramidParams(m, c, tran, impratio)
		for k := 1; k < dim; k++ {
			mu := c.Friction[k-1] // clamped to mjMINMU in collision
			tk := frame(k)
			// the edges J_n + μ·J_k and J_n − μ·J_k, and their J·q̇
			// (dotCols's sums), in one pass over the columns
			i := d.NEfc
			d.NEfc += 2
			rowP, rowM := d.efcJd[i*nv:i*nv+nv], d.efcJd[(i+1)*nv:(i+1)*nv+nv]
			clear(rowP)
			clear(rowM)
			smuP, smuM := 1*mu, -1*mu
			velP, velM := 0.0, 0.0
			qv := d.Qvel[:nv]
			for _, q := range cols {
				n, t, w := normal[q], tk[q], qv[q]
				vp, vm := n+smuP*t, n+smuM*t
				rowP[q], rowM[q] = vp, vm
				velP += vp * w
				velM += vm * w
			}
			for e, vel := range [2]float64{velP, velM} {
				pyr := 0
				if k == 1 && e == 0 && dim <= 4 {
					pyr = 2 * (dim - 1) // condim 3 or 4
				}
				d.edgeRow(nv, i+e, ci, pyr, c.Dist, rpy, dpy, -br*vel-ka, cols)
			}
		}
		if dim <= 4 {
			d.setPyrSpan(d.NEfc-2*(dim-1), 2*(dim-1))
		}
	}
}

// pyramidParams is what a contact's pyramid edges share: its dist and
// margin, so impedance and reference stiffness and damping (ka = k·imp·
// (dist − margin), br = b), and one regularizer: R₀ from the first edge's
// diagApprox t + μ₁²·t, then R = 2·μ²·R₀ for all (addRowImp's
// arithmetic, once per contact), and D = 1/R.
func (d *Data) pyramidParams(m *Model, c *Contact, tran, impratio float64) (ka, br, rpy, dpy float64) {
	imp, dmax := impedance(&c.SolImp, c.Dist, c.IncludeMargin)
	// k and b depend on solref, dmax (solimp's), the timestep and the
	// refsafe flag only: a geom pair's contacts, in a row, share them
	var kr float64
	// (inputs compared bit for bit: ±0 and NaN are not taken as equal)
	key := kbMemo{ok: true, ref: [2]uint64{math.Float64bits(c.SolRef[0]), math.Float64bits(c.SolRef[1])},
		dmax: math.Float64bits(dmax), dt: math.Float64bits(m.Opt.Timestep), dis: m.Opt.Disable & DisableRefSafe}
	if r := &d.kbMemo; r.ok && r.ref == key.ref && r.dmax == key.dmax && r.dt == key.dt && r.dis == key.dis {
		kr, br = r.k, r.b
	} else {
		kr, br = refStiffDamp(m, RowContactPyramidal, &c.SolRef, dmax)
		key.k, key.b = kr, br
		*r = key
	}
	ka = kr * imp * (c.Dist - c.IncludeMargin)
	dA := tran
	dA += c.Friction[0] * c.Friction[0] * tran
	r0 := max(1e-15, (1-imp)*dA/imp)
	mu0 := c.Friction[0] * math.Sqrt(1/impratio)
	rpy = max(1e-15, 2*mu0*mu0*r0)
	return ka, br, rpy, 1 / rpy
}

// edgeRow fills the bookkeeping of pyramid edge row i of contact ci, its
// Jacobian row already in efcJd (nonzero only in cols): pyr is the
// pyramid's row count on its first row, else 0.
func (d *Data) edgeRow(nv, i, ci, pyr int, dist, rpy, dpy, aref float64, cols []int) {
	d.spanCols(i, d.efcJd[i*nv:i*nv+nv], cols)
	d.EfcType[i], d.EfcJnt[i], d.efcDof[i], d.efcN[i] = RowContactPyramidal, ci, 0, 0
	d.efcPyr[i] = uint8(pyr)
	d.efcJac[i], d.EfcPos[i], d.efcFloss[i] = [3]float64{}, dist, 0
	d.efcR[i], d.efcD[i] = rpy, dpy
	d.EfcAref[i] = aref
}

// pyramid3Rows adds the four edge rows J_n ± μ₁·J_t1, J_n ± μ₂·J_t2 of
// condim-3 contact ci on the pyramidal cone (makeContactRows's general
// path, fused): each column's point-Jacobian difference is projected on
// the frame's three axes and the four edges' entries and J·q̇ sums are
// formed at once, the same operations in the same order, without the
// frame rows in between. off1, off2: the contact point from each body's
// subtree COM; f0, f1, f2: the contact frame's axes.
func (d *Data) pyramid3Rows(m *Model, ci int, cols []int, marks []uint8, off1, off2, f0, f1, f2 vec3, impratio float64) {
	nv := m.NV
	c := &d.Contacts[ci]
	i := d.NEfc
	r0 := d.efcJd[i*nv : i*nv+nv]
	r1 := d.efcJd[(i+1)*nv : (i+1)*nv+nv]
	r2 := d.efcJd[(i+2)*nv : (i+2)*nv+nv]
	r3 := d.efcJd[(i+3)*nv : (i+3)*nv+nv]
	clear(d.efcJd[i*nv : (i+4)*nv]) // the four rows, one call
	mu1, mu2 := c.Friction[0], c.Friction[1]
	s1P, s1M, s2P, s2M := 1*mu1, -1*mu1, 1*mu2, -1*mu2
	var v0, v1, v2, v3 float64
	qv := d.Qvel[:nv]
	o1x, o1y, o1z := off1[0], off1[1], off1[2]
	o2x, o2y, o2z := off2[0], off2[1], off2[2]
	marks = marks[:len(cols)]
	empty := true
	for j, k := range cols {
		cd := &d.Cdof[k]
		wx, wy, wz, vx, vy, vz := cd[0], cd[1], cd[2], cd[3], cd[4], cd[5]
		var px, py, pz, rx, ry, rz float64
		switch marks[j] {
		case 1:
			px, py, pz = 0-(vx+(wy*o1z-wz*o1y)), 0-(vy+(wz*o1x-wx*o1z)), 0-(vz+(wx*o1y-wy*o1x))
			rx, ry, rz = 0-wx, 0-wy, 0-wz
		case 2:
			px, py, pz = vx+(wy*o2z-wz*o2y), vy+(wz*o2x-wx*o2z), vz+(wx*o2y-wy*o2x)
			rx, ry, rz = wx, wy, wz
		default:
			px = (vx + (wy*o2z - wz*o2y)) - (vx + (wy*o1z - wz*o1y))
			py = (vy + (wz*o2x - wx*o2z)) - (vy + (wz*o1x - wx*o1z))
			pz = (vz + (wx*o2y - wy*o2x)) - (vz + (wx*o1y - wy*o1x))
			rx, ry, rz = wx-wx, wy-wy, wz-wz
		}
		var n, t1, t2 float64 // exact zeros where the column moves neither body
		if px != 0 || py != 0 || pz != 0 || rx != 0 || ry != 0 || rz != 0 {
			n = f0[0]*px + f0[1]*py + f0[2]*pz
			t1 = f1[0]*px + f1[1]*py + f1[2]*pz
			t2 = f2[0]*px + f2[1]*py + f2[2]*pz
			empty = false
		}
		r0[k], r1[k] = n+s1P*t1, n+s1M*t1
		r2[k], r3[k] = n+s2P*t2, n+s2M*t2
	}
	// J·q̇ of the four rows in a second pass over the columns (the same
	// sums in the same order): in the pass above the four sums and q̇ do
	// not fit the registers beside the frame and offsets, and the spilled
	// sums chained each column through memory
	for _, k := range cols {
		w := qv[k]
		v0 += r0[k] * w
		v1 += r1[k] * w
		v2 += r2[k] * w
		v3 += r3[k] * w
	}
	if empty {
		clear(d.efcJd[i*nv : (i+4)*nv]) // no dof moves either body (mjContact.exclude = 3)
		return
	}
	b1, b2 := m.Geoms[c.Geom1].Body, m.Geoms[c.Geom2].Body
	tran := m.bodyInvWeight0[b1][0] + m.bodyInvWeight0[b2][0]
	ka, br, rpy, dpy := d.pyramidParams(m, c, tran, impratio)
	d.NEfc += 4
	d.edgeRow(nv, i, ci, 4, c.Dist, rpy, dpy, -br*v0-ka, cols)
	d.edgeRow(nv, i+1, ci, 0, c.Dist, rpy, dpy, -br*v1-ka, cols)
	d.edgeRow(nv, i+2, ci, 0, c.Dist, rpy, dpy, -br*v2-ka, cols)
	d.edgeRow(nv, i+3, ci, 0, c.Dist, rpy, dpy, -br*v3-ka, cols)
	d.setPyrSpan(i, 4)
}

// kbMemo is the last contact's refStiffDamp inputs and result.
type kbMemo struct {
	ok       bool
	ref      [2]uint64 // solref's bits
	dmax, dt uint64    // dmax's and the timestep's bits
	dis      int       // Opt.Disable & DisableRefSafe
	k, b     float64
}

// colSlots is how many body pairs' columns contactCols keeps.
const colSlots = 8

// contactCols returns the dofs moving body b1 or b2, ascending, and for
// the j-th of them marks[j]: bit 1 where it moves b1, bit 2 where it
// moves b2. The model's tree fixes them, so the last colSlots pairs'
// are kept (a scene's contacts and welds come from a few body pairs) and
// found again without walking the chains; the slices stay valid until
// colSlots other pairs have been asked.
func (d *Data) contactCols(m *Model, b1, b2 int) (cols []int, marks []uint8) {
	nv := len(d.conMark)
	for s := range colSlots {
		if d.conLen[s] > 0 && d.conKey[s] == [2]int{b1, b2} {
			n := d.conLen[s]
			return d.conCols[s*nv : s*nv+n], d.conColMark[s*nv : s*nv+n]
		}
	}
	for i, b := range [2]int{b1, b2} {
		if b == 0 {
			continue
		}
		for k := m.lastDof(b); k >= 0; k = m.dofParent[k] {
			d.conMark[k] |= 1 << i
		}
	}
	s := d.conNext
	d.conNext = (s + 1) % colSlots
	cols, marks = d.conCols[s*nv:s*nv], d.conColMark[s*nv:s*nv+nv]
	for k, on := range d.conMark {
		if on != 0 {
			marks[len(cols)] = on
			cols = append(cols, k)
			d.conMark[k] = 0
		}
	}
	// an empty set (both bodies static) is not kept: conLen 0 is a free slot
	d.conKey[s], d.conLen[s] = [2]int{b1, b2}, len(cols)
	return cols, marks[:len(cols)]
}

// spanCols sets row i's nonzero span (setSpans's efcSpan) from its
// columns cols, ascending, outside which the row is zero.
func (d *Data) spanCols(i int, row []float64, cols []int) {
	lo, hi := len(row), len(row)
	for _, q := range cols {
		if row[q] != 0 {
			lo = q
			break
		}
	}
	for j := len(cols) - 1; j >= 0; j-- {
		if row[cols[j]] != 0 {
			hi = cols[j] + 1
			break
		}
	}
	d.efcSpan[2*i], d.efcSpan[2*i+1] = lo, hi
}

// dotCols is row·qvel over the columns cols (row is zero elsewhere).
func dotCols(row, qvel []float64, cols []int) float64 {
	s := 0.0
	for _, k := range cols {
		s += row[k] * qvel[k]
	}
	return s
}

func dotQvel(row, qvel []float64) float64 {
	s := 0.0
	for k, v := range row {
		s += v * qvel[k]
	}
	return s
}

// ellipticRows adds contact ci's block of condim rows on the elliptic
// cone (cone.go): frame(k) is the Jacobian of the contact frame's k-th
// direction on the columns cols (zero elsewhere), tran and rot the
// bodies' invweight0 sums.
func (d *Data) ellipticRows(m *Model, ci int, frame func(int) []float64, cols []int, tran, rot, impratio float64) {
	c := &d.Contacts[ci]
	nv, dim, first := m.NV, c.Condim, d.NEfc
	// every row's impedance is the normal's (MuJoCo's getposdim)
	imp, dmax := impedance(&c.SolImp, c.Dist, c.IncludeMargin)
	for k := range dim {
		i := d.NEfc
		row := d.efcJd[i*nv : i*nv+nv]
		clear(row)
		fk := frame(k)
		for _, q := range cols {
			row[q] = fk[q]
		}
		d.spanCols(i, row, cols)
		invw := tran
		if k >= 3 {
			invw = rot
		}
		dist, margin := 0.0, 0.0 // friction rows: aref = −B·J·q̇ only
		if k == 0 {
			dist, margin = c.Dist, c.IncludeMargin
		}
		d.addRowImp(m, RowContactElliptic, ci, 0, 0, [3]float64{}, dist, margin, 0, dotQvel(row, d.Qvel), invw, &c.SolRef, imp, dmax)
	}
	// R₁ = R₀/impratio; R_j·μ_j² = R₁·μ₁² for the other directions
	R, fr := d.efcR[first:first+dim], &c.Friction
	R[1] = R[0] / max(1e-15, impratio)
	for j := 1; j < dim-1; j++ {
		R[j+1] = R[1] * fr[0] * fr[0] / (fr[j] * fr[j])
	}
	for j := range dim {
		d.efcD[first+j] = 1 / R[j]
	}
	d.efcDim[first], d.efcMu[first] = dim, fr[0]*math.Sqrt(R[1]/R[0])
}
