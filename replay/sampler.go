package replay

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Sampler draws training batches from a Buffer.
//
// Sample fills every row of dst (dst.Len() transitions, with Refs and
// importance Weights) and returns false only when no transition is
// sampleable (the buffer is empty; with ShareNextObs, also while every
// stored transition waits for its successor). It
// allocates nothing after its first call with a given batch size.
//
// UpdatePriorities writes the learner's per-sample signal back after an
// update, one value per ref: |δ| for PER and for VLMRB's TD factor, the
// online-minus-target loss for ReLo (sac's TDErrors / ReLoScores). Refs whose
// slot has been overwritten since they were sampled are dropped; it returns
// how many writes were applied. Uniform ignores the call.
//
// Both methods are safe to call from any goroutine. Samplers that accept VLM
// scores (VLMRB) also implement ScoreSink.
type Sampler interface {
	Sample(dst *Batch, rng *rand.Rand) bool
	UpdatePriorities(refs []Ref, values []float64) int
}

// ScoreSink takes VLM scores for stored transitions. SetScore is safe from
// other goroutines; it returns false and drops the write when ref's slot has
// been overwritten (or the score is not a finite non-negative number).
type ScoreSink interface {
	SetScore(ref Ref, score float64) bool
}

// Stats counts what happened to priority and score writes.
type Stats struct {
	Stale    int64 // writes dropped because the slot was overwritten since the Ref was taken (or, with ShareNextObs, PER writes to a slot not yet sampleable)
	Rejected int64 // writes dropped because the value was NaN, ±Inf or (scores) negative
	Applied  int64 // writes applied
	Scored   int64 // valid slots currently holding a VLM score (VLMRB only)
}

// linear returns a0 + (a1−a0)·min(1, t/steps); steps ≤ 0 means a1 from the
// start.
func linear(a0, a1 float64, t, steps int64) float64 {
	if steps <= 0 {
		return a1
	}
	if t >= steps {
		return a1
	}
	return a0 + (a1-a0)*float64(t)/float64(steps)
}

// Uniform samples sampleable transitions uniformly with replacement; every
// weight is 1. It keeps no per-slot state.
type Uniform struct {
	buf *Buffer
	idx []int32 // sampled slots, guarded by buf.mu
}

// NewUniform returns a uniform sampler over buf.
func NewUniform(buf *Buffer) *Uniform { return &Uniform{buf: buf} }

// Sample fills dst with uniformly drawn transitions.
func (s *Uniform) Sample(dst *Batch, rng *rand.Rand) bool {
	b := s.buf
	b.checkBatch(dst)
	b.mu.Lock()
	defer b.mu.Unlock()
	if cap(s.idx) < dst.Len() {
		s.idx = make([]int32, dst.Len())
	}
	idx := s.idx[:dst.Len()]
	if !b.drawUniformLocked(idx, rng) {
		return false
	}
	b.gatherRows(dst, idx)
	for r := range dst.Weights {
		dst.Weights[r] = 1
	}
	return true
}

// UpdatePriorities does nothing: uniform replay has no priorities.
func (s *Uniform) UpdatePriorities(refs []Ref, values []float64) int { return 0 }

// prioBase is what the prioritized samplers share: the sum tree over leaf
// priorities, the step counter driving their schedules, scratch and stats.
// Every field is guarded by buf.mu.
type prioBase struct {
	buf   *Buffer
	tree  *sumTree
	step  int64 // Sample calls so far (drives β and λ schedules)
	stats Stats

	idx  []int32   // sampled slots
	mass []float64 // their leaf values (prioritized draws)
	uidx []int32   // slots of applied updates
	uval []float64 // their new leaves
}

func newPrioBase(buf *Buffer) prioBase {
	return prioBase{buf: buf, tree: newSumTree(buf.cfg.Capacity)}
}

func (p *prioBase) scratch(m int) []int32 {
	if cap(p.idx) < m {
		p.idx = make([]int32, m)
		p.mass = make([]float64, m)
	}
	return p.idx[:m]
}

func (p *prioBase) updScratch(m int) {
	if cap(p.uidx) < m {
		p.uidx = make([]int32, 0, m)
		p.uval = make([]float64, 0, m)
	}
	p.uidx, p.uval = p.uidx[:0], p.uval[:0]
}

// setLeafLocked sets slot i's tree leaf to v, or to 0 while the slot is not
// sampleable (ShareNextObs: a phantom or a transition waiting for its
// successor).
func (p *prioBase) setLeafLocked(i int, v float64) {
	if p.buf.hot[i].ready == 0 {
		v = 0
	}
	p.tree.set(i, v)
}

// Step returns the number of Sample calls so far, the clock of the β and λ
// schedules.
func (p *prioBase) Step() int64 {
	p.buf.mu.Lock()
	defer p.buf.mu.Unlock()
	return p.step
}

// SetStep sets the schedule clock, e.g. to the learner's update count when
// resuming without a saved sampler state.
func (p *prioBase) SetStep(t int64) {
	if t < 0 {
		panic("replay: SetStep needs t ≥ 0")
	}
	p.buf.mu.Lock()
	defer p.buf.mu.Unlock()
	p.step = t
}

// Stats returns the write counters.
func (p *prioBase) Stats() Stats {
	p.buf.mu.Lock()
	defer p.buf.mu.Unlock()
	return p.stats
}

// Total returns the sum of the leaf priorities (the tree root).
func (p *prioBase) Total() float64 {
	p.buf.mu.Lock()
	defer p.buf.mu.Unlock()
	return p.tree.total
}

// Leaf returns the leaf priority of ref's slot (after the exponent, as it
// enters the tree) and whether ref is still valid.
func (p *prioBase) Leaf(ref Ref) (float64, bool) {
	p.buf.mu.Lock()
	defer p.buf.mu.Unlock()
	if !p.buf.validLocked(ref) {
		return 0, false
	}
	return p.tree.get(int(ref.Slot)), true
}

// maxPriority caps priorities, |δ| and scores (before the exponent) so a
// diverging critic cannot overflow a float32 factor or the tree's float64
// total: 10⁷ leaves of 10³⁰ still sum far below the float64 range.
const maxPriority = 1e30

// finite reports whether v is neither NaN nor ±Inf.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// powAlpha returns x^α with fast paths for the common exponents.
func powAlpha(x, alpha float64) float64 {
	switch alpha {
	case 1:
		return x
	case 0.5:
		return math.Sqrt(x)
	case 0:
		return 1
	}
	return powPos(x, alpha)
}

func checkUnit(name string, v float64) error {
	if !(v >= 0 && v <= 1) {
		return fmt.Errorf("replay: %s must be in [0, 1], got %v", name, v)
	}
	return nil
}
