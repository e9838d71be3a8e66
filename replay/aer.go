package replay

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
)

// AERConfig configures Attentive Experience Replay.
//
// The yaml tags are the keys of a training config's aer section
// (LambdaSteps is derived from the run's length).
type AERConfig struct {
	// Lambda0 is the candidate factor λ at the start: each Sample draws
	// ⌈λ·k⌉ candidates uniformly for a batch of k (Sun et al. 2020 use
	// λ > 1; default 4).
	Lambda0 float64 `yaml:"lambda0"`
	// LambdaSteps is the number of Sample calls over which λ falls linearly
	// from Lambda0 to 1 ("bias annealing": at λ = 1 AER is uniform replay).
	// 0 keeps λ at Lambda0.
	LambdaSteps int64 `yaml:"-"`
}

// DefaultAERConfig returns λ₀ = 4 with no annealing schedule set.
func DefaultAERConfig() AERConfig { return AERConfig{Lambda0: 4} }

// AER is Attentive Experience Replay (Sun, Zhou and Li, AAAI 2020): a
// batch of k transitions is the k most similar to the agent's current
// state among ⌈λ·k⌉ transitions drawn uniformly,
//
//	C ~ Uniform(buffer)^⌈λk⌉,  batch = argtop-k_{j∈C} sim(s_j, s_t),
//
// with λ annealed linearly to 1 over training so the bias towards
// on-distribution states vanishes as the policy converges. The paper's
// exact similarity function is not reproduced here (research/papers.md
// §4.5 lists it as unverified); this implementation uses
// sim(s_j, s_t) = −‖s_j − s_t‖² on the stored observation vectors; for
// categorical codes (grid tasks store MiniGrid's integer object, colour
// and state codes) a differing cell adds the squared gap between its two
// codes, not 1 per cell as on the learner's one-hot input. The learner
// sets s_t with SetQuery before each Sample; without a
// query AER samples uniformly. Weights are 1 (AER applies no importance
// correction). Safe for concurrent use.
type AER struct {
	buf   *Buffer
	cfg   AERConfig
	step  int64
	query []float32 // guarded by buf.mu
	cand  []int32   // candidate slots
	pick  []int32   // the k chosen
	dist  []float64
	order []int
}

// NewAER returns an AER sampler over buf.
func NewAER(buf *Buffer, cfg AERConfig) (*AER, error) {
	if !(cfg.Lambda0 >= 1) || cfg.Lambda0 > 1024 {
		return nil, fmt.Errorf("replay: AER Lambda0 %g must be in [1, 1024]", cfg.Lambda0)
	}
	if cfg.LambdaSteps < 0 {
		return nil, fmt.Errorf("replay: AER LambdaSteps %d is negative", cfg.LambdaSteps)
	}
	s := &AER{buf: buf, cfg: cfg}
	buf.attach(s) // for Save and Load of its schedule
	return s, nil
}

// Lambda returns the current candidate factor λ.
func (s *AER) Lambda() float64 {
	s.buf.mu.Lock()
	defer s.buf.mu.Unlock()
	return s.lambdaLocked()
}

// lambdaLocked is λ after s.step Samples: Lambda0 falling linearly to 1
// over LambdaSteps, or Lambda0 throughout when LambdaSteps is 0.
func (s *AER) lambdaLocked() float64 {
	if s.cfg.LambdaSteps == 0 {
		return s.cfg.Lambda0
	}
	return linear(s.cfg.Lambda0, 1, s.step, s.cfg.LambdaSteps)
}

// SetQuery sets the agent's current state s_t (ObsDim values) that the
// next Samples attend to. It panics on a wrong length.
func (s *AER) SetQuery(obs []float64) {
	if len(obs) != s.buf.cfg.ObsDim {
		panic(fmt.Sprintf("replay: AER query of %d values, ObsDim %d", len(obs), s.buf.cfg.ObsDim))
	}
	s.buf.mu.Lock()
	defer s.buf.mu.Unlock()
	if s.query == nil {
		s.query = make([]float32, len(obs))
	}
	cvt(s.query, obs)
}

// Sample fills dst with the dst.Len() candidates nearest the query out of
// ⌈λ·dst.Len()⌉ uniform draws (with replacement, as uniform replay draws).
func (s *AER) Sample(dst *Batch, rng *rand.Rand) bool {
	b := s.buf
	b.checkBatch(dst)
	b.mu.Lock()
	defer b.mu.Unlock()
	k := dst.Len()
	lambda := s.lambdaLocked()
	m := k
	if s.query != nil {
		m = max(k, int(lambda*float64(k)+0.999999))
	}
	if cap(s.cand) < m {
		s.cand, s.dist, s.order = make([]int32, m), make([]float64, m), make([]int, m)
	}
	if cap(s.pick) < k {
		s.pick = make([]int32, k)
	}
	cand := s.cand[:m]
	if !b.drawUniformLocked(cand, rng) {
		return false
	}
	s.step++
	pick := cand[:k]
	if m > k {
		od := b.cfg.ObsDim
		dist, order := s.dist[:m], s.order[:m]
		for c, i := range cand {
			row := b.obs[int(i)*od : (int(i)+1)*od]
			d := 0.0
			for j, v := range row {
				e := float64(v - s.query[j])
				d += e * e
			}
			dist[c], order[c] = d, c
		}
		// the k nearest, ties broken by draw order (deterministic)
		slices.SortStableFunc(order, func(a, c int) int { return cmp.Compare(dist[a], dist[c]) })
		pick = s.pick[:k]
		for r := range pick {
			pick[r] = cand[order[r]]
		}
	}
	b.gatherRows(dst, pick)
	for r := range dst.Weights {
		dst.Weights[r] = 1
	}
	return true
}

// UpdatePriorities does nothing: AER keeps no priorities.
func (s *AER) UpdatePriorities(refs []Ref, values []float64) int { return 0 }
