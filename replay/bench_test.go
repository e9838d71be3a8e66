package replay

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/internal/cputime"
)

// Benchmark shapes from the issue: capacity 10⁶, MetaWorld obs 39, action 4,
// batch 256, α 0.6 for PER.
const (
	benchCap   = 1_000_000
	benchObs   = 39
	benchAct   = 4
	benchBatch = 256
)

// benchFill makes a full buffer of random transitions without going through
// Add (10⁶ Adds per benchmark would dominate setup time): every slot valid at
// generation 1.
func benchFill(tb testing.TB, capacity, obsDim, actDim int) *Buffer {
	tb.Helper()
	b, err := NewBuffer(Config{Capacity: capacity, ObsDim: obsDim, ActDim: actDim})
	if err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range b.obs {
		b.obs[i] = float32(rng.NormFloat64())
	}
	copy(b.nextObs, b.obs)
	for i := range b.act {
		b.act[i] = float32(rng.Float64()*2 - 1)
	}
	for i := range b.hot {
		b.gen[i] = 1
		b.hot[i].rew = float32(rng.Float64())
	}
	for i := range b.hot {
		b.hot[i].ready = 1
	}
	b.size, b.pos, b.adds, b.ready = capacity, 0, int64(capacity), capacity
	b.syncGenLocked()
	return b
}

// benchPriorities gives every leaf of p's tree a random priority (|δ|+ε)^α
// and rebuilds, so sampling is not over a flat tree.
func benchPriorities(p *prioBase, alpha float64) {
	rng := rand.New(rand.NewPCG(3, 4))
	leaves := p.tree.leaf
	for i := range p.buf.size {
		leaves[i] = toLeaf(powAlpha(rng.Float64()+1e-3, alpha))
	}
	p.tree.rebuild()
}

var (
	benchOnce sync.Once
	benchBuf  *Buffer
	benchPER  *PER
	benchMix  *VLMRB
	benchUni  *Uniform
)

func benchFixture(tb testing.TB) {
	benchOnce.Do(func() {
		benchBuf = benchFill(tb, benchCap, benchObs, benchAct)
		var err error
		if benchPER, err = NewPER(benchBuf, PERConfig{Alpha: 0.6, Beta0: 0.4, BetaSteps: 1 << 40, Eps: 1e-6}); err != nil {
			tb.Fatal(err)
		}
		benchPriorities(&benchPER.prioBase, 0.6)
		cfg := DefaultVLMRBConfig()
		cfg.UseTD, cfg.ISWeights, cfg.BetaSteps = true, true, 1<<40
		if benchMix, err = NewVLMRB(benchBuf, cfg); err != nil {
			tb.Fatal(err)
		}
		// half the slots scored, random |δ|: a realistic, non-flat tree.
		rng := rand.New(rand.NewPCG(5, 6))
		for i := 0; i < benchCap; i += 2 {
			benchMix.scored[i], benchMix.score[i] = 1, float32(rng.Float64())
		}
		for i := range benchMix.td {
			benchMix.td[i] = float32(rng.Float64() + 1e-6)
		}
		for i := range benchCap {
			benchMix.tree.leaf[i] = toLeaf(benchMix.leaf(i))
		}
		benchMix.tree.rebuild()
		benchMix.step = 1 << 40 // past warm-up: λ = λ_max
		benchUni = NewUniform(benchBuf)
	})
}

type refSampler interface {
	SampleRefs(refs []Ref, weights []float32, rng *rand.Rand) bool
}

// cpuClock measures the process CPU time of a benchmark loop: start it
// before b.Loop and pass it to reportBatches.
type cpuClock struct{ t0 time.Duration }

func startCPU() cpuClock { return cpuClock{cputime.Process()} }

