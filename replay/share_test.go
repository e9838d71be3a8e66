package replay

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// shareRecord is what a test passed to Add for one transition.
type shareRecord struct {
	obs, next, act []float64
	rew            float64
	term, trunc    bool
}

// shareDriver adds transitions from several envs in a random interleaving,
// with episodes ending by termination or truncation, occasional
// discontinuities (an env's next Obs not equal to the NextObs it gave
// before) and unique observation values, and remembers each Ref's record.
type shareDriver struct {
	b       *Buffer
	rng     *rand.Rand
	od, ad  int
	envs    []shareEnv
	rec     map[Ref]shareRecord
	pending map[Ref]bool // each env's newest transition, if its episode goes on
	serial  float64
}

type shareEnv struct {
	ep   int64
	step int32
	obs  []float64
	last Ref
	open bool // last does not end its episode
}

func newShareDriver(t *testing.T, capacity, envs int, seed uint64) *shareDriver {
	t.Helper()
	b, err := NewBuffer(Config{Capacity: capacity, ObsDim: 3, ActDim: 2, ShareNextObs: true})
	if err != nil {
		t.Fatal(err)
	}
	d := &shareDriver{b: b, rng: rand.New(rand.NewPCG(seed, 9)), od: 3, ad: 2,
		rec: map[Ref]shareRecord{}, pending: map[Ref]bool{}}
	for e := range envs {
		d.envs = append(d.envs, shareEnv{ep: int64(e) * 1000, obs: d.fresh()})
	}
	return d
}

// fresh returns a never-seen observation.
func (d *shareDriver) fresh() []float64 {
	d.serial++
	return []float64{d.serial, d.rng.Float64(), -d.serial}
}

// add performs one env step of a random env.
func (d *shareDriver) add() {
	e := d.rng.IntN(len(d.envs))
	s := &d.envs[e]
	if s.open && d.rng.IntN(25) == 0 { // discontinuity: the env jumps without ending
		s.obs = d.fresh()
	}
	next := d.fresh()
	end := d.rng.IntN(8) == 0
	term := end && d.rng.IntN(2) == 0
	tr := Transition{Obs: s.obs, Action: []float64{d.serial, 1}, Reward: d.serial / 7, NextObs: next,
		Terminated: term, Truncated: end && !term, Env: int32(e), Episode: s.ep, Step: s.step}
	ref := d.b.Add(tr)
	delete(d.pending, s.last)
	d.rec[ref] = shareRecord{obs: tr.Obs, next: next, act: tr.Action, rew: tr.Reward, term: tr.Terminated, trunc: tr.Truncated}
	s.last, s.open = ref, !end
	if end {
		s.ep++
		s.step = 0
		s.obs = d.fresh() // the reset obs differs from the final obs
	} else {
		d.pending[ref] = true
		s.step++
		s.obs = next
	}
}

// checkRow verifies row r of dst against what was added for dst.Refs[r].
func (d *shareDriver) checkRow(t *testing.T, dst *Batch, r int) {
	t.Helper()
	ref := dst.Refs[r]
	want, ok := d.rec[ref]
	if !ok {
		t.Fatalf("row %d: ref %+v was never returned by Add (a phantom slot was drawn)", r, ref)
	}
	if !d.b.Valid(ref) {
		t.Fatalf("row %d: stale ref %+v", r, ref)
	}
	for k := range d.od {
		if dst.Obs[r*d.od+k] != float32(want.obs[k]) || dst.NextObs[r*d.od+k] != float32(want.next[k]) {
			t.Fatalf("row %d ref %+v: obs %v next %v, added obs %v next %v", r, ref,
				dst.Obs[r*d.od:(r+1)*d.od], dst.NextObs[r*d.od:(r+1)*d.od], want.obs, want.next)
		}
	}
	if dst.Actions[r*d.ad] != float32(want.act[0]) || dst.Rewards[r] != float32(want.rew) ||
		(dst.Terminated[r] == 1) != want.term || (dst.Truncated[r] == 1) != want.trunc {
		t.Fatalf("row %d ref %+v: action/reward/flags do not match what was added", r, ref)
	}
}

