package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"
)

// Activation is the nonlinearity applied after every hidden layer. The
// output layer of an MLP is always linear.
type Activation uint8

const (
	// ReLU is max(0, x).
	ReLU Activation = iota
	// Tanh is tanh(x).
	Tanh
)

func (a Activation) String() string {
	switch a {
	case ReLU:
		return "relu"
	case Tanh:
		return "tanh"
	}
	return fmt.Sprintf("Activation(%d)", uint8(a))
}

// Dense is one fully connected layer, y = x·W + b. Its slices are views into
// the owning MLP's flat Params and Grads.
type Dense struct {
	In, Out int
	W       []float32 // In×Out weights, row-major (the transpose of PyTorch's weight)
	B       []float32 // Out biases
	GW      []float32 // In×Out gradient of the loss with respect to W
	GB      []float32 // Out gradient with respect to B
}

// MLP is a multilayer perceptron: Dense layers with Act after each hidden
// layer and a linear output. All parameters live in the flat slice Params
// (layer by layer, W then B) and their gradients in Grads, so optimisers and
// Polyak averaging are single loops.
type MLP struct {
	Sizes  []int      // layer widths, input first: {in, h1, ..., out}
	Act    Activation // hidden activation
	Params []float32
	Grads  []float32
	Layers []Dense
}

// NewMLP returns an MLP with the given widths (input first, at least two
// entries, all positive) and hidden activation, initialised as PyTorch's
// nn.Linear does: kaiming_uniform(a=√5) weights and uniform(±1/√fan_in)
// biases, which are both uniform(±1/√In). rng supplies the random numbers.
func NewMLP(sizes []int, act Activation, rng *rand.Rand) *MLP {
	m := newMLP(sizes, act)
	m.Init(rng)
	return m
}

func newMLP(sizes []int, act Activation) *MLP {
	if len(sizes) < 2 {
		panic("nn: NewMLP needs at least input and output sizes")
	}
	n := 0
	for i, s := range sizes {
		if s <= 0 {
			panic("nn: NewMLP sizes must be positive")
		}
		if i > 0 {
			n += sizes[i-1]*s + s
		}
	}
	m := &MLP{Sizes: append([]int(nil), sizes...), Act: act, Params: make([]float32, n), Grads: make([]float32, n)}
	off := 0
	for i := 1; i < len(sizes); i++ {
		in, out := sizes[i-1], sizes[i]
		l := Dense{In: in, Out: out}
		l.W, l.GW = m.Params[off:off+in*out:off+in*out], m.Grads[off:off+in*out:off+in*out]
		off += in * out
		l.B, l.GB = m.Params[off:off+out:off+out], m.Grads[off:off+out:off+out]
		off += out
		m.Layers = append(m.Layers, l)
	}
	return m
}

// Init re-draws every parameter as NewMLP does. PyTorch stores W as
// Out×In; the draws here fill that order so a seeded Go network and a
// PyTorch one use the same distribution (not the same stream).
func (m *MLP) Init(rng *rand.Rand) {
	for _, l := range m.Layers {
		bound := 1 / math.Sqrt(float64(l.In))
		for o := 0; o < l.Out; o++ {
			for i := 0; i < l.In; i++ {
				l.W[i*l.Out+o] = float32((2*rng.Float64() - 1) * bound)
			}
		}
		for o := range l.B {
			l.B[o] = float32((2*rng.Float64() - 1) * bound)
		}
	}
}

// In and Out return the input and output widths.
func (m *MLP) In() int  { return m.Sizes[0] }
func (m *MLP) Out() int { return m.Sizes[len(m.Sizes)-1] }

// Clone returns a deep copy of m (parameters and gradients).
func (m *MLP) Clone() *MLP {
	c := newMLP(m.Sizes, m.Act)
	copy(c.Params, m.Params)
	copy(c.Grads, m.Grads)
	return c
}

// CopyFrom copies src's parameters into m; the shapes must match.
func (m *MLP) CopyFrom(src *MLP) {
	m.mustMatch(src)
	copy(m.Params, src.Params)
}

// Polyak moves m toward src: p ← τ·src + (1−τ)·p, as CleanRL's target update.
func (m *MLP) Polyak(src *MLP, tau float32) {
	m.mustMatch(src)
	kern().polyak(m.Params, src.Params, tau)
}

