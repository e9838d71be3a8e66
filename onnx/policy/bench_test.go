package policy_test

import (
	"math/rand/v2"
	"testing"

	"github.com/vlmrb/vlmrb/control"
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
		for b.Loop() {
			p.Act(obs, dst)
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "actions/s")
	})
	b.Run("native/1", func(b *testing.B) {
		for b.Loop() {
			a.Act(dst, obs, true)
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "actions/s")
	})
	b.Run("onnx/256", func(b *testing.B) {
		for b.Loop() {
			if _, err := p.Forward(obs32, batch); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "actions/s")
	})
	b.Run("native/256", func(b *testing.B) {
		for b.Loop() {
			a.ActBatch(out, obs32, batch, true)
		}
		b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "actions/s")
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
		for b.Loop() {
			p.Act(obs, dst)
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "actions/s")
	})
	b.Run("native/1", func(b *testing.B) {
		for b.Loop() {
			dst[0] = float64(a.Greedy(obs))
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "actions/s")
	})
}
