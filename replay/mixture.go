package replay

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// ScoreMapping turns a VLM score into the VLM priority factor p^VLM.
type ScoreMapping int

const (
	// MapThreshold gives p^VLM = 1 when score > Threshold, else Floor (the
	// paper's reported binary thresholding at 0.5, with a floor ε so a
	// negative clip stays reachable through the prioritized branch).
	MapThreshold ScoreMapping = iota
	// MapRaw gives p^VLM = max(score, Floor).
	MapRaw
)

func (m ScoreMapping) String() string {
	switch m {
	case MapThreshold:
		return "threshold"
	case MapRaw:
		return "raw"
	}
	return fmt.Sprintf("ScoreMapping(%d)", int(m))
}

// MarshalText writes the mapping as threshold or raw.
func (m ScoreMapping) MarshalText() ([]byte, error) {
	if m != MapThreshold && m != MapRaw {
		return nil, fmt.Errorf("no score mapping %d (threshold or raw)", int(m))
	}
	return []byte(m.String()), nil
}

// UnmarshalText reads threshold or raw.
func (m *ScoreMapping) UnmarshalText(b []byte) error {
	for _, c := range []ScoreMapping{MapThreshold, MapRaw} {
		if string(b) == c.String() {
			*m = c
			return nil
		}
	}
	return fmt.Errorf("score_map %q is not a mapping (choose threshold or raw)", b)
}

// VLMRBConfig holds the VLM-RB mixture parameters (papers.md §1.3, §6.1).
// The yaml keys are those of robot-train's buffer section, which embeds
// it; there the IS exponent is PER's per_beta0 and the schedules follow
// from the run's length.
type VLMRBConfig struct {
	LambdaMax   float64      `yaml:"lambda_max"`    // final weight λ_max of the prioritized component, in [0, 1] (0.5)
	WarmupSteps int64        `yaml:"-"`             // Sample calls over which λ rises linearly from 0 to LambdaMax; ≤ 0: LambdaMax from the start
	Default     float64      `yaml:"default_prio"`  // p̄, the priority factor of unscored slots, ≥ 0 (0.5: on the {Floor, 1} scale of MapThreshold)
	Mapping     ScoreMapping `yaml:"score_map"`     // score → p^VLM (MapThreshold)
	Threshold   float64      `yaml:"threshold"`     // MapThreshold cut (0.5)
	Floor       float64      `yaml:"score_floor"`   // ε ≥ 0, the smallest mapped p^VLM (1e-3)
	Alpha       float64      `yaml:"vlm_alpha"`     // exponent on the prioritized component's leaves, ≥ 0 (1: the paper's p_i/Σp)
	UseTD       bool         `yaml:"td_product"`    // continuous-control variant: leaf = (p^VLM·|δ|)^α, |δ| from UpdatePriorities
	TDEps       float64      `yaml:"-"`             // added to |δ| when UseTD (1e-6)
	ISWeights   bool         `yaml:"importance_is"` // importance weights against the mixture probability (the paper reportedly uses none)
	Beta0       float64      `yaml:"-"`             // IS exponent at step 0, in [0, 1] (0.4)
	BetaSteps   int64        `yaml:"-"`             // Sample calls over which β rises linearly to 1; ≤ 0: β = 1 throughout
}

// DefaultVLMRBConfig returns λ_max 0.5, p̄ 0.5, threshold mapping at 0.5 with
// floor 1e-3, α 1, no TD factor, no importance weights. WarmupSteps must be
// set for the run.
func DefaultVLMRBConfig() VLMRBConfig {
	return VLMRBConfig{LambdaMax: 0.5, Default: 0.5, Mapping: MapThreshold, Threshold: 0.5,
		Floor: 1e-3, Alpha: 1, TDEps: 1e-6, Beta0: 0.4}
}

func (c VLMRBConfig) validate() error {
	if err := checkUnit("VLMRB LambdaMax", c.LambdaMax); err != nil {
		return err
	}
	if err := checkUnit("VLMRB Beta0", c.Beta0); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"Default", c.Default}, {"Floor", c.Floor}, {"Alpha", c.Alpha}, {"TDEps", c.TDEps}, {"Threshold", c.Threshold}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("replay: VLMRB %s must be finite and ≥ 0, got %v", f.name, f.v)
		}
	}
	if c.Mapping != MapThreshold && c.Mapping != MapRaw {
		return fmt.Errorf("replay: unknown VLMRB score mapping %v", c.Mapping)
	}
	if c.UseTD && !(c.TDEps > 0) {
		return fmt.Errorf("replay: VLMRB with UseTD needs TDEps > 0, got %v", c.TDEps)
	}
	return nil
}

