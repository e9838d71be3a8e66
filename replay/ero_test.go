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
// REINFORCE gradient of the Bernoulli decisions recomputed by hand:
// Δw = LR·r^r·mean_i (I_i − σ(wᵀf_i)) f_i.
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
			want[j] += 0.5 * 2.0 * (rec[eroFeatures] - 0.5) * rec[j] / 80 // LR·r^r = 0.5·2
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
	s, _ := NewERO(buf, EROConfig{Candidates: 4, LR: 30})
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
