package replay

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
)

// Config sizes a Buffer. The yaml keys are those of robot-train's buffer
// section, which embeds it (the dimensions come from the task).
type Config struct {
	Capacity int `yaml:"capacity"` // transitions held before the oldest is overwritten (> 0)
	ObsDim   int `yaml:"-"`        // observation length (> 0), e.g. 39 for MetaWorld state
	ActDim   int `yaml:"-"`        // action length (> 0), e.g. 4 for end-effector delta + gripper

	// ShareNextObs stores each observation once: a slot's next obs is read
	// from the slot holding the same env's following transition instead of
	// being stored per slot (see Buffer). It saves 4·ObsDim bytes per slot
	// and costs one extra slot per finished episode.
	ShareNextObs bool `yaml:"share_next_obs"`
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
//
// With Config.ShareNextObs the buffer stores no next-obs array. Slot i's
// next obs is the obs of slot next[i], which is one of:
//   - the slot of the same env's following transition, when it arrives with
//     Obs equal (in float32) to slot i's NextObs and the same Episode — the
//     usual case, whatever other envs were added in between;
//   - a phantom slot written right after slot i's transition when it ends
//     its episode (Terminated or Truncated): the phantom holds the true final
//     observation, which differs from the next episode's reset obs;
//   - a phantom slot written just before the env's following transition when
//     that transition's Obs does not match (the caller did not continue from
//     NextObs): the phantom holds the NextObs that was passed to Add.
//
// Until then slot i is pending: its NextObs waits in a per-env side store
// (ObsDim float32s per env) and the slot is not sampleable. Phantom slots
// are never sampleable. Unsampleable slots have probability zero under
// every sampler (their tree leaves are 0, uniform draws skip them), and the
// uniform part of every sampler is uniform over sampleable slots. Because the
// ring overwrites slots in the order they were written and a slot's
// successor or phantom is always written after it, a slot's next obs lives
// at least as long as the slot. Len counts slots in use, phantoms included;
// Sampleable counts the transitions that can be drawn.
type Buffer struct {
	mu  sync.Mutex
	cfg Config

	obs     []float32 // Capacity×ObsDim
	nextObs []float32 // Capacity×ObsDim; nil with ShareNextObs
	next    []int32   // ShareNextObs: slot holding slot i's next obs, −1 while unknown or for a phantom
	act     []float32 // Capacity×ActDim
	hot     []slotHot // Capacity: reward and flags, read with every gathered row
	gen     []uint32  // Capacity: generation per slot (0 = never written); draws and write-backs use genAt
	env     []int32   // Capacity
	ep      []int64   // Capacity
	step    []int32   // Capacity

	pos   int   // next slot to write
	size  int   // valid slots: [0, size) until full, then all
	adds  int64 // transitions ever added
	ready int   // sampleable slots (= size without ShareNextObs)

	// The ring writes slots in order, so while genRing holds every slot in
	// [0, pos) has generation genHi and every slot in [pos, Capacity) has
	// genLo (= gen[pos]; genHi is its successor, skipping 0): genAt then
	// needs no read of gen, which spares draws and write-backs a cache miss
	// per slot at large capacities. gen stays the record (saved, and read
	// when genRing is false: a loaded file whose generations do not follow
	// the ring).
	genLo, genHi uint32
	genRing      bool

	pend map[int32]*pendingObs // ShareNextObs: per env, the newest transition waiting for its successor

	samplers []attached
	sink     []float32 // gatherRows touch-pass results
}

// slotHot packs the per-slot scalars a gathered row reads (reward, flags)
// into 8 bytes, so a sampled row costs one cache line for them instead of
// three. Generations live in their own dense array (4 bytes per slot), which
// draws and write-backs need not read at all while the ring order gives them
// (see genRing).
type slotHot struct {
	rew   float32 // reward
	term  uint8   // 1 when terminated
	trunc uint8   // 1 when truncated
	ready uint8   // 1 when the slot may be sampled (its next obs is known; not a phantom)
	_     byte
}

// pendingObs is an env's newest transition whose successor has not been
// added yet (ShareNextObs): its slot and generation and the NextObs it was
// added with.
type pendingObs struct {
	slot int32
	gen  uint32
	live bool
	next []float32 // ObsDim
}

// attached is the side of a sampler the buffer drives. Its methods run with
// the buffer's mutex held. onAdd is called for every slot written (its
// ready flag already set); onReady when a pending slot becomes sampleable.
type attached interface {
	onAdd(slot int)
	onReady(slot int)
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
		cfg:  cfg,
		obs:  allocSlice[float32](&a, n*cfg.ObsDim),
		act:  allocSlice[float32](&a, n*cfg.ActDim),
		hot:  allocSlice[slotHot](&a, n),
		gen:  allocSlice[uint32](&a, n),
		env:  allocSlice[int32](&a, n),
		ep:   allocSlice[int64](&a, n),
		step: allocSlice[int32](&a, n),
	}
	if cfg.ShareNextObs {
		b.next = allocSlice[int32](&a, n)
		for i := range b.next {
			b.next[i] = -1
		}
		b.pend = map[int32]*pendingObs{}
	} else {
		b.nextObs = allocSlice[float32](&a, n*cfg.ObsDim)
	}
	b.genHi, b.genRing = 1, true // all slots at generation 0, pos 0
	release(&a, b)
	return b, nil
}

