package replay

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// PERConfig holds the proportional prioritized replay parameters (Schaul et
// al. 2016; papers.md §4.3). The yaml keys are those of robot-train's
// buffer section, which embeds it (BetaSteps follows from the run's length).
type PERConfig struct {
	Alpha     float64 `yaml:"per_alpha"` // priority exponent α ≥ 0: P(i) = p_i^α / Σ p^α (0.6)
	Beta0     float64 `yaml:"per_beta0"` // importance-weight exponent at step 0, in [0, 1] (0.4)
	BetaSteps int64   `yaml:"-"`         // Sample calls over which β rises linearly to 1; ≤ 0 means β = 1 throughout
	Eps       float64 `yaml:"per_eps"`   // ε > 0 added to every priority before the exponent (1e-6)
}

// DefaultPERConfig returns PER's proportional-variant values: α 0.6, β₀ 0.4,
// ε 1e-6. BetaSteps must be set to the run's number of updates.
func DefaultPERConfig() PERConfig { return PERConfig{Alpha: 0.6, Beta0: 0.4, Eps: 1e-6} }

// DefaultReLoConfig returns the ReLo SAC values (reducible-loss
// relo_sac.yaml): α 0.5, β₀ 0.4, ε 1e-5.
func DefaultReLoConfig() PERConfig { return PERConfig{Alpha: 0.5, Beta0: 0.4, Eps: 1e-5} }

func (c PERConfig) validate() error {
	if !(c.Alpha >= 0) || math.IsInf(c.Alpha, 0) {
		return fmt.Errorf("replay: PER Alpha must be finite and ≥ 0, got %v", c.Alpha)
	}
	if err := checkUnit("PER Beta0", c.Beta0); err != nil {
		return err
	}
	if !(c.Eps > 0) || math.IsInf(c.Eps, 0) {
		return fmt.Errorf("replay: PER Eps must be finite and > 0, got %v", c.Eps)
	}
	return nil
}

// PER is proportional prioritized replay over a sum tree of p_i^α.
//
// New transitions enter at the running maximum priority (1 initially) so
// each is replayed at least once with high probability. Sample draws one
// index per equal-mass stratum and sets importance weights
// w_i = (N·P(i))^−β / max_batch w, β rising linearly from Beta0 to 1 over
// BetaSteps Sample calls. UpdatePriorities takes |δ| per sampled transition
// (PER) or online−target loss (ReLo, made with NewReLo): p = |δ| + ε, or
// ReLU(loss) + ε.
type PER struct {
	prioBase
	cfg     PERConfig
	relo    bool
	maxP    float64 // running max of p = value + ε
	maxLeaf float64 // maxP^α
}

// NewPER attaches a proportional PER sampler to buf.
func NewPER(buf *Buffer, cfg PERConfig) (*PER, error) { return newPER(buf, cfg, false) }

// NewReLo attaches a ReLo sampler (Sujit et al. 2023): PER whose priority
// is ReLU(L_online − L_target) + ε, fed from sac's per-sample ReLo scores.
func NewReLo(buf *Buffer, cfg PERConfig) (*PER, error) { return newPER(buf, cfg, true) }

func newPER(buf *Buffer, cfg PERConfig, relo bool) (*PER, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	s := &PER{prioBase: newPrioBase(buf), cfg: cfg, relo: relo, maxP: 1, maxLeaf: 1}
	buf.attach(s)
	return s, nil
}

// Config returns the sampler's configuration.
func (s *PER) Config() PERConfig { return s.cfg }

// BytesPerSlot is the sampler's own memory per slot: the sum tree's float32
// leaves, the float64 values and prefix sums of the levels above, and update
// stamps (≈ 5.3 bytes).
func (s *PER) BytesPerSlot() float64 { return s.tree.bytesPerLeaf() }

// Beta returns β for the next Sample call.
func (s *PER) Beta() float64 {
	s.buf.mu.Lock()
	defer s.buf.mu.Unlock()
	return s.betaAt(s.step)
}

func (s *PER) betaAt(t int64) float64 { return linear(s.cfg.Beta0, 1, t, s.cfg.BetaSteps) }

func (s *PER) onAdd(slot int) { s.setLeafLocked(slot, s.maxLeaf) }

