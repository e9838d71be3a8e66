package replay_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/vlmrb/vlmrb/replay"
)

// A training loop with VLM-RB replay: add transitions, let a scorer write
// VLM scores back (from any goroutine), sample, and return |δ| for the
// continuous-control variant.
func ExampleVLMRB() {
	buf, err := replay.NewBuffer(replay.Config{Capacity: 1000, ObsDim: 2, ActDim: 1})
	if err != nil {
		panic(err)
	}
	cfg := replay.DefaultVLMRBConfig()
	cfg.WarmupSteps = 100 // λ rises 0 → 0.5 over 100 Sample calls
	cfg.UseTD = true      // leaf = p^VLM · |δ|
	vlm, err := replay.NewVLMRB(buf, cfg)
	if err != nil {
		panic(err)
	}

	var refs []replay.Ref
	for t := range 10 {
		refs = append(refs, buf.Add(replay.Transition{
			Obs: []float64{float64(t), 0}, Action: []float64{0.1}, Reward: 0,
			NextObs: []float64{float64(t + 1), 0}, Env: 0, Episode: 0, Step: int32(t),
		}))
	}
	vlm.SetScore(refs[3], 0.9) // a scorer saw success in the clip starting at step 3

	batch := replay.NewBatch(4, 2, 1)
	rng := rand.New(rand.NewPCG(1, 2))
	vlm.Sample(batch, rng)
	// ... agent.Update(batch), then write |δ| back:
	vlm.UpdatePriorities(batch.Refs, []float64{0.5, 0.1, 2, 0.3})

	st := vlm.Stats()
	fmt.Printf("stored %d, scored %d, λ now %.3f\n", buf.Len(), st.Scored, vlm.Lambda())
	// Output: stored 10, scored 1, λ now 0.005
}

// Bytes per stored transition for MetaWorld shapes (obs 39, action 4).
func ExampleBytesPerTransition() {
	fmt.Println(replay.BytesPerTransition(39, 4), "bytes per transition")
	// Output: 356 bytes per transition
}
