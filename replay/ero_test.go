package replay

import (
	"math"
	"math/rand/v2"
	"testing"
)

func eroBuffer(t *testing.T, n int) *Buffer {
	t.Helper()
	buf, err := NewBuffer(Config{Capacity: n, ObsDim: 1, ActDim: 1})
	if err != nil {
		t.Fatal(err)
	}
	return buf
}

// TestEROReinforceStep checks one replay-policy update against the
// REINFORCE gradient of the Bernoulli decisions recomputed by hand, the
// paper's per-mini-batch sum estimated by the mean decision times the
// decisions per batch B: Δw = LR·r^r·B·mean_i (I_i − σ(wᵀf_i)) f_i.
func TestEROReinforceStep(t *testing.T) {
	t.Parallel()
	buf := eroBuffer(t, 64)
	s, err := NewERO(buf, EROConfig{Candidates: 2, LR: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 64 {
		buf.Add(Transition{Obs: []float64{0}, Action: []float64{0}, NextObs: []float64{0}, Reward: float64(i % 2)})
	}
	rng := rand.New(rand.NewPCG(3, 3))
	b := NewBatch(8, 1, 1)
	for range 5 {
		if !s.Sample(b, rng) {
			t.Fatal("no sample")
		}
	}
	if len(s.mem) != 5*2*8 {
		t.Fatalf("%d decisions recorded, want 80", len(s.mem))
	}
	var want [eroFeatures]float64
	for _, rec := range s.mem {
		// w = 0: every keep probability is ½
		for j := range eroFeatures {
			want[j] += 0.5 * 2.0 * 16 * (rec[eroFeatures] - 0.5) * rec[j] / 80 // LR·r^r·B = 0.5·2·(2·8)
		}
	}
	if n := s.Reward(2); n != 80 {
		t.Fatalf("Reward used %d decisions", n)
	}
	for j, w := range s.Weights() {
		if math.Abs(w-want[j]) > 1e-12 {
			t.Fatalf("w = %v, want %v", s.Weights(), want)
		}
	}
	if len(s.mem) != 0 {
		t.Fatal("decisions not forgotten after Reward")
	}
}

// TestEROLearnsToPreferRewardingTransitions: the replay reward is the
// share of rewarding transitions in the batches replayed since the last
// update minus ½, standing in for "the agent improved when it replayed
// those"; the replay policy must learn to keep rewarding transitions more
// often than the others.
func TestEROLearnsToPreferRewardingTransitions(t *testing.T) {
	t.Parallel()
	buf := eroBuffer(t, 256)
	s, _ := NewERO(buf, EROConfig{Candidates: 4, LR: 0.5})
	for i := range 256 {
		buf.Add(Transition{Obs: []float64{0}, Action: []float64{0}, NextObs: []float64{0}, Reward: float64(i % 2)})
	}
	rng := rand.New(rand.NewPCG(5, 5))
	b := NewBatch(16, 1, 1)
	for range 400 {
		share := 0.0
		for range 4 {
			s.Sample(b, rng)
			for _, r := range b.Rewards {
				share += float64(r) / 64
			}
		}
		s.Reward(share - 0.5)
	}
	w := s.Weights()
	keepHi, keepLo := sigmoid(w[0]+w[3]+w[2]*0.5), sigmoid(w[3]+w[2]*0.5)
	if keepHi < keepLo+0.2 {
		t.Fatalf("keep probability %.2f for rewarding vs %.2f for other transitions (w = %v)", keepHi, keepLo, w)
	}
}

// TestERODistinctRows: a batch's rows are distinct transitions (the
// paper samples a mini-batch from the kept part of the buffer), also when
// the replay policy keeps almost nothing and the batch is topped up from
// the other candidates.
func TestERODistinctRows(t *testing.T) {
	t.Parallel()
	buf := eroBuffer(t, 4096)
	for i := range 4096 {
		buf.Add(Transition{Obs: []float64{float64(i)}, Action: []float64{0}, NextObs: []float64{0}})
	}
	for _, bias := range []float64{0, -8, 8} { // keep ½, almost none, almost all
		s, err := NewERO(buf, EROConfig{Candidates: 4})
		if err != nil {
			t.Fatal(err)
		}
		s.w[3] = bias
		rng := rand.New(rand.NewPCG(9, 9))
		b := NewBatch(64, 1, 1)
		for range 50 {
			if !s.Sample(b, rng) {
				t.Fatal("no sample")
			}
			seen := map[int32]bool{}
			for r, ref := range b.Refs {
				if seen[ref.Slot] {
					// the candidates are uniform draws with replacement, so a
					// slot drawn twice as a candidate may repeat; count those
					n := 0
					for _, c := range s.cand {
						if c == ref.Slot {
							n++
						}
					}
					if n < 2 {
						t.Fatalf("bias %g: row %d repeats slot %d, drawn once as a candidate", bias, r, ref.Slot)
					}
				}
				seen[ref.Slot] = true
			}
		}
	}
}

// TestEROMemoryReservoir: past Memory decisions, the memory is a uniform
// sample of every decision since the last update (chi-square over ten
// equal spans of the 20,000 decisions, 9 degrees of freedom, p > 0.001:
// χ² < 27.88), not the most recent ones.
func TestEROMemoryReservoir(t *testing.T) {
	t.Parallel()
	s, err := NewERO(eroBuffer(t, 8), EROConfig{Memory: 2000})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 11))
	const total = 20000
	for i := range total {
		s.remember([eroFeatures + 1]float64{float64(i)}, rng)
	}
	if len(s.mem) != 2000 || s.seen != total {
		t.Fatalf("memory %d of %d seen, want 2000 of %d", len(s.mem), s.seen, total)
	}
	var bins [10]float64
	for _, rec := range s.mem {
		bins[int(rec[0])*10/total]++
	}
	chi2 := 0.0
	for _, o := range bins {
		chi2 += (o - 200) * (o - 200) / 200
	}
	if chi2 >= 27.88 {
		t.Fatalf("χ² = %.1f over spans %v: the memory is not uniform over the decisions", chi2, bins)
	}
}