// BytesPerTransition is the buffer's storage per slot in bytes: obs and next
// obs (4·ObsDim each), action (4·ActDim), reward and the flags packed in 8,
// generation 4, env 4, episode 8, step 4. Samplers add their own per-slot
// state (see their BytesPerSlot). With ShareNextObs see
// BytesPerTransitionShared.
func BytesPerTransition(obsDim, actDim int) int {
	return 4*(2*obsDim+actDim) + 8 + 4 + 4 + 8 + 4
}

// BytesPerTransitionShared is the storage per slot with ShareNextObs: one
// obs (4·ObsDim), action, the same scalars as BytesPerTransition and a
// 4-byte next-slot index. Each finished episode also takes one phantom slot,
// so per stored transition it is this times 1 + 1/(mean episode length),
// plus ObsDim float32s per env for pending next obs.
func BytesPerTransitionShared(obsDim, actDim int) int {
	return 4*(obsDim+actDim) + 8 + 4 + 4 + 8 + 4 + 4
}

// Config returns the buffer's configuration.
func (b *Buffer) Config() Config { return b.cfg }

// Cap returns the capacity in transitions.
func (b *Buffer) Cap() int { return b.cfg.Capacity }

// Len returns the number of slots in use (≤ Cap): the valid transitions,
// and with ShareNextObs also the phantom slots holding final observations.
func (b *Buffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.size
}

// Sampleable returns the number of transitions a sampler can draw: Len
// without ShareNextObs; with it, Len less phantom slots and transitions
// still waiting for their successor.
func (b *Buffer) Sampleable() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.ready
}

// Adds returns how many transitions were ever added.
func (b *Buffer) Adds() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.adds
}