// reportBatches reports wall-clock batches/s and samples/s, and batches per
// CPU second (process user+system time, so descheduled time on a loaded
// machine does not count; single-goroutine benchmarks only).
func reportBatches(b *testing.B, batches int, c cpuClock) {
	s := b.Elapsed().Seconds()
	b.ReportMetric(float64(batches)/s, "batches/s")
	b.ReportMetric(float64(batches*benchBatch)/s, "samples/s")
	if c.t0 > 0 {
		if d := (cputime.Process() - c.t0).Seconds(); d > 0 {
			b.ReportMetric(float64(batches)/d, "batches/cpu-s")
		}
	}
}

// BenchmarkSample measures batch-256 draws with the transition copy (what the
// learner gets) at capacity 10⁶, obs 39, act 4.
func BenchmarkSample(b *testing.B) {
	benchFixture(b)
	for _, c := range []struct {
		name string
		s    Sampler
	}{{"uniform", benchUni}, {"per", benchPER}, {"vlmrb", benchMix}} {
		b.Run(c.name, func(b *testing.B) {
			dst := NewBatch(benchBatch, benchObs, benchAct)
			rng := rand.New(rand.NewPCG(7, 8))
			n := 0
			clk := startCPU()
			for b.Loop() {
				c.s.Sample(dst, rng)
				n++
			}
			reportBatches(b, n, clk)
		})
	}
}

// BenchmarkSampleRefs measures batch-256 draws of indices and importance
// weights only: the same work as the NumPy sum-tree anchor.
func BenchmarkSampleRefs(b *testing.B) {
	benchFixture(b)
	for _, c := range []struct {
		name string
		s    refSampler
	}{{"per", benchPER}, {"vlmrb", benchMix}} {
		b.Run(c.name, func(b *testing.B) {
			refs, w := make([]Ref, benchBatch), make([]float32, benchBatch)
			rng := rand.New(rand.NewPCG(7, 8))
			n := 0
			clk := startCPU()
			for b.Loop() {
				c.s.SampleRefs(refs, w, rng)
				n++
			}
			reportBatches(b, n, clk)
		})
	}
}

// BenchmarkUpdate measures batch-256 priority write-backs at random slots.
func BenchmarkUpdate(b *testing.B) {
	benchFixture(b)
	for _, c := range []struct {
		name string
		s    Sampler
	}{{"per", benchPER}, {"vlmrb-td", benchMix}} {
		b.Run(c.name, func(b *testing.B) {
			refs, vals := benchUpdates(9)
			n := 0
			clk := startCPU()
			for b.Loop() {
				c.s.UpdatePriorities(refs[n%len(refs)], vals[n%len(vals)])
				n++
			}
			reportBatches(b, n, clk)
		})
	}
	b.Run("vlmrb-score", func(b *testing.B) {
		refs, vals := benchUpdates(10)
		n := 0
		clk := startCPU()
		for b.Loop() {
			r, v := refs[n%len(refs)], vals[n%len(vals)]
			for j := range r {
				benchMix.SetScore(r[j], v[j])
			}
			n++
		}
		reportBatches(b, n, clk)
	})
}

// benchUpdates pre-draws 64 batches of random refs and values so the timed
// loop measures the write-back, not the RNG.
func benchUpdates(seed uint64) ([][]Ref, [][]float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	refs, vals := make([][]Ref, 64), make([][]float64, 64)
	for k := range refs {
		refs[k], vals[k] = make([]Ref, benchBatch), make([]float64, benchBatch)
		for j := range benchBatch {
			refs[k][j] = Ref{Slot: int32(rng.IntN(benchCap)), Gen: 1}
			vals[k][j] = rng.NormFloat64()
		}
	}
	return refs, vals
}