func (m *MLP) mustMatch(o *MLP) {
	if len(m.Sizes) != len(o.Sizes) || len(m.Params) != len(o.Params) {
		panic("nn: MLP shapes differ")
	}
	for i := range m.Sizes {
		if m.Sizes[i] != o.Sizes[i] {
			panic("nn: MLP shapes differ")
		}
	}
}

// FLOPs returns the floating-point operations (2 per multiply-add) of one
// forward pass over n rows, counting only the GEMMs.
func (m *MLP) FLOPs(n int) float64 {
	f := 0.0
	for _, l := range m.Layers {
		f += 2 * float64(n) * float64(l.In) * float64(l.Out)
	}
	return f
}

// Tape holds the activations of one forward pass so that Backward can reuse
// them. A Tape grows to the largest batch it has seen and is then reused
// without allocating. Use one Tape per concurrent forward pass.
type Tape struct {
	n    int
	in   []float32   // the input of the last Forward (not copied)
	act  [][]float32 // act[l] = output of layer l (after its activation)
	grad [][]float32 // grad[l] = gradient w.r.t. the output of layer l
	ones []float32   // cap ones, for bias gradients as a GEMV
	cap  int
}

// NewTape returns a Tape for m with room for n rows.
func (m *MLP) NewTape(n int) *Tape {
	t := &Tape{}
	m.grow(t, n)
	return t
}

func (m *MLP) grow(t *Tape, n int) {
	if n <= t.cap && len(t.act) == len(m.Layers) {
		return
	}
	t.act = make([][]float32, len(m.Layers))
	t.grad = make([][]float32, len(m.Layers))
	for i, l := range m.Layers {
		t.act[i] = make([]float32, n*l.Out)
		t.grad[i] = make([]float32, n*l.Out)
	}
	t.ones = make([]float32, n)
	for i := range t.ones {
		t.ones[i] = 1
	}
	t.cap = n
}

// Out returns the n×Out output of the last Forward recorded on t. It is
// owned by the Tape and overwritten by the next Forward.
func (t *Tape) Out() []float32 { return t.act[len(t.act)-1][:t.n*t.outWidth()] }

func (t *Tape) outWidth() int {
	if t.n == 0 {
		return 0
	}
	return len(t.act[len(t.act)-1]) / t.cap
}

// Rows returns the row count of the last Forward.
func (t *Tape) Rows() int { return t.n }

// Forward runs the network on the n×In input x (row-major) and returns the
// n×Out output, which lives in t. x is kept by reference for Backward and
// must not change before it.
func (m *MLP) Forward(t *Tape, x []float32, n int) []float32 {
	return m.ForwardWith(nil, t, x, n)
}

// ForwardWith is Forward with the rows of every layer split between the
// caller and p's helper goroutine when p is non-nil. OpenBLAS may pick a
// different kernel for the smaller halves, so outputs can differ from
// Forward's in the last bits; gonum's are identical.
func (m *MLP) ForwardWith(p *Pool, t *Tape, x []float32, n int) []float32 {
	if len(x) < n*m.In() {
		panic("nn: Forward input shorter than n×In")
	}
	m.grow(t, n)
	t.n, t.in = n, x[:n*m.In()]
	in := t.in
	last := len(m.Layers) - 1
	for li := range m.Layers {
		l := &m.Layers[li]
		y := t.act[li][:n*l.Out]
		act := Activation(255) // linear output layer
		if li < last {
			act = m.Act
		}
		if p != nil && n >= 32 {
			h := n / 2
			lo := gemmJob{ta: blas.NoTrans, tb: blas.NoTrans, m: h, n: l.Out, k: l.In, a: in, lda: l.In, b: l.W, ldb: l.Out, c: y, ldc: l.Out, post: true, bias: l.B, act: act}
			hi := lo
			hi.m, hi.a, hi.c = n-h, in[h*l.In:], y[h*l.Out:]
			p.pair(&lo, &hi)
		} else {
			affine(y, in, l, n, act)
		}
		in = y
	}
	return in
}

// affine computes y = act(x·W + b) for n rows; act 255 is the identity.
// Bias and activation share one pass over y.
func affine(y, x []float32, l *Dense, n int, act Activation) {
	b := l.B
	if n == 1 {
		copy(y, b)
		impl().Sgemv(blas.Trans, l.In, l.Out, 1, l.W, l.Out, x, 1, 1, y, 1)
		b = nil
	} else {
		impl().Sgemm(blas.NoTrans, blas.NoTrans, n, l.Out, l.In, 1, x, l.In, l.W, l.Out, 0, y, l.Out)
	}
	kern().biasAct(y, b, n, l.Out, act == ReLU)
	if act == Tanh {
		tanhInPlace(y[:n*l.Out])
	}
}

