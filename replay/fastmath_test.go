package replay

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPowPos compares powPos with math.Pow over the ranges priorities and
// weights take (x from 1e-300 to 1e300, exponents −1 … 1 and beyond), and
// the special inputs it hands to math.Pow.
func TestPowPos(t *testing.T) {
	t.Parallel()
	const tol = 1e-12
	rng := rand.New(rand.NewPCG(1, 1))
	for range 200_000 {
		x := math.Exp(rng.NormFloat64() * 60)
		a := rng.Float64()*4 - 2
		if rng.IntN(4) == 0 {
			a = []float64{0.6, 0.5, -0.4, -1, 1, 0.7}[rng.IntN(6)]
		}
		want := math.Pow(x, a)
		if got := powPos(x, a); math.Abs(got-want) > tol*want {
			t.Fatalf("powPos(%v, %v) = %v, want %v (rel %g)", x, a, got, want, math.Abs(got-want)/want)
		}
	}
	for _, c := range [][2]float64{{0, 0.6}, {0, -0.5}, {5e-324, 0.5}, {math.Inf(1), 0.5}, {math.NaN(), 0.5}, {1e300, 3}, {1e-300, 3}, {1, 0.3}, {2, 0}} {
		got, want := powPos(c[0], c[1]), math.Pow(c[0], c[1])
		if !(got == want || math.IsNaN(got) && math.IsNaN(want) || math.Abs(got-want) <= tol*math.Abs(want)) {
			t.Errorf("powPos(%v, %v) = %v, want %v", c[0], c[1], got, want)
		}
	}
}

// TestPowScaled checks the batched kernel against powPos on the weights'
// and priorities' inputs and a few special values: the same bits.
func TestPowScaled(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2, 2))
	x := make([]float64, 1000)
	for i := range x {
		x[i] = math.Exp(rng.NormFloat64() * 30)
	}
	x[0], x[1], x[2] = 0, math.Inf(1), 1e-310
	dst := make([]float64, len(x))
	for _, a := range []float64{-0.4, -1, 0.6, -0.73} {
		s := 1 / 3.7
		powScaled(dst, x, s, a)
		for i, v := range x {
			if got, want := dst[i], powPos(v*s, a); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("powScaled(%v·%v, %v) = %v, powPos says %v", v, s, a, got, want)
			}
		}
	}
}

func BenchmarkPow(b *testing.B) {
	xs := make([]float64, 256)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range xs {
		xs[i] = rng.Float64() + 1e-3
	}
	dst := make([]float64, len(xs))
	b.Run("powPos", func(b *testing.B) {
		for b.Loop() {
			for i, x := range xs {
				dst[i] = powPos(x, 0.6)
			}
		}
	})
	b.Run("math.Pow", func(b *testing.B) {
		for b.Loop() {
			for i, x := range xs {
				dst[i] = math.Pow(x, 0.6)
			}
		}
	})
	b.Run("exp-log", func(b *testing.B) {
		for b.Loop() {
			for i, x := range xs {
				dst[i] = math.Exp(0.6 * math.Log(x))
			}
		}
	})
}

// TestPowScaled32 checks the float32 weights kernel against math.Pow: within
// float32 rounding (2⁻²⁴) plus the kernel's stated 2e-10, over the ratios
// importance weights take (1 to 1e38) and beyond, and special inputs.
func TestPowScaled32(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 3))
	x := make([]float64, 20000)
	for i := range x {
		x[i] = math.Exp(rng.Float64() * 88)
		if i%4 == 0 {
			x[i] = math.Exp(rng.NormFloat64() * 40)
		}
	}
	x[0], x[1], x[2], x[3] = 0, math.Inf(1), 1e-310, 1
	dst := make([]float32, len(x))
	for _, a := range []float64{-0.4, -1, -0.5, -0.9999, -1e-3, 0.6} {
		s := 1 / 1.7
		powScaled32(dst, x, s, a)
		for i, v := range x {
			want := math.Pow(v*s, a)
			got := float64(dst[i])
			if want > math.MaxFloat32 || want < 0x1p-126 || math.IsNaN(want) {
				if w32 := float32(want); dst[i] != w32 && !(math.IsNaN(got) && math.IsNaN(want)) && math.Abs(got-want) > 0x1p-149 {
					t.Fatalf("powScaled32(%v·%v, %v) = %v, want %v", v, s, a, got, w32)
				}
				continue
			}
			if math.Abs(got-want) > (0x1p-24+2e-10)*want {
				t.Fatalf("powScaled32(%v·%v, %v) = %v, want %v (rel %g)", v, s, a, got, want, math.Abs(got-want)/want)
			}
		}
	}
}

func TestMinPositive(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(4, 4))
	for n := 1; n < 40; n++ {
		x := make([]float64, n)
		want := math.Inf(1)
		for i := range x {
			x[i] = rng.Float64() + 1
			want = min(want, x[i])
		}
		if got := minPositive(x); got != want {
			t.Fatalf("n %d: minPositive = %v, want %v", n, got, want)
		}
	}
}
