package articulated

import "math"

// Projected Gauss–Seidel on the constraint dual (MuJoCo's mjSOL_PGS,
// Computation chapter, "PGS"): with A = J·M⁻¹·Jᵀ + R and
// b = J·qacc_smooth − aref, minimize ½·fᵀA·f + fᵀb over the forces f,
// subject to: equalities free, frictionloss |f| ≤ frictionloss, limits
// and pyramidal edges f ≥ 0, an elliptic contact's block in its cone
// (f_n ≥ 0, Σ (f_j/μ_j)² ≤ f_n²). Each sweep visits the constraints in
// MuJoCo's order (equality, friction, limits, contacts), a scalar row by
// the exact minimization along it and clamping, an elliptic block by a
// ray update along its current force, then the friction forces at that
// normal force by the quadratically constrained problem; an update that
// raises the cost is undone. Sweeps stop after Option.Iterations or when
// a sweep's cost decrease, scaled by 1/(meaninertia·nv), is below
// Option.Tolerance. The start is the primal forces of the previous
// step's acceleration (MuJoCo's warmstart), or zero where that start has
// a positive dual cost or DisableWarmstart is set. Then
// qacc = qacc_smooth + M⁻¹·Jᵀ·f.

// solvePGS solves the constraints of d by PGS (see above).
func solvePGS(m *Model, d *Data) {
	n, nv := d.NEfc, m.NV
	if len(d.pgsA) < n*n {
		// more rows than any step before: room for twice as many
		d.pgsA, d.pgsW = make([]float64, 4*n*n), make([]float64, 2*n*nv)
	}
	A, W, f, b := d.pgsA[:n*n], d.pgsW[:n*nv], d.EfcForce[:n], d.efcJar[:n]
	d.setSpans(m, n, nv)
	for i := range n {
		d.rowDense(i, nv)
		w := W[i*nv : i*nv+nv]
		copy(w, d.efcRow)
		solveLD(m, d.qLD, w) // qLD holds M's factor (Forward)
	}
	for i := range n {
		d.rowDense(i, nv)
		for j := i; j < n; j++ {
			w := W[j*nv : j*nv+nv]
			s := 0.0
			for k, v := range d.efcRow {
				s += v * w[k]
			}
			A[i*n+j], A[j*n+i] = s, s
		}
		A[i*n+i] += d.efcR[i]
		b[i] = d.rowJar(i, d.QaccSmooth)
	}
	d.pgsWarmstart(m, A, b)
	order := d.pgsOrder(n)
	scale := 1 / (m.meanInertia * float64(max(1, nv)))
	iters := m.Opt.Iterations
	if iters <= 0 {
		iters = 100
	}
	d.SolverIter = 0
	for d.SolverIter < iters {
		improvement := 0.0
		for _, i := range order {
			dim := 1
			if d.EfcType[i] == RowContactElliptic {
				dim = d.efcDim[i]
			}
			var res, old [6]float64
			for j := range dim {
				s := b[i+j]
				for k, v := range A[(i+j)*n : (i+j)*n+n] {
					s += v * f[k]
				}
				res[j] = s
				old[j] = f[i+j]
			}
			var blk [36]float64
			for r := range dim {
				copy(blk[r*dim:r*dim+dim], A[(i+r)*n+i:(i+r)*n+i+dim])
			}
			if dim == 1 {
				f[i] -= res[0] / A[i*n+i]
				switch t := d.EfcType[i]; {
				case t == RowFriction || t == RowFrictionTendon:
					f[i] = max(-d.efcFloss[i], min(d.efcFloss[i], f[i]))
				case t != RowEquality:
					f[i] = max(0, f[i])
				}
			} else {
				d.pgsCone(i, dim, f[i:i+dim], &blk, &res, &old, 1/A[i*n+i])
			}
			improvement -= pgsCostChange(&blk, f[i:i+dim], &old, &res, dim)
		}
		d.SolverIter++
		if improvement*scale < m.Opt.tolerance() {
			break
		}
	}
	// qacc = qacc_smooth + M⁻¹·Jᵀf
	for i := range n {
		d.addJT(i, f[i], d.QfrcConstraint)
	}
	copy(d.Qacc, d.QfrcConstraint)
	solveLD(m, d.qLD, d.Qacc)
	for k := range nv {
		d.Qacc[k] += d.QaccSmooth[k]
	}
}

