package grid

import (
	"math/rand/v2"
	"testing"

	"github.com/vlmrb/vlmrb/internal/cputime"
)

// BenchmarkStep measures DoorKey env steps/s with uniformly random actions
// and the observation of every step, the workload of MiniGrid's speed
// anchor (research/anchors/minigrid/mgbench.py: env.step returns the 7×7×3
// egocentric image; reset on episode end). "fast" is StepIndex + Observe
// into a reused slice; "env" is control.Env's Step, which allocates the
// observation and the info map as the interface requires.
func BenchmarkStep(b *testing.B) {
	for _, size := range []int{8, 16} {
		for _, path := range []string{"fast", "env"} {
			b.Run(Names()[indexOf(size)]+"/"+path, func(b *testing.B) {
				e, err := New(size, Options{})
				if err != nil {
					b.Fatal(err)
				}
				e.Reset(0)
				rng := rand.New(rand.NewPCG(0, 1))
				obs := make([]float64, e.ObsDim())
				act := []float64{0}
				seed := uint64(1)
				b.ReportAllocs()
				cpu0 := cputime.Process()
				for b.Loop() {
					a := Action(rng.IntN(NumActions))
					var term, trunc bool
					if path == "fast" {
						_, term, trunc = e.StepIndex(a)
						e.Observe(obs)
					} else {
						act[0] = float64(a)
						_, _, term, trunc, _, err = e.Step(act)
						if err != nil {
							b.Fatal(err)
						}
					}
					if term || trunc {
						e.Reset(seed)
						seed++
					}
				}
				sec := b.Elapsed().Seconds()
				b.ReportMetric(float64(b.N)/sec, "steps/s")
				if cpu := (cputime.Process() - cpu0).Seconds(); cpu > 0 {
					b.ReportMetric(float64(b.N)/cpu, "steps/cpu-s")
				}
			})
		}
	}
}

func indexOf(size int) int {
	for i, s := range Sizes {
		if s == size {
			return i
		}
	}
	panic("grid: size not registered")
}

// BenchmarkExpert measures the planner's decisions per second on 8×8
// (one breadth-first search per step).
func BenchmarkExpert(b *testing.B) {
	e, err := New(8, Options{})
	if err != nil {
		b.Fatal(err)
	}
	e.Reset(0)
	p := Expert(e)
	seed := uint64(1)
	for b.Loop() {
		if _, term, trunc := e.StepIndex(p.Next()); term || trunc {
			e.Reset(seed)
			seed++
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
}