// TestShareNextObsExact checks, across episode ends, several interleaved
// envs, discontinuities and many ring wrap-arounds, that every sampler's
// rows carry exactly the NextObs passed to Add, never a phantom or a
// transition still waiting for its successor, and that Read agrees.
func TestShareNextObsExact(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ capacity, envs int }{{1, 1}, {2, 2}, {3, 1}, {97, 1}, {97, 4}, {500, 7}} {
		d := newShareDriver(t, c.capacity, c.envs, uint64(c.capacity*10+c.envs))
		b := d.b
		per, _ := NewPER(b, DefaultPERConfig())
		vcfg := DefaultVLMRBConfig()
		vcfg.UseTD = true
		mix, _ := NewVLMRB(b, vcfg)
		samplers := []Sampler{NewUniform(b), per, mix}
		dst := NewBatch(32, 3, 2)
		rng := rand.New(rand.NewPCG(1, uint64(c.capacity)))
		vals := make([]float64, 32)
		for round := range 60 {
			for range 1 + d.rng.IntN(3*c.capacity) {
				d.add()
			}
			for _, s := range samplers {
				if !s.Sample(dst, rng) {
					if b.Sampleable() != 0 {
						t.Fatalf("cap %d round %d: Sample false with %d sampleable", c.capacity, round, b.Sampleable())
					}
					continue
				}
				for r, ref := range dst.Refs {
					if d.pending[ref] {
						t.Fatalf("cap %d: drew %+v, whose successor has not been added", c.capacity, ref)
					}
					d.checkRow(t, dst, r)
					vals[r] = rng.NormFloat64()
				}
				s.UpdatePriorities(dst.Refs, vals)
				if mix, ok := s.(*VLMRB); ok {
					for _, ref := range dst.Refs[:8] {
						mix.SetScore(ref, rng.Float64())
					}
				}
			}
			// Read agrees for every live ref, pending ones included.
			one := NewBatch(1, 3, 2)
			for ref := range d.rec {
				if !b.Valid(ref) {
					delete(d.rec, ref)
					continue
				}
				if !b.Read(ref, one, 0) {
					t.Fatalf("Read(%+v) false for a live transition", ref)
				}
				d.checkRow(t, one, 0)
			}
		}
		// invariants: the sampleable count, and zero leaves exactly where
		// slots are unsampleable
		b.mu.Lock()
		ready := 0
		for i := range b.size {
			r := b.hot[i].ready != 0
			if r {
				ready++
			}
			if !r && (per.tree.get(i) != 0 || mix.tree.get(i) != 0) {
				t.Fatalf("cap %d: unsampleable slot %d has a leaf", c.capacity, i)
			}
		}
		if ready != b.ready {
			t.Fatalf("cap %d: %d sampleable slots, counter says %d", c.capacity, ready, b.ready)
		}
		checkTree(t, per.tree)
		checkTree(t, mix.tree)
		b.mu.Unlock()
	}
}

// shareFixture fills a 64-slot shared buffer with 3 envs (wrapped) and
// returns it with the unsampleable slots marked.
func shareFixture(t *testing.T) (*shareDriver, []bool) {
	t.Helper()
	d := newShareDriver(t, 64, 3, 5)
	for range 200 {
		d.add()
	}
	b := d.b
	ok := make([]bool, b.Cap())
	b.mu.Lock()
	for i := range b.size {
		ok[i] = b.hot[i].ready != 0
	}
	b.mu.Unlock()
	n := 0
	for _, v := range ok {
		if v {
			n++
		}
	}
	if n == b.Cap() || n < b.Cap()/2 {
		t.Fatalf("fixture has %d sampleable of %d slots", n, b.Cap())
	}
	return d, ok
}

