package control

import (
	"math"
	"testing"
)

// RandomPolicy's actions are uniform on [−1, 1): in range, mean 0 and
// variance 1/3 within 4 standard errors, and a function of the seed.
func TestRandomPolicyIsUniformAndSeeded(t *testing.T) {
	const n, dim = 20000, 4
	p, q := RandomPolicy(7), RandomPolicy(7)
	a, b := make([]float64, dim), make([]float64, dim)
	var sum, sum2 float64
	for range n {
		p.Act(nil, a)
		q.Act(nil, b)
		for i, v := range a {
			if v < -1 || v >= 1 {
				t.Fatalf("action %g outside [−1, 1)", v)
			}
			if v != b[i] {
				t.Fatal("two policies of seed 7 acted differently")
			}
			sum, sum2 = sum+v, sum2+v*v
		}
	}
	m := sum / (n * dim)
	v := sum2/(n*dim) - m*m
	se := math.Sqrt(1.0 / 3 / (n * dim))
	if math.Abs(m) > 4*se || math.Abs(v-1.0/3) > 4*math.Sqrt(4.0/45/(n*dim)) {
		t.Errorf("mean %.4f, variance %.4f; want 0 and 1/3 (uniform on [−1, 1))", m, v)
	}
	RandomPolicy(8).Act(nil, b)
	RandomPolicy(7).Act(nil, a)
	if a[0] == b[0] {
		t.Error("seeds 7 and 8 gave the same first action")
	}
}
