package replay

import (
	"errors"
	"fmt"
	"sync"
)

// Config sizes a Buffer.
type Config struct {
	Capacity int // transitions held before the oldest is overwritten (> 0)
	ObsDim   int // observation length (> 0), e.g. 39 for MetaWorld state
	ActDim   int // action length (> 0), e.g. 4 for end-effector delta + gripper
}

// Transition is one environment step as the caller hands it to Add. The
// float64 slices are copied (and rounded to float32); Add keeps no reference.
type Transition struct {
	Obs        []float64 // ObsDim observation s_t
	Action     []float64 // ActDim action a_t
	Reward     float64   // r_t
	NextObs    []float64 // ObsDim observation s_{t+1} (the true final observation at an episode end)
	Terminated bool      // the episode ended in a terminal state: do not bootstrap
	Truncated  bool      // the episode was cut by a time limit: bootstrap through it
	Env        int32     // environment instance that produced the step
	Episode    int64     // episode id (unique per run, or per env)
	Step       int32     // step index inside the episode, from 0
}

// Meta is the bookkeeping stored with a transition.
type Meta struct {
	Env     int32
	Episode int64
	Step    int32
}

// Buffer is a preallocated struct-of-arrays ring of float32 transitions.
//
// Slots are written in order 0, 1, …, Capacity−1, 0, …; each write bumps the
// slot's generation, so a Ref taken before an overwrite no longer matches.
// Samplers made with NewPER, NewReLo or NewVLMRB attach to the buffer and are
// told of every Add.
//
// All methods are safe for concurrent use: one mutex guards the data and the
// attached samplers' state, so a sample never sees a half-written
// transition or a half-propagated priority tree.
type Buffer struct {
	mu  sync.Mutex
	cfg Config

	obs     []float32 // Capacity×ObsDim
	nextObs []float32 // Capacity×ObsDim
	act     []float32 // Capacity×ActDim
	hot     []slotHot // Capacity: reward and flags, read with every gathered row
	gen     []uint32  // Capacity: generation per slot (0 = never written), read by every draw and write-back
	env     []int32   // Capacity
	ep      []int64   // Capacity
	step    []int32   // Capacity

	pos  int   // next slot to write
	size int   // valid slots: [0, size) until full, then all
	adds int64 // transitions ever added

	samplers []attached
	sink     []float32 // gatherRows touch-pass results
}

// slotHot packs the per-slot scalars a gathered row reads (reward, flags)
// into 8 bytes, so a sampled row costs one cache line for them instead of
// three. Generations live in their own dense array (4 bytes per slot): index
// draws and write-backs read only those, and a dense array is a quarter of
// the lines.
type slotHot struct {
	rew   float32 // reward
	term  uint8   // 1 when terminated
	trunc uint8   // 1 when truncated
	_     [2]byte
}

// attached is the side of a sampler the buffer drives. Its methods run with
// the buffer's mutex held.
type attached interface {
	onAdd(slot int)
}

// NewBuffer allocates a buffer for cfg.Capacity transitions.
func NewBuffer(cfg Config) (*Buffer, error) {
	if cfg.Capacity <= 0 || cfg.ObsDim <= 0 || cfg.ActDim <= 0 {
		return nil, fmt.Errorf("replay: buffer needs positive Capacity, ObsDim and ActDim (got %d, %d, %d)",
			cfg.Capacity, cfg.ObsDim, cfg.ActDim)
	}
	if cfg.Capacity > 1<<31-1 {
		return nil, errors.New("replay: Capacity must fit in int32 (slots are int32)")
	}
	n := cfg.Capacity
	var a arena
	b := &Buffer{
		cfg:     cfg,
		obs:     allocSlice[float32](&a, n*cfg.ObsDim),
		nextObs: allocSlice[float32](&a, n*cfg.ObsDim),
		act:     allocSlice[float32](&a, n*cfg.ActDim),
		hot:     allocSlice[slotHot](&a, n),
		gen:     allocSlice[uint32](&a, n),
		env:     allocSlice[int32](&a, n),
		ep:      allocSlice[int64](&a, n),
		step:    allocSlice[int32](&a, n),
	}
	release(&a, b)
	return b, nil
}

// BytesPerTransition is the buffer's storage per slot in bytes: obs and next
// obs (4·ObsDim each), action (4·ActDim), reward and the two flags packed in
// 8, generation 4, env 4, episode 8, step 4. Samplers add their own
// per-slot state (see their BytesPerSlot).
func BytesPerTransition(obsDim, actDim int) int {
	return 4*(2*obsDim+actDim) + 8 + 4 + 4 + 8 + 4
}

// Config returns the buffer's configuration.
func (b *Buffer) Config() Config { return b.cfg }

// Cap returns the capacity in transitions.
func (b *Buffer) Cap() int { return b.cfg.Capacity }

// Len returns the number of valid transitions (≤ Cap).
func (b *Buffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.size
}

// Adds returns how many transitions were ever added.
func (b *Buffer) Adds() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.adds
}

