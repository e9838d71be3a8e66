package rundir

import (
	"context"
	"slices"
	"testing"

	"github.com/vlmrb/vlmrb/sac"
	"github.com/vlmrb/vlmrb/tasks"
)

// The stochastic evaluation is a function of its seed (the same episodes
// and noise give the same returns), differs from the deterministic policy's
// (the noise reaches the actions), and leaves the agent's own generator
// where it was, so a run that evaluates it trains exactly as one that does
// not.
func TestStochasticEvaluationIsSeededAndLeavesTraining(t *testing.T) {
	env, err := tasks.Make("reach", tasks.Options{MaxSteps: 20})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Close() }()
	spec := env.Spec()
	cfg := sac.DefaultConfig()
	cfg.Hidden, cfg.Seed = []int{16, 16}, 5
	newAgent := func() *sac.Agent {
		a, err := sac.New(cfg, spec.ObsDim, spec.ActDim)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(a.Close)
		return a
	}
	a, b := newAgent(), newAgent()
	ctx := context.Background()
	r1, err := EvaluateStochastic(ctx, env, a, 3, 77)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := EvaluateStochastic(ctx, env, a, 3, 77)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r1.Returns, r2.Returns) {
		t.Errorf("same seed, different returns: %v vs %v", r1.Returns, r2.Returns)
	}
	det, err := Evaluate(ctx, env, AgentPolicy(a), EvalOptions{Episodes: 3, Seed: 77})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(det.Returns, r1.Returns) {
		t.Errorf("stochastic returns %v equal the deterministic policy's: no noise reached the actions", r1.Returns)
	}
	x, y := make([]float64, spec.ActDim), make([]float64, spec.ActDim)
	a.RandomAction(x)
	b.RandomAction(y)
	if !slices.Equal(x, y) {
		t.Errorf("the stochastic evaluation advanced the agent's generator: %v, want %v", x, y)
	}
}
