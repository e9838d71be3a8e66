package dqn

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas/gonum"

	"github.com/vlmrb/vlmrb/nn"
)

// qnet is the Q network Q(s, ·) = rest(ReLU(first(x(s)))): first is the
// input layer (inDim → Hidden[0], linear) and rest the remaining layers
// (Hidden[0] → … → nActions, ReLU between hidden layers, linear output),
// both nn.MLPs with PyTorch's initialisation, so the whole is the same
// function and initial distribution as one nn.MLP of sizes
// {inDim, Hidden…, nActions}.
//
// The input x(s) is one-hot (or a few pass-through values): each
// observation element selects one row of first's weights. The first
// layer's forward pass is therefore a sum of obsDim weight rows per
// sample and its weight gradient a scatter into those rows, instead of two
// dense GEMMs over inDim inputs (1,033 for DoorKey's egocentric view, of
// which 148 are non-zero).
type qnet struct {
	first, rest *nn.MLP
}

// sparseRows is a batch of encoded inputs: sample i's non-zero inputs are
// rows row[i·k : (i+1)·k] with values val[…], k the observation width.
type sparseRows struct {
	row []int32
	val []float32
	k   int
}

func (s *sparseRows) grow(n, k int) {
	if cap(s.row) < n*k {
		s.row = make([]int32, n*k)
		s.val = make([]float32, n*k)
	}
	s.row, s.val, s.k = s.row[:n*k], s.val[:n*k], k
}

// qtape holds one forward pass of a qnet for Backward.
type qtape struct {
	h   []float32 // n×H first-layer pre-activations
	a   []float32 // n×H ReLU(h), the input of rest
	da  []float32 // n×H gradient w.r.t. a
	t   *nn.Tape
	x   *sparseRows
	n   int
	cap int
}

func newQnet(inDim int, hidden []int, nActions int, rng *rand.Rand) qnet {
	// draw in one MLP's order so the initial distribution is nn.NewMLP's
	first := nn.NewMLP([]int{inDim, hidden[0]}, nn.ReLU, rng)
	rest := nn.NewMLP(append(append([]int(nil), hidden...), nActions), nn.ReLU, rng)
	return qnet{first: first, rest: rest}
}

func (q qnet) clone() qnet { return qnet{first: q.first.Clone(), rest: q.rest.Clone()} }

func (q qnet) copyFrom(src qnet) {
	q.first.CopyFrom(src.first)
	q.rest.CopyFrom(src.rest)
}

func (q qnet) polyak(src qnet, tau float32) {
	q.first.Polyak(src.first, tau)
	q.rest.Polyak(src.rest, tau)
}

func (q qnet) hidden() int { return q.first.Out() }

func (q qnet) newTape(n int) *qtape {
	H := q.hidden()
	return &qtape{h: make([]float32, n*H), a: make([]float32, n*H), da: make([]float32, n*H), t: q.rest.NewTape(n), cap: n}
}

// forward returns the n×nActions outputs for the n encoded inputs x; they
// live in t until the next forward on it.
func (q qnet) forward(t *qtape, x *sparseRows, n int) []float32 {
	if n > t.cap {
		panic("dqn: tape smaller than the batch")
	}
	H := q.hidden()
	l := &q.first.Layers[0]
	W, B := l.W, l.B
	for i := range n {
		h := t.h[i*H : (i+1)*H]
		copy(h, B)
		// runs of one-hot inputs (all of DoorKey's) are row sums; the
		// rest are axpys, in the inputs' order either way
		run := i * x.k
		for k := i * x.k; k < (i+1)*x.k; k++ {
			if v := x.val[k]; v != 1 {
				sumRows(h, W, x.row[run:k], H)
				r := int(x.row[k])
				axpy(h, W[r*H:(r+1)*H], v)
				run = k + 1
			}
		}
		sumRows(h, W, x.row[run:(i+1)*x.k], H)
		a := t.a[i*H : (i+1)*H]
		for c, v := range h {
			a[c] = max(v, 0)
		}
	}
	t.x, t.n = x, n
	return q.rest.Forward(t.t, t.a[:n*H], n)
}

// backward writes the gradient of the loss whose gradient with respect to
// the outputs of the last forward on t is dy (n×nActions) into
// first.Grads and rest.Grads (overwriting them).
func (q qnet) backward(t *qtape, dy []float32) {
	n, H := t.n, q.hidden()
	q.rest.Backward(t.t, dy, t.da[:n*H], 0, true)
	l := &q.first.Layers[0]
	clear(q.first.Grads)
	GW, GB := l.GW, l.GB
	x := t.x
	for i := range n {
		da := t.da[i*H : (i+1)*H]
		h := t.h[i*H : (i+1)*H]
		// through the ReLU: no gradient where the pre-activation was ≤ 0
		for c := range da {
			if h[c] <= 0 {
				da[c] = 0
			}
			GB[c] += da[c]
		}
		run := i * x.k
		for k := i * x.k; k < (i+1)*x.k; k++ {
			if v := x.val[k]; v != 1 {
				addToRows(GW, da, x.row[run:k], H)
				r := int(x.row[k])
				axpy(GW[r*H:(r+1)*H], da, v)
				run = k + 1
			}
		}
		addToRows(GW, da, x.row[run:(i+1)*x.k], H)
	}
}

// add sets y ← y + x (len(x) ≥ len(y)). The sparse first layer is a sum
// of weight rows, three quarters of an update's time; gonum's SSE kernel
// (x·1 + y, exact) does it about 3× faster than a Go loop, with the same
// per-element additions in the same order, so the same results.
func add(y, x []float32) { axpy(y, x, 1) }

// sumRowsGo is sumRows one add per row, for any H.
func sumRowsGo(h, W []float32, rows []int32, H int) {
	for _, r := range rows {
		add(h, W[int(r)*H:(int(r)+1)*H])
	}
}

// addToRowsGo is addToRows one add per row, for any H.
func addToRowsGo(W, x []float32, rows []int32, H int) {
	for _, r := range rows {
		add(W[int(r)*H:(int(r)+1)*H], x)
	}
}

// axpy sets y ← y + a·x (len(x) ≥ len(y)).
func axpy(y, x []float32, a float32) {
	gonum.Implementation{}.Saxpy(len(y), a, x, 1, y, 1)
}

// gradNorm returns the L2 norm of both parts' gradients.
func (q qnet) gradNorm() float64 {
	s := 0.0
	for _, g := range [][]float32{q.first.Grads, q.rest.Grads} {
		for _, v := range g {
			s += float64(v) * float64(v)
		}
	}
	return math.Sqrt(s)
}

// scaleGrads multiplies both parts' gradients by f.
func (q qnet) scaleGrads(f float32) {
	for _, g := range [][]float32{q.first.Grads, q.rest.Grads} {
		for i := range g {
			g[i] *= f
		}
	}
}
