package lerobot

import (
	"math"
	"sort"
)

// Quantile statistics as LeRobot v3.0 computes them
// (lerobot/datasets/compute_stats.py: RunningQuantileStats,
// get_feature_stats, aggregate_feature_stats), so that policies which
// normalise by quantiles (pi0.5 and others: q01/q99) find them in
// meta/stats.json:
//
//   - per episode and per dimension, a histogram of 5,000 equal bins from
//     min−1e-10 to max+1e-10 (np.linspace edges, np.histogram binning);
//     quantile q is read at the first bin whose cumulative count reaches
//     q·n (np.searchsorted), interpolated linearly inside it; the first bin
//     gives its left edge, an empty bin its left edge;
//   - an episode of fewer than 2 frames has every quantile equal to its mean;
//   - the dataset's quantile is the frame-count-weighted mean of the
//     episodes' quantiles (not the quantile of the pooled data);
//   - images: per channel over pixels, in 0..255, then divided by 255.
//
// Values are the stored float32 values, accumulated in float64.

// QuantileKeys are the quantile entries of every feature in stats.json.
var QuantileKeys = []string{"q01", "q10", "q50", "q90", "q99"}

var quantileLevels = []float64{0.01, 0.10, 0.50, 0.90, 0.99}

const quantileBins = 5000

// histQuantiles returns LeRobot's histogram quantiles (quantileLevels) of
// the values vals, each weighted by count[i] (nil: weight 1).
func histQuantiles(vals, count []float64) []float64 {
	out := make([]float64, len(quantileLevels))
	var n, lo, hi, sum float64 = 0, math.Inf(1), math.Inf(-1), 0
	for i, v := range vals {
		c := 1.0
		if count != nil {
			c = count[i]
		}
		if c == 0 {
			continue
		}
		n += c
		sum += c * v
		lo, hi = min(lo, v), max(hi, v)
	}
	if n < 2 {
		for i := range out {
			out[i] = sum / max(n, 1)
		}
		return out
	}
	// np.linspace(lo-1e-10, hi+1e-10, bins+1): start + i·step, last = stop
	start, stop := lo-1e-10, hi+1e-10
	step := (stop - start) / quantileBins
	edge := func(i int) float64 {
		if i == quantileBins {
			return stop
		}
		return start + float64(i)*step
	}
	hist := make([]float64, quantileBins)
	for i, v := range vals {
		c := 1.0
		if count != nil {
			c = count[i]
		}
		if c == 0 {
			continue
		}
		// np.histogram's uniform-bin index with its edge corrections
		k := int((v - start) / (stop - start) * quantileBins)
		k = min(max(k, 0), quantileBins-1)
		if v < edge(k) {
			k--
		} else if v >= edge(k+1) && k != quantileBins-1 {
			k++
		}
		hist[k] += c
	}
	cum := make([]float64, quantileBins)
	var s float64
	for i, h := range hist {
		s += h
		cum[i] = s
	}
	for qi, q := range quantileLevels {
		target := q * n
		idx := sort.SearchFloat64s(cum, target) // np.searchsorted, side left
		switch {
		case idx == 0:
			out[qi] = edge(0)
		case idx >= len(cum):
			out[qi] = edge(quantileBins)
		default:
			before := cum[idx-1]
			in := cum[idx] - before
			if in == 0 {
				out[qi] = edge(idx)
			} else {
				out[qi] = edge(idx) + (target-before)/in*(edge(idx+1)-edge(idx))
			}
		}
	}
	return out
}

// episodeStats are one episode's statistics of a feature (per dimension).
type episodeStats struct {
	n                   int64
	min, max, mean, std []float64
	q                   [][]float64 // [level][dim]
}

// vectorEpisodeStats computes an episode's statistics from its values
// (vals[dim][frame]).
func vectorEpisodeStats(vals [][]float64) episodeStats {
	dim := len(vals)
	e := episodeStats{min: make([]float64, dim), max: make([]float64, dim), mean: make([]float64, dim), std: make([]float64, dim)}
	e.q = make([][]float64, len(quantileLevels))
	for l := range e.q {
		e.q[l] = make([]float64, dim)
	}
	for d, xs := range vals {
		e.n = int64(len(xs))
		lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
		for _, x := range xs {
			lo, hi, sum = min(lo, x), max(hi, x), sum+x
		}
		m := sum / float64(max(len(xs), 1))
		var ss float64
		for _, x := range xs {
			ss += (x - m) * (x - m)
		}
		e.min[d], e.max[d], e.mean[d] = lo, hi, m
		e.std[d] = math.Sqrt(ss / float64(max(len(xs), 1)))
		for l, qv := range histQuantiles(xs, nil) {
			e.q[l][d] = qv
		}
	}
	return e
}

// json is the per-episode stats entry (the stats/FEATURE/STAT columns of
// the episode table hold the same numbers).
func (e episodeStats) json() map[string][]float64 {
	m := map[string][]float64{"min": e.min, "max": e.max, "mean": e.mean, "std": e.std, "count": {float64(e.n)}}
	for l, k := range QuantileKeys {
		m[k] = e.q[l]
	}
	return m
}

// quantileAgg is the count-weighted mean of episodes' quantiles.
type quantileAgg struct {
	sum [][]float64 // [level][dim] Σ count·q
	n   float64
}

func (a *quantileAgg) add(q [][]float64, count float64) {
	if a.sum == nil {
		a.sum = make([][]float64, len(q))
		for l := range q {
			a.sum[l] = make([]float64, len(q[l]))
		}
	}
	for l := range q {
		for d, v := range q[l] {
			a.sum[l][d] += count * v
		}
	}
	a.n += count
}

// values returns the aggregate quantiles, zeros of dim before any episode.
func (a *quantileAgg) values(dim int) [][]float64 {
	out := make([][]float64, len(quantileLevels))
	for l := range out {
		out[l] = make([]float64, dim)
		if a.n > 0 {
			for d := range out[l] {
				out[l][d] = a.sum[l][d] / a.n
			}
		}
	}
	return out
}
