package main

import (
	"math"
	"math/rand/v2"
	"sort"

	"github.com/vlmrb/vlmrb/stats"
)

// probCI is P(X > Y) of two pooled arms, whose runs come in strata (one
// per study), with its percentile bootstrap interval at level conf from
// reps resamples. The point estimate is the Mann–Whitney statistic over
// every pair of runs of the two arms pooled; each resample redraws every
// stratum of each arm from itself, uniformly with replacement and at its
// own size, so a resample keeps each study's share of the runs, as the
// IQM and mean intervals of stats.BootstrapCI do. Empty strata are
// skipped; with no run on either side every field is NaN.
func probCI(x, y [][]float64, reps int, conf float64, seed uint64) stats.Interval {
	x, y = nonEmpty(x), nonEmpty(y)
	if len(x) == 0 || len(y) == 0 {
		return stats.Interval{Point: math.NaN(), Lo: math.NaN(), Hi: math.NaN()}
	}
	point := stats.ProbImprovement(flat(x), flat(y))
	rng := rand.New(rand.NewPCG(seed, 0x9e37))
	rx, ry := make([]float64, len(flat(x))), make([]float64, len(flat(y)))
	vals := make([]float64, reps)
	for r := range vals {
		resampleStrata(rng, x, rx)
		resampleStrata(rng, y, ry)
		vals[r] = stats.ProbImprovement(rx, ry)
	}
	if reps == 0 {
		return stats.Interval{Point: point, Lo: math.NaN(), Hi: math.NaN()}
	}
	sort.Float64s(vals)
	a := (1 - conf) / 2
	return stats.Interval{Point: point, Lo: stats.Quantile(vals, a), Hi: stats.Quantile(vals, 1-a)}
}

// resampleStrata fills dst with one bootstrap resample of strata: stratum
// by stratum, as many draws as it has, each from that stratum only.
func resampleStrata(rng *rand.Rand, strata [][]float64, dst []float64) {
	k := 0
	for _, s := range strata {
		for range s {
			dst[k] = s[rng.IntN(len(s))]
			k++
		}
	}
}

func nonEmpty(strata [][]float64) [][]float64 {
	var kept [][]float64
	for _, s := range strata {
		if len(s) > 0 {
			kept = append(kept, s)
		}
	}
	return kept
}

func flat(s [][]float64) []float64 {
	var v []float64
	for _, x := range s {
		v = append(v, x...)
	}
	return v
}
