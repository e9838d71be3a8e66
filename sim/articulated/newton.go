package articulated

// primalCost returns MuJoCo's primal cost at acceleration x:
// ½(x − a₀)ᵀM(x − a₀) plus each constraint's s(J·x − aref): ½·D·jar² for
// equalities and for limits and contacts in compression, frictionloss's
// Huber cost (quadratic within |jar| ≤ R·f, linear beyond), an elliptic
// block's zone cost (cone.go). jar holds J_i·x − aref_i of every row
// (rowJars); tmp (NV) is scratch. At x = qacc_smooth the quadratic term is
// exactly +0 and smooth skips it.
func (d *Data) primalCost(m *Model, x, jar, tmp []float64, smooth bool) float64 {
	nv := m.NV
	c := 0.0
	if smooth {
		nv = 0
	}
	for r := range nv {
		tmp[r] = x[r] - d.QaccSmooth[r]
	}
	for r := range nv {
		s := m.mRowDot(d.QM, r, tmp)
		c += 0.5 * tmp[r] * s
	}
	return d.rowsCost(c, jar)
}

// mulM writes M·x into out: each row's sum as mRowDot's, two rows with
// the same run of columns at a time (two independent chains).
func (m *Model) mulM(QM, x, out []float64) {
	nv := m.NV
	cols := m.mCols[:nv]
	r := 0
	for r < nv {
		c := cols[r]
		lo, hi := c[0], c[len(c)-1]+1
		if hi-lo == len(c) && r+1 < nv {
			if c2 := cols[r+1]; c2[0] == lo && c2[len(c2)-1]+1 == hi && len(c2) == len(c) {
				a := QM[r*nv+lo : r*nv+hi]
				b := QM[(r+1)*nv+lo : (r+1)*nv+hi]
				xs := x[lo:hi]
				xs, b = xs[:len(a)], b[:len(a)]
				s, t := 0.0, 0.0
				for k, v := range a {
					w := xs[k]
					s += v * w
					t += b[k] * w
				}
				out[r], out[r+1] = s, t
				r += 2
				continue
			}
		}
		out[r] = m.mRowDot(QM, r, x)
		r++
	}
}

// mRowDot returns Σ M[r][c]·x[c] over row r's nonzero columns (mCols),
// in ascending order; a row whose columns are one run is summed without
// the index list (the same terms in the same order).
func (m *Model) mRowDot(QM []float64, r int, x []float64) float64 {
	nv := m.NV
	cols := m.mCols[r]
	s := 0.0
	if lo, hi := cols[0], cols[len(cols)-1]+1; hi-lo == len(cols) {
		row := QM[r*nv+lo : r*nv+hi]
		xs := x[lo:hi]
		xs = xs[:len(row)]
		for k, v := range row {
			s += v * xs[k]
		}
		return s
	}
	row := QM[r*nv : r*nv+nv]
	for _, c := range cols {
		s += row[c] * x[c]
	}
	return s
}

// rowsCost returns c plus the constraints' part of the primal cost at the
// rows' jar.
func (d *Data) rowsCost(c float64, jar []float64) float64 {
	typ, D := d.EfcType[:d.NEfc], d.efcD[:d.NEfc]
	for i := 0; i < len(typ); i++ {
		if t := typ[i]; t == RowContactPyramidal || t == RowLimit || t == RowContactFrictionless {
			// the common rows first: a cost only in compression
			if j := jar[i]; j < 0 {
				c += 0.5 * D[i] * j * j
			}
			continue
		}
		if d.EfcType[i] == RowContactElliptic {
			var jb, f [6]float64
			dim, mu := d.efcDim[i], d.efcMu[i]
			copy(jb[:], jar[i:i+dim])
			switch d.coneForce(i, &jb, &f) {
			case coneBottom:
				for j := range dim {
					c += 0.5 * d.efcD[i+j] * jb[j] * jb[j]
				}
			case coneMiddle:
				var U [6]float64
				N, T := d.coneUT(i, &jb, &U)
				dm := d.efcD[i] / (mu * mu * (1 + mu*mu))
				c += 0.5 * dm * (N - mu*T) * (N - mu*T)
			}
			i += dim - 1
			continue
		}
		jar := jar[i]
		switch t := d.EfcType[i]; {
		case t == RowEquality:
			c += 0.5 * d.efcD[i] * jar * jar
		case t == RowFriction || t == RowFrictionTendon:
			f := d.efcFloss[i]
			r := d.efcR[i] * f
			switch {
			case jar >= r:
				c += f*jar - 0.5*r*f
			case jar <= -r:
				c += -f*jar - 0.5*r*f
			default:
				c += 0.5 * d.efcD[i] * jar * jar
			}
		case jar < 0:
			c += 0.5 * d.efcD[i] * jar * jar
		}
	}
	return c
}

