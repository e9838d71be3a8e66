package tasks

import (
	"math"
	"testing"
)

func TestTolerance(t *testing.T) {
	t.Parallel()
	const eps = 1e-12
	tests := []struct {
		name              string
		x, lo, hi, margin float64
		want              float64
	}{
		{"inside", 0.03, 0, 0.05, 0.2, 1},
		{"on bound", 0.05, 0, 0.05, 0.2, 1},
		{"one margin out is 0.1", 0.25, 0, 0.05, 0.2, 0.1},
		{"half margin below", -0.1, 0, 0.05, 0.2, 1 / (2.25 + 1)},
		{"hard outside", 0.06, 0, 0.05, 0, 0},
	}
	for _, tc := range tests {
		if got := tolerance(tc.x, tc.lo, tc.hi, tc.margin); math.Abs(got-tc.want) > eps {
			t.Errorf("%s: tolerance = %.15g, want %.15g", tc.name, got, tc.want)
		}
	}
}

func TestHamacher(t *testing.T) {
	t.Parallel()
	if hamacher(0, 0) != 0 || hamacher(1, 1) != 1 || hamacher(1, 0.3) != 0.3 {
		t.Fatal("hamacher identities fail")
	}
	// ham(0.5,0.5) = 0.25/0.75
	if got := hamacher(0.5, 0.5); math.Abs(got-1.0/3) > 1e-15 {
		t.Fatalf("hamacher(0.5,0.5) = %g", got)
	}
}