// Add stores t in the next slot (overwriting the oldest when full), tells the
// attached samplers, and returns the slot's new Ref. It panics if a slice has
// the wrong length.
func (b *Buffer) Add(t Transition) Ref {
	od, ad := b.cfg.ObsDim, b.cfg.ActDim
	if len(t.Obs) != od || len(t.NextObs) != od || len(t.Action) != ad {
		panic(fmt.Sprintf("replay: Add: obs/next obs/action lengths %d/%d/%d, want %d/%d/%d",
			len(t.Obs), len(t.NextObs), len(t.Action), od, od, ad))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	i := b.pos
	h := &b.hot[i]
	g := b.gen[i] + 1
	if g == 0 { // skip 0, the "never written" generation
		g = 1
	}
	b.gen[i] = g
	cvt(b.obs[i*od:(i+1)*od], t.Obs)
	cvt(b.nextObs[i*od:(i+1)*od], t.NextObs)
	cvt(b.act[i*ad:(i+1)*ad], t.Action)
	h.rew, h.term, h.trunc = float32(t.Reward), b2u(t.Terminated), b2u(t.Truncated)
	b.env[i], b.ep[i], b.step[i] = t.Env, t.Episode, t.Step
	b.pos++
	if b.pos == b.cfg.Capacity {
		b.pos = 0
	}
	if b.size < b.cfg.Capacity {
		b.size++
	}
	b.adds++
	for _, s := range b.samplers {
		s.onAdd(i)
	}
	return Ref{Slot: int32(i), Gen: g}
}

func cvt(dst []float32, src []float64) {
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] = float32(v)
	}
}

func b2u(v bool) uint8 {
	if v {
		return 1
	}
	return 0
}

// Valid reports whether ref still names the transition it was taken for.
func (b *Buffer) Valid(ref Ref) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.validLocked(ref)
}

func (b *Buffer) validLocked(ref Ref) bool {
	return ref.Slot >= 0 && int(ref.Slot) < b.cfg.Capacity && ref.Gen != 0 && b.gen[ref.Slot] == ref.Gen
}

// Meta returns the env, episode and step stored with ref; ok is false when
// ref is stale.
func (b *Buffer) Meta(ref Ref) (m Meta, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.validLocked(ref) {
		return Meta{}, false
	}
	i := ref.Slot
	return Meta{Env: b.env[i], Episode: b.ep[i], Step: b.step[i]}, true
}

// Read copies the transition ref names into row r of dst (weight 1) and
// reports whether ref was still valid.
func (b *Buffer) Read(ref Ref, dst *Batch, r int) bool {
	b.checkBatch(dst)
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.validLocked(ref) {
		return false
	}
	b.gather(dst, r, int(ref.Slot))
	dst.Weights[r] = 1
	return true
}

// checkBatch panics when dst does not fit the buffer's dimensions.
func (b *Buffer) checkBatch(dst *Batch) {
	if dst.ObsDim != b.cfg.ObsDim || dst.ActDim != b.cfg.ActDim {
		panic(fmt.Sprintf("replay: batch dims %d/%d, buffer dims %d/%d",
			dst.ObsDim, dst.ActDim, b.cfg.ObsDim, b.cfg.ActDim))
	}
}

// gather copies slot i into row r of dst (everything but the weight).
func (b *Buffer) gather(dst *Batch, r, i int) {
	od, ad := b.cfg.ObsDim, b.cfg.ActDim
	copy(dst.Obs[r*od:(r+1)*od], b.obs[i*od:(i+1)*od])
	copy(dst.NextObs[r*od:(r+1)*od], b.nextObs[i*od:(i+1)*od])
	copy(dst.Actions[r*ad:(r+1)*ad], b.act[i*ad:(i+1)*ad])
	h := &b.hot[i]
	dst.Rewards[r] = h.rew
	dst.Terminated[r] = float32(h.term)
	dst.Truncated[r] = float32(h.trunc)
	dst.Refs[r] = Ref{Slot: int32(i), Gen: b.gen[i]}
}

// gatherRows copies slots idx[r] into rows r of dst (everything but the
// weights). A first pass touches every cache line the copies will read, with
// independent loads, so the ~10 DRAM misses per row of a large buffer are in
// flight together instead of one copy at a time.
func (b *Buffer) gatherRows(dst *Batch, idx []int32) {
	od, ad := b.cfg.ObsDim, b.cfg.ActDim
	if len(b.obs) >= touchFloats {
		sink := b.sink[:0]
		for _, i := range idx {
			o, a := int(i)*od, int(i)*ad
			v := b.obs[o] + b.obs[o+od-1] + b.nextObs[o] + b.nextObs[o+od-1] + b.act[a] + b.act[a+ad-1] + b.hot[i].rew
			for k := o + 16; k < o+od-1; k += 16 { // lines inside long rows
				v += b.obs[k] + b.nextObs[k]
			}
			sink = append(sink, v)
		}
		b.sink = sink
	}
	for r, i := range idx {
		b.gather(dst, r, int(i))
	}
}

// touchRefs loads the generation (and, with leaves, the tree leaf) of
// every in-range ref with independent loads before a per-ref loop whose
// long body would otherwise take those cache misses one at a time.
func (b *Buffer) touchRefs(refs []Ref, leaves []float32) {
	if len(b.gen) < touchFloats {
		return
	}
	sink := b.sink[:0]
	for _, r := range refs {
		if r.Slot >= 0 && int(r.Slot) < len(b.hot) {
			v := float32(b.gen[r.Slot])
			if leaves != nil {
				v += leaves[r.Slot]
			}
			sink = append(sink, v)
		}
	}
	b.sink = sink
}

// touchSlots is touchRefs for sampled slot indices.
func (b *Buffer) touchSlots(idx []int32, leaves []float32) {
	if len(b.gen) < touchFloats {
		return
	}
	sink := b.sink[:0]
	for _, i := range idx {
		v := float32(b.gen[i])
		if leaves != nil {
			v += leaves[i]
		}
		sink = append(sink, v)
	}
	b.sink = sink
}

// touchFloats is the obs array size (float32s) from which gatherRows
// touches rows first: below it the arrays are cache-resident.
const touchFloats = 1 << 18

// attach registers a sampler and initialises it for the slots already
// stored, as if each had just been added.
func (b *Buffer) attach(s attached) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.samplers = append(b.samplers, s)
	for i := range b.size {
		s.onAdd(i)
	}
}