// VLMRB samples from the VLM-RB mixture
//
//	q_t(i) = λ_t · p_i/Σp + (1 − λ_t)/N,
//
// N the number of sampleable slots (valid slots; with ShareNextObs less
// phantoms and pending transitions, which have p_i = 0 and are skipped by
// the uniform component), λ_t rising linearly from 0 to LambdaMax over
// WarmupSteps Sample calls. Each draw independently takes the prioritized
// branch with probability λ_t (a stratified sum-tree draw) and otherwise a
// uniform slot. p_i = (p^VLM_i · τ_i)^α where p^VLM_i is the mapped score, or
// the default p̄ while the slot is unscored, and τ_i is |δ_i| + TDEps when
// UseTD (new slots at the running max, 1 initially) and 1 otherwise. The two
// factors are kept in separate arrays so either can be rewritten alone.
// When Σp = 0 every draw is uniform.
//
// Scores arrive through SetScore (a ScoreSink) from any goroutine.
type VLMRB struct {
	prioBase
	cfg    VLMRBConfig
	score  []float32 // raw score per slot (for logging and re-mapping)
	scored []uint8   // 1 when the slot holds a score for its current generation
	td     []float32 // |δ| + TDEps per slot (UseTD only)
	maxTD  float64   // running max of td (1 initially)
	lastK  int       // prioritized draws of the last sample
}

// NewVLMRB attaches a VLM-RB mixture sampler to buf.
func NewVLMRB(buf *Buffer, cfg VLMRBConfig) (*VLMRB, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	n := buf.cfg.Capacity
	s := &VLMRB{prioBase: newPrioBase(buf), cfg: cfg, score: make([]float32, n),
		scored: make([]uint8, n), maxTD: 1}
	if cfg.UseTD {
		s.td = make([]float32, n)
	}
	buf.attach(s)
	return s, nil
}

// Config returns the sampler's configuration.
func (s *VLMRB) Config() VLMRBConfig { return s.cfg }

// BytesPerSlot is the sampler's own memory per slot: the sum tree (≈ 5.3
// bytes), raw score 4, scored flag 1, and |δ| 4 with UseTD.
func (s *VLMRB) BytesPerSlot() float64 {
	b := s.tree.bytesPerLeaf() + 4 + 1
	if s.cfg.UseTD {
		b += 4
	}
	return b
}

// LastPrioritized returns how many draws of the last Sample or SampleRefs
// came from the prioritized branch; they are the first ones of the batch.
func (s *VLMRB) LastPrioritized() int {
	s.buf.mu.Lock()
	defer s.buf.mu.Unlock()
	return s.lastK
}

// Lambda returns λ for the next Sample call.
func (s *VLMRB) Lambda() float64 {
	s.buf.mu.Lock()
	defer s.buf.mu.Unlock()
	return s.lambdaAt(s.step)
}

func (s *VLMRB) lambdaAt(t int64) float64 { return linear(0, s.cfg.LambdaMax, t, s.cfg.WarmupSteps) }

// Beta returns the IS exponent for the next Sample call (used with ISWeights).
func (s *VLMRB) Beta() float64 {
	s.buf.mu.Lock()
	defer s.buf.mu.Unlock()
	return linear(s.cfg.Beta0, 1, s.step, s.cfg.BetaSteps)
}

// mapScore is p^VLM for a raw score.
func (s *VLMRB) mapScore(score float64) float64 {
	if s.cfg.Mapping == MapThreshold {
		if score > s.cfg.Threshold {
			return 1
		}
		return s.cfg.Floor
	}
	return max(score, s.cfg.Floor)
}

// leaf computes slot i's tree leaf from its two factors.
func (s *VLMRB) leaf(i int) float64 {
	p := s.cfg.Default
	if s.scored[i] != 0 {
		p = s.mapScore(float64(s.score[i]))
	}
	if s.td != nil {
		p *= float64(s.td[i])
	}
	return powAlpha(p, s.cfg.Alpha)
}

func (s *VLMRB) onAdd(slot int) {
	if s.scored[slot] != 0 {
		s.scored[slot] = 0
		s.stats.Scored--
	}
	s.score[slot] = 0
	if s.td != nil {
		s.td[slot] = float32(s.maxTD)
	}
	s.setLeafLocked(slot, s.leaf(slot))
}

func (s *VLMRB) onReady(slot int) { s.tree.set(slot, s.leaf(slot)) }

// SetScore stores a VLM score for ref's transition and reprioritizes it. It
// returns false, dropping the write, when the slot was overwritten since ref
// was taken or the score is NaN, infinite or negative. A later score for the
// same ref replaces the earlier one.
func (s *VLMRB) SetScore(ref Ref, score float64) bool {
	s.buf.mu.Lock()
	defer s.buf.mu.Unlock()
	return s.setScoreLocked(ref, score)
}

// SetScores stores scores[i] for refs[i] under one lock acquisition (a
// clip's worth of refs, written by a scorer worker), so a learner sampling
// from the same buffer waits once per clip rather than once per ref. ok[i]
// reports what SetScore would have returned for refs[i]. It panics unless
// len(refs) == len(scores) == len(ok).
func (s *VLMRB) SetScores(refs []Ref, scores []float64, ok []bool) {
	if len(refs) != len(scores) || len(refs) != len(ok) {
		panic("replay: SetScores needs len(refs) == len(scores) == len(ok)")
	}
	s.buf.mu.Lock()
	defer s.buf.mu.Unlock()
	for i, ref := range refs {
		ok[i] = s.setScoreLocked(ref, scores[i])
	}
}

