package nn

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
)

// eachBackend runs f once per compiled-in BLAS backend and restores the
// selection afterwards. Subtests are not parallel: the backend is global.
func eachBackend(t *testing.T, f func(t *testing.T)) {
	prev := Backend()
	defer func() { _ = SetBackend(prev) }()
	for _, name := range Backends() {
		t.Run(name, func(t *testing.T) {
			if err := SetBackend(name); err != nil {
				t.Fatal(err)
			}
			f(t)
		})
	}
}

// gradTol bounds |analytic − numeric| / max(1, |numeric|). Central
// differences of a float32 network with step 1e-2 carry errors of order
// ε32·|L|/h ≈ 1e-5·|L| plus O(h²) curvature terms; 2e-3 leaves margin.
const gradTol = 2e-3

func TestMLPGradientMatchesFiniteDifferences(t *testing.T) {
	for _, act := range []Activation{ReLU, Tanh} {
		t.Run(act.String(), func(t *testing.T) {
			eachBackend(t, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(1, 2))
				m := NewMLP([]int{5, 7, 6, 3}, act, rng)
				const n = 4
				x := make([]float32, n*5)
				c := make([]float32, n*3) // loss = Σ c⊙y, so dL/dy = c
				for i := range x {
					x[i] = float32(rng.NormFloat64())
				}
				for i := range c {
					c[i] = float32(rng.NormFloat64())
				}
				tape := m.NewTape(n)
				loss := func() float64 {
					y := m.Forward(tape, x, n)
					s := 0.0
					for i := range y {
						s += float64(c[i]) * float64(y[i])
					}
					return s
				}
				loss()
				dx := make([]float32, n*5)
				m.Backward(tape, c, dx, 0, true)
				analytic := append([]float32(nil), m.Grads...)

				// parameters
				p0 := append([]float32(nil), m.Params...)
				numeric := fd.Gradient(nil, func(p []float64) float64 {
					for i := range p {
						m.Params[i] = float32(p[i])
					}
					return loss()
				}, toF64(p0), &fd.Settings{Formula: fd.Central, Step: 1e-2})
				copy(m.Params, p0)
				checkGrad(t, "params", analytic, numeric)

				// inputs, all columns and a suffix of columns
				x0 := append([]float32(nil), x...)
				numX := fd.Gradient(nil, func(p []float64) float64 {
					for i := range p {
						x[i] = float32(p[i])
					}
					return loss()
				}, toF64(x0), &fd.Settings{Formula: fd.Central, Step: 1e-2})
				copy(x, x0)
				checkGrad(t, "inputs", dx, numX)
				loss()
				dx2 := make([]float32, n*2)
				m.Backward(tape, c, dx2, 3, false)
				for r := 0; r < n; r++ {
					for j := 0; j < 2; j++ {
						if d := math.Abs(float64(dx2[r*2+j] - dx[r*5+3+j])); d > 1e-5 {
							t.Fatalf("partial input gradient row %d col %d: %g vs %g", r, j, dx2[r*2+j], dx[r*5+3+j])
						}
					}
				}
			})
		})
	}
}

func toF64(v []float32) []float64 {
	o := make([]float64, len(v))
	for i, f := range v {
		o[i] = float64(f)
	}
	return o
}

func checkGrad(t *testing.T, what string, analytic []float32, numeric []float64) {
	t.Helper()
	if len(analytic) < len(numeric) {
		t.Fatalf("%s: %d analytic values for %d numeric", what, len(analytic), len(numeric))
	}
	for i, nv := range numeric {
		if e := math.Abs(float64(analytic[i])-nv) / math.Max(1, math.Abs(nv)); e > gradTol {
			t.Errorf("%s[%d]: analytic %g, finite differences %g", what, i, analytic[i], nv)
		}
	}
}

func TestBackendsAgree(t *testing.T) {
	if len(Backends()) < 2 {
		t.Skip("only one BLAS backend compiled in")
	}
	prev := Backend()
	defer func() { _ = SetBackend(prev) }()
	rng := rand.New(rand.NewPCG(3, 4))
	m := NewMLP([]int{39, 256, 256, 8}, ReLU, rng)
	for _, n := range []int{1, 16, 256} {
		x := make([]float32, n*39)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		var outs [][]float32
		for _, b := range Backends() {
			if err := SetBackend(b); err != nil {
				t.Fatal(err)
			}
			outs = append(outs, append([]float32(nil), m.Forward(m.NewTape(n), x, n)...))
		}
		for i := range outs[0] {
			// the backends sum 295 products in different orders; float32
			// rounding of such sums differs by a few ulps of the partial sums.
			if d := math.Abs(float64(outs[0][i] - outs[1][i])); d > 1e-4*(1+math.Abs(float64(outs[0][i]))) {
				t.Fatalf("n=%d out[%d]: gonum %g, openblas %g", n, i, outs[0][i], outs[1][i])
			}
		}
	}
}

