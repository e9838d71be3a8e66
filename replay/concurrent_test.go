package replay

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"
)

// TestConcurrentWriters runs a learner (Sample + UpdatePriorities), an
// inserter and two scorer goroutines (SetScore) against one VLMRB buffer,
// then checks every leaf equals what its slot's factors say and the tree is
// consistent. Under -race (the Makefile runs replay with it) this also
// proves the accesses are synchronised.
func TestConcurrentWriters(t *testing.T) {
	t.Parallel()
	const capacity = 2000
	b, refs := newTestBuffer(t, capacity, capacity)
	cfg := DefaultVLMRBConfig()
	cfg.UseTD, cfg.ISWeights, cfg.Mapping = true, true, MapRaw
	s, err := NewVLMRB(b, cfg)
	if err != nil {
		t.Fatal(err)
	}
	per, err := NewPER(b, DefaultPERConfig())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var mu sync.Mutex
	pending := append([]Ref(nil), refs...) // refs the scorers may write to, some going stale
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			for {
				select {
				case <-stop:
					return
				default:
				}
				mu.Lock()
				ref := pending[rng.IntN(len(pending))]
				mu.Unlock()
				s.SetScore(ref, rng.Float64())
			}
		}()
	}
	wg.Add(1)
	go func() { // inserter: overwrites slots while scores are in flight
		defer wg.Done()
		for k := 0; ; k++ {
			select {
			case <-stop:
				return
			default:
			}
			r := addN(b, capacity+k, 1)[0]
			mu.Lock()
			pending = append(pending, r)
			mu.Unlock()
		}
	}()
	dst := NewBatch(64, 3, 2)
	rng := rand.New(rand.NewPCG(99, 1))
	td := make([]float64, 64)
	for range 300 {
		for _, smp := range []Sampler{s, per} {
			if !smp.Sample(dst, rng) {
				t.Fatal("empty sample")
			}
			for j := range td {
				td[j] = rng.NormFloat64()
			}
			smp.UpdatePriorities(dst.Refs, td)
			for _, w := range dst.Weights {
				if !(w > 0 && w <= 1) || math.IsNaN(float64(w)) {
					t.Fatalf("weight %v outside (0, 1]", w)
				}
			}
		}
	}
	close(stop)
	wg.Wait()

	b.mu.Lock()
	defer b.mu.Unlock()
	checkTree(t, s.tree)
	checkTree(t, per.tree)
	for i := range capacity {
		if got, want := s.tree.get(i), float64(toLeaf(s.leaf(i))); got != want {
			t.Fatalf("slot %d leaf %v, factors say %v", i, got, want)
		}
	}
	scored := int64(0)
	for _, f := range s.scored {
		scored += int64(f)
	}
	if scored != s.stats.Scored {
		t.Fatalf("scored count %d, flags say %d", s.stats.Scored, scored)
	}
	if s.stats.Stale == 0 {
		t.Log("no stale writes happened in this run (the inserter was slow)")
	}
}
