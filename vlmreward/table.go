package vlmreward

import (
	"fmt"
	"math"
	"sync"

	"github.com/vlmrb/vlmrb/replay"
)

// RewardTable holds one learned reward per replay slot, tagged with the
// slot's generation, and applies it to sampled batches. replay.Buffer has
// no reward setter, so the table overlays it: Apply overwrites a Batch's
// Rewards for rows whose Ref has a reward and zeroes the Weights of rows
// whose reward is unset, so SAC never trains on an unset reward. Safe for
// concurrent use.
type RewardTable struct {
	mu     sync.RWMutex
	gen    []uint32
	set    []bool
	reward []float32
}

// NewRewardTable sizes a table for a buffer of capacity slots.
func NewRewardTable(capacity int) *RewardTable {
	return &RewardTable{gen: make([]uint32, capacity), set: make([]bool, capacity), reward: make([]float32, capacity)}
}

// Cap returns the number of slots.
func (t *RewardTable) Cap() int { return len(t.gen) }

// Clear marks ref's slot as holding ref's transition with no reward yet
// (call it right after replay's Add, before the reward is known).
func (t *RewardTable) Clear(ref replay.Ref) {
	t.mu.Lock()
	t.gen[ref.Slot], t.set[ref.Slot] = ref.Gen, false
	t.mu.Unlock()
}

// Set stores the reward for ref, replacing any earlier one for the same
// transition; it returns false (and stores nothing) when the slot has been
// claimed by a newer generation.
func (t *RewardTable) Set(ref replay.Ref, r float64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.setLocked(ref, r)
}

func (t *RewardTable) setLocked(ref replay.Ref, r float64) bool {
	s := ref.Slot
	if s < 0 || int(s) >= len(t.gen) {
		panic(fmt.Sprintf("vlmreward: slot %d outside table of %d", s, len(t.gen)))
	}
	if t.gen[s] != ref.Gen {
		if int32(ref.Gen-t.gen[s]) < 0 { // older generation: stale write
			return false
		}
		t.gen[s] = ref.Gen
	}
	t.reward[s], t.set[s] = float32(r), true
	return true
}

// Get returns the reward stored for ref and whether it is set.
func (t *RewardTable) Get(ref replay.Ref) (float32, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	s := ref.Slot
	if t.gen[s] != ref.Gen || !t.set[s] {
		return 0, false
	}
	return t.reward[s], true
}

// Apply overwrites b.Rewards from the table using b.Refs; rows without a
// reward for their exact Ref get Weights 0 (and reward 0). It returns the
// number of such unset rows.
func (t *RewardTable) Apply(b *replay.Batch) (unset int) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	for i, ref := range b.Refs {
		s := ref.Slot
		if s >= 0 && int(s) < len(t.gen) && t.gen[s] == ref.Gen && t.set[s] {
			b.Rewards[i] = t.reward[s]
			continue
		}
		b.Rewards[i], b.Weights[i] = 0, 0
		unset++
	}
	return unset
}

// Relabeler keeps the downscaled next-state frame of every replay slot
// (ERL-VLM rewards r̂(s_{t+1})) so the whole buffer can be relabelled with
// the current reward model, and the rewards in a RewardTable.
type Relabeler struct {
	Table *RewardTable
	// Standardize makes Relabel rescale the rewards it writes to zero mean
	// and unit standard deviation over the stored slots, and Put apply the
	// same transform until the next Relabel. The rating loss sees rewards
	// only after per-batch min-max normalisation, so the model's output
	// scale is arbitrary (and stays near its tiny initial one for a long
	// time); the agent gets a reward of a known scale instead. Off is the
	// reference behaviour (raw ensemble mean).
	Standardize  bool
	shift, scale float64 // written reward = (r̂ − shift)/scale
	size         int
	dim          int
	mu           sync.Mutex
	imgs         []uint8
	has          []bool
	gens         []uint32
}

// NewRelabeler sizes a relabeler for capacity slots of size×size frames
// (3·size² bytes each).
func NewRelabeler(capacity, size int) *Relabeler {
	dim := 3 * size * size
	return &Relabeler{Table: NewRewardTable(capacity), scale: 1, size: size, dim: dim,
		imgs: make([]uint8, capacity*dim), has: make([]bool, capacity), gens: make([]uint32, capacity)}
}

// Size is the frame side in pixels.
func (r *Relabeler) Size() int { return r.size }

// Put stores the downscaled frame (3·size² CHW bytes, copied) of the
// transition ref and, when m is non-nil, sets its reward from m now (the
// insertion-time label); with m nil the reward stays unset until Relabel.
func (r *Relabeler) Put(ref replay.Ref, img []uint8, m *Model) {
	if len(img) != r.dim {
		panic("vlmreward: Relabeler.Put: wrong image length")
	}
	r.mu.Lock()
	copy(r.imgs[int(ref.Slot)*r.dim:], img)
	r.has[ref.Slot], r.gens[ref.Slot] = true, ref.Gen
	r.mu.Unlock()
	if m == nil {
		r.Table.Clear(ref)
		return
	}
	var out [1]float32
	m.Predict(out[:], img, 1)
	r.Table.Set(ref, r.Reward(out[0]))
}

// Reward maps a raw model output to the reward written into the table
// (the identity unless Standardize has set a transform).
func (r *Relabeler) Reward(raw float32) float64 { return (float64(raw) - r.shift) / r.scale }

// Relabel recomputes the reward of every stored slot with m (the
// ensemble mean) and returns how many slots it labelled.
func (r *Relabeler) Relabel(m *Model) int {
	if m.InputLen() != r.dim {
		panic("vlmreward: Relabel: model input does not match frame size")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var slots []int
	for s, ok := range r.has {
		if ok {
			slots = append(slots, s)
		}
	}
	const chunk = 1024
	raw := make([]float32, len(slots))
	buf := make([]uint8, 0, chunk*r.dim)
	for i := 0; i < len(slots); i += chunk {
		e := min(len(slots), i+chunk)
		buf = buf[:0]
		for _, s := range slots[i:e] {
			buf = append(buf, r.imgs[s*r.dim:(s+1)*r.dim]...)
		}
		m.Predict(raw[i:e], buf, e-i)
	}
	if r.Standardize && len(raw) > 1 {
		var mu, m2 float64
		for k, v := range raw {
			d := float64(v) - mu
			mu += d / float64(k+1)
			m2 += d * (float64(v) - mu)
		}
		sd := math.Sqrt(m2 / float64(len(raw)-1))
		if !(sd > 1e-12) {
			sd = 1
		}
		r.shift, r.scale = mu, sd
	}
	r.Table.mu.Lock()
	for j, s := range slots {
		r.Table.setLocked(replay.Ref{Slot: int32(s), Gen: r.gens[s]}, r.Reward(raw[j]))
	}
	r.Table.mu.Unlock()
	return len(slots)
}