// TestShareNextObsChiSquare checks the target distributions with the option
// on: uniform over sampleable slots, PER proportional to the leaves of
// sampleable slots, and the mixture at λ = 0.5 with its uniform part over
// sampleable slots.
func TestShareNextObsChiSquare(t *testing.T) {
	t.Parallel()
	countsOf := func(d *shareDriver, s Sampler, seed uint64) []int {
		counts := make([]int, d.b.Cap())
		dst := NewBatch(32, 3, 2)
		rng := rand.New(rand.NewPCG(seed, 3))
		for range 3000 {
			if !s.Sample(dst, rng) {
				t.Fatal("Sample false")
			}
			for _, ref := range dst.Refs {
				counts[ref.Slot]++
			}
		}
		return counts
	}
	t.Run("uniform", func(t *testing.T) {
		d, ok := shareFixture(t)
		probs := make([]float64, len(ok))
		for i, v := range ok {
			if v {
				probs[i] = 1
			}
		}
		normalize(probs)
		if p := chiSquareP(t, countsOf(d, NewUniform(d.b), 1), probs); p < chiAlpha {
			t.Fatalf("uniform over sampleable slots rejected: p = %g", p)
		}
	})
	for _, alpha := range []float64{0.6, 1} {
		d, ok := shareFixture(t)
		s, _ := NewPER(d.b, PERConfig{Alpha: alpha, Beta0: 0.4, Eps: 1e-3})
		refs := d.refsBySlot()
		td := make([]float64, len(ok))
		upd, vals := []Ref{}, []float64{}
		for i, r := range refs {
			td[i] = float64(i%5) + 0.1*float64(i%3)
			if ok[i] {
				upd, vals = append(upd, r), append(vals, td[i])
			}
		}
		s.UpdatePriorities(upd, vals)
		probs := make([]float64, len(ok))
		for i := range ok {
			if ok[i] {
				probs[i] = math.Pow(td[i]+1e-3, alpha)
			}
		}
		normalize(probs)
		if p := chiSquareP(t, countsOf(d, s, 2), probs); p < chiAlpha {
			t.Fatalf("PER α %v over sampleable slots rejected: p = %g", alpha, p)
		}
	}
	d, ok := shareFixture(t)
	cfg := DefaultVLMRBConfig()
	cfg.Mapping = MapRaw
	s, _ := NewVLMRB(d.b, cfg)
	refs := d.refsBySlot()
	pv := make([]float64, len(ok))
	n := 0
	for i, r := range refs {
		if !ok[i] {
			continue
		}
		n++
		pv[i] = cfg.Default
		if i%3 == 0 {
			pv[i] = 0.1 + float64(i%7)
			s.SetScore(r, pv[i])
		}
	}
	sum := 0.0
	for _, v := range pv {
		sum += v
	}
	probs := make([]float64, len(ok))
	for i := range ok {
		if ok[i] {
			probs[i] = 0.5*pv[i]/sum + 0.5/float64(n)
		}
	}
	if p := chiSquareP(t, countsOf(d, s, 3), probs); p < chiAlpha {
		t.Fatalf("mixture λ 0.5 over sampleable slots rejected: p = %g", p)
	}
}

// refsBySlot returns the current Ref of every slot (phantoms included).
func (d *shareDriver) refsBySlot() []Ref {
	b := d.b
	b.mu.Lock()
	defer b.mu.Unlock()
	refs := make([]Ref, b.Cap())
	for i := range refs {
		refs[i] = Ref{Slot: int32(i), Gen: b.gen[i]}
	}
	return refs
}

func normalize(p []float64) {
	s := 0.0
	for _, v := range p {
		s += v
	}
	for i := range p {
		p[i] /= s
	}
}

