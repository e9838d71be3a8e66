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
	j2p, j2r := d.conJac[6*nv:9*nv], d.conJac[9*nv:12*nv]
	impratio := m.ImpRatio
	if !(impratio > 0) {
		impratio = 1
	}
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
		d.jacPoint(m, b1, c.Pos, j1p, j1r)
		d.jacPoint(m, b2, c.Pos, j2p, j2r)
		// the Jacobian difference (body2 − body1) in the contact frame:
		// rows 0..2 translational, 3..5 rotational, in j1p and j1r
		// only the dofs on the two bodies' chains can be nonzero (the
		// others are zero in all four Jacobians, so in the rotated ones)
		cols := d.contactCols(m, b1, b2)
		empty := true
		for _, k := range cols {
			var dp, dr vec3
			for r := range 3 {
				dp[r] = j2p[r*nv+k] - j1p[r*nv+k]
				dr[r] = j2r[r*nv+k] - j1r[r*nv+k]
			}
			if dp == (vec3{}) && dr == (vec3{}) {
				for r := range 3 {
					j1p[r*nv+k], j1r[r*nv+k] = 0, 0
				}
				continue
			}
			for r := range 3 {
				f := vec3{c.Frame[3*r], c.Frame[3*r+1], c.Frame[3*r+2]}
				j1p[r*nv+k], j1r[r*nv+k] = dot3(f, dp), dot3(f, dr)
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
			copy(row, frame(0))
			d.addRow(m, RowContactFrictionless, ci, 0, 0, [3]float64{}, c.Dist, c.Dist, c.IncludeMargin, 0, dotCols(row, d.Qvel, cols), tran, c.SolRef, c.SolImp)
			continue
		}
		if elliptic {
			d.ellipticRows(m, ci, frame, tran, rot, impratio)
			continue
		}
		first := d.NEfc
		normal := frame(0)
		// the edges share the contact's dist, margin and so impedance
		imp, dmax := impedance(&c.SolImp, c.Dist, c.IncludeMargin)
		for k := 1; k < dim; k++ {
			mu := c.Friction[k-1] // clamped to mjMINMU in collision
			tk := frame(k)
			fr := mu
			dA := tran
			if k-1 < 2 {
				dA += fr * fr * tran
			} else {
				dA += fr * fr * rot
			}
			for _, s := range [2]float64{1, -1} {
				i := d.NEfc
				row := d.efcJd[i*nv : i*nv+nv]
				clear(row)
				for _, q := range cols {
					row[q] = normal[q] + s*mu*tk[q]
				}
				d.addRowImp(m, RowContactPyramidal, ci, 0, 0, [3]float64{}, c.Dist, c.IncludeMargin, 0, dotCols(row, d.Qvel, cols), dA, &c.SolRef, imp, dmax)
			}
		}
		// one regularizer for the pyramid, matching the elliptic cone's
		// friction impedance
		r0 := d.efcR[first]
		mu := c.Friction[0] * math.Sqrt(1/impratio)
		rpy := max(1e-15, 2*mu*mu*r0)
		for i := first; i < d.NEfc; i++ {
			d.efcR[i], d.efcD[i] = rpy, 1/rpy
		}
	}
}

// contactCols returns the dofs moving body b1 or b2, ascending.
func (d *Data) contactCols(m *Model, b1, b2 int) []int {
	for _, b := range [2]int{b1, b2} {
		if b == 0 {
			continue
		}
		for k := m.lastDof(b); k >= 0; k = m.dofParent[k] {
			d.conMark[k] = true
		}
	}
	cols := d.conCols[:0]
	for k, on := range d.conMark {
		if on {
			cols = append(cols, k)
			d.conMark[k] = false
		}
	}
	d.conCols = cols
	return cols
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
// direction, tran and rot the bodies' invweight0 sums.
func (d *Data) ellipticRows(m *Model, ci int, frame func(int) []float64, tran, rot, impratio float64) {
	c := &d.Contacts[ci]
	nv, dim, first := m.NV, c.Condim, d.NEfc
	// every row's impedance is the normal's (MuJoCo's getposdim)
	imp, dmax := impedance(&c.SolImp, c.Dist, c.IncludeMargin)
	for k := range dim {
		i := d.NEfc
		row := d.efcJd[i*nv : i*nv+nv]
		copy(row, frame(k))
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
