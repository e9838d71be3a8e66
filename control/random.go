package control

import "math/rand/v2"

// RandomPolicy returns a policy of uniform random actions in [−1, 1]
// (agent space), from a PCG generator seeded by seed: the same seed gives
// the same actions.
func RandomPolicy(seed uint64) Policy {
	rng := rand.New(rand.NewPCG(seed, 0x72616e64))
	return PolicyFunc(func(obs, dst []float64) {
		for i := range dst {
			dst[i] = 2*rng.Float64() - 1
		}
	})
}