// setScoreLocked is SetScore with the buffer lock held.
func (s *VLMRB) setScoreLocked(ref Ref, score float64) bool {
	b := s.buf
	if !b.validLocked(ref) {
		s.stats.Stale++
		return false
	}
	if !finite(score) || score < 0 {
		s.stats.Rejected++
		return false
	}
	i := int(ref.Slot)
	if s.scored[i] == 0 {
		s.scored[i] = 1
		s.stats.Scored++
	}
	s.score[i] = float32(min(score, maxPriority))
	s.setLeafLocked(i, s.leaf(i))
	s.stats.Applied++
	return true
}

// Score returns ref's raw score and whether it has one; ok is false when ref
// is stale.
func (s *VLMRB) Score(ref Ref) (score float64, scored, ok bool) {
	s.buf.mu.Lock()
	defer s.buf.mu.Unlock()
	if !s.buf.validLocked(ref) {
		return 0, false, false
	}
	return float64(s.score[ref.Slot]), s.scored[ref.Slot] != 0, true
}

// UpdatePriorities sets the TD factor τ = |δ| + TDEps for each still-valid
// ref when UseTD; without UseTD it does nothing and returns 0 (the VLM factor
// comes only from SetScore).
func (s *VLMRB) UpdatePriorities(refs []Ref, values []float64) int {
	if len(refs) != len(values) {
		panic("replay: UpdatePriorities needs len(values) == len(refs)")
	}
	if !s.cfg.UseTD {
		return 0
	}
	b := s.buf
	b.mu.Lock()
	defer b.mu.Unlock()
	s.updScratch(len(refs))
	b.touchRefs(refs, nil)
	for j, ref := range refs {
		if !b.validLocked(ref) {
			s.stats.Stale++
			continue
		}
		v := values[j]
		if !finite(v) {
			s.stats.Rejected++
			continue
		}
		i := int(ref.Slot)
		td := min(math.Abs(v)+s.cfg.TDEps, maxPriority)
		s.td[i] = float32(td)
		if td > s.maxTD {
			s.maxTD = td
		}
		l := s.leaf(i)
		if b.next != nil && b.hot[i].ready == 0 { // pending (ShareNextObs): τ is kept, the leaf stays 0
			l = 0
		}
		s.uidx = append(s.uidx, ref.Slot)
		s.uval = append(s.uval, l)
	}
	s.tree.setMany(s.uidx, s.uval)
	s.stats.Applied += int64(len(s.uidx))
	return len(s.uidx)
}

// Sample fills dst from the mixture and sets importance weights (1 unless
// ISWeights).
func (s *VLMRB) Sample(dst *Batch, rng *rand.Rand) bool {
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

// SampleRefs draws len(refs) slots and weights without copying transitions.
func (s *VLMRB) SampleRefs(refs []Ref, weights []float32, rng *rand.Rand) bool {
	if len(weights) != len(refs) {
		panic("replay: SampleRefs needs len(weights) == len(refs)")
	}
	s.buf.mu.Lock()
	defer s.buf.mu.Unlock()
	return s.drawLocked(refs, weights, rng)
}

func (s *VLMRB) drawLocked(refs []Ref, weights []float32, rng *rand.Rand) bool {
	b := s.buf
	n := b.ready // sampleable slots: N of the uniform component
	if n == 0 {
		return false
	}
	lambda := s.lambdaAt(s.step)
	beta := linear(s.cfg.Beta0, 1, s.step, s.cfg.BetaSteps)
	s.step++
	t := s.tree
	if !(t.total > 0) {
		lambda = 0 // Σp = 0: the prioritized component is undefined; all uniform
	}
	m := len(refs)
	idx := s.scratch(m)
	// each draw takes the prioritized branch with probability λ; the k
	// prioritized draws go first, stratified over the tree.
	k := 0
	if lambda > 0 {
		for range m {
			if rng.Float64() < lambda {
				k++
			}
		}
	}
	s.lastK = k
	mass := s.mass[:m]
	if k > 0 {
		t.sampleStratified(idx[:k], mass[:k], rng)
	}
	b.drawUniformLocked(idx[k:], rng)
	if s.cfg.ISWeights {
		b.touchSlots(idx[:k], nil)
		b.touchSlots(idx[k:], t.leaf)
	} else {
		b.touchSlots(idx, nil)
	}
	b.refsLocked(refs, idx)
	if !s.cfg.ISWeights || lambda == 0 || beta == 0 {
		for j := range weights {
			weights[j] = 1
		}
		return true
	}
	// w_j = (N·q(j))^−β / max w; the batch's smallest q has weight 1.
	leaves := t.leaf
	for j := k; j < m; j++ {
		mass[j] = float64(leaves[idx[j]])
	}
	a, c := lambda/t.total, (1-lambda)/float64(n)
	for j, l := range mass {
		mass[j] = a*l + c // q(j)
	}
	minQ := minPositive(mass)
	if beta == 1 {
		for j, q := range mass {
			weights[j] = float32(minQ / q)
		}
	} else {
		powScaled32(weights[:m], mass, 1/minQ, -beta)
	}
	return true
}