// TestShareNextObsSaveLoad round-trips a shared buffer with PER and VLMRB
// state and pending transitions: the loaded buffer holds the same arrays,
// and its samples equal the original's row for row.
func TestShareNextObsSaveLoad(t *testing.T) {
	t.Parallel()
	d := newShareDriver(t, 200, 4, 11)
	for range 450 {
		d.add()
	}
	b := d.b
	per, _ := NewPER(b, DefaultPERConfig())
	mix, _ := NewVLMRB(b, DefaultVLMRBConfig())
	rng := rand.New(rand.NewPCG(4, 4))
	dst := NewBatch(16, 3, 2)
	per.Sample(dst, rng)
	vals := make([]float64, 16)
	for i := range vals {
		vals[i] = rng.NormFloat64()
	}
	per.UpdatePriorities(dst.Refs, vals)
	mix.SetScore(dst.Refs[0], 0.9)
	var buf bytes.Buffer
	if err := b.Save(&buf); err != nil {
		t.Fatal(err)
	}
	b2, err := NewBuffer(b.Config())
	if err != nil {
		t.Fatal(err)
	}
	per2, _ := NewPER(b2, DefaultPERConfig())
	mix2, _ := NewVLMRB(b2, DefaultVLMRBConfig())
	if err := b2.Load(bytes.NewReader(buf.Bytes())); err != nil {
		t.Fatal(err)
	}
	if b2.Sampleable() != b.Sampleable() || b2.Len() != b.Len() || len(b2.pend) != countLive(b) {
		t.Fatalf("loaded sampleable/len/pending %d/%d/%d, saved %d/%d/%d",
			b2.Sampleable(), b2.Len(), len(b2.pend), b.Sampleable(), b.Len(), countLive(b))
	}
	for _, pair := range [][2]Sampler{{per, per2}, {mix, mix2}, {NewUniform(b), NewUniform(b2)}} {
		r1, r2 := rand.New(rand.NewPCG(8, 8)), rand.New(rand.NewPCG(8, 8))
		d1, d2 := NewBatch(16, 3, 2), NewBatch(16, 3, 2)
		for range 20 {
			pair[0].Sample(d1, r1)
			pair[1].Sample(d2, r2)
			for r := range d1.Refs {
				d.checkRow(t, d1, r)
			}
			if !batchesEqual(d1, d2) {
				t.Fatal("loaded buffer samples differently")
			}
		}
	}
	// the loaded buffer goes on linking pending transitions correctly
	d.b = b2
	for range 300 {
		d.add()
	}
	d2 := NewBatch(64, 3, 2)
	for range 20 {
		per2.Sample(d2, rng)
		for r := range d2.Refs {
			d.checkRow(t, d2, r)
		}
	}
	// a shared file does not load into a per-slot buffer, nor the reverse
	plain, _ := NewBuffer(Config{Capacity: 200, ObsDim: 3, ActDim: 2})
	if err := plain.Load(bytes.NewReader(buf.Bytes())); err == nil {
		t.Fatal("a ShareNextObs file loaded into a per-slot buffer")
	}
}

func countLive(b *Buffer) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, pe := range b.pend {
		if pe.live && b.gen[pe.slot] == pe.gen {
			n++
		}
	}
	return n
}

func batchesEqual(a, c *Batch) bool {
	eq := func(x, y []float32) bool {
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return true
	}
	for i := range a.Refs {
		if a.Refs[i] != c.Refs[i] {
			return false
		}
	}
	return eq(a.Obs, c.Obs) && eq(a.NextObs, c.NextObs) && eq(a.Actions, c.Actions) && eq(a.Rewards, c.Rewards) && eq(a.Weights, c.Weights)
}

