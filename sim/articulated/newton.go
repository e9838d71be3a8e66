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
		row := d.QM[r*nv : r*nv+nv]
		s := 0.0
		for _, k := range m.mCols[r] {
			s += row[k] * tmp[k]
		}
		c += 0.5 * tmp[r] * s
	}
	return d.rowsCost(c, jar)
}

// rowsCost returns c plus the constraints' part of the primal cost at the
// rows' jar.
func (d *Data) rowsCost(c float64, jar []float64) float64 {
	for i := 0; i < d.NEfc; i++ {
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

// rowJars writes J_i·x − aref_i of every row into jar.
func (d *Data) rowJars(x, jar []float64) {
	for i := range d.NEfc {
		jar[i] = d.rowJar(i, x)
	}
}
