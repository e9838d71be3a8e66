package rundir

import (
	"context"
	"math/rand/v2"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/sac"
	"github.com/vlmrb/vlmrb/tasks"
)

// stochasticNoiseSalt separates the stochastic evaluation's action noise
// from every other stream of the run.
const stochasticNoiseSalt = 0x5f0c4a57

// StochasticAgentPolicy wraps an agent as the stochastic control.Policy
// SAC trains and collects with: tanh(mean + σ·ε), ε from its own generator
// seeded by seed (never the agent's, so evaluating it leaves training's
// random stream unchanged).
func StochasticAgentPolicy(a *sac.Agent, seed uint64) control.Policy {
	rng := rand.New(rand.NewPCG(seed, stochasticNoiseSalt))
	eps := make([]float64, a.ActDim())
	return control.PolicyFunc(func(obs, dst []float64) {
		for i := range eps {
			eps[i] = rng.NormFloat64()
		}
		a.ActNoise(dst, obs, eps)
	})
}

// EvaluateStochastic runs the deterministic evaluation's episodes (the same
// episode seeds) with the stochastic policy. Issue 49: on reach the two
// differ by up to 0.3 in success, so the run reports both.
func EvaluateStochastic(ctx context.Context, env *tasks.Env, a *sac.Agent, episodes int, seed uint64) (*EvalResult, error) {
	return Evaluate(ctx, env, StochasticAgentPolicy(a, seed), EvalOptions{Episodes: episodes, Seed: seed})
}
