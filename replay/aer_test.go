package replay

import (
	"math/rand/v2"
	"testing"
)

// TestAERPicksNearest: with one-dimensional observations 0..99 and the
// query 10, each batch of 8 holds the 8 candidates nearest 10, so every
// sampled observation is at least as close as the farthest of them, and
// across many batches the mean distance is far below uniform sampling's.
func TestAERPicksNearest(t *testing.T) {
	t.Parallel()
	buf, err := NewBuffer(Config{Capacity: 100, ObsDim: 1, ActDim: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		buf.Add(Transition{Obs: []float64{float64(i)}, Action: []float64{0}, NextObs: []float64{float64(i)}, Step: int32(i)})
	}
	s, err := NewAER(buf, AERConfig{Lambda0: 8, LambdaSteps: 1000})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	b := NewBatch(8, 1, 1)
	// no query yet: uniform (mean |x − 10| over 0..99 is 44.6)
	mean := func(n int) float64 {
		sum := 0.0
		for range n {
			if !s.Sample(b, rng) {
				t.Fatal("no sample")
			}
			for _, o := range b.Obs {
				d := float64(o) - 10
				sum += max(d, -d)
			}
		}
		return sum / float64(8*n)
	}
	if u := mean(200); u < 35 || u > 55 {
		t.Fatalf("without a query the mean distance is %.1f, want uniform's ≈ 44.6", u)
	}
	s.SetQuery([]float64{10})
	// λ≈8 right after the uniform draws above (200 of 1000 annealing steps: λ = 8 − 7·0.2 = 6.6):
	// the 8 nearest of ~53 uniform draws from 0..99 are within about ±8 of 10
	if near := mean(50); near > 12 {
		t.Fatalf("with the query the mean distance is %.1f, want far below uniform's 44.6", near)
	}
	if l := s.Lambda(); l >= 8 || l <= 1 {
		t.Fatalf("λ = %g mid-annealing", l)
	}
	// after the annealing λ = 1: uniform again
	for range 1000 {
		s.Sample(b, rng)
	}
	if l := s.Lambda(); l != 1 {
		t.Fatalf("λ = %g after annealing, want 1", l)
	}
	if u := mean(200); u < 35 || u > 55 {
		t.Fatalf("after annealing the mean distance is %.1f, want uniform's ≈ 44.6", u)
	}
	for _, w := range b.Weights {
		if w != 1 {
			t.Fatal("AER weights must be 1")
		}
	}
	if _, err := NewAER(buf, AERConfig{Lambda0: 0.5}); err == nil {
		t.Fatal("λ₀ < 1 accepted")
	}
}

func TestAERNoAllocs(t *testing.T) {
	buf, _ := NewBuffer(Config{Capacity: 64, ObsDim: 3, ActDim: 1})
	for i := range 64 {
		buf.Add(Transition{Obs: []float64{float64(i), 0, 1}, Action: []float64{0}, NextObs: []float64{0, 0, 0}})
	}
	s, _ := NewAER(buf, DefaultAERConfig())
	s.SetQuery([]float64{3, 0, 1})
	rng := rand.New(rand.NewPCG(1, 1))
	b := NewBatch(16, 3, 1)
	s.Sample(b, rng)
	if a := testing.AllocsPerRun(100, func() { s.Sample(b, rng) }); a != 0 {
		t.Fatalf("Sample allocates %.0f times", a)
	}
	// LambdaSteps 0 keeps λ at λ₀ (not uniform replay), so these draws
	// took the nearest-neighbour path
	if l := s.Lambda(); l != DefaultAERConfig().Lambda0 {
		t.Fatalf("λ = %g after %d Samples without a schedule, want λ₀ = %g", l, 102, DefaultAERConfig().Lambda0)
	}
}
