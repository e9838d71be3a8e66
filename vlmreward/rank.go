package vlmreward

import (
	"math"
	"sort"
)

// Spearman returns the rank correlation of a and b (ties get their mean
// rank); NaN when either is constant or they have fewer than two values.
// It panics when the lengths differ.
func Spearman(a, b []float64) float64 {
	if len(a) != len(b) {
		panic("vlmreward: Spearman of slices of different lengths")
	}
	if len(a) < 2 {
		return math.NaN()
	}
	rank := func(v []float64) []float64 {
		idx := make([]int, len(v))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(x, y int) bool { return v[idx[x]] < v[idx[y]] })
		r := make([]float64, len(v))
		for i := 0; i < len(idx); {
			j := i
			for j+1 < len(idx) && v[idx[j+1]] == v[idx[i]] {
				j++
			}
			for k := i; k <= j; k++ {
				r[idx[k]] = float64(i+j) / 2
			}
			i = j + 1
		}
		return r
	}
	ra, rb := rank(a), rank(b)
	var ma, mb float64
	for i := range ra {
		ma += ra[i]
		mb += rb[i]
	}
	ma /= float64(len(ra))
	mb /= float64(len(rb))
	var sab, saa, sbb float64
	for i := range ra {
		sab += (ra[i] - ma) * (rb[i] - mb)
		saa += (ra[i] - ma) * (ra[i] - ma)
		sbb += (rb[i] - mb) * (rb[i] - mb)
	}
	return sab / math.Sqrt(saa*sbb)
}
