package articulated

import (
	"math"
	"testing"
)

// qcqp meets the KKT conditions of min ½xᵀAx + xᵀb s.t. Σ (x_j/μ_j)² ≤ r²:
// inside, Ax + b = 0; on the ellipsoid, Ax + b = −λ·diag(1/μ²)·x with
// λ ≥ 0.
func TestQCQPMeetsKKT(t *testing.T) {
	for _, tc := range []struct {
		n    int
		r    float64
		b    [5]float64
		want bool
	}{
		{2, 10, [5]float64{0.3, -0.2}, false},
		{2, 0.1, [5]float64{3, -2}, true},
		{3, 0.5, [5]float64{1, 2, -1}, true},
		{5, 0.2, [5]float64{1, -1, 0.5, 0.1, -0.3}, true},
	} {
		n := tc.n
		var A [25]float64
		for i := range n {
			for j := range n {
				A[i*n+j] = 0.2 / float64(1+i+j)
			}
			A[i*n+i] += 1 + float64(i)
		}
		mu := [5]float64{1, 0.5, 0.02, 0.01, 0.01}
		b := tc.b
		var x [5]float64
		active := qcqp(&x, &A, &b, &mu, tc.r, n)
		if active != tc.want {
			t.Fatalf("n=%d r=%g: active %v, want %v", n, tc.r, active, tc.want)
		}
		var g [5]float64
		s := 0.0
		for i := range n {
			g[i] = b[i]
			for j := range n {
				g[i] += A[i*n+j] * x[j]
			}
			s += x[i] * x[i] / (mu[i] * mu[i])
		}
		if !active {
			for i := range n {
				if math.Abs(g[i]) > 1e-12 {
					t.Errorf("n=%d inside: gradient %v, want 0", n, g[:n])
				}
			}
			continue
		}
		if math.Abs(math.Sqrt(s)-tc.r) > 1e-6*tc.r {
			t.Errorf("n=%d: ‖x/μ‖ = %g, want r = %g", n, math.Sqrt(s), tc.r)
		}
		// λ from the first component, then every component agrees
		lam := -g[0] * mu[0] * mu[0] / x[0]
		if !(lam > 0) {
			t.Errorf("n=%d: multiplier %g, want > 0", n, lam)
		}
		for i := range n {
			if want := -lam * x[i] / (mu[i] * mu[i]); math.Abs(g[i]-want) > 1e-6*(1+math.Abs(want)) {
				t.Errorf("n=%d: gradient[%d] %g, want −λx/μ² = %g", n, i, g[i], want)
			}
		}
	}
}