// rowJars writes J_i·x − aref_i of every row into jar; a condim-3 or
// condim-4 pyramid's four or six rows in one pass over their columns (each
// row's sum in the same order: the columns outside a row's span add exact
// zeros).
func (d *Data) rowJars(x, jar []float64) {
	for i := 0; i < d.NEfc; i++ {
		np := int(d.efcPyr[i])
		if np == 0 {
			jar[i] = d.rowJar(i, x)
			continue
		}
		d.pyrJars(i, np, x, jar)
		i += np - 1
	}
}

// pyrJars is rowJars for the np = 4 or 6 rows of one pyramid from row i.
func (d *Data) pyrJars(i, np int, x, jar []float64) {
	nv := len(x)
	lo, hi := d.pyrSpan(i, np)
	xs := x[lo:hi]
	J0 := d.efcJd[i*nv+lo : i*nv+hi]
	J1 := d.efcJd[(i+1)*nv+lo : (i+1)*nv+hi]
	J2 := d.efcJd[(i+2)*nv+lo : (i+2)*nv+hi]
	J3 := d.efcJd[(i+3)*nv+lo : (i+3)*nv+hi]
	J1, J2, J3 = J1[:len(xs)], J2[:len(xs)], J3[:len(xs)]
	J0 = J0[:len(xs)]
	if np == 6 {
		J4 := d.efcJd[(i+4)*nv+lo : (i+4)*nv+hi]
		J5 := d.efcJd[(i+5)*nv+lo : (i+5)*nv+hi]
		J4, J5 = J4[:len(xs)], J5[:len(xs)]
		s0, s1, s2, s3, s4, s5 := 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
		for k, v := range xs {
			s0 += J0[k] * v
			s1 += J1[k] * v
			s2 += J2[k] * v
			s3 += J3[k] * v
			s4 += J4[k] * v
			s5 += J5[k] * v
		}
		a := d.EfcAref[i : i+6]
		jar[i], jar[i+1], jar[i+2] = s0-a[0], s1-a[1], s2-a[2]
		jar[i+3], jar[i+4], jar[i+5] = s3-a[3], s4-a[4], s5-a[5]
		return
	}
	s0, s1, s2, s3 := 0.0, 0.0, 0.0, 0.0
	for k, v := range xs {
		s0 += J0[k] * v
		s1 += J1[k] * v
		s2 += J2[k] * v
		s3 += J3[k] * v
	}
	a := d.EfcAref[i : i+4]
	jar[i], jar[i+1], jar[i+2], jar[i+3] = s0-a[0], s1-a[1], s2-a[2], s3-a[3]
}

// rowJars2 is rowJars(x, jx) and rowJars(y, jy) in one pass over the
// rows: each pyramid's Jacobian entries are read once for both vectors,
// every sum accumulated in rowJars's order (the same values, bit for bit).
func (d *Data) rowJars2(x, jx, y, jy []float64) {
	for i := 0; i < d.NEfc; i++ {
		switch d.efcPyr[i] {
		case 0:
			jx[i], jy[i] = d.rowJar(i, x), d.rowJar(i, y)
			continue
		case 6:
			d.pyrJars(i, 6, x, jx)
			d.pyrJars(i, 6, y, jy)
			i += 5
			continue
		}
		nv := len(x)
		lo, hi := d.pyrSpan(i, 4)
		xs := x[lo:hi]
		ys := y[lo:hi]
		ys = ys[:len(xs)]
		J0 := d.efcJd[i*nv+lo : i*nv+hi]
		J1 := d.efcJd[(i+1)*nv+lo : (i+1)*nv+hi]
		J2 := d.efcJd[(i+2)*nv+lo : (i+2)*nv+hi]
		J3 := d.efcJd[(i+3)*nv+lo : (i+3)*nv+hi]
		J0, J1, J2, J3 = J0[:len(xs)], J1[:len(xs)], J2[:len(xs)], J3[:len(xs)]
		s0, s1, s2, s3 := 0.0, 0.0, 0.0, 0.0
		t0, t1, t2, t3 := 0.0, 0.0, 0.0, 0.0
		for k, v := range xs {
			w := ys[k]
			j0, j1, j2, j3 := J0[k], J1[k], J2[k], J3[k]
			s0 += j0 * v
			s1 += j1 * v
			s2 += j2 * v
			s3 += j3 * v
			t0 += j0 * w
			t1 += j1 * w
			t2 += j2 * w
			t3 += j3 * w
		}
		a := d.EfcAref[i : i+4]
		jx[i], jx[i+1], jx[i+2], jx[i+3] = s0-a[0], s1-a[1], s2-a[2], s3-a[3]
		jy[i], jy[i+1], jy[i+2], jy[i+3] = t0-a[0], t1-a[1], t2-a[2], t3-a[3]
		i += 3
	}
}