func (s *PER) onReady(slot int) { s.tree.set(slot, s.maxLeaf) }

// Sample fills dst with prioritized draws and their importance weights.
func (s *PER) Sample(dst *Batch, rng *rand.Rand) bool {
	b := s.buf
	b.checkBatch(dst)
	b.mu.Lock()
	defer b.mu.Unlock()
	if !s.drawLocked(dst.Refs, dst.Weights, rng) {
		return false
	}
	b.gatherRows(dst, s.idx[:dst.Len()])
	return true
}

// SampleRefs draws len(refs) slots and their importance weights without
// copying transitions, for callers that gather data themselves (and for
// benchmarking the tree alone). len(weights) must equal len(refs).
func (s *PER) SampleRefs(refs []Ref, weights []float32, rng *rand.Rand) bool {
	if len(weights) != len(refs) {
		panic("replay: SampleRefs needs len(weights) == len(refs)")
	}
	s.buf.mu.Lock()
	defer s.buf.mu.Unlock()
	return s.drawLocked(refs, weights, rng)
}

// drawLocked samples len(refs) slots into s.idx, refs and weights.
func (s *PER) drawLocked(refs []Ref, weights []float32, rng *rand.Rand) bool {
	b := s.buf
	if b.ready == 0 {
		return false
	}
	beta := s.betaAt(s.step)
	s.step++
	idx := s.scratch(len(refs))
	t := s.tree
	if !(t.total > 0) { // Σp = 0 (only with all-zero leaves): uniform
		b.drawUniformLocked(idx, rng)
		b.refsLocked(refs, idx)
		for j := range idx {
			weights[j] = 1
		}
		return true
	}
	mass := s.mass[:len(idx)]
	t.sampleStratified(idx, mass, rng)
	b.touchSlots(idx, nil)
	// w_j / max w = (P_j / P_min)^−β: the batch's smallest leaf has weight 1.
	b.refsLocked(refs, idx)
	minLeaf := minPositive(mass)
	switch beta {
	case 0:
		for j := range idx {
			weights[j] = 1
		}
	case 1:
		for j, l := range mass {
			weights[j] = float32(minLeaf / l)
		}
	default:
		powScaled32(weights[:len(mass)], mass, 1/minLeaf, -beta)
	}
	return true
}

// UpdatePriorities sets p = |v| + ε (PER) or max(v, 0) + ε (ReLo), capped at
// 1e30, for each still-valid ref and returns how many were applied. NaN and
// ±Inf values are dropped (counted in Stats.Rejected); so are refs to slots
// that are not sampleable (ShareNextObs: still waiting for their successor;
// counted in Stats.Stale), which enter at the running max when they become
// sampleable.
func (s *PER) UpdatePriorities(refs []Ref, values []float64) int {
	if len(refs) != len(values) {
		panic("replay: UpdatePriorities needs len(values) == len(refs)")
	}
	b := s.buf
	b.mu.Lock()
	defer b.mu.Unlock()
	s.updScratch(len(refs))
	b.touchRefs(refs, nil)
	alpha, eps := s.cfg.Alpha, s.cfg.Eps
	for j, ref := range refs {
		if !b.validLocked(ref) || (b.next != nil && b.hot[ref.Slot].ready == 0) {
			s.stats.Stale++
			continue
		}
		v := values[j]
		if !finite(v) {
			s.stats.Rejected++
			continue
		}
		if s.relo {
			v = max(v, 0)
		} else {
			v = math.Abs(v)
		}
		p := min(v+eps, maxPriority)
		if p > s.maxP {
			s.maxP, s.maxLeaf = p, powAlpha(p, alpha)
		}
		s.uidx = append(s.uidx, ref.Slot)
		s.uval = append(s.uval, p)
	}
	switch alpha { // leaves p^α, batched (powAlpha's values)
	case 1:
	case 0.5:
		for j, p := range s.uval {
			s.uval[j] = math.Sqrt(p)
		}
	case 0:
		for j := range s.uval {
			s.uval[j] = 1
		}
	default:
		powScaled(s.uval, s.uval, 1, alpha)
	}
	s.tree.setMany(s.uidx, s.uval)
	s.stats.Applied += int64(len(s.uidx))
	return len(s.uidx)
}
