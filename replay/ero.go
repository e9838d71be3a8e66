package replay

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// EROConfig configures Experience Replay Optimization.
//
// The yaml tags are the keys of a training config's ero section.
type EROConfig struct {
	// Candidates is how many transitions per batch row are drawn
	// uniformly and offered to the replay policy (default 4).
	Candidates int `yaml:"candidates"`
	// LR is the replay policy's REINFORCE step size (default 0.05).
	LR float64 `yaml:"lr"`
	// Memory bounds the (features, decision) pairs kept between two
	// replay-policy updates (default 65536): beyond it a uniform reservoir
	// sample of all the decisions since the last update is kept.
	Memory int `yaml:"-"`
}

// DefaultEROConfig returns 4 candidates per row, step size 0.05 and a
// memory of 65536 decisions.
func DefaultEROConfig() EROConfig { return EROConfig{Candidates: 4, LR: 0.05, Memory: 65536} }

// eroFeatures is the number of transition features the replay policy
// reads: reward, |TD error|, age and a constant.
const eroFeatures = 4

// ERO is Experience Replay Optimization (Zha, Lai, Zhou and Hu, IJCAI
// 2019): a learned replay policy φ decides which transitions the agent
// replays. For a transition i with features f_i (its reward, its latest
// |TD error| and its age: Adds since it was stored, over the buffer size;
// plus a bias), φ gives a keep probability
//
//	λ_i = σ(wᵀf_i)                                  (paper Eq. 3: φ(f_i | θ^φ))
//
// and a Bernoulli decision I_i ~ Bern(λ_i); the agent's batch is drawn
// uniformly from the kept transitions. The replay policy is trained by
// REINFORCE on the replay reward r^r = r^c_π − r^c_π′, the change of the
// agent's cumulative reward since the previous update (paper Eq. 4–6; the
// caller chooses what r^c is: train uses the return of each training
// episode against the one before), with the gradient taken over the
// decisions of a mini-batch B^batch:
//
//	∇_w J = r^r · Σ_{i∈B^batch} ∇_w [I_i log λ_i + (1 − I_i) log(1 − λ_i)]
//	      = r^r · Σ_{i∈B^batch} (I_i − λ_i) f_i.
//
// Reward estimates that per-batch sum by the mean decision of all the
// batches since the last update times the decisions per batch: the same
// expectation, with the variance of many batches instead of one.
//
// Two simplifications, both documented: the paper's φ is an MLP, this one
// is logistic (linear in f); and instead of masking the whole buffer the
// decisions are made on Candidates·k uniform draws per batch of k, the
// paper's own remedy for large buffers (it scores a sampled subset). The
// features are read from the buffer and from UpdatePriorities (|δ| per
// sampled slot; unseen slots use the largest |δ| seen, as PER's new
// transitions do). A batch's rows are distinct kept transitions (drawn
// without replacement; topped up from the other candidates in the rare
// batch where fewer than k are kept). Weights are 1. Safe for concurrent
// use.
type ERO struct {
	buf *Buffer
	cfg EROConfig

	w       [eroFeatures]float64 // replay policy parameters
	td      []float32            // latest |δ| per slot
	born    []int64              // Adds when the slot was written
	maxTD   float64
	rewards struct{ lo, hi float64 } // running reward range for scaling
	mem     [][eroFeatures + 1]float64
	seen    int64   // decisions since the last update (mem is a reservoir of them)
	perCall int     // decisions per Sample: Candidates·k of the last batch
	keepSum float64 // Σ λ_i over the decisions since the last Stats
	keepN   int64
	// legacyState is set by Load for an ERO section of the older kind
	legacyState bool
	updates     int64

	cand []int32
	keep []int32 // kept candidates (then the others, when too few are kept)
	rest []int32 // candidates not kept
}

// NewERO returns an ERO sampler over buf.
func NewERO(buf *Buffer, cfg EROConfig) (*ERO, error) {
	d := DefaultEROConfig()
	if cfg.Candidates == 0 {
		cfg.Candidates = d.Candidates
	}
	if cfg.LR == 0 {
		cfg.LR = d.LR
	}
	if cfg.Memory == 0 {
		cfg.Memory = d.Memory
	}
	if cfg.Candidates < 1 || cfg.Candidates > 256 || !(cfg.LR > 0) || cfg.Memory < 1 {
		return nil, fmt.Errorf("replay: ERO needs Candidates in [1, 256], LR > 0 and Memory ≥ 1 (got %d, %g, %d)", cfg.Candidates, cfg.LR, cfg.Memory)
	}
	s := &ERO{buf: buf, cfg: cfg, td: make([]float32, buf.cfg.Capacity), born: make([]int64, buf.cfg.Capacity), maxTD: 1}
	s.rewards.lo, s.rewards.hi = math.Inf(1), math.Inf(-1)
	buf.attach(s)
	return s, nil
}

func (s *ERO) onAdd(slot int) {
	s.td[slot] = float32(s.maxTD)
	s.born[slot] = s.buf.adds
	r := float64(s.buf.hot[slot].rew)
	s.rewards.lo, s.rewards.hi = min(s.rewards.lo, r), max(s.rewards.hi, r)
}

func (s *ERO) onReady(int) {}

// EROStats describes the replay policy for a log row.
type EROStats struct {
	Updates  int64   // replay-policy updates so far (Reward calls with decisions)
	KeepMean float64 // mean keep probability λ of the decisions since the last Stats (NaN: none)
}

