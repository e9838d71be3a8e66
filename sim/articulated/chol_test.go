package articulated

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestCholUpdateMatchesRefactor checks the rank-1 update and downdate of a
// dense Cholesky factor against the factor of the updated matrix itself:
// L'L'ᵀ = LLᵀ ± xxᵀ with L' lower triangular and positive on the diagonal
// is unique, so both must agree to rounding.
func TestCholUpdateMatchesRefactor(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, nv := range []int{1, 2, 5, 13} {
		for trial := range 20 {
			// H = AᵀA + I (positive definite), x with some zeros
			A := make([]float64, nv*nv)
			for i := range A {
				A[i] = rng.NormFloat64()
			}
			H := make([]float64, nv*nv)
			for r := range nv {
				for c := range nv {
					s := 0.0
					for k := range nv {
						s += A[k*nv+r] * A[k*nv+c]
					}
					if r == c {
						s++
					}
					H[r*nv+c] = s
				}
			}
			x := make([]float64, nv)
			for i := range x {
				if rng.IntN(3) > 0 {
					x[i] = rng.NormFloat64()
				}
			}
			plus := make([]float64, nv*nv) // H + xxᵀ
			for r := range nv {
				for c := range nv {
					plus[r*nv+c] = H[r*nv+c] + x[r]*x[c]
				}
			}
			L := append([]float64(nil), H...)
			cholFactor(L, nv)
			want := append([]float64(nil), plus...)
			cholFactor(want, nv)
			// update: L → factor of H + xxᵀ
			if !cholUpdate(L, append([]float64(nil), x...), nv, true) {
				t.Fatalf("nv %d trial %d: update reported rank loss", nv, trial)
			}
			for i := range L {
				if d := math.Abs(L[i] - want[i]); d > 1e-10*(1+math.Abs(want[i])) {
					t.Fatalf("nv %d trial %d: updated factor[%d] = %g, factor of H + xxᵀ %g", nv, trial, i, L[i], want[i])
				}
			}
			// downdate: back to the factor of H
			if !cholUpdate(L, append([]float64(nil), x...), nv, false) {
				t.Fatalf("nv %d trial %d: downdate reported rank loss", nv, trial)
			}
			back := append([]float64(nil), H...)
			cholFactor(back, nv)
			for i := range L {
				if d := math.Abs(L[i] - back[i]); d > 1e-9*(1+math.Abs(back[i])) {
					t.Fatalf("nv %d trial %d: downdated factor[%d] = %g, factor of H %g", nv, trial, i, L[i], back[i])
				}
			}
		}
	}
}

// TestCholUpdateReportsRankLoss downdates the identity by a unit vector
// (I − e₀e₀ᵀ is singular): the update must say so, as MuJoCo's
// mju_cholUpdate returns rank < n, so the solver rebuilds H.
func TestCholUpdateReportsRankLoss(t *testing.T) {
	const nv = 3
	L := []float64{1, 0, 0, 0, 1, 0, 0, 0, 1}
	if cholUpdate(L, []float64{1, 0, 0}, nv, false) {
		t.Fatal("downdating I by e₀e₀ᵀ (singular) reported full rank")
	}
}
