package main

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vlmrb/vlmrb/stats"
)

// Known answer: an arm with finals {0.70, 0, 0.25, 0, 0.20} in one study
// and five zeros in another, against a baseline at 0 everywhere. P(X > Y)
// is (3 + 7·½)/10 = 0.65. Resampled within studies, only the first
// study's count K of non-zero runs varies, K ~ Binomial(5, 0.6), so
// P* = 0.5 + K/20; P(K = 0) = 1.0% and P(K ≤ 4) = 92.2%, so the 2.5% and
// 97.5% quantiles are K = 1 and K = 5: [0.55, 0.75]. Resampling the ten
// runs together instead (K ~ Binomial(10, 0.3)) gives [0.50, 0.80].
func TestProbCIKnownAnswerStratified(t *testing.T) {
	x := [][]float64{{0.70, 0, 0.25, 0, 0.20}, {0, 0, 0, 0, 0}}
	y := [][]float64{{0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}}
	got := probCI(x, y, 5000, 0.95, 1)
	if math.Abs(got.Point-0.65) > 1e-12 || math.Abs(got.Lo-0.55) > 1e-12 || math.Abs(got.Hi-0.75) > 1e-12 {
		t.Fatalf("stratified P = %+v, want 0.65 [0.55, 0.75]", got)
	}
	flatCI := stats.ProbImprovementCI([][]float64{flat(x)}, [][]float64{flat(y)}, 5000, 0.95, 1)
	if math.Abs(flatCI.Lo-0.50) > 1e-12 || math.Abs(flatCI.Hi-0.80) > 1e-12 {
		t.Fatalf("unstratified P = %+v, want 0.65 [0.50, 0.80]", flatCI)
	}
}

// When every study's runs agree, no resample can differ from the data:
// the interval collapses on the point, although the pooled runs differ.
func TestProbCIConstantStrata(t *testing.T) {
	x := [][]float64{{1, 1, 1}, {0, 0, 0, 0}}
	y := [][]float64{{0.5, 0.5}, {0.5, 0.5, 0.5}}
	got := probCI(x, y, 2000, 0.95, 7)
	want := 3.0 / 7 // the three runs at 1 beat every baseline run, the four at 0 none
	if math.Abs(got.Point-want) > 1e-12 || got.Lo != got.Point || got.Hi != got.Point {
		t.Fatalf("P = %+v, want %.4f with a zero-width interval", got, want)
	}
	if iv := probCI([][]float64{{}}, y, 100, 0.95, 1); !math.IsNaN(iv.Point) {
		t.Fatalf("an arm without runs gives %+v, want NaN", iv)
	}
	if iv := probCI([][]float64{{}, {1}}, y, 100, 0.95, 1); iv.Point != 1 {
		t.Fatalf("an empty stratum is not skipped: %+v", iv)
	}
}

// Coverage: over 400 simulated pairs of pooled arms, each two studies of
// normal scores whose means differ by study, the 95% interval contains the
// true P(X > Y) of the mixtures about 95% of the time. The truth is
// Σ_s Σ_t w_s v_t Φ((μ_s − ν_t)/√2) with the strata's shares w, v of the
// runs. With 400 trials the binomial standard error is 1.1 points; the
// percentile bootstrap at 12–15 runs an arm undercovers a little.
func TestProbCICoverage(t *testing.T) {
	mu, nu := []float64{0.8, 0.0}, []float64{0.3, -0.2}
	nx, ny := []int{8, 4}, []int{6, 9}
	phi := func(z float64) float64 { return 0.5 * math.Erfc(-z/math.Sqrt2) }
	var truth float64
	for s := range mu {
		for u := range nu {
			truth += float64(nx[s]) / 12 * float64(ny[u]) / 15 * phi((mu[s]-nu[u])/math.Sqrt2)
		}
	}
	rng := rand.New(rand.NewPCG(42, 1))
	draw := func(means []float64, sizes []int) [][]float64 {
		out := make([][]float64, len(means))
		for s := range means {
			for range sizes[s] {
				out[s] = append(out[s], means[s]+rng.NormFloat64())
			}
		}
		return out
	}
	const trials = 400
	covered := 0
	for i := range trials {
		iv := probCI(draw(mu, nx), draw(nu, ny), 1000, 0.95, uint64(i))
		if iv.Lo <= truth && truth <= iv.Hi {
			covered++
		}
	}
	rate := float64(covered) / trials
	t.Logf("true P %.4f; coverage %.3f over %d trials", truth, rate, trials)
	if rate < 0.89 || rate > 0.99 {
		t.Fatalf("coverage %.3f of the nominal 95%% interval, want within [0.89, 0.99]", rate)
	}
}
