package articulated

import "math"

// Elliptic friction cones (MuJoCo's mjCONE_ELLIPTIC, Computation chapter,
// "Elliptic cones"). A contact of condim d > 1 is one block of d rows:
// the normal J_n, then the friction directions (two tangents, torsion,
// two rolling). Only the normal row carries the contact's dist (the
// friction rows' aref is −B·J·q̇ only) but every row has the impedance of
// the normal's dist. The regularizers: R₀ from the impedance and the
// bodies' translational invweight0, R₁ = R₀/impratio and
// R_j = R₁·μ₁²/μ_j² for the other friction directions, so that
// R_j·μ_j² is the same for all of them; the regularized cone's
// coefficient is μ = μ₁·√(R₁/R₀).
//
// In the primal (Newton) the block's cost is a function of
// jar = J·a − aref through U = (μ·jar₀, μ₁·jar₁, …, μ_{d−1}·jar_{d−1}),
// N = U₀ and T = ‖U₁…‖ in three zones:
//
//   - N ≥ μT (top: inside the cone): no force, no cost;
//   - μN + T ≤ 0 (bottom: inside the dual cone's negative): every row is
//     quadratic, ½·Σ D_j·jar_j², f = −D·jar;
//   - otherwise (the cone's surface): ½·D_m·(N − μT)² with
//     D_m = D₀/(μ²(1+μ²)), whose gradient and Hessian in jar are those
//     of U's chain rule (diag(μ, μ₁, …) on both sides).

// RowContactElliptic is the row type of an elliptic contact's block
// (mjCNSTR_CONTACT_ELLIPTIC).
const RowContactElliptic = 7

// The zones of an elliptic contact (MuJoCo's mjCNSTRSTATE_*).
const (
	coneTop    = 0 // satisfied
	coneBottom = 1 // quadratic
	coneMiddle = 2 // on the cone's surface
)

// coneUT maps jar to U and returns N, T.
func (d *Data) coneUT(i int, jar *[6]float64, U *[6]float64) (N, T float64) {
	dim, mu := d.efcDim[i], d.efcMu[i]
	fr := &d.Contacts[d.EfcJnt[i]].Friction
	U[0] = jar[0] * mu
	t2 := 0.0
	for j := 1; j < dim; j++ {
		U[j] = jar[j] * fr[j-1]
		t2 += U[j] * U[j]
	}
	return U[0], math.Sqrt(t2)
}

// coneZone returns the zone of N, T for cone coefficient mu.
func coneZone(N, T, mu float64) int {
	switch {
	case N >= mu*T || (T <= 0 && N >= 0):
		return coneTop
	case mu*N+T <= 0 || (T <= 0 && N < 0):
		return coneBottom
	}
	return coneMiddle
}

// coneForce writes the forces of the elliptic block at row i for jar
// into f and returns its zone.
func (d *Data) coneForce(i int, jar *[6]float64, f *[6]float64) int {
	dim, mu := d.efcDim[i], d.efcMu[i]
	var U [6]float64
	N, T := d.coneUT(i, jar, &U)
	z := coneZone(N, T, mu)
	switch z {
	case coneTop:
		*f = [6]float64{}
	case coneBottom:
		for j := range dim {
			f[j] = -d.efcD[i+j] * jar[j]
		}
	default:
		fr := &d.Contacts[d.EfcJnt[i]].Friction
		dm := d.efcD[i] / (mu * mu * (1 + mu*mu))
		f[0] = -dm * (N - mu*T) * mu
		for j := 1; j < dim; j++ {
			f[j] = -f[0] / T * U[j] * fr[j-1]
		}
	}
	return z
}

// coneJar reads the block's jar at x into jar.
func (d *Data) coneJar(i int, x []float64, jar *[6]float64) {
	for j := range d.efcDim[i] {
		jar[j] = d.rowJar(i+j, x)
	}
}

