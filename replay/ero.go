package replay

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// EROConfig configures Experience Replay Optimization.
type EROConfig struct {
	// Candidates is how many transitions per batch row are drawn
	// uniformly and offered to the replay policy (default 4).
	Candidates int
	// LR is the replay policy's REINFORCE step size (default 0.05).
	LR float64
	// Memory bounds the (features, decision) pairs kept between two
	// replay-policy updates (default 65536; older ones are dropped).
	Memory int
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
// agent's cumulative (evaluation) return since the previous update
// (paper Eq. 4–6):
//
//	∇_w J = r^r · Σ_i ∇_w [I_i log λ_i + (1 − I_i) log(1 − λ_i)]
//	      = r^r · Σ_i (I_i − λ_i) f_i.
//
// Two simplifications, both documented: the paper's φ is an MLP, this one
// is logistic (linear in f); and instead of masking the whole buffer the
// decisions are made on Candidates·k uniform draws per batch of k, the
// paper's own remedy for large buffers (it scores a sampled subset). The
// features are read from the buffer and from UpdatePriorities (|δ| per
// sampled slot; unseen slots use the largest |δ| seen, as PER's new
// transitions do). Weights are 1. Safe for concurrent use.
type ERO struct {
	buf *Buffer
	cfg EROConfig

	w       [eroFeatures]float64 // replay policy parameters
	td      []float32            // latest |δ| per slot
	born    []int64              // Adds when the slot was written
	maxTD   float64
	rewards struct{ lo, hi float64 } // running reward range for scaling
	mem     [][eroFeatures + 1]float64
	updates int64

	cand []int32
	keep []int32
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
// fills dst uniformly from the kept ones (from all candidates when none is
// kept).
func (s *ERO) Sample(dst *Batch, rng *rand.Rand) bool {
	b := s.buf
	b.checkBatch(dst)
	b.mu.Lock()
	defer b.mu.Unlock()
	k := dst.Len()
	m := s.cfg.Candidates * k
	if cap(s.cand) < m {
		s.cand, s.keep = make([]int32, m), make([]int32, 0, m)
	}
	cand := s.cand[:m]
	if !b.drawUniformLocked(cand, rng) {
		return false
	}
	keep := s.keep[:0]
	var f [eroFeatures]float64
	for _, i := range cand {
		s.features(int(i), &f)
		z := 0.0
		for j := range f {
			z += s.w[j] * f[j]
		}
		decision := 0.0
		if rng.Float64() < sigmoid(z) {
			decision = 1
			keep = append(keep, i)
		}
		if len(s.mem) >= s.cfg.Memory {
			s.mem = s.mem[1:]
		}
		var rec [eroFeatures + 1]float64
		copy(rec[:], f[:])
		rec[eroFeatures] = decision
		s.mem = append(s.mem, rec)
	}
	if len(keep) == 0 {
		keep = append(keep, cand...)
	}
	s.keep = keep
	idx := cand[:k] // reuse: the batch rows drawn from the kept set
	for r := range idx {
		idx[r] = keep[rng.IntN(len(keep))]
	}
	b.gatherRows(dst, idx)
	for r := range dst.Weights {
		dst.Weights[r] = 1
	}
	return true
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
// (the change in the agent's evaluation return since the last call) on
// the decisions made since then, and forgets them:
// w ← w + LR·rr·mean_i (I_i − λ_i) f_i. It returns how many decisions
// it used.
func (s *ERO) Reward(rr float64) int {
	s.buf.mu.Lock()
	defer s.buf.mu.Unlock()
	n := len(s.mem)
	if n == 0 || math.IsNaN(rr) || math.IsInf(rr, 0) {
		s.mem = s.mem[:0]
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
		s.w[j] += s.cfg.LR * rr * g[j] / float64(n)
	}
	s.mem = s.mem[:0]
	s.updates++
	return n
}