func tanhInPlace(y []float32) {
	for j, v := range y {
		y[j] = float32(math.Tanh(float64(v)))
	}
}

// relu clamps negatives (and −0) to +0 without branches: a data-dependent
// branch here mispredicts about half the time on fresh networks.
func reluGo(y []float32) {
	for i, v := range y {
		u := math.Float32bits(v)
		y[i] = math.Float32frombits(u &^ uint32(int32(u)>>31))
	}
}

// reluMaskGo zeroes g where the ReLU output x is not positive. x comes from
// a ReLU, so it is +0 or positive and "positive" is "bits ≠ 0".
func reluMaskGo(g, x []float32) {
	x = x[:len(g)]
	for i, v := range x {
		u := math.Float32bits(v)
		m := uint32(int32(u|-u) >> 31)
		g[i] = math.Float32frombits(math.Float32bits(g[i]) & m)
	}
}

// Backward propagates dy, the n×Out gradient of a loss with respect to the
// output of the last Forward on t, back through the network.
//
// With wgrad it overwrites m.Grads with the gradient of that loss with
// respect to the parameters (no accumulation, so no zeroing is needed);
// without it the weight gradients are skipped entirely (the cheap way to
// differentiate through a frozen network). If dx is non-nil it receives the
// n×(In−from) gradient with respect to input columns [from, In); the input
// gradient is not computed otherwise.
func (m *MLP) Backward(t *Tape, dy, dx []float32, from int, wgrad bool) {
	m.BackwardWith(nil, t, dy, dx, from, wgrad)
}

// BackwardWith is Backward with each layer's weight-gradient GEMM run on
// p's helper goroutine, beside the input-gradient GEMM on the caller's,
// when p is non-nil. Results are the same as Backward's.
func (m *MLP) BackwardWith(p *Pool, t *Tape, dy, dx []float32, from int, wgrad bool) {
	n := t.n
	if len(dy) < n*m.Out() {
		panic("nn: Backward dy shorter than n×Out")
	}
	if from < 0 || from >= m.In() {
		panic("nn: Backward input column out of range")
	}
	g := dy[:n*m.Out()]
	for li := len(m.Layers) - 1; li >= 0; li-- {
		l := &m.Layers[li]
		x := t.in
		if li > 0 {
			x = t.act[li-1][:n*l.In]
		}
		// GW = Xᵀ·G (and GB = Gᵀ·1); input gradient G·Wᵀ, masked by act'(x)
		gw := gemmJob{ta: blas.Trans, tb: blas.NoTrans, m: l.In, n: l.Out, k: n, a: x, lda: l.In, b: g, ldb: l.Out, c: l.GW, ldc: l.Out}
		if wgrad {
			impl().Sgemv(blas.Trans, n, l.Out, 1, g, l.Out, t.ones[:n], 1, 0, l.GB, 1)
		}
		var in gemmJob
		haveIn := true
		var gp []float32
		if li == 0 {
			if dx == nil {
				haveIn = false
			} else {
				w := l.In - from
				if len(dx) < n*w {
					panic("nn: Backward dx shorter than n×(In−from)")
				}
				in = gemmJob{ta: blas.NoTrans, tb: blas.Trans, m: n, n: w, k: l.Out, a: g, lda: l.Out, b: l.W[from*l.Out:], ldb: l.Out, c: dx, ldc: w}
			}
		} else {
			gp = t.grad[li-1][:n*l.In]
			in = gemmJob{ta: blas.NoTrans, tb: blas.Trans, m: n, n: l.In, k: l.Out, a: g, lda: l.Out, b: l.W, ldb: l.Out, c: gp, ldc: l.In}
			if m.Act == ReLU {
				in.mask = x
			}
		}
		switch {
		case wgrad && haveIn && p != nil:
			p.pair(&gw, &in)
		default:
			if wgrad {
				gw.run()
			}
			if haveIn {
				in.run()
			}
		}
		if li == 0 {
			break
		}
		if m.Act == Tanh {
			for i, v := range x {
				gp[i] *= 1 - v*v
			}
		}
		g = gp
	}
}