// BenchmarkSampleContended samples while two goroutines write batch-256
// priority updates (PER) or scores (VLMRB) as fast as they can; it reports
// the learner's batches/s and the writers' update batches/s.
func BenchmarkSampleContended(b *testing.B) {
	benchFixture(b)
	for _, c := range []struct {
		name  string
		s     Sampler
		write func(refs []Ref, vals []float64)
	}{
		{"per", benchPER, func(r []Ref, v []float64) { benchPER.UpdatePriorities(r, v) }},
		{"vlmrb", benchMix, func(r []Ref, v []float64) {
			for j := range r {
				benchMix.SetScore(r[j], v[j]*v[j])
			}
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var stop atomic.Bool
			var writes atomic.Int64
			var wg sync.WaitGroup
			for w := range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					refs, vals := benchUpdates(uint64(20 + w))
					for n := 0; !stop.Load(); n++ {
						c.write(refs[n%len(refs)], vals[n%len(vals)])
						writes.Add(1)
					}
				}()
			}
			dst := NewBatch(benchBatch, benchObs, benchAct)
			rng := rand.New(rand.NewPCG(7, 8))
			n := 0
			for b.Loop() {
				c.s.Sample(dst, rng)
				n++
			}
			stop.Store(true)
			wg.Wait()
			reportBatches(b, n, cpuClock{}) // three goroutines: no per-CPU rate
			b.ReportMetric(float64(writes.Load())/b.Elapsed().Seconds(), "write-batches/s")
		})
	}
}

// sharedStepper adds MetaWorld-shaped transitions from 4 interleaved envs
// with 500-step episodes to a ShareNextObs buffer, each continuing from its
// env's previous NextObs.
type sharedStepper struct {
	obs  [4][]float64
	step [4]int32
	ep   [4]int64
	t    Transition
	k    int
}

func newSharedStepper() *sharedStepper {
	s := &sharedStepper{t: Transition{NextObs: make([]float64, benchObs), Action: make([]float64, benchAct)}}
	for e := range s.obs {
		s.obs[e] = make([]float64, benchObs)
		s.ep[e] = int64(e)
	}
	return s
}

func (s *sharedStepper) add(buf *Buffer) {
	e := s.k & 3
	s.k++
	t := &s.t
	t.Obs, t.Env, t.Episode, t.Step = s.obs[e], int32(e), s.ep[e], s.step[e]
	t.NextObs[0] = float64(s.k)
	t.Reward = float64(s.k)
	t.Truncated = s.step[e] == 499
	buf.Add(*t)
	if t.Truncated {
		s.step[e] = 0
		s.ep[e] += 4
		s.obs[e][0] = -float64(s.k) // reset obs
		return
	}
	s.step[e]++
	s.obs[e], t.NextObs = t.NextObs, s.obs[e] // next obs becomes the env's obs
}

var (
	sharedOnce sync.Once
	sharedBuf  *Buffer
	sharedPER  *PER
)

// sharedFixture is benchFixture's PER with ShareNextObs, filled through Add.
func sharedFixture(tb testing.TB) {
	sharedOnce.Do(func() {
		var err error
		sharedBuf, err = NewBuffer(Config{Capacity: benchCap, ObsDim: benchObs, ActDim: benchAct, ShareNextObs: true})
		if err != nil {
			tb.Fatal(err)
		}
		st := newSharedStepper()
		for range benchCap + benchCap/10 {
			st.add(sharedBuf)
		}
		if sharedPER, err = NewPER(sharedBuf, PERConfig{Alpha: 0.6, Beta0: 0.4, BetaSteps: 1 << 40, Eps: 1e-6}); err != nil {
			tb.Fatal(err)
		}
		benchPriorities(&sharedPER.prioBase, 0.6)
		for i, l := range sharedPER.tree.leaf { // unsampleable slots keep leaf 0
			if i < benchCap && sharedBuf.hot[i].ready == 0 && l != 0 {
				sharedPER.tree.leaf[i] = 0
			}
		}
		sharedPER.tree.rebuild()
	})
}

