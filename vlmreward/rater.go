package vlmreward

import (
	"context"
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// Query is one frame (or the last frame of a short segment) to rate.
type Query struct {
	Image *image.RGBA
	// Task is the instruction substituted into the prompt, e.g. "open the drawer".
	Task string
	// Progress is privileged task progress in [0,1] (NaN when unknown, as on
	// real cameras); only the oracle rater reads it.
	Progress float64
}

// Rater rates a frame in Classes() classes, 0 = worst. An error means the
// query failed; callers drop it (never store it as class 0).
type Rater interface {
	Rate(ctx context.Context, q *Query) (int, error)
	Classes() int
}

// ClassNames returns ERL-VLM's rating categories for n = 2…5 classes,
// worst first (papers.md §2.4), or nil for other n.
func ClassNames(n int) []string {
	switch n {
	case 2:
		return []string{"Bad", "Good"}
	case 3:
		return []string{"Bad", "Average", "Good"}
	case 4:
		return []string{"Very Bad", "Bad", "Good", "Very Good"}
	case 5:
		return []string{"Very Bad", "Bad", "Average", "Good", "Very Good"}
	}
	return nil
}

// OracleRater rates from privileged progress: class = min(n−1, ⌊p·n⌋), so
// the n classes split [0,1] evenly. With probability Noise the label is
// replaced by a uniformly drawn different class (seeded, so runs repeat).
// Safe for concurrent use.
type OracleRater struct {
	n     int
	noise float64
	mu    sync.Mutex
	rng   *rand.Rand
	flips atomic.Int64
}

// NewOracleRater returns an oracle rater for n classes (2–5) with label
// noise rate noise ∈ [0,1].
func NewOracleRater(n int, noise float64, seed uint64) (*OracleRater, error) {
	if n < 2 || n > 5 || !(noise >= 0 && noise <= 1) {
		return nil, fmt.Errorf("vlmreward: oracle rater needs 2–5 classes and noise in [0,1] (got %d, %g)", n, noise)
	}
	return &OracleRater{n: n, noise: noise, rng: rand.New(rand.NewPCG(seed, 0x0c1e))}, nil
}

// Classes returns n.
func (o *OracleRater) Classes() int { return o.n }

// Flips counts labels the noise changed.
func (o *OracleRater) Flips() int64 { return o.flips.Load() }

// Rate returns the progress class, possibly flipped; an error when the
// query carries no progress.
func (o *OracleRater) Rate(_ context.Context, q *Query) (int, error) {
	if math.IsNaN(q.Progress) || math.IsInf(q.Progress, 0) {
		return 0, fmt.Errorf("vlmreward: oracle rater needs privileged progress")
	}
	c := ProgressClass(q.Progress, o.n)
	if o.noise > 0 {
		o.mu.Lock()
		flip := o.rng.Float64() < o.noise
		alt := o.rng.IntN(o.n - 1)
		o.mu.Unlock()
		if flip {
			if alt >= c {
				alt++
			}
			c = alt
			o.flips.Add(1)
		}
	}
	return c, nil
}

// ProgressClass maps progress p ∈ [0,1] to min(n−1, ⌊p·n⌋) (clamped).
func ProgressClass(p float64, n int) int {
	c := int(math.Floor(p * float64(n)))
	return max(0, min(n-1, c))
}

// RateStats counts a RateAll call.
type RateStats struct {
	Asked, Rated, Failed int
	FirstErr             error
}

// RateAll rates the queries with up to workers concurrent calls and writes
// each label into labels (len(qs)); a failed query gets −1 and is counted,
// so callers drop it instead of storing it as the worst class.
func RateAll(ctx context.Context, r Rater, qs []*Query, labels []int, workers int) RateStats {
	st := RateStats{Asked: len(qs)}
	workers = max(1, workers)
	var mu sync.Mutex
	forEach(len(qs), workers, func(i int) bool {
		c, err := r.Rate(ctx, qs[i])
		if err == nil && (c < 0 || c >= r.Classes()) {
			err = fmt.Errorf("vlmreward: rater returned class %d of %d", c, r.Classes())
		}
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			labels[i] = -1
			st.Failed++
			if st.FirstErr == nil {
				st.FirstErr = err
			}
			return true
		}
		labels[i] = c
		st.Rated++
		return true
	})
	return st
}

// forEach calls fn(i) for i in [0, n) on up to workers goroutines, each
// taking the next index in turn, and returns when all are done. A worker
// stops early when fn returns false.
func forEach(n, workers int, fn func(i int) bool) {
	var wg sync.WaitGroup
	var next atomic.Int64
	for range min(max(1, workers), n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || !fn(i) {
					return
				}
			}
		}()
	}
	wg.Wait()
}