// pgsWarmstart sets EfcForce to the primal forces at the previous step's
// acceleration, or to zero where their dual cost fᵀb + ½fᵀAf is positive.
func (d *Data) pgsWarmstart(m *Model, A, b []float64) {
	n, f := d.NEfc, d.EfcForce[:d.NEfc]
	clear(f)
	if m.Opt.Disable&DisableWarmstart != 0 {
		return
	}
	for i := 0; i < n; i++ {
		if d.EfcType[i] == RowContactElliptic {
			var jar, fc [6]float64
			d.coneJar(i, d.qaccWarm, &jar)
			d.coneForce(i, &jar, &fc)
			copy(f[i:i+d.efcDim[i]], fc[:d.efcDim[i]])
			i += d.efcDim[i] - 1
			continue
		}
		f[i], _ = d.rowForce(i, d.rowJar(i, d.qaccWarm))
	}
	cost := 0.0
	for i := range n {
		s := 0.0
		for k, v := range A[i*n : i*n+n] {
			s += v * f[k]
		}
		cost += f[i] * (b[i] + 0.5*s)
	}
	if cost > 0 {
		clear(f)
	}
}

// pgsOrder returns the first rows of the constraints in MuJoCo's order:
// equalities, dof then tendon frictionloss, joint then tendon limits,
// contacts; the order within a kind is kept.
func (d *Data) pgsOrder(n int) []int {
	rank := func(t int) int {
		switch t {
		case RowLimit:
			return 3
		case RowLimitTendon:
			return 4
		case RowContactFrictionless, RowContactPyramidal, RowContactElliptic:
			return 5
		}
		return t // equality 0, friction 1, tendon friction 2
	}
	o := d.pgsIdx[:0]
	for r := 0; r <= 5; r++ {
		for i := 0; i < n; i++ {
			if rank(d.EfcType[i]) == r {
				o = append(o, i)
			}
			if d.EfcType[i] == RowContactElliptic {
				i += d.efcDim[i] - 1
			}
		}
	}
	d.pgsIdx = o
	return o
}

// pgsCone updates an elliptic block (forces f, dim rows, A-block blk,
// residual res at the old forces old; ainv = 1/A₀₀): the normal force by a
// ray update along f (or the scalar update from zero), then the friction
// forces at that normal force.
func (d *Data) pgsCone(i, dim int, f []float64, blk *[36]float64, res, old *[6]float64, ainv float64) {
	const minval = 1e-15 // mjMINVAL
	if f[0] < minval {
		f[0] = max(0, f[0]-res[0]*ainv)
		for j := 1; j < dim; j++ {
			f[j] = 0
		}
	} else {
		den, num := 0.0, 0.0
		for r := range dim {
			s := 0.0
			for c := range dim {
				s += blk[r*dim+c] * f[c]
			}
			den += f[r] * s
			num += f[r] * res[r]
		}
		if den >= minval {
			x := -num / den
			if f[0]+x*f[0] < 0 {
				x = -1 // v = f: the normal force to zero
			}
			for j := range dim {
				f[j] += x * f[j]
			}
		}
	}
	// friction at the new normal force: min ½xᵀAc·x + xᵀbc,
	// bc = res_t − Ac·old_t + A_t0·(f₀ − old₀)
	nt := dim - 1
	var ac [25]float64
	var bc [5]float64
	for r := range nt {
		bc[r] = res[r+1] + blk[(r+1)*dim]*(f[0]-old[0])
		for c := range nt {
			ac[r*nt+c] = blk[(r+1)*dim+c+1]
			bc[r] -= ac[r*nt+c] * old[c+1]
		}
	}
	if f[0] < minval {
		for j := 1; j < dim; j++ {
			f[j] = 0
		}
		return
	}
	fr := &d.Contacts[d.EfcJnt[i]].Friction
	var v [5]float64
	if qcqp(&v, &ac, &bc, fr, f[0], nt) {
		// on the cone: put v on the ellipsoid exactly
		s := 0.0
		for j := range nt {
			s += v[j] * v[j] / (fr[j] * fr[j])
		}
		s = math.Sqrt(f[0] * f[0] / max(minval, s))
		for j := range nt {
			v[j] *= s
		}
	}
	copy(f[1:dim], v[:nt])
}

