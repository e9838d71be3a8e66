package policy_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/internal/cputime"
	"github.com/vlmrb/vlmrb/onnx/policy"
	"github.com/vlmrb/vlmrb/tasks"
)

// BenchmarkSAC compares one action from the exported actor (the ONNX
// runtime of package onnx) with the agent's own forward pass, for the
// manipulation tasks' spaces and the default 256×256 actor, one
// observation at a time (evaluation, deployment) and in batches of 256.
func BenchmarkSAC(b *testing.B) {
	O, A := tasks.ObsDim, tasks.ActDim
	a := newSACHidden(b, O, A, []int{256, 256})
	m, err := policy.SAC(a, control.BoxSpec(O, A, -1, 1), policy.Info{Task: "reach"})
	if err != nil {
		b.Fatal(err)
	}
	p, err := policy.New(m)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	const batch = 256
	obs32 := make([]float32, batch*O)
	for i := range obs32 {
		obs32[i] = float32(rng.NormFloat64())
	}
	obs := make([]float64, O)
	for i := range obs {
		obs[i] = float64(obs32[i])
	}
	dst := make([]float64, A)
	out := make([]float32, batch*A)
	b.Run("onnx/1", func(b *testing.B) {
		cpu0 := cputime.Process()
		for b.Loop() {
			p.Act(obs, dst)
		}
		report(b, 1, cpu0)
	})
	b.Run("native/1", func(b *testing.B) {
		cpu0 := cputime.Process()
		for b.Loop() {
			a.Act(dst, obs, true)
		}
		report(b, 1, cpu0)
	})
	b.Run("onnx/256", func(b *testing.B) {
		cpu0 := cputime.Process()
		for b.Loop() {
			if _, err := p.Forward(obs32, batch); err != nil {
				b.Fatal(err)
			}
		}
		report(b, batch, cpu0)
	})
	b.Run("native/256", func(b *testing.B) {
		cpu0 := cputime.Process()
		for b.Loop() {
			a.ActBatch(out, obs32, batch, true)
		}
		report(b, batch, cpu0)
	})
}

// BenchmarkDQN is BenchmarkSAC for a DoorKey-5×5 Q-network (148
// categorical inputs one-hot to 1,033, 128×128): the greedy action of one
// observation.
func BenchmarkDQN(b *testing.B) {
	a, env := newDQNHidden(b, []int{128, 128})
	m, err := policy.DQN(a, env.Spec(), policy.Info{Task: "doorkey-5x5"})
	if err != nil {
		b.Fatal(err)
	}
	p, err := policy.New(m)
	if err != nil {
		b.Fatal(err)
	}
	obs, _ := env.Reset(1)
	dst := []float64{0}
	b.Run("onnx/1", func(b *testing.B) {
		cpu0 := cputime.Process()
		for b.Loop() {
			p.Act(obs, dst)
		}
		report(b, 1, cpu0)
	})
	b.Run("native/1", func(b *testing.B) {
		cpu0 := cputime.Process()
		for b.Loop() {
			dst[0] = float64(a.Greedy(obs))
		}
		report(b, 1, cpu0)
	})
}

// report gives actions per second of wall time and per CPU-second of the
// process (the honest figure on a shared machine).
func report(b *testing.B, perOp int, cpu0 time.Duration) {
	n := float64(b.N * perOp)
	b.ReportMetric(n/b.Elapsed().Seconds(), "actions/s")
	if cpu := (cputime.Process() - cpu0).Seconds(); cpu > 0 {
		b.ReportMetric(n/cpu, "actions/cpu-s")
	}
}
