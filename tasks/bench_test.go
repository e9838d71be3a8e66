package tasks

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/vlmrb/vlmrb/control"
)

// BenchmarkStep measures control steps per second of one Env per task
// (5 simulator steps of 2.5 ms, observation and info included) under the
// scripted expert, resetting at the end of each episode. steps/cpu-s uses
// process CPU time, which other load on a shared machine inflates less.
// (Until the old engine's removal BenchmarkStepArticulated measured this
// engine beside it; bench/RESULTS.md keeps the last table of both.)
func BenchmarkStep(b *testing.B) {
	for _, name := range Names() {
		b.Run(name, func(b *testing.B) { benchStep(b, name) })
	}
}

func benchStep(b *testing.B, name string) {
	e, err := Make(name, Options{})
	if err != nil {
		b.Fatal(err)
	}
	pol := e.Expert()
	obs, _ := e.Reset(1)
	b.ReportAllocs()
	a := make([]float64, ActDim)
	seed := uint64(1)
	cpu0 := cpuSeconds()
	for b.Loop() {
		pol.Act(obs, a)
		var term, trunc bool
		obs, _, term, trunc, _, err = e.Step(a)
		if err != nil {
			b.Fatal(err)
		}
		if term || trunc {
			seed++
			obs, _ = e.Reset(seed)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
	if cpu := cpuSeconds() - cpu0; cpu > 0 {
		b.ReportMetric(float64(b.N)/cpu, "steps/cpu-s")
	}
	b.ReportMetric(float64(len(e.Model().Model.Bodies)), "bodies")
}

// BenchmarkVecEnv measures total control steps per second of a VecEnv of N
// push environments under random actions (auto-reset included).
func BenchmarkVecEnv(b *testing.B) {
	for _, n := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("push/N=%d", n), func(b *testing.B) {
			v, err := control.NewVecEnv(n, func(int) (control.Env, error) { return Make("push", Options{}) })
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = v.Close() }()
			v.Reset(1)
			cpu0 := cpuSeconds()
			rng := rand.New(rand.NewPCG(1, 2))
			acts := make([][]float64, n)
			for i := range acts {
				acts[i] = make([]float64, ActDim)
			}
			for b.Loop() {
				for i := range acts {
					for j := range acts[i] {
						acts[i][j] = 2*rng.Float64() - 1
					}
				}
				if _, _, _, _, _, err := v.Step(acts); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "steps/s")
			if cpu := cpuSeconds() - cpu0; cpu > 0 {
				b.ReportMetric(float64(b.N*n)/cpu, "steps/cpu-s")
			}
		})
	}
}