// qcqp solves min ½xᵀA·x + xᵀb s.t. Σ (x_j/μ_j)² ≤ r² in n ≤ 5
// dimensions (MuJoCo's mju_QCQP): in y = x/μ the constraint is a ball;
// if the unconstrained minimum is outside it, Newton's method from λ = 0
// on ‖y(λ)‖² = r² with y(λ) = −(A' + λI)⁻¹b' (20 iterations, stopping
// at a residual or step under 1e-10). It reports whether the constraint
// is active; a non-positive-definite A gives x = 0.
func qcqp(x *[5]float64, A *[25]float64, b *[5]float64, mu *[5]float64, r float64, n int) bool {
	var as [25]float64
	var bs [5]float64
	for i := range n {
		bs[i] = b[i] * mu[i]
		for j := range n {
			as[i*n+j] = A[i*n+j] * mu[i] * mu[j]
		}
	}
	la := 0.0
	var y, py [5]float64
	for range 20 {
		// L·Lᵀ = A' + λI
		var L [25]float64
		for i := range n {
			for j := 0; j <= i; j++ {
				s := as[i*n+j]
				if i == j {
					s += la
				}
				for k := range j {
					s -= L[i*n+k] * L[j*n+k]
				}
				if i == j {
					if s < 1e-10 {
						*x = [5]float64{}
						return false
					}
					L[i*n+i] = math.Sqrt(s)
				} else {
					L[i*n+j] = s / L[j*n+j]
				}
			}
		}
		solve := func(out *[5]float64, in *[5]float64) {
			for i := range n {
				s := in[i]
				for k := range i {
					s -= L[i*n+k] * out[k]
				}
				out[i] = s / L[i*n+i]
			}
			for i := n - 1; i >= 0; i-- {
				s := out[i]
				for k := i + 1; k < n; k++ {
					s -= L[k*n+i] * out[k]
				}
				out[i] = s / L[i*n+i]
			}
		}
		solve(&y, &bs)
		val := -r * r
		for i := range n {
			y[i] = -y[i]
			val += y[i] * y[i]
		}
		if val < 1e-10 {
			break
		}
		solve(&py, &y)
		deriv := 0.0
		for i := range n {
			deriv -= 2 * y[i] * py[i]
		}
		delta := -val / deriv
		if delta < 1e-10 {
			break
		}
		la += delta
	}
	for i := range n {
		x[i] = y[i] * mu[i]
	}
	return la != 0
}

// pgsCostChange returns the dual cost change of a block's update from old
// to f (½δᵀA·δ + δᵀres) and undoes an update that raises it by more than
// 1e-10 (MuJoCo's costChange).
func pgsCostChange(blk *[36]float64, f []float64, old, res *[6]float64, dim int) float64 {
	var dl [6]float64
	for j := range dim {
		dl[j] = f[j] - old[j]
	}
	ch := 0.0
	for r := range dim {
		s := 0.0
		for c := range dim {
			s += blk[r*dim+c] * dl[c]
		}
		ch += 0.5*dl[r]*s + dl[r]*res[r]
	}
	if ch > 1e-10 {
		copy(f, old[:dim])
		return 0
	}
	return ch
}