// BenchmarkSampleShared is BenchmarkSample's PER case on a ShareNextObs
// buffer (next obs read from the successor's slot).
func BenchmarkSampleShared(b *testing.B) {
	sharedFixture(b)
	dst := NewBatch(benchBatch, benchObs, benchAct)
	rng := rand.New(rand.NewPCG(7, 8))
	n := 0
	clk := startCPU()
	for b.Loop() {
		sharedPER.Sample(dst, rng)
		n++
	}
	reportBatches(b, n, clk)
	b.ReportMetric(float64(BytesPerTransitionShared(benchObs, benchAct)), "B/slot")
}

// BenchmarkInsert measures Add into a full buffer (the steady state of a
// long run: every Add overwrites the oldest slot) with PER or VLMRB attached
// (obs 39, act 4), and with ShareNextObs and PER ("per-shared": 4 envs,
// 500-step episodes).
func BenchmarkInsert(b *testing.B) {
	b.Run("per-shared", func(b *testing.B) {
		buf, err := NewBuffer(Config{Capacity: benchCap, ObsDim: benchObs, ActDim: benchAct, ShareNextObs: true})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := NewPER(buf, DefaultPERConfig()); err != nil {
			b.Fatal(err)
		}
		st := newSharedStepper()
		for range benchCap { // ring full
			st.add(buf)
		}
		n := 0
		clk := startCPU()
		for b.Loop() {
			st.add(buf)
			n++
		}
		b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "inserts/s")
		if d := (cputime.Process() - clk.t0).Seconds(); d > 0 {
			b.ReportMetric(float64(n)/d, "inserts/cpu-s")
		}
	})
	for _, kind := range []string{"buffer", "per", "vlmrb"} {
		buf := benchFill(b, benchCap, benchObs, benchAct) // touched memory, ring full
		var err error
		switch kind {
		case "per":
			_, err = NewPER(buf, DefaultPERConfig())
		case "vlmrb":
			_, err = NewVLMRB(buf, DefaultVLMRBConfig())
		}
		if err != nil {
			b.Fatal(err)
		}
		b.Run(kind, func(b *testing.B) {
			t := Transition{Obs: make([]float64, benchObs), NextObs: make([]float64, benchObs),
				Action: make([]float64, benchAct)}
			n := 0
			clk := startCPU()
			for b.Loop() {
				t.Step = int32(n)
				buf.Add(t)
				n++
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "inserts/s")
			if d := (cputime.Process() - clk.t0).Seconds(); d > 0 {
				b.ReportMetric(float64(n)/d, "inserts/cpu-s")
			}
		})
	}
}

// BenchmarkScaling measures PER index+weight sampling from 10⁴ to 10⁷ slots
// (obs 1, act 1 so 10⁷ slots fit in memory). It reports ns per sample and
// ns per sample per log₂ N (CPU time when available, so a loaded machine's
// descheduling does not count): the claim "sampling cost grows no faster
// than log N" holds when the second figure does not rise with N.
func BenchmarkScaling(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000, 10_000_000} {
		buf := benchFill(b, n, 1, 1)
		s, err := NewPER(buf, PERConfig{Alpha: 0.6, Beta0: 0.4, BetaSteps: 1 << 40, Eps: 1e-6})
		if err != nil {
			b.Fatal(err)
		}
		benchPriorities(&s.prioBase, 0.6)
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			refs, w := make([]Ref, benchBatch), make([]float32, benchBatch)
			rng := rand.New(rand.NewPCG(7, 8))
			k := 0
			clk := startCPU()
			for b.Loop() {
				s.SampleRefs(refs, w, rng)
				k++
			}
			reportBatches(b, k, clk)
			b.ReportMetric(float64(s.tree.depth()+1), "levels")
			d := b.Elapsed()
			if c := cputime.Process() - clk.t0; clk.t0 > 0 && c > 0 {
				d = c
			}
			ns := float64(d.Nanoseconds()) / float64(k*benchBatch)
			b.ReportMetric(ns, "ns/sample")
			b.ReportMetric(ns/math.Log2(float64(n)), "ns/sample/log2N")
		})
	}
}
