package articulated

import "math"

// implicitAcc is MuJoCo's implicit integrator (mjINT_IMPLICIT): qacc
// solves (M − h·∂f/∂qvel)·qacc = qfrc_smooth + qfrc_constraint, where
// ∂f/∂qvel holds what implicitfast keeps (dof and tendon dampers, joint
// and tendon actuators' velocity gains) and also −∂qfrc_bias/∂qvel, the
// Coriolis and centrifugal derivative (MuJoCo's mjd_rne_vel), which makes
// the matrix unsymmetric: it is solved by LU with partial pivoting.
//
// qfrc_bias with zero qacc is a quadratic form in qvel plus the gravity
// term, so its central difference (f(v+e_k) − f(v−e_k))/2 is its exact
// derivative along dof k, up to rounding: 2·nv velocity passes (comVel
// and rne) per step, O(nv·nbody) each.
func implicitAcc(m *Model, d *Data, h float64) []float64 {
	nv := m.NV
	L := loadImplicitFast(m, d, h)
	if len(d.implA) != nv*nv {
		d.implA, d.implB = make([]float64, nv*nv), make([]float64, 2*nv)
		d.implP = make([]int, nv)
	}
	A := d.implA
	clear(A)
	for i := range nv {
		A[i*nv+i] = L[i]
		for ii, j := range m.ancestors[i] {
			v := L[nv+m.ancAdr[i]+ii]
			A[i*nv+j], A[j*nv+i] = v, v
		}
	}
	// A += h·∂qfrc_bias/∂qvel, column k by central difference
	plus, minus := d.implB[:nv], d.implB[nv:]
	for k := range nv {
		v := d.Qvel[k]
		d.Qvel[k] = v + 1
		comVel(m, d)
		rne(m, d)
		copy(plus, d.QfrcBias)
		d.Qvel[k] = v - 1
		comVel(m, d)
		rne(m, d)
		copy(minus, d.QfrcBias)
		d.Qvel[k] = v
		for i := range nv {
			A[i*nv+k] += h * 0.5 * (plus[i] - minus[i])
		}
	}
	// restore the velocity quantities of this state
	comVel(m, d)
	rne(m, d)
	x := d.tmp
	for k := range nv {
		x[k] = d.QfrcSmooth[k] + d.QfrcConstraint[k]
	}
	luSolve(A, d.implP, x, nv)
	return x
}

// luSolve factors the dense n×n A in place (LU with partial pivoting,
// pivots in piv) and solves A·x = x in place. A singular pivot (M − h·D is
// positive definite for any model MuJoCo would step) leaves x unchanged
// in that row rather than dividing by zero.
func luSolve(A []float64, piv []int, x []float64, n int) {
	for c := range n {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(A[r*n+c]) > math.Abs(A[p*n+c]) {
				p = r
			}
		}
		piv[c] = p
		if p != c {
			for t := range n {
				A[c*n+t], A[p*n+t] = A[p*n+t], A[c*n+t]
			}
		}
		dc := A[c*n+c]
		if dc == 0 {
			continue
		}
		for r := c + 1; r < n; r++ {
			f := A[r*n+c] / dc
			if f == 0 {
				continue
			}
			A[r*n+c] = f
			for t := c + 1; t < n; t++ {
				A[r*n+t] -= f * A[c*n+t]
			}
		}
	}
	// the row interchanges (applied to whole rows, L's part included)
	// first, then the unit-lower solve
	for c := range n {
		if p := piv[c]; p != c {
			x[c], x[p] = x[p], x[c]
		}
	}
	for c := range n {
		for r := c + 1; r < n; r++ {
			x[r] -= A[r*n+c] * x[c]
		}
	}
	for c := n - 1; c >= 0; c-- {
		s := x[c]
		for t := c + 1; t < n; t++ {
			s -= A[c*n+t] * x[t]
		}
		if A[c*n+c] != 0 {
			x[c] = s / A[c*n+c]
		}
	}
}
