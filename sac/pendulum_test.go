package sac

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/internal/pendulum"
	"github.com/vlmrb/vlmrb/nn"
	"github.com/vlmrb/vlmrb/replay"
)

// pendulumRun trains SAC on Pendulum-v1 for steps env steps and returns the
// mean return of 10 deterministic evaluation episodes. A minimal ring
// buffer lives here so the test depends on nothing but sac.
func pendulumRun(t testing.TB, seed uint64, steps int) float64 {
	cfg := DefaultConfig()
	cfg.Seed = seed
	cfg.Hidden = []int{64, 64}
	cfg.BatchSize = 128
	const learningStarts = 1000 // env steps of random actions: the loop's setting, not the agent's
	ag, err := New(cfg, pendulum.ObsDim, pendulum.ActDim)
	if err != nil {
		t.Fatal(err)
	}
	defer ag.Close()
	const O, A = pendulum.ObsDim, pendulum.ActDim
	obsBuf := make([]float32, steps*O)
	nextBuf := make([]float32, steps*O)
	actBuf := make([]float32, steps*A)
	rewBuf := make([]float32, steps)
	rng := rand.New(rand.NewPCG(seed, 77))
	b := replay.NewBatch(cfg.BatchSize, O, A)
	for i := range b.Weights {
		b.Weights[i] = 1
	}
	var env pendulum.Env
	obs := make([]float64, O)
	next := make([]float64, O)
	act := make([]float64, A)
	env.Reset(seed*1000, obs)
	ep := 0
	for step := 0; step < steps; step++ {
		if step < learningStarts {
			ag.RandomAction(act)
		} else {
			ag.Act(act, obs, false)
		}
		r, trunc := env.Step(pendulum.MaxTorque*act[0], next)
		for j := 0; j < O; j++ {
			obsBuf[step*O+j], nextBuf[step*O+j] = float32(obs[j]), float32(next[j])
		}
		actBuf[step] = float32(act[0])
		rewBuf[step] = float32(r)
		copy(obs, next)
		if trunc {
			ep++
			env.Reset(seed*1000+uint64(ep), obs)
		}
		if step >= learningStarts {
			for i := 0; i < cfg.BatchSize; i++ {
				k := rng.IntN(step + 1)
				copy(b.Obs[i*O:(i+1)*O], obsBuf[k*O:(k+1)*O])
				copy(b.NextObs[i*O:(i+1)*O], nextBuf[k*O:(k+1)*O])
				b.Actions[i] = actBuf[k]
				b.Rewards[i] = rewBuf[k]
				// Pendulum only truncates: always bootstrap
			}
			if _, err := ag.Update(b); err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
		}
	}
	return evalPendulum(ag, seed)
}

func evalPendulum(ag *Agent, seed uint64) float64 {
	var env pendulum.Env
	obs := make([]float64, pendulum.ObsDim)
	act := make([]float64, pendulum.ActDim)
	total := 0.0
	for ep := 0; ep < 10; ep++ {
		env.Reset(1_000_000+seed*100+uint64(ep), obs)
		for {
			ag.Act(act, obs, true)
			r, trunc := env.Step(pendulum.MaxTorque*act[0], obs)
			total += r
			if trunc {
				break
			}
		}
	}
	return total / 10
}

// TestPendulumLearns is the learning criterion: mean return over 10
// deterministic evaluation episodes above −250 within 15,000 env steps, for
// 3 of 3 seeds. It takes about a minute per seed on a loaded 2-core machine,
// so -short skips it.
func TestPendulumLearns(t *testing.T) {
	if testing.Short() {
		t.Skip("learning test takes minutes; run without -short")
	}
	const steps = 15000
	const threshold = -250.0
	// the fastest compiled-in backend; the learning result does not depend on it
	prev := nn.Backend()
	if err := nn.SetBackend("auto"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = nn.SetBackend(prev) })
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			ret := pendulumRun(t, seed, steps)
			t.Logf("seed %d (%s): mean eval return %.1f after %d env steps (%.0f s)", seed, nn.Backend(), ret, steps, time.Since(start).Seconds())
			if !(ret > threshold) || math.IsNaN(ret) {
				t.Errorf("seed %d: mean eval return %.1f, want > %.0f", seed, ret, threshold)
			}
		})
	}
}