// pyrSpan is the union of the nonzero spans of pyramid rows i..i+np−1.
func (d *Data) pyrSpan(i, np int) (lo, hi int) {
	return d.efcPyrSpan[2*i], d.efcPyrSpan[2*i+1] // set with the rows (setPyrSpan)
}

// setPyrSpan stores the union of the nonzero spans of pyramid rows
// i..i+np−1 (pyrSpan's) once its rows are made.
func (d *Data) setPyrSpan(i, np int) {
	sp := d.efcSpan[2*i : 2*i+2*np]
	lo, hi := sp[0], sp[1]
	for k := 2; k < len(sp); k += 2 {
		lo, hi = min(lo, sp[k]), max(hi, sp[k+1])
	}
	if lo > hi {
		lo = hi // all rows zero
	}
	d.efcPyrSpan[2*i], d.efcPyrSpan[2*i+1] = lo, hi
}

// addJT4 adds Σ J_kᵀ·EfcForce_k of pyramid rows i..i+3 to out, per column
// in row order (as four addJT calls).
func (d *Data) addJT4(i int, out []float64) {
	nv := len(out)
	lo, hi := d.pyrSpan(i, 4)
	o := out[lo:hi]
	J0 := d.efcJd[i*nv+lo : i*nv+hi]
	J1 := d.efcJd[(i+1)*nv+lo : (i+1)*nv+hi]
	J2 := d.efcJd[(i+2)*nv+lo : (i+2)*nv+hi]
	J3 := d.efcJd[(i+3)*nv+lo : (i+3)*nv+hi]
	J0, J1, J2, J3 = J0[:len(o)], J1[:len(o)], J2[:len(o)], J3[:len(o)]
	f := d.EfcForce[i : i+4]
	f0, f1, f2, f3 := f[0], f[1], f[2], f[3]
	for k := range o {
		v := o[k]
		v += J0[k] * f0
		v += J1[k] * f1
		v += J2[k] * f2
		v += J3[k] * f3
		o[k] = v
	}
}

// addJT6 adds Σ J_kᵀ·EfcForce_k of condim-4 pyramid rows i..i+5 to out,
// per column in row order (as six addJT calls).
func (d *Data) addJT6(i int, out []float64) {
	nv := len(out)
	lo, hi := d.pyrSpan(i, 6)
	o := out[lo:hi]
	J0 := d.efcJd[i*nv+lo : i*nv+hi]
	J1 := d.efcJd[(i+1)*nv+lo : (i+1)*nv+hi]
	J2 := d.efcJd[(i+2)*nv+lo : (i+2)*nv+hi]
	J3 := d.efcJd[(i+3)*nv+lo : (i+3)*nv+hi]
	J4 := d.efcJd[(i+4)*nv+lo : (i+4)*nv+hi]
	J5 := d.efcJd[(i+5)*nv+lo : (i+5)*nv+hi]
	J0, J1, J2, J3 = J0[:len(o)], J1[:len(o)], J2[:len(o)], J3[:len(o)]
	J4, J5 = J4[:len(o)], J5[:len(o)]
	f := d.EfcForce[i : i+6]
	f0, f1, f2, f3, f4, f5 := f[0], f[1], f[2], f[3], f[4], f[5]
	for k := range o {
		v := o[k]
		v += J0[k] * f0
		v += J1[k] * f1
		v += J2[k] * f2
		v += J3[k] * f3
		v += J4[k] * f4
		v += J5[k] * f5
		o[k] = v
	}
}
