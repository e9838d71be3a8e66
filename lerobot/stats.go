package lerobot

import (
	"image"
	"math"
)

// runStats accumulates per-dimension min, max, mean and standard deviation
// (Welford's update, population std as numpy's default) of one feature:
// what LeRobot's compute_stats puts in meta/stats.json and the policies'
// normalisers read.
type runStats struct {
	n              int64
	min, max, mean []float64
	m2             []float64
}

func newRunStats(dim int) *runStats {
	s := &runStats{min: make([]float64, dim), max: make([]float64, dim), mean: make([]float64, dim), m2: make([]float64, dim)}
	for i := range s.min {
		s.min[i], s.max[i] = math.Inf(1), math.Inf(-1)
	}
	return s
}

func (s *runStats) add(x []float64) {
	s.n++
	for i, v := range x {
		s.min[i] = min(s.min[i], v)
		s.max[i] = max(s.max[i], v)
		d := v - s.mean[i]
		s.mean[i] += d / float64(s.n)
		s.m2[i] += d * (v - s.mean[i])
	}
}

// json is the stats.json entry; nest wraps every value in one-element
// lists, the [C,1,1] shape LeRobot uses for image channels.
func (s *runStats) json(nest bool) map[string]any {
	std := make([]float64, len(s.m2))
	for i, m := range s.m2 {
		if s.n > 0 {
			std[i] = math.Sqrt(m / float64(s.n))
		}
	}
	wrap := func(v []float64) any {
		if !nest {
			return v
		}
		out := make([][][]float64, len(v))
		for i, x := range v {
			out[i] = [][]float64{{x}}
		}
		return out
	}
	mn, mx := append([]float64(nil), s.min...), append([]float64(nil), s.max...)
	if s.n == 0 {
		clear(mn)
		clear(mx)
	}
	return map[string]any{"min": wrap(mn), "max": wrap(mx), "mean": wrap(s.mean), "std": wrap(std), "count": []int64{s.n}}
}

// imageStats accumulates per-channel statistics of RGB frames scaled to
// [0, 1], over every pixel of every frame (LeRobot subsamples frames; the
// full pass is cheap at simulator resolutions).
type imageStats struct {
	sum    [3]float64
	sq     [3]float64
	lo     [3]float64
	hi     [3]float64
	n      int64 // pixels
	frames int64
}

func newImageStats() *imageStats {
	return &imageStats{lo: [3]float64{1, 1, 1}}
}

func (st *imageStats) add(img *image.RGBA) {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := img.Pix[(y-b.Min.Y)*img.Stride:]
		for x := 0; x < b.Dx(); x++ {
			for c := range 3 {
				v := float64(row[4*x+c]) / 255
				st.sum[c] += v
				st.sq[c] += v * v
				st.lo[c] = min(st.lo[c], v)
				st.hi[c] = max(st.hi[c], v)
			}
		}
	}
	st.n += int64(b.Dx() * b.Dy())
	st.frames++
}

func (st *imageStats) json() map[string]any {
	r := runStats{n: st.n, min: st.lo[:], max: st.hi[:], mean: make([]float64, 3), m2: make([]float64, 3)}
	for c := range 3 {
		if st.n > 0 {
			m := st.sum[c] / float64(st.n)
			r.mean[c] = m
			r.m2[c] = max(st.sq[c]-float64(st.n)*m*m, 0)
		}
	}
	m := r.json(true)
	m["count"] = []int64{st.frames}
	return m
}
