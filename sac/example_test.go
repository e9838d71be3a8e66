package sac_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/sac"
)

// A seeded agent and batch give the same two updates on every run and
// every supported BLAS backend (to the printed precision). With
// PolicyFrequency 2 the first update runs two actor and α steps (α moves
// by two Adam steps of 1e-3 in log α: e^−0.002 ≈ 0.998) and the second
// runs none, so its actor metrics repeat.
func Example() {
	cfg := sac.DefaultConfig()
	cfg.Hidden = []int{16, 16}
	cfg.Seed = 42
	agent, err := sac.New(cfg, 3, 1)
	if err != nil {
		panic(err)
	}
	defer agent.Close()

	rng := rand.New(rand.NewPCG(7, 7))
	b := replay.NewBatch(8, 3, 1)
	for i := range b.Obs {
		b.Obs[i], b.NextObs[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
	}
	for i := 0; i < b.Len(); i++ {
		b.Actions[i] = float32(2*rng.Float64() - 1)
		b.Rewards[i] = float32(rng.NormFloat64())
		b.Weights[i] = 1
	}
	for u := 0; u < 2; u++ {
		m, err := agent.Update(b)
		if err != nil {
			panic(err)
		}
		fmt.Printf("update %d: qf1 %.4f qf2 %.4f actor %.4f alpha_loss %.4f alpha %.4f\n",
			u, m.QF1Loss, m.QF2Loss, m.ActorLoss, m.AlphaLoss, m.Alpha)
	}
	// Output:
	// update 0: qf1 0.5867 qf2 0.6030 actor 0.3257 alpha_loss 0.6276 alpha 0.9981
	// update 1: qf1 1.6374 qf2 1.6633 actor 0.3257 alpha_loss 0.6276 alpha 0.9981
}
