package nn

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"

	"github.com/vlmrb/vlmrb/internal/cputime"
)

// BenchmarkSgemm measures the raw GEMM of a 256×256 hidden layer at batch
// 256 in the three shapes backprop uses (Y = X·W, GW = Xᵀ·G, dX = G·Wᵀ):
// the ceiling that SAC's updates/s is measured against.
func BenchmarkSgemm(b *testing.B) {
	const n = 256
	x, w, y := make([]float32, n*n), make([]float32, n*n), make([]float32, n*n)
	for i := range x {
		x[i], w[i] = float32(i%7)-3, float32(i%5)-2
	}
	shapes := []struct {
		name   string
		ta, tb blas.Transpose
	}{{"NN", blas.NoTrans, blas.NoTrans}, {"TN", blas.Trans, blas.NoTrans}, {"NT", blas.NoTrans, blas.Trans}}
	for _, backend := range Backends() {
		for _, s := range shapes {
			b.Run(fmt.Sprintf("%s/%s/256x256x256", backend, s.name), func(b *testing.B) {
				prev := Backend()
				defer func() { _ = SetBackend(prev) }()
				if err := SetBackend(backend); err != nil {
					b.Skip(err)
				}
				g := impl()
				cpu0 := cputime.Process()
				for b.Loop() {
					g.Sgemm(s.ta, s.tb, n, n, n, 1, x, n, w, n, 0, y, n)
				}
				flop := 2.0 * n * n * n * float64(b.N)
				b.ReportMetric(flop/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				if cpu := (cputime.Process() - cpu0).Seconds(); cpu > 0 {
					b.ReportMetric(flop/cpu/1e9, "GFLOP/cpu-s")
				}
			})
		}
	}
}

// BenchmarkMLPForwardBackward: a 39→256→256→8 network at batch 256, one
// forward and one backward with weight gradients.
func BenchmarkMLPForwardBackward(b *testing.B) {
	for _, backend := range Backends() {
		b.Run(backend, func(b *testing.B) {
			prev := Backend()
			defer func() { _ = SetBackend(prev) }()
			if err := SetBackend(backend); err != nil {
				b.Skip(err)
			}
			m := NewMLP([]int{39, 256, 256, 8}, ReLU, rand.New(rand.NewPCG(1, 1)))
			x, dy := make([]float32, 256*39), make([]float32, 256*8)
			for i := range x {
				x[i] = float32(i%11) - 5
			}
			for i := range dy {
				dy[i] = float32(i%3) - 1
			}
			t := m.NewTape(256)
			cpu0 := cputime.Process()
			for b.Loop() {
				m.Forward(t, x, 256)
				m.Backward(t, dy, nil, 0, true)
			}
			l1 := 2.0 * 256 * 39 * 256
			flop := (3*m.FLOPs(256) - l1) * float64(b.N)
			b.ReportMetric(flop/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			if cpu := (cputime.Process() - cpu0).Seconds(); cpu > 0 {
				b.ReportMetric(flop/cpu/1e9, "GFLOP/cpu-s")
			}
		})
	}
}
