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

	// per episode (quantiles.go): the open episode's values per dimension,
	// the finished episodes' statistics, their quantiles' weighted sum
	ep      [][]float64
	eps     []episodeStats
	qa      quantileAgg
	round32 bool // the feature is stored as float32: episode stats see the stored values
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
	if s.ep == nil {
		s.ep = make([][]float64, len(x))
	}
	for i, v := range x {
		if s.round32 {
			s.ep[i] = append(s.ep[i], float64(float32(v)))
		} else {
			s.ep[i] = append(s.ep[i], v)
		}
	}
	for i, v := range x {
		s.min[i] = min(s.min[i], v)
		s.max[i] = max(s.max[i], v)
		d := v - s.mean[i]
		s.mean[i] += d / float64(s.n)
		s.m2[i] += d * (v - s.mean[i])
	}
}

// endEpisode closes the open episode's statistics (nothing when it had
// no values).
func (s *runStats) endEpisode() {
	if len(s.ep) == 0 || len(s.ep[0]) == 0 {
		return
	}
	e := vectorEpisodeStats(s.ep)
	s.eps = append(s.eps, e)
	s.qa.add(e.q, float64(e.n))
	for i := range s.ep {
		s.ep[i] = s.ep[i][:0]
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
	out := map[string]any{"min": wrap(mn), "max": wrap(mx), "mean": wrap(s.mean), "std": wrap(std), "count": []int64{s.n}}
	for l, q := range s.qa.values(len(s.mean)) {
		out[QuantileKeys[l]] = wrap(q)
	}
	return out
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

	epHist   [3][256]float64 // the open episode's pixel values per channel
	epFrames int64
	eps      []episodeStats
	qa       quantileAgg
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
				st.epHist[c][row[4*x+c]]++
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
	st.epFrames++
}

// endEpisode closes the open episode's per-channel statistics, as LeRobot
// computes an image feature's (on 0..255, then divided by 255; count is
// frames).
func (st *imageStats) endEpisode() {
	if st.epFrames == 0 {
		return
	}
	levels := make([]float64, 256)
	for k := range levels {
		levels[k] = float64(k)
	}
	e := episodeStats{n: st.epFrames, min: make([]float64, 3), max: make([]float64, 3), mean: make([]float64, 3), std: make([]float64, 3)}
	e.q = make([][]float64, len(quantileLevels))
	for l := range e.q {
		e.q[l] = make([]float64, 3)
	}
	for c := range 3 {
		h := st.epHist[c][:]
		var n, sum float64
		lo, hi := 255.0, 0.0
		for k, cnt := range h {
			if cnt > 0 {
				n, sum = n+cnt, sum+cnt*float64(k)
				lo, hi = min(lo, float64(k)), max(hi, float64(k))
			}
		}
		m := sum / n
		var ss float64
		for k, cnt := range h {
			ss += cnt * (float64(k) - m) * (float64(k) - m)
		}
		e.min[c], e.max[c], e.mean[c], e.std[c] = lo/255, hi/255, m/255, math.Sqrt(ss/n)/255
		for l, qv := range histQuantiles(levels, h) {
			e.q[l][c] = qv / 255
		}
	}
	st.eps = append(st.eps, e)
	st.qa.add(e.q, float64(e.n))
	st.epHist = [3][256]float64{}
	st.epFrames = 0
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
	for l, q := range st.qa.values(3) {
		out := make([][][]float64, 3)
		for c, x := range q {
			out[c] = [][]float64{{x}}
		}
		m[QuantileKeys[l]] = out
	}
	return m
}
