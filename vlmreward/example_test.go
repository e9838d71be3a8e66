package vlmreward_test

import (
	"fmt"

	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/vlmreward"
)

// VLM-RM with precomputed embeddings: α = 0 is the cosine similarity with
// the goal (1/√3); α = 1 keeps only the direction d = g − b: with
// x = (1,1,1)/√3, (x − g)·d = −1, so R = 1 − ½·(1/‖d‖²) = 0.75.
func ExampleVLMRM() {
	goal := [][]float64{{1, 0, 0}}
	baseline := [][]float64{{0, 1, 0}}
	img := []float64{1, 1, 1} // normalised inside Reward
	for _, alpha := range []float64{0, 1} {
		v, _ := vlmreward.NewVLMRM(goal, baseline, alpha)
		r, _ := v.Reward(img)
		fmt.Printf("alpha %.0f: R = %.4f\n", alpha, r)
	}
	// Output:
	// alpha 0: R = 0.5774
	// alpha 1: R = 0.7500
}

// Rewards reach SAC through a RewardTable: rows of a sampled batch whose
// transition has no reward yet get weight 0.
func ExampleRewardTable() {
	buf, _ := replay.NewBuffer(replay.Config{Capacity: 4, ObsDim: 1, ActDim: 1})
	t := vlmreward.NewRewardTable(buf.Cap())
	var refs []replay.Ref
	for i := 0; i < 2; i++ {
		ref := buf.Add(replay.Transition{Obs: []float64{0}, Action: []float64{0}, NextObs: []float64{0}})
		t.Clear(ref)
		refs = append(refs, ref)
	}
	t.Set(refs[0], 0.75)
	b := replay.NewBatch(2, 1, 1)
	buf.Read(refs[0], b, 0)
	buf.Read(refs[1], b, 1)
	unset := t.Apply(b)
	fmt.Println(unset, b.Rewards, b.Weights)
	// Output:
	// 1 [0.75 0] [1 0]
}