// addConeHessian adds the block's cost Hessian J_cᵀ·H_c·J_c at jar (in
// its middle zone) to the dense nv×nv H.
func (d *Data) addConeHessian(i int, jar *[6]float64, H []float64, nv int) {
	dim, mu := d.efcDim[i], d.efcMu[i]
	fr := &d.Contacts[d.EfcJnt[i]].Friction
	var U [6]float64
	N, T := d.coneUT(i, jar, &U)
	// Hessian in U: D_m·(a·aᵀ + (N − μT)·∂²(−μT)) with a = (1, −μ·U_t/T):
	// tangential block (μ² − μN/T)·I + μN/T³·U_t·U_tᵀ
	var Hc [36]float64
	Hc[0] = 1
	for j := 1; j < dim; j++ {
		Hc[j] = -mu / T * U[j]
		Hc[j*dim] = Hc[j]
		for k := 1; k < dim; k++ {
			Hc[j*dim+k] = mu * N / (T * T * T) * U[j] * U[k]
		}
		Hc[j*dim+j] += mu*mu - mu*N/T
	}
	// to jar: S·H_U·S with S = diag(μ, μ₁, …), times D_m
	dm := d.efcD[i] / (mu * mu * (1 + mu*mu))
	var s [6]float64
	s[0] = mu
	for j := 1; j < dim; j++ {
		s[j] = fr[j-1]
	}
	for j := range dim {
		for k := range dim {
			Hc[j*dim+k] *= dm * s[j] * s[k]
		}
	}
	// the block's rows share their nonzero columns (one contact's
	// Jacobian difference); take the union of their spans
	lo, hi := nv, 0
	for j := range dim {
		lo, hi = min(lo, d.efcSpan[2*(i+j)]), max(hi, d.efcSpan[2*(i+j)+1])
	}
	J := d.efcJd[i*nv : (i+dim)*nv]
	for r := lo; r < hi; r++ {
		// t = H_c·J_{:,r}
		var t [6]float64
		nz := false
		for a := range dim {
			if v := J[a*nv+r]; v != 0 {
				nz = true
				for b := range dim {
					t[b] += Hc[a*dim+b] * v
				}
			}
		}
		if !nz {
			continue
		}
		Hr := H[r*nv : r*nv+nv]
		for c := lo; c < hi; c++ {
			s := 0.0
			for b := range dim {
				s += t[b] * J[b*nv+c]
			}
			Hr[c] += s
		}
	}
}

// coneLine returns the derivative and curvature along the line search
// direction of the block's cost at step a, from efcJar and efcJp
// (MuJoCo's CGeval for elliptic cones).
func (d *Data) coneLine(i int, a float64) (v, h float64) {
	dim, mu := d.efcDim[i], d.efcMu[i]
	fr := &d.Contacts[d.EfcJnt[i]].Friction
	jar, jp := d.efcJar[i:i+dim], d.efcJp[i:i+dim]
	U0, V0 := jar[0]*mu, jp[0]*mu
	uu, uv, vv := 0.0, 0.0, 0.0
	for j := 1; j < dim; j++ {
		u, w := jar[j]*fr[j-1], jp[j]*fr[j-1]
		uu += u * u
		uv += u * w
		vv += w * w
	}
	N := U0 + a*V0
	t2 := uu + a*(2*uv+a*vv)
	T := 0.0
	if t2 > 0 {
		T = math.Sqrt(t2)
	}
	switch coneZone(N, T, mu) {
	case coneTop:
		return 0, 0
	case coneBottom:
		for j := range dim {
			x := jar[j] + a*jp[j]
			v += d.efcD[i+j] * x * jp[j]
			h += d.efcD[i+j] * jp[j] * jp[j]
		}
		return v, h
	}
	dm := d.efcD[i] / (mu * mu * (1 + mu*mu))
	T1 := (uv + a*vv) / T
	T2 := vv/T - (uv+a*vv)*T1/(T*T)
	nmt, d1 := N-mu*T, V0-mu*T1
	return dm * nmt * d1, dm * (d1*d1 - nmt*mu*T2)
}