// TestLoadVersion1 rewrites a version-2 file of a per-slot buffer as
// version 1 (no layout word) and checks it still loads.
func TestLoadVersion1(t *testing.T) {
	t.Parallel()
	b, _ := newTestBuffer(t, 16, 20)
	var buf bytes.Buffer
	if err := b.Save(&buf); err != nil {
		t.Fatal(err)
	}
	v2 := buf.Bytes()
	const layoutAt = 8 + 4 + 6*8 + 4 // magic, version, six u64 header fields, sampler count
	body := append(append([]byte{}, v2[:layoutAt]...), v2[layoutAt+4:len(v2)-trailerLen]...)
	binary.LittleEndian.PutUint32(body[8:], 1)
	var tr [trailerLen]byte
	binary.LittleEndian.PutUint64(tr[0:], uint64(len(body)))
	binary.LittleEndian.PutUint32(tr[8:], crc32.Checksum(body, crcTable))
	copy(tr[12:], endMagic[:])
	v1 := append(body, tr[:]...)
	b2, _ := NewBuffer(b.Config())
	if err := b2.Load(bytes.NewReader(v1)); err != nil {
		t.Fatalf("version 1 file: %v", err)
	}
	if b2.Len() != b.Len() || b2.Sampleable() != b.Len() {
		t.Fatalf("loaded len %d sampleable %d, want %d", b2.Len(), b2.Sampleable(), b.Len())
	}
	one, two := NewBatch(1, 3, 2), NewBatch(1, 3, 2)
	for i := range 16 {
		ref := Ref{Slot: int32(i), Gen: b.gen[i]}
		if !b.Read(ref, one, 0) || !b2.Read(ref, two, 0) || !batchesEqual(one, two) {
			t.Fatalf("slot %d differs after loading version 1", i)
		}
	}
}

// TestBytesPerTransitionShared checks the shared layout's figure against
// what NewBuffer allocates per slot.
func TestBytesPerTransitionShared(t *testing.T) {
	t.Parallel()
	b, err := NewBuffer(Config{Capacity: 10, ObsDim: 39, ActDim: 4, ShareNextObs: true})
	if err != nil {
		t.Fatal(err)
	}
	if b.nextObs != nil {
		t.Fatal("shared layout allocated a next-obs array")
	}
	total := 4*len(b.obs) + 4*len(b.act) + len(b.hot)*int(unsafe.Sizeof(b.hot[0])) + 4*len(b.gen) +
		4*len(b.env) + 8*len(b.ep) + 4*len(b.step) + 4*len(b.next)
	if got := BytesPerTransitionShared(39, 4); got != total/10 {
		t.Fatalf("BytesPerTransitionShared = %d, buffer allocates %d per slot", got, total/10)
	}
}

// TestShareNextObsZeroAllocs checks that with ShareNextObs, Add (after an
// env's first) and every sampler's Sample and UpdatePriorities allocate
// nothing.
func TestShareNextObsZeroAllocs(t *testing.T) {
	d := newShareDriver(t, 500, 3, 21)
	for range 800 {
		d.add()
	}
	b := d.b
	p, _ := NewPER(b, DefaultPERConfig())
	cfg := DefaultVLMRBConfig()
	cfg.UseTD, cfg.ISWeights = true, true
	v, _ := NewVLMRB(b, cfg)
	dst := NewBatch(64, 3, 2)
	rng := rand.New(rand.NewPCG(1, 1))
	vals := make([]float64, 64)
	for _, s := range []Sampler{NewUniform(b), p, v} {
		s.Sample(dst, rng) // warm-up
		s.UpdatePriorities(dst.Refs, vals)
		if a := testing.AllocsPerRun(50, func() { s.Sample(dst, rng) }); a != 0 {
			t.Errorf("%T.Sample allocates %v", s, a)
		}
		if a := testing.AllocsPerRun(50, func() { s.UpdatePriorities(dst.Refs, vals) }); a != 0 {
			t.Errorf("%T.UpdatePriorities allocates %v", s, a)
		}
	}
	obs, next := []float64{1, 2, 3}, []float64{4, 5, 6}
	k := 0
	add := func() {
		k++
		next[0] = float64(k)
		b.Add(Transition{Obs: obs, NextObs: next, Action: obs[:2], Env: int32(k % 3), Episode: 1, Terminated: k%50 == 0})
		obs, next = next, obs
	}
	add()
	if a := testing.AllocsPerRun(200, add); a != 0 {
		t.Errorf("Add allocates %v", a)
	}
}
