package study

import (
	"math/rand/v2"
	"testing"

	"github.com/vlmrb/vlmrb/stats"
)

// BenchmarkBootstrapIQM: one stratified resample of 3 tasks × 10 seeds and
// its pooled IQM (what a report does 5,000 times per interval).
func BenchmarkBootstrapIQM(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	strata := make([][]float64, 3)
	for i := range strata {
		strata[i] = make([]float64, 10)
		for j := range strata[i] {
			strata[i][j] = rng.Float64()
		}
	}
	const reps = 1000
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		stats.BootstrapCI(strata, stats.PooledIQM, reps, 0.95, uint64(i))
	}
	b.ReportMetric(float64(b.N)*reps/b.Elapsed().Seconds(), "resamples/s")
}

// BenchmarkProbImprovement: P(X > Y) of 10,000 runs against 10,000 (a
// 20,000-run report's arm pair; pairwise it was 10⁸ comparisons).
func BenchmarkProbImprovement(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	x, y := make([]float64, 10_000), make([]float64, 10_000)
	for i := range x {
		x[i], y[i] = rng.Float64(), rng.Float64()
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		stats.ProbImprovement(x, y)
	}
	b.ReportMetric(float64(b.N)*float64(len(x)*len(y))/b.Elapsed().Seconds(), "pairs/s")
}
