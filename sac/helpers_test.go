package sac

import (
	"math/rand/v2"

	"github.com/vlmrb/vlmrb/replay"
)

// randomBatch fills a batch with seeded random transitions: observations
// N(0,1), actions U(−1,1), rewards N(0,1), 5% terminal, uniform weights.
func randomBatch(n, obs, act int, seed uint64) *replay.Batch {
	rng := rand.New(rand.NewPCG(seed, 1))
	b := replay.NewBatch(n, obs, act)
	for i := range b.Obs {
		b.Obs[i] = float32(rng.NormFloat64())
		b.NextObs[i] = float32(rng.NormFloat64())
	}
	for i := range b.Actions {
		b.Actions[i] = float32(2*rng.Float64() - 1)
	}
	for i := 0; i < n; i++ {
		b.Rewards[i] = float32(rng.NormFloat64())
		if rng.Float64() < 0.05 {
			b.Terminated[i] = 1
		}
		b.Weights[i] = 1
	}
	return b
}
