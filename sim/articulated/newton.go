package articulated

// primalCost returns MuJoCo's primal cost at acceleration x:
// ½(x − a₀)ᵀM(x − a₀) plus each constraint's s(J·x − aref): ½·D·jar² for
// equalities and for limits and contacts in compression, frictionloss's
// Huber cost (quadratic within |jar| ≤ R·f, linear beyond), an elliptic
// block's zone cost (cone.go). tmp (NV) is scratch.
func (d *Data) primalCost(m *Model, x, tmp []float64) float64 {
	nv := m.NV
	for r := range nv {
		tmp[r] = x[r] - d.QaccSmooth[r]
	}
	c := 0.0
	for r := range nv {
		row := d.QM[r*nv : r*nv+nv]
		s := 0.0
		for _, k := range m.mCols[r] {
			s += row[k] * tmp[k]
		}
		c += 0.5 * tmp[r] * s
	}
	for i := 0; i < d.NEfc; i++ {
		if d.EfcType[i] == RowContactElliptic {
			var jar, f [6]float64
			d.coneJar(i, x, &jar)
			dim, mu := d.efcDim[i], d.efcMu[i]
			switch d.coneForce(i, &jar, &f) {
			case coneBottom:
				for j := range dim {
					c += 0.5 * d.efcD[i+j] * jar[j] * jar[j]
				}
			case coneMiddle:
				var U [6]float64
				N, T := d.coneUT(i, &jar, &U)
				dm := d.efcD[i] / (mu * mu * (1 + mu*mu))
				c += 0.5 * dm * (N - mu*T) * (N - mu*T)
			}
			i += dim - 1
			continue
		}
		jar := d.rowJar(i, x)
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