func TestSetBackendRejectsUnknown(t *testing.T) {
	prev := Backend()
	if err := SetBackend("mkl"); err == nil {
		t.Fatal("SetBackend(mkl) succeeded")
	}
	if Backend() != prev {
		t.Fatalf("failed SetBackend changed the backend to %s", Backend())
	}
}

func TestInitBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	m := NewMLP([]int{100, 50}, ReLU, rng)
	bound := float32(1 / math.Sqrt(100)) // kaiming_uniform(a=√5) and bias bound, fan_in 100
	var sum, sq float64
	for _, v := range m.Params {
		if v < -bound || v > bound {
			t.Fatalf("parameter %g outside ±%g", v, bound)
		}
		sum += float64(v)
		sq += float64(v) * float64(v)
	}
	n := float64(len(m.Params))
	// uniform(±b) has variance b²/3; 5050 draws put the sample variance
	// within a few percent of it.
	if v := sq/n - (sum/n)*(sum/n); math.Abs(v-float64(bound*bound)/3) > 0.1*float64(bound*bound)/3 {
		t.Fatalf("variance %g, want ≈ %g", v, bound*bound/3)
	}
}

func TestAdamMatchesFormula(t *testing.T) {
	// Three steps by hand, in float64, with PyTorch's update rule, on 11
	// parameters (a vector body of 8 and a scalar tail in the C kernel),
	// one of them with zero gradients throughout (v stays 0).
	eachBackend(t, func(t *testing.T) {
		const n = 11
		a := NewAdam(n, 0.1)
		p := make([]float32, n)
		pw := make([]float64, n)
		m, v := make([]float64, n), make([]float64, n)
		for i := range p {
			p[i] = float32(i) - 5
			pw[i] = float64(p[i])
		}
		for step := 1; step <= 3; step++ {
			g := make([]float32, n)
			for i := range g {
				if i != 4 {
					g[i] = float32(math.Sin(float64(i*step))) * 3
				}
			}
			a.Step(p, g)
			for i := range pw {
				m[i] = 0.9*m[i] + 0.1*float64(g[i])
				v[i] = 0.999*v[i] + 0.001*float64(g[i])*float64(g[i])
				pw[i] -= 0.1 / (1 - math.Pow(0.9, float64(step))) * m[i] / (math.Sqrt(v[i])/math.Sqrt(1-math.Pow(0.999, float64(step))) + 1e-8)
			}
		}
		for i := range p {
			if math.Abs(float64(p[i])-pw[i]) > 1e-5 {
				t.Errorf("p[%d] = %g, want %g", i, p[i], pw[i])
			}
		}
	})
}

func TestPolyak(t *testing.T) {
	eachBackend(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 1))
		src := NewMLP([]int{3, 5, 2}, ReLU, rng)
		dst := NewMLP([]int{3, 5, 2}, ReLU, rng)
		want := make([]float64, len(dst.Params))
		for i := range want {
			want[i] = 0.25*float64(src.Params[i]) + 0.75*float64(dst.Params[i])
		}
		dst.Polyak(src, 0.25)
		for i := range want {
			if math.Abs(float64(dst.Params[i])-want[i]) > 1e-6 {
				t.Fatalf("param %d = %g, want %g", i, dst.Params[i], want[i])
			}
		}
	})
}

func TestAdamClipsGlobalNorm(t *testing.T) {
	a := NewAdam(2, 1e-3)
	a.MaxGradNorm = 1
	g := []float32{3, 4}
	if n := a.Step([]float32{0, 0}, g); n != 5 {
		t.Fatalf("norm %g, want 5", n)
	}
	// the first moment after one step is 0.1·g·(1/5)
	if math.Abs(float64(a.M[0])-0.1*3/5) > 1e-6 || math.Abs(float64(a.M[1])-0.1*4/5) > 1e-6 {
		t.Fatalf("moments %v, want clipped gradient", a.M)
	}
}

func TestSaveLoadRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	m := NewMLP([]int{3, 8, 2}, Tanh, rng)
	path := filepath.Join(t.TempDir(), "net.bin")
	if err := Save(path, m); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if got.Act != m.Act || len(got.Params) != len(m.Params) {
		t.Fatalf("loaded shape %v/%v, want %v/%v", got.Sizes, got.Act, m.Sizes, m.Act)
	}
	for i := range m.Params {
		if math.Float32bits(got.Params[i]) != math.Float32bits(m.Params[i]) {
			t.Fatalf("param %d differs", i)
		}
	}
	data, _ := os.ReadFile(path)
	for name, bad := range map[string][]byte{
		"truncated": data[:len(data)-5],
		"flipped":   flip(data, len(data)/2),
		"magic":     flip(data, 0),
		"empty":     {},
	} {
		p := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(p, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(p); !errors.Is(err, ErrFormat) {
			t.Errorf("%s file: err = %v, want ErrFormat", name, err)
		}
	}
}

func flip(b []byte, i int) []byte {
	c := append([]byte(nil), b...)
	c[i] ^= 0x40
	return c
}

func TestAdamRoundTrip(t *testing.T) {
	a := NewAdam(3, 0.01)
	a.Step([]float32{1, 2, 3}, []float32{0.1, -0.2, 0.3})
	b, _ := a.MarshalBinary()
	var c Adam
	if err := c.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if c.T != 1 || c.LR != 0.01 || c.M[2] != a.M[2] || c.V[1] != a.V[1] {
		t.Fatalf("round trip %+v, want %+v", c, *a)
	}
	if err := c.UnmarshalBinary(b[:len(b)-1]); !errors.Is(err, ErrFormat) {
		t.Fatalf("truncated Adam: %v", err)
	}
}

func TestForwardBackwardNoAllocs(t *testing.T) {
	eachBackend(t, func(t *testing.T) {
		if Backend() == "gonum" {
			t.Skip("gonum's parallel GEMM starts goroutines")
		}
		rng := rand.New(rand.NewPCG(9, 9))
		m := NewMLP([]int{39, 64, 64, 8}, ReLU, rng)
		x := make([]float32, 32*39)
		dy := make([]float32, 32*8)
		tape := m.NewTape(32)
		allocs := testing.AllocsPerRun(20, func() {
			m.Forward(tape, x, 32)
			m.Backward(tape, dy, nil, 0, true)
		})
		if allocs != 0 {
			t.Fatalf("%v allocations per forward+backward", allocs)
		}
	})
}

func TestPoolGivesSameResults(t *testing.T) {
	eachBackend(t, func(t *testing.T) {
		p := NewPool()
		defer p.Close()
		rng := rand.New(rand.NewPCG(10, 10))
		for _, act := range []Activation{ReLU, Tanh} {
			m := NewMLP([]int{39, 64, 64, 8}, act, rng)
			const n = 96
			x, dy := make([]float32, n*39), make([]float32, n*8)
			for i := range x {
				x[i] = float32(rng.NormFloat64())
			}
			for i := range dy {
				dy[i] = float32(rng.NormFloat64())
			}
			t1, t2 := m.NewTape(n), m.NewTape(n)
			y1 := append([]float32(nil), m.Forward(t1, x, n)...)
			y2 := m.ForwardWith(p, t2, x, n)
			for i := range y1 {
				// the row halves may use another OpenBLAS kernel: allow float32 rounding
				if math.Abs(float64(y1[i]-y2[i])) > 1e-5*(1+math.Abs(float64(y1[i]))) {
					t.Fatalf("%v: forward row-split output %d differs: %g vs %g", act, i, y1[i], y2[i])
				}
			}
			dx1, dx2 := make([]float32, n*4), make([]float32, n*4)
			m.Backward(t1, dy, dx1, 35, true)
			g1 := append([]float32(nil), m.Grads...)
			m.BackwardWith(p, t2, dy, dx2, 35, true)
			for i := range g1 {
				if math.Float32bits(g1[i]) != math.Float32bits(m.Grads[i]) {
					t.Fatalf("%v: gradient %d differs with a pool", act, i)
				}
			}
			for i := range dx1 {
				if dx1[i] != dx2[i] {
					t.Fatalf("%v: input gradient %d differs with a pool", act, i)
				}
			}
		}
	})
}