// Add stores t in the next slot (overwriting the oldest when full), tells the
// attached samplers, and returns the slot's new Ref. It panics if a slice has
// the wrong length. With ShareNextObs it may also write a phantom slot (see
// Buffer).
func (b *Buffer) Add(t Transition) Ref {
	od, ad := b.cfg.ObsDim, b.cfg.ActDim
	if len(t.Obs) != od || len(t.NextObs) != od || len(t.Action) != ad {
		panic(fmt.Sprintf("replay: Add: obs/next obs/action lengths %d/%d/%d, want %d/%d/%d",
			len(t.Obs), len(t.NextObs), len(t.Action), od, od, ad))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.adds++
	if !b.cfg.ShareNextObs {
		i, g := b.claimLocked()
		b.writeLocked(i, t, 1)
		cvt(b.nextObs[i*od:(i+1)*od], t.NextObs)
		b.notifyAdd(i)
		return Ref{Slot: int32(i), Gen: g}
	}
	pe := b.pend[t.Env]
	if pe == nil {
		pe = &pendingObs{next: make([]float32, od)}
		b.pend[t.Env] = pe
	}
	pred := -1 // the env's pending slot, if still stored
	if pe.live && b.gen[pe.slot] == pe.gen {
		pred = int(pe.slot)
	}
	pe.live = false
	if pred >= 0 && (b.ep[pred] != t.Episode || !sameObs(pe.next, t.Obs)) {
		// t does not continue from pred's NextObs: keep that in a phantom.
		k, _ := b.claimLocked()
		b.writePhantomLocked(k, pred, pe.next)
		b.linkLocked(pred, k)
		pred = -1
	}
	i, g := b.claimLocked()
	b.writeLocked(i, t, 0)
	b.notifyAdd(i)
	if pred >= 0 {
		b.linkLocked(pred, i)
	}
	if t.Terminated || t.Truncated {
		k, _ := b.claimLocked()
		cvt(pe.next, t.NextObs)
		b.writePhantomLocked(k, i, pe.next)
		b.linkLocked(i, k)
	} else if b.gen[i] == g {
		pe.slot, pe.gen, pe.live = int32(i), g, true
		cvt(pe.next, t.NextObs)
	}
	return Ref{Slot: int32(i), Gen: g}
}

// claimLocked takes the next ring slot, retiring what it held, and returns
// it with its new generation.
func (b *Buffer) claimLocked() (int, uint32) {
	i := b.pos
	h := &b.hot[i]
	if h.ready != 0 {
		b.ready--
	}
	h.ready = 0
	if b.next != nil {
		b.next[i] = -1
	}
	g := nextGen(b.gen[i])
	b.gen[i] = g
	b.pos++
	if b.pos == b.cfg.Capacity {
		b.pos = 0
		b.genLo, b.genHi = b.genHi, nextGen(b.genHi)
	}
	if b.size < b.cfg.Capacity {
		b.size++
	}
	return i, g
}

// nextGen is the generation after g, skipping 0 (the "never written"
// generation).
func nextGen(g uint32) uint32 {
	if g++; g == 0 {
		return 1
	}
	return g
}

// genAt returns slot i's generation (see genRing).
func (b *Buffer) genAt(i int32) uint32 {
	if !b.genRing {
		return b.gen[i]
	}
	if int(i) < b.pos {
		return b.genHi
	}
	return b.genLo
}

// refsLocked sets refs[j] to slot idx[j] at its current generation.
func (b *Buffer) refsLocked(refs []Ref, idx []int32) {
	refs = refs[:len(idx)]
	if !b.genRing {
		for j, i := range idx {
			refs[j] = Ref{Slot: i, Gen: b.gen[i]}
		}
		return
	}
	pos, lo, hi := int32(b.pos), b.genLo, b.genHi
	for j, i := range idx {
		g := lo
		if i < pos {
			g = hi
		}
		refs[j] = Ref{Slot: i, Gen: g}
	}
}

// syncGenLocked derives genLo and genHi from gen and pos and sets genRing
// to whether every slot's generation follows the ring (after a load, or a
// test filling the arrays directly).
func (b *Buffer) syncGenLocked() {
	b.genLo = b.gen[b.pos]
	b.genHi = nextGen(b.genLo)
	b.genRing = true
	for i, g := range b.gen {
		if (i < b.pos && g != b.genHi) || (i >= b.pos && g != b.genLo) {
			b.genRing = false
			return
		}
	}
}

// writeLocked stores t's obs, action, reward, flags and metadata in slot i
// with the given ready flag.
func (b *Buffer) writeLocked(i int, t Transition, ready uint8) {
	od, ad := b.cfg.ObsDim, b.cfg.ActDim
	cvt(b.obs[i*od:(i+1)*od], t.Obs)
	cvt(b.act[i*ad:(i+1)*ad], t.Action)
	h := &b.hot[i]
	h.rew, h.term, h.trunc, h.ready = float32(t.Reward), b2u(t.Terminated), b2u(t.Truncated), ready
	b.ready += int(ready)
	b.env[i], b.ep[i], b.step[i] = t.Env, t.Episode, t.Step
}

// writePhantomLocked stores obs (the next obs of slot of) in phantom slot k:
// never sampleable, with of's env and episode and the following step index.
func (b *Buffer) writePhantomLocked(k, of int, obs []float32) {
	od, ad := b.cfg.ObsDim, b.cfg.ActDim
	copy(b.obs[k*od:(k+1)*od], obs)
	clear(b.act[k*ad : (k+1)*ad])
	b.hot[k] = slotHot{}
	b.env[k], b.ep[k], b.step[k] = b.env[of], b.ep[of], b.step[of]+1
	b.notifyAdd(k)
}

// linkLocked records that slot i's next obs is in slot k and makes i
// sampleable, unless writing k overwrote i (a ring of one or two slots).
func (b *Buffer) linkLocked(i, k int) {
	if i == k || b.hot[i].ready != 0 {
		return
	}
	b.next[i] = int32(k)
	b.hot[i].ready = 1
	b.ready++
	for _, s := range b.samplers {
		s.onReady(i)
	}
}

func (b *Buffer) notifyAdd(i int) {
	for _, s := range b.samplers {
		s.onAdd(i)
	}
}

// sameObs reports whether a stored float32 obs equals o rounded to float32.
func sameObs(stored []float32, o []float64) bool {
	o = o[:len(stored)]
	for k, v := range stored {
		if v != float32(o[k]) {
			return false
		}
	}
	return true
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
	return ref.Slot >= 0 && int(ref.Slot) < b.cfg.Capacity && ref.Gen != 0 && b.genAt(ref.Slot) == ref.Gen
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
// reports whether ref was still valid. With ShareNextObs a pending
// transition's next obs comes from the side store; a phantom slot is not a
// transition and reads as invalid.
func (b *Buffer) Read(ref Ref, dst *Batch, r int) bool {
	b.checkBatch(dst)
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.validLocked(ref) || b.nextObsRow(int(ref.Slot)) == nil {
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
	if b.nextObs != nil {
		copy(dst.NextObs[r*od:(r+1)*od], b.nextObs[i*od:(i+1)*od])
	} else {
		copy(dst.NextObs[r*od:(r+1)*od], b.nextObsRow(i))
	}
	copy(dst.Actions[r*ad:(r+1)*ad], b.act[i*ad:(i+1)*ad])
	h := &b.hot[i]
	dst.Rewards[r] = h.rew
	dst.Terminated[r] = float32(h.term)
	dst.Truncated[r] = float32(h.trunc)
	dst.Refs[r] = Ref{Slot: int32(i), Gen: b.genAt(int32(i))}
}

// nextObsRow returns slot i's next obs: its own row, or with ShareNextObs
// the obs row of next[i], or for a pending slot the side store.
func (b *Buffer) nextObsRow(i int) []float32 {
	od := b.cfg.ObsDim
	if b.next == nil {
		return b.nextObs[i*od : (i+1)*od]
	}
	if k := int(b.next[i]); k >= 0 {
		return b.obs[k*od : (k+1)*od]
	}
	if pe := b.pend[b.env[i]]; pe != nil && pe.live && int(pe.slot) == i {
		return pe.next
	}
	return nil // a phantom: it holds an obs, not a transition
}

// drawUniformLocked fills idx with draws uniform over the sampleable slots
// and reports false when there are none. Without ShareNextObs every slot in
// [0, size) is sampleable; with it, draws landing on an unsampleable slot
// (phantoms and pending transitions: about one per episode plus one per
// env) are redrawn, which is exactly uniform over the rest.
func (b *Buffer) drawUniformLocked(idx []int32, rng *rand.Rand) bool {
	if b.ready == 0 {
		return false
	}
	n := b.size
	if b.next == nil {
		for j := range idx {
			idx[j] = int32(rng.IntN(n))
		}
		return true
	}
	for j := range idx {
		i := rng.IntN(n)
		for b.hot[i].ready == 0 {
			i = rng.IntN(n)
		}
		idx[j] = int32(i)
	}
	return true
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
			no := b.nextObs
			n := o
			if b.next != nil { // shared layout: the next obs is another slot's obs row
				no, n = b.obs, max(int(b.next[i]), 0)*od
			}
			v := b.obs[o] + b.obs[o+od-1] + no[n] + no[n+od-1] + b.act[a] + b.act[a+ad-1] + b.hot[i].rew + float32(b.genAt(i))
			for k := 16; k < od-1; k += 16 { // lines inside long rows
				v += b.obs[o+k] + no[n+k]
			}
			sink = append(sink, v)
		}
		b.sink = sink
	}
	for r, i := range idx {
		b.gather(dst, r, int(i))
	}
}

// touchRefs loads what a per-ref write-back loop reads from slot memory —
// the generation (unless genRing makes it arithmetic), the sampleable flag
// with ShareNextObs, and, with leaves, the tree leaf — with independent loads
// before that loop, whose long body would otherwise take the cache misses
// one at a time.
func (b *Buffer) touchRefs(refs []Ref, leaves []float32) {
	gen := b.gen
	if b.genRing {
		gen = nil
	}
	if len(b.hot) < touchFloats || (gen == nil && b.next == nil && leaves == nil) {
		return
	}
	sink := b.sink[:0]
	for _, r := range refs {
		if r.Slot >= 0 && int(r.Slot) < len(b.hot) {
			var v float32
			if gen != nil {
				v = float32(gen[r.Slot])
			}
			if b.next != nil { // ShareNextObs: the sampleable flag is read too
				v += float32(b.hot[r.Slot].ready)
			}
			if leaves != nil {
				v += leaves[r.Slot]
			}
			sink = append(sink, v)
		}
	}
	b.sink = sink
}

// touchSlots loads the generations (unless genRing makes them arithmetic)
// and, with leaves, the tree leaves of sampled slots, as touchRefs does.
func (b *Buffer) touchSlots(idx []int32, leaves []float32) {
	gen := b.gen
	if b.genRing {
		gen = nil
	}
	if len(b.hot) < touchFloats || (gen == nil && leaves == nil) {
		return
	}
	sink := b.sink[:0]
	for _, i := range idx {
		var v float32
		if gen != nil {
			v = float32(gen[i])
		}
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