// Stats returns the policy's update count and the mean keep probability
// of the candidates offered since the previous call, and starts a new
// window.
func (s *ERO) Stats() EROStats {
	s.buf.mu.Lock()
	defer s.buf.mu.Unlock()
	st := EROStats{Updates: s.updates, KeepMean: math.NaN()}
	if s.keepN > 0 {
		st.KeepMean = s.keepSum / float64(s.keepN)
	}
	s.keepSum, s.keepN = 0, 0
	return st
}

// Weights returns the replay policy's parameters (reward, |TD|, age, bias).
func (s *ERO) Weights() [eroFeatures]float64 {
	s.buf.mu.Lock()
	defer s.buf.mu.Unlock()
	return s.w
}

// features writes slot i's features into f: reward scaled to [0, 1] by the
// range seen, |δ| over the largest seen, age over the capacity, 1.
func (s *ERO) features(i int, f *[eroFeatures]float64) {
	r := float64(s.buf.hot[i].rew)
	span := s.rewards.hi - s.rewards.lo
	f[0] = 0
	if span > 0 {
		f[0] = (r - s.rewards.lo) / span
	}
	f[1] = float64(s.td[i]) / max(s.maxTD, 1e-12)
	f[2] = float64(s.buf.adds-s.born[i]) / float64(s.buf.cfg.Capacity)
	f[3] = 1
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// Sample offers Candidates·k uniform draws to the replay policy, keeps each
// with probability λ_i (recording the decision for the next Reward), and
// fills dst with k distinct kept ones, uniformly (topped up uniformly from
// the candidates not kept when fewer than k are).
func (s *ERO) Sample(dst *Batch, rng *rand.Rand) bool {
	b := s.buf
	b.checkBatch(dst)
	b.mu.Lock()
	defer b.mu.Unlock()
	k := dst.Len()
	m := s.cfg.Candidates * k
	if cap(s.cand) < m {
		s.cand, s.keep, s.rest = make([]int32, m), make([]int32, 0, m), make([]int32, 0, m)
	}
	cand := s.cand[:m]
	if !b.drawUniformLocked(cand, rng) {
		return false
	}
	keep := s.keep[:0]
	s.rest = s.rest[:0]
	var f [eroFeatures]float64
	for _, i := range cand {
		s.features(int(i), &f)
		z := 0.0
		for j := range f {
			z += s.w[j] * f[j]
		}
		decision, lam := 0.0, sigmoid(z)
		s.keepSum += lam
		s.keepN++
		if rng.Float64() < lam {
			decision = 1
			keep = append(keep, i)
		} else {
			s.rest = append(s.rest, i)
		}
		var rec [eroFeatures + 1]float64
		copy(rec[:], f[:])
		rec[eroFeatures] = decision
		s.remember(rec, rng)
	}
	s.perCall = m
	s.keep = keep
	// k distinct rows: a partial Fisher–Yates shuffle of the kept
	// candidates, then of the others when fewer than k were kept
	nk := len(keep)
	if nk < k {
		keep = append(keep, s.rest...)
	}
	for r := range k {
		lo, hi := r, nk
		if r >= nk {
			hi = len(keep)
		}
		j := lo + rng.IntN(hi-lo)
		keep[r], keep[j] = keep[j], keep[r]
	}
	b.gatherRows(dst, keep[:k])
	for r := range dst.Weights {
		dst.Weights[r] = 1
	}
	return true
}

// remember adds one decision to the memory: all of them up to Memory, then
// a uniform reservoir sample (Vitter's algorithm R) of the decisions since
// the last Reward.
func (s *ERO) remember(rec [eroFeatures + 1]float64, rng *rand.Rand) {
	s.seen++
	if len(s.mem) < s.cfg.Memory {
		s.mem = append(s.mem, rec)
		return
	}
	if j := rng.Int64N(s.seen); j < int64(len(s.mem)) {
		s.mem[j] = rec
	}
}

// UpdatePriorities records |values| as the latest TD errors of refs (the
// replay policy's second feature). Stale refs are skipped.
func (s *ERO) UpdatePriorities(refs []Ref, values []float64) int {
	b := s.buf
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for r, ref := range refs[:len(values)] {
		v := math.Abs(values[r])
		if !b.validLocked(ref) || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		s.td[ref.Slot] = float32(v)
		s.maxTD = max(s.maxTD, v)
		n++
	}
	return n
}

// Reward trains the replay policy with replay reward rr = r^c_π − r^c_π′
// (the change in the agent's cumulative reward since the last call) on
// the decisions made since then, and forgets them:
// w ← w + LR·rr·B·mean_i (I_i − λ_i) f_i, B the decisions per batch
// (Candidates·k), so that the step is the paper's per-mini-batch sum in
// expectation. It returns how many decisions it used.
func (s *ERO) Reward(rr float64) int {
	s.buf.mu.Lock()
	defer s.buf.mu.Unlock()
	n := len(s.mem)
	if n == 0 || math.IsNaN(rr) || math.IsInf(rr, 0) {
		s.mem, s.seen = s.mem[:0], 0
		return 0
	}
	var g [eroFeatures]float64
	for _, rec := range s.mem {
		z := 0.0
		for j := range eroFeatures {
			z += s.w[j] * rec[j]
		}
		d := rec[eroFeatures] - sigmoid(z)
		for j := range eroFeatures {
			g[j] += d * rec[j]
		}
	}
	for j := range s.w {
		s.w[j] += s.cfg.LR * rr * g[j] * float64(s.perCall) / float64(n)
	}
	s.mem, s.seen = s.mem[:0], 0
	s.updates++
	return n
}
