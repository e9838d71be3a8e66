package articulated

import (
	"math"
	"testing"
)

// luSolve solves an unsymmetric system whose first pivot is zero (so
// partial pivoting must swap rows, and later swaps move rows already
// eliminated): the residual A·x − b is at rounding level.
func TestLUSolvePivots(t *testing.T) {
	const n = 5
	A0 := []float64{
		0, 2, -1, 3, 0.5,
		4, 1, 0, -2, 1,
		1, -3, 5, 0, 2,
		-2, 0.5, 1, 6, -1,
		3, 1, -4, 1, 0.25,
	}
	b := []float64{1, -2, 3, 0.5, -1}
	A := append([]float64(nil), A0...)
	x := append([]float64(nil), b...)
	luSolve(A, make([]int, n), x, n)
	for i := range n {
		r := -b[i]
		for j := range n {
			r += A0[i*n+j] * x[j]
		}
		if math.Abs(r) > 1e-12 {
			t.Errorf("row %d: residual %.3g", i, r)
		}
	}
}
