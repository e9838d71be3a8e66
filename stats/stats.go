package stats

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// The aggregate statistics follow rliable (Agarwal et al., "Deep RL at the
// Edge of the Statistical Precipice", NeurIPS 2021): the interquartile mean
// as the point estimate, percentile confidence intervals from a stratified
// bootstrap (runs resampled with replacement within each task), and the
// probability of improvement from the Mann–Whitney U statistic.

// IQM is the interquartile mean of x: the mean of what is left after the
// lowest and highest int(n/4) values are cut, exactly as
// scipy.stats.trim_mean(x, 0.25), which rliable's aggregate_iqm calls.
// NaN for an empty slice. x is not modified.
func IQM(x []float64) float64 {
	n := len(x)
	if n == 0 {
		return math.NaN()
	}
	s := slices.Clone(x)
	sort.Float64s(s)
	cut := n / 4 // int(0.25·n)
	return Mean(s[cut : n-cut])
}

// Mean is the arithmetic mean of x (NaN when empty).
func Mean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	var s float64
	for _, v := range x {
		s += v
	}
	return s / float64(len(x))
}

// Aggregate is a statistic of runs pooled over tasks: each inner slice is
// one task's per-seed scores (one stratum).
type Aggregate func(strata [][]float64) float64

// PooledIQM is the IQM of every score of every task pooled together.
func PooledIQM(strata [][]float64) float64 { return IQM(flatten(strata)) }

// PooledMean is the mean of every score of every task pooled together.
func PooledMean(strata [][]float64) float64 { return Mean(flatten(strata)) }

func flatten(strata [][]float64) []float64 {
	var all []float64
	for _, s := range strata {
		all = append(all, s...)
	}
	return all
}

// Interval is a point estimate with its confidence bounds.
type Interval struct {
	Point float64 `json:"point"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
}

// MarshalJSON writes undefined (NaN or infinite) bounds as null.
func (iv Interval) MarshalJSON() ([]byte, error) {
	f := func(v float64) any {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return v
	}
	return json.Marshal(map[string]any{"point": f(iv.Point), "lo": f(iv.Lo), "hi": f(iv.Hi)})
}

// BootstrapCI returns the statistic on strata and its percentile
// confidence interval at level conf (0.95) from reps stratified bootstrap
// resamples: each resample draws, within every stratum, as many scores as
// it has, uniformly with replacement. The generator is seeded by seed, so
// a report is reproducible. Empty strata are skipped; with no scores at
// all every field is NaN.
func BootstrapCI(strata [][]float64, stat Aggregate, reps int, conf float64, seed uint64) Interval {
	var kept [][]float64
	for _, s := range strata {
		if len(s) > 0 {
			kept = append(kept, s)
		}
	}
	if len(kept) == 0 {
		return Interval{math.NaN(), math.NaN(), math.NaN()}
	}
	point := stat(kept)
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	res := make([][]float64, len(kept))
	for i, s := range kept {
		res[i] = make([]float64, len(s))
	}
	vals := make([]float64, 0, reps)
	for r := 0; r < reps; r++ {
		for i, s := range kept {
			for j := range res[i] {
				res[i][j] = s[rng.IntN(len(s))]
			}
		}
		if v := stat(res); !math.IsNaN(v) {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return Interval{point, math.NaN(), math.NaN()}
	}
	sort.Float64s(vals)
	a := (1 - conf) / 2
	return Interval{point, Quantile(vals, a), Quantile(vals, 1-a)}
}

// Quantile is the q-quantile of sorted s with linear interpolation between
// order statistics (NumPy's default "linear" method, which rliable's
// percentile intervals use).
func Quantile(s []float64, q float64) float64 {
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	h := q * float64(n-1)
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return s[n-1]
	}
	if lo < 0 {
		return s[0]
	}
	return s[lo] + (h-float64(lo))*(s[lo+1]-s[lo])
}

// ProbImprovement is P(X > Y) for one task: the fraction of pairs (x, y)
// with x > y, ties counting one half (the Mann–Whitney U statistic over
// n·m); a pair with a NaN counts zero. NaN when either side is empty.
// It sorts a copy of y and counts by binary search: O((n+m)·log m), so a
// report over thousands of seeds stays fast (pairs: 10⁸ for 10⁴ × 10⁴).
func ProbImprovement(x, y []float64) float64 {
	if len(x) == 0 || len(y) == 0 {
		return math.NaN()
	}
	ys := make([]float64, 0, len(y))
	for _, b := range y {
		if !math.IsNaN(b) {
			ys = append(ys, b)
		}
	}
	sort.Float64s(ys)
	var u float64
	for _, a := range x {
		if math.IsNaN(a) {
			continue
		}
		below := sort.SearchFloat64s(ys, a)                                     // y < a
		notAbove := sort.Search(len(ys), func(i int) bool { return ys[i] > a }) // y ≤ a
		u += float64(below) + 0.5*float64(notAbove-below)
	}
	return u / float64(len(x)*len(y))
}

// ProbImprovementCI averages ProbImprovement over tasks (rliable's
// aggregate) and bootstraps it: within each task the runs of X and of Y
// are resampled independently. x[t] and y[t] are task t's scores; tasks
// where either is empty are skipped.
func ProbImprovementCI(x, y [][]float64, reps int, conf float64, seed uint64) Interval {
	var xs, ys [][]float64
	for t := range x {
		if t < len(y) && len(x[t]) > 0 && len(y[t]) > 0 {
			xs, ys = append(xs, x[t]), append(ys, y[t])
		}
	}
	if len(xs) == 0 {
		return Interval{math.NaN(), math.NaN(), math.NaN()}
	}
	avg := func(a, b [][]float64) float64 {
		var s float64
		for t := range a {
			s += ProbImprovement(a[t], b[t])
		}
		return s / float64(len(a))
	}
	point := avg(xs, ys)
	rng := rand.New(rand.NewPCG(seed, 0x9e37))
	rx, ry := cloneShape(xs), cloneShape(ys)
	vals := make([]float64, reps)
	for r := range vals {
		resample(rng, xs, rx)
		resample(rng, ys, ry)
		vals[r] = avg(rx, ry)
	}
	sort.Float64s(vals)
	a := (1 - conf) / 2
	return Interval{point, Quantile(vals, a), Quantile(vals, 1-a)}
}

func cloneShape(s [][]float64) [][]float64 {
	out := make([][]float64, len(s))
	for i := range s {
		out[i] = make([]float64, len(s[i]))
	}
	return out
}

func resample(rng *rand.Rand, src, dst [][]float64) {
	for i, s := range src {
		for j := range dst[i] {
			dst[i][j] = s[rng.IntN(len(s))]
		}
	}
}

// AUC is the normalised area under a learning curve: the trapezoid
// integral of y over x divided by the x span, so a curve that is 1
// everywhere has AUC 1. x must be increasing. One point gives its value;
// none gives NaN.
func AUC(x, y []float64) float64 {
	switch len(x) {
	case 0:
		return math.NaN()
	case 1:
		return y[0]
	}
	var a float64
	for i := 1; i < len(x); i++ {
		a += 0.5 * (y[i] + y[i-1]) * (x[i] - x[i-1])
	}
	return a / (x[len(x)-1] - x[0])
}

// FirstReach is the first x at which y reaches at least target, and false
// when it never does.
func FirstReach(x, y []float64, target float64) (float64, bool) {
	for i := range x {
		if y[i] >= target {
			return x[i], true
		}
	}
	return 0, false
}
