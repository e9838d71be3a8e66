package sac

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/vlmrb/vlmrb/internal/cputime"
	"github.com/vlmrb/vlmrb/nn"
)

// Sizes of the benchmark (MetaWorld-like): obs 39, act 4, two
// 256-unit hidden layers, batch 256 — the same as the PyTorch anchor
// (research/anchors/torch_sac_bench.py).
const benchObs, benchAct, benchBatch = 39, 4, 256

// updateFLOPs counts the GEMM floating-point operations of one Update
// averaged over PolicyFrequency (one actor step per update on average, as in
// the anchor): actor forward on s′, target and online critics forward, the
// critics' backward (weight gradients, input gradients of layers ≥ 2), and
// per actor step: actor forward, critics forward, critics' input gradients
// (action columns only at layer 1), actor backward (no input gradient at
// layer 1).
func updateFLOPs(a *Agent, n int) float64 {
	fa, fq := a.actor.FLOPs(n), a.q[0].FLOPs(n)
	l1a := 2 * float64(n*a.actor.Layers[0].In*a.actor.Layers[0].Out)
	l1q := 2 * float64(n*a.q[0].Layers[0].In*a.q[0].Layers[0].Out)
	act := float64(a.actDim) / float64(a.obsDim+a.actDim)
	critic := fa + 2*fq + 2*fq + 2*(2*fq-l1q)
	actor := fa + 2*fq + 2*(fq-l1q+l1q*act) + (2*fa - l1a)
	return critic + actor
}

type benchMode struct {
	name        string
	agentThread int // Config.Threads
	blasThreads int
}

var benchModes = []benchMode{
	{"threads=1", 1, 1},
	{"threads=2/critics", 2, 1}, // twin critics on two goroutines, BLAS single-threaded
	{"threads=2/blas", 1, 2},    // one goroutine, OpenBLAS with 2 threads
}

func withBackend(b *testing.B, name string, blasThreads int) func() {
	prev, prevT := nn.Backend(), nn.Threads()
	if err := nn.SetBackend(name); err != nil {
		b.Skip(err)
	}
	nn.SetThreads(blasThreads)
	return func() {
		_ = nn.SetBackend(prev)
		nn.SetThreads(max(1, prevT))
	}
}

// BenchmarkUpdate reports SAC updates/s and achieved GFLOP/s per BLAS
// backend and threading mode. Run with -cpu 2 for the 2-thread modes
// (gonum's GEMM follows GOMAXPROCS; -cpu 1 then measures gonum on one core).
func BenchmarkUpdate(b *testing.B) {
	for _, backend := range nn.Backends() {
		for _, mode := range benchModes {
			b.Run(fmt.Sprintf("%s/%s", backend, mode.name), func(b *testing.B) {
				if backend == "gonum" && mode.blasThreads > 1 {
					b.Skip("gonum's GEMM threads follow GOMAXPROCS (-cpu)")
				}
				if mode.agentThread > 1 && runtime.GOMAXPROCS(0) < 2 {
					b.Skip("needs GOMAXPROCS >= 2")
				}
				defer withBackend(b, backend, mode.blasThreads)()
				cfg := DefaultConfig()
				cfg.Threads = mode.agentThread
				a, err := New(cfg, benchObs, benchAct)
				if err != nil {
					b.Fatal(err)
				}
				defer a.Close()
				batch := randomBatch(benchBatch, benchObs, benchAct, 1)
				for i := 0; i < 4; i++ { // warm-up: workspace, both update parities
					if _, err := a.Update(batch); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportAllocs()
				b.ResetTimer()
				cpu0 := cputime.Process()
				for b.Loop() {
					if _, err := a.Update(batch); err != nil {
						b.Fatal(err)
					}
				}
				sec := b.Elapsed().Seconds()
				b.ReportMetric(float64(b.N)/sec, "updates/s")
				b.ReportMetric(updateFLOPs(a, benchBatch)*float64(b.N)/sec/1e9, "GFLOP/s")
				if cpu := (cputime.Process() - cpu0).Seconds(); cpu > 0 {
					b.ReportMetric(float64(b.N)/cpu, "updates/cpu-s")
				}
			})
		}
	}
}

// BenchmarkAct reports actor inference calls/s (stochastic action, as the
// anchor's "sample" column) at batch 1 and 16.
func BenchmarkAct(b *testing.B) {
	for _, backend := range nn.Backends() {
		for _, n := range []int{1, 16} {
			b.Run(fmt.Sprintf("%s/batch=%d", backend, n), func(b *testing.B) {
				defer withBackend(b, backend, 1)()
				cfg := DefaultConfig()
				a, err := New(cfg, benchObs, benchAct)
				if err != nil {
					b.Fatal(err)
				}
				obs := randomBatch(n, benchObs, benchAct, 2).Obs
				dst := make([]float32, n*benchAct)
				a.ActBatch(dst, obs, n, false)
				b.ReportAllocs()
				b.ResetTimer()
				cpu0 := cputime.Process()
				for b.Loop() {
					a.ActBatch(dst, obs, n, false)
				}
				sec := b.Elapsed().Seconds()
				if cpu := (cputime.Process() - cpu0).Seconds(); cpu > 0 {
					b.ReportMetric(float64(b.N)/cpu, "calls/cpu-s")
				}
				b.ReportMetric(float64(b.N)/sec, "calls/s")
				b.ReportMetric(float64(b.N*n)/sec, "obs/s")
				b.ReportMetric(a.actor.FLOPs(n)*float64(b.N)/sec/1e9, "GFLOP/s")
			})
		}
	}
}
