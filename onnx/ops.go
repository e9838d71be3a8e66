package onnx

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/gonum/blas"

	"github.com/vlmrb/vlmrb/nn"
)

// Ops lists the operators a Session runs, sorted.
func Ops() []string {
	var s []string
	for k := range opTable {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

// opSpec describes one operator: its input and output counts, the
// attributes it takes, and how to build its kernel.
type opSpec struct {
	minIn, maxIn, outs int
	attrs              []string
	build              func(a attrs) (kernel, error)
}

var opTable map[string]opSpec

func init() {
	unary := func(f func(float32) float32) opSpec {
		return opSpec{1, 1, 1, nil, func(attrs) (kernel, error) { return unaryFloat(f), nil }}
	}
	cmp := func(f func(c int) bool) opSpec {
		return opSpec{2, 2, 1, nil, func(attrs) (kernel, error) { return compare(f), nil }}
	}
	logic := func(f func(a, b bool) bool) opSpec {
		return opSpec{2, 2, 1, nil, func(attrs) (kernel, error) { return logical(f), nil }}
	}
	arith := func(f func(a, b float32) float32, fi func(a, b int64) (int64, bool)) opSpec {
		return opSpec{2, 2, 1, nil, func(attrs) (kernel, error) { return arithmetic(f, fi), nil }}
	}
	opTable = map[string]opSpec{
		"Gemm":     {2, 3, 1, []string{"alpha", "beta", "transA", "transB"}, buildGemm},
		"MatMul":   {2, 2, 1, nil, func(attrs) (kernel, error) { return matMul, nil }},
		"Add":      arith(func(a, b float32) float32 { return a + b }, func(a, b int64) (int64, bool) { return a + b, true }),
		"Sub":      arith(func(a, b float32) float32 { return a - b }, func(a, b int64) (int64, bool) { return a - b, true }),
		"Mul":      arith(func(a, b float32) float32 { return a * b }, func(a, b int64) (int64, bool) { return a * b, true }),
		"Div":      arith(func(a, b float32) float32 { return a / b }, func(a, b int64) (int64, bool) { return divInt(a, b) }),
		"Relu":     unary(func(x float32) float32 { return max(x, 0) }),
		"Tanh":     unary(func(x float32) float32 { return float32(math.Tanh(float64(x))) }),
		"Sigmoid":  unary(func(x float32) float32 { return float32(1 / (1 + math.Exp(-float64(x)))) }),
		"Abs":      unary(func(x float32) float32 { return float32(math.Abs(float64(x))) }),
		"Neg":      unary(func(x float32) float32 { return -x }),
		"Identity": {1, 1, 1, nil, func(attrs) (kernel, error) { return func(in []*Tensor) ([]*Tensor, error) { return in[:1], nil }, nil }},
		"Cast":     {1, 1, 1, []string{"to", "saturate"}, buildCast},
		"Gather":   {2, 2, 1, []string{"axis"}, buildGather},
		"ArgMax":   {1, 1, 1, []string{"axis", "keepdims", "select_last_index"}, buildArgMax},
		"Constant": {0, 0, 1, []string{"value", "value_float", "value_floats", "value_int", "value_ints"}, buildConstant},

		"Equal":          cmp(func(c int) bool { return c == 0 }),
		"Greater":        cmp(func(c int) bool { return c > 0 }),
		"GreaterOrEqual": cmp(func(c int) bool { return c >= 0 }),
		"Less":           cmp(func(c int) bool { return c < 0 }),
		"LessOrEqual":    cmp(func(c int) bool { return c <= 0 }),
		"And":            logic(func(a, b bool) bool { return a && b }),
		"Or":             logic(func(a, b bool) bool { return a || b }),
		"Xor":            logic(func(a, b bool) bool { return a != b }),
		"Not":            {1, 1, 1, nil, func(attrs) (kernel, error) { return notOp, nil }},
	}
}

func divInt(a, b int64) (int64, bool) {
	if b == 0 || (a == math.MinInt64 && b == -1) {
		return 0, false
	}
	return a / b, true
}

type attrs map[string]*Attr

func (a attrs) float(name string, def float32) (float32, error) {
	x, ok := a[name]
	if !ok {
		return def, nil
	}
	if x.Type != AttrFloat {
		return 0, fmt.Errorf("%w: attribute %s must be a float", ErrFormat, name)
	}
	return x.F, nil
}

func (a attrs) int(name string, def int64) (int64, error) {
	x, ok := a[name]
	if !ok {
		return def, nil
	}
	if x.Type != AttrInt {
		return 0, fmt.Errorf("%w: attribute %s must be an int", ErrFormat, name)
	}
	return x.I, nil
}

// prepare checks n's arity and attributes and builds its kernel.
func prepare(n *Node) (kernel, error) {
	spec, ok := opTable[n.OpType]
	if !ok {
		return nil, fmt.Errorf("%w: operator %q (this runtime implements %s)", ErrUnsupported, n.OpType, strings.Join(Ops(), ", "))
	}
	nin := len(n.Inputs)
	for nin > 0 && n.Inputs[nin-1] == "" {
		nin-- // trailing omitted optional inputs
	}
	if nin < spec.minIn || nin > spec.maxIn {
		return nil, fmt.Errorf("%w: %s takes %d–%d inputs, the node has %d", ErrFormat, n.OpType, spec.minIn, spec.maxIn, nin)
	}
	for i := 0; i < min(spec.minIn, nin); i++ {
		if n.Inputs[i] == "" {
			return nil, fmt.Errorf("%w: required input %d of %s is empty", ErrFormat, i, n.OpType)
		}
	}
	if len(n.Outputs) != spec.outs || n.Outputs[0] == "" {
		return nil, fmt.Errorf("%w: %s has %d outputs, the node names %d", ErrFormat, n.OpType, spec.outs, len(n.Outputs))
	}
	a := attrs{}
	for i := range n.Attrs {
		x := &n.Attrs[i]
		if !slices.Contains(spec.attrs, x.Name) {
			return nil, fmt.Errorf("%w: attribute %q of %s", ErrUnsupported, x.Name, n.OpType)
		}
		if _, dup := a[x.Name]; dup {
			return nil, fmt.Errorf("%w: attribute %q given twice", ErrFormat, x.Name)
		}
		a[x.Name] = x
	}
	k, err := spec.build(a)
	if err != nil {
		return nil, err
	}
	return func(in []*Tensor) ([]*Tensor, error) {
		for i, t := range in {
			if t == nil && i < spec.minIn {
				return nil, fmt.Errorf("input %d is missing", i)
			}
		}
		return k(in[:min(len(in), spec.maxIn)])
	}, nil
}

func wantType(t *Tensor, dt DataType, what string) error {
	if t.Type != dt {
		return fmt.Errorf("%w: %s is %v, want %v", ErrUnsupported, what, t.Type, dt)
	}
	return nil
}

func newTensor(dt DataType, dims []int64) (*Tensor, error) {
	n, ok := numElems(dims)
	if !ok {
		return nil, fmt.Errorf("result of shape %v is over %d elements", dims, MaxTensorElems)
	}
	t := &Tensor{Type: dt, Dims: dims}
	switch dt {
	case Float:
		t.Float = make([]float32, n)
	case Int64:
		t.Int64 = make([]int64, n)
	case Bool:
		t.Bool = make([]bool, n)
	}
	return t, nil
}

func unaryFloat(f func(float32) float32) kernel {
	return func(in []*Tensor) ([]*Tensor, error) {
		x := in[0]
		if err := wantType(x, Float, "the input"); err != nil {
			return nil, err
		}
		y, _ := newTensor(Float, slices.Clone(x.Dims))
		for i, v := range x.Float {
			y.Float[i] = f(v)
		}
		return []*Tensor{y}, nil
	}
}

// imap maps an element of a broadcast result (row-major index e) to the
// element of an operand it reads.
type imap struct {
	kind byte  // 'i' identity, 'z' always 0, 'm' e mod n (a suffix of the shape), 'x' idx[e]
	n    int   // for 'm'
	idx  []int // for 'x'
}

func (m imap) at(e int) int {
	switch m.kind {
	case 'i':
		return e
	case 'z':
		return 0
	case 'm':
		return e % m.n
	}
	return m.idx[e]
}

// broadcast returns the numpy-broadcast shape of a and b and, for each,
// the map from output elements to its elements.
func broadcast(a, b []int64) (out []int64, ia, ib imap, err error) {
	r := max(len(a), len(b))
	out = make([]int64, r)
	for i := range r {
		da, db := int64(1), int64(1)
		if j := i - (r - len(a)); j >= 0 {
			da = a[j]
		}
		if j := i - (r - len(b)); j >= 0 {
			db = b[j]
		}
		switch {
		case da == db, db == 1:
			out[i] = da
		case da == 1:
			out[i] = db
		default:
			return nil, imap{}, imap{}, fmt.Errorf("shapes %v and %v do not broadcast", a, b)
		}
	}
	n, ok := numElems(out)
	if !ok {
		return nil, imap{}, imap{}, fmt.Errorf("broadcast shape %v is over %d elements", out, MaxTensorElems)
	}
	return out, mapFor(a, out, n), mapFor(b, out, n), nil
}

func mapFor(s, out []int64, n int) imap {
	k, _ := numElems(s)
	if k == n {
		return imap{kind: 'i'}
	}
	if k == 1 {
		return imap{kind: 'z'}
	}
	// s without its leading 1s equal to the trailing dimensions of out:
	// the operand repeats every k elements
	t := s
	for len(t) > 0 && t[0] == 1 {
		t = t[1:]
	}
	if slices.Equal(t, out[len(out)-len(t):]) {
		return imap{kind: 'm', n: k}
	}
	r := len(out)
	st := make([]int, r)
	acc := 1
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] != 1 {
			st[i+r-len(s)] = acc
		}
		acc *= int(s[i])
	}
	idx := make([]int, n)
	pos := make([]int64, r)
	p := 0
	for e := range n {
		idx[e] = p
		for d := r - 1; d >= 0; d-- {
			pos[d]++
			p += st[d]
			if pos[d] < out[d] {
				break
			}
			p -= st[d] * int(out[d])
			pos[d] = 0
		}
	}
	return imap{kind: 'x', idx: idx}
}

// apply2 sets y[e] = f(a[ia(e)], b[ib(e)]) for every element of y, with
// loops without the per-element map for the common shapes.
func apply2[T, U any](y []U, a, b []T, ia, ib imap, f func(x, z T) U) {
	switch {
	case ia.kind == 'i' && ib.kind == 'i':
		for e := range y {
			y[e] = f(a[e], b[e])
		}
	case ia.kind == 'i' && ib.kind == 'm':
		for r := 0; r < len(y); r += ib.n {
			row, ar := y[r:r+ib.n], a[r:r+ib.n]
			for j := range row {
				row[j] = f(ar[j], b[j])
			}
		}
	case ia.kind == 'i' && ib.kind == 'z':
		for e := range y {
			y[e] = f(a[e], b[0])
		}
	case ia.kind == 'z' && ib.kind == 'i':
		for e := range y {
			y[e] = f(a[0], b[e])
		}
	default:
		for e := range y {
			y[e] = f(a[ia.at(e)], b[ib.at(e)])
		}
	}
}

func arithmetic(f func(a, b float32) float32, fi func(a, b int64) (int64, bool)) kernel {
	return func(in []*Tensor) ([]*Tensor, error) {
		a, b := in[0], in[1]
		if a.Type != b.Type || (a.Type != Float && a.Type != Int64) {
			return nil, fmt.Errorf("%w: operands of %v and %v (float or int64, both the same)", ErrUnsupported, a.Type, b.Type)
		}
		dims, ia, ib, err := broadcast(a.Dims, b.Dims)
		if err != nil {
			return nil, err
		}
		y, err := newTensor(a.Type, dims)
		if err != nil {
			return nil, err
		}
		if a.Type == Float {
			apply2(y.Float, a.Float, b.Float, ia, ib, f)
			return []*Tensor{y}, nil
		}
		bad := false
		apply2(y.Int64, a.Int64, b.Int64, ia, ib, func(x, z int64) int64 {
			v, ok := fi(x, z)
			bad = bad || !ok
			return v
		})
		if bad {
			return nil, fmt.Errorf("integer division by zero or overflow")
		}
		return []*Tensor{y}, nil
	}
}

// compare builds a comparison operator; f gets the ordering of a
// against b (−1, 0, 1) and is not called for NaN operands, whose
// comparisons are all false.
func compare(f func(c int) bool) kernel {
	return func(in []*Tensor) ([]*Tensor, error) {
		a, b := in[0], in[1]
		if a.Type != b.Type || (a.Type != Float && a.Type != Int64) {
			return nil, fmt.Errorf("%w: comparison of %v and %v (float or int64, both the same)", ErrUnsupported, a.Type, b.Type)
		}
		dims, ia, ib, err := broadcast(a.Dims, b.Dims)
		if err != nil {
			return nil, err
		}
		y, err := newTensor(Bool, dims)
		if err != nil {
			return nil, err
		}
		if a.Type == Float {
			apply2(y.Bool, a.Float, b.Float, ia, ib, func(x, z float32) bool {
				return !math.IsNaN(float64(x)) && !math.IsNaN(float64(z)) && f(cmpOrder(x, z)) // NaN compares false
			})
		} else {
			apply2(y.Bool, a.Int64, b.Int64, ia, ib, func(x, z int64) bool { return f(cmpOrder(x, z)) })
		}
		return []*Tensor{y}, nil
	}
}

func cmpOrder[T float32 | int64](x, z T) int {
	switch {
	case x < z:
		return -1
	case x > z:
		return 1
	}
	return 0
}

func logical(f func(a, b bool) bool) kernel {
	return func(in []*Tensor) ([]*Tensor, error) {
		a, b := in[0], in[1]
		if a.Type != Bool || b.Type != Bool {
			return nil, fmt.Errorf("%w: logical operator on %v and %v (bool only)", ErrUnsupported, a.Type, b.Type)
		}
		dims, ia, ib, err := broadcast(a.Dims, b.Dims)
		if err != nil {
			return nil, err
		}
		y, err := newTensor(Bool, dims)
		if err != nil {
			return nil, err
		}
		apply2(y.Bool, a.Bool, b.Bool, ia, ib, f)
		return []*Tensor{y}, nil
	}
}

func notOp(in []*Tensor) ([]*Tensor, error) {
	if err := wantType(in[0], Bool, "the input of Not"); err != nil {
		return nil, err
	}
	y, _ := newTensor(Bool, slices.Clone(in[0].Dims))
	for i, v := range in[0].Bool {
		y.Bool[i] = !v
	}
	return []*Tensor{y}, nil
}

func buildCast(a attrs) (kernel, error) {
	to, err := a.int("to", -1)
	if err != nil {
		return nil, err
	}
	dt := DataType(to)
	if dt != Float && dt != Int64 && dt != Bool {
		return nil, fmt.Errorf("%w: Cast to data type %d (float, int64 and bool only)", ErrUnsupported, to)
	}
	return func(in []*Tensor) ([]*Tensor, error) {
		x := in[0]
		y, err := newTensor(dt, slices.Clone(x.Dims))
		if err != nil {
			return nil, err
		}
		n := x.Len()
		for i := range n {
			var f float64 // the value as float64, exact for bool and float
			switch x.Type {
			case Float:
				f = float64(x.Float[i])
			case Int64:
				f = float64(x.Int64[i])
			case Bool:
				if x.Bool[i] {
					f = 1
				}
			default:
				return nil, fmt.Errorf("%w: Cast from %v", ErrUnsupported, x.Type)
			}
			switch dt {
			case Float:
				y.Float[i] = float32(f)
			case Bool:
				y.Bool[i] = f != 0
			case Int64:
				if x.Type == Int64 {
					y.Int64[i] = x.Int64[i]
					continue
				}
				if !(f > -9.2233720368547748e18 && f < 9.2233720368547748e18) {
					return nil, fmt.Errorf("operator Cast: %g does not fit int64", f)
				}
				y.Int64[i] = int64(f) // truncation toward zero, as ONNX Runtime's static_cast
			}
		}
		return []*Tensor{y}, nil
	}, nil
}

// matrix checks that t is a float matrix and returns its rows and columns.
func matrix(t *Tensor, what string) (int, int, error) {
	if err := wantType(t, Float, what); err != nil {
		return 0, 0, err
	}
	if len(t.Dims) != 2 {
		return 0, 0, fmt.Errorf("%w: %s has shape %v (only 2-D matrices)", ErrUnsupported, what, t.Dims)
	}
	return int(t.Dims[0]), int(t.Dims[1]), nil
}

func buildGemm(a attrs) (kernel, error) {
	alpha, err := a.float("alpha", 1)
	if err != nil {
		return nil, err
	}
	beta, err := a.float("beta", 1)
	if err != nil {
		return nil, err
	}
	ta, err := a.int("transA", 0)
	if err != nil {
		return nil, err
	}
	tb, err := a.int("transB", 0)
	if err != nil {
		return nil, err
	}
	return func(in []*Tensor) ([]*Tensor, error) {
		ar, ac, err := matrix(in[0], "Gemm's A")
		if err != nil {
			return nil, err
		}
		br, bc, err := matrix(in[1], "Gemm's B")
		if err != nil {
			return nil, err
		}
		M, K, tA := ar, ac, blas.NoTrans
		if ta != 0 {
			M, K, tA = ac, ar, blas.Trans
		}
		K2, N, tB := br, bc, blas.NoTrans
		if tb != 0 {
			K2, N, tB = bc, br, blas.Trans
		}
		if K != K2 {
			return nil, fmt.Errorf("operator Gemm: A %v and B %v do not multiply (transA %d, transB %d)", in[0].Dims, in[1].Dims, ta, tb)
		}
		y, err := newTensor(Float, []int64{int64(M), int64(N)})
		if err != nil {
			return nil, err
		}
		var c []float32 // C broadcast to M×N, nil when absent
		if len(in) > 2 && in[2] != nil && beta != 0 {
			ct := in[2]
			if err := wantType(ct, Float, "Gemm's C"); err != nil {
				return nil, err
			}
			dims, _, ic, err := broadcast(y.Dims, ct.Dims)
			if err != nil || !slices.Equal(dims, y.Dims) {
				return nil, fmt.Errorf("operator Gemm: C of shape %v does not broadcast to %v", ct.Dims, y.Dims)
			}
			c = make([]float32, M*N)
			for e := range c {
				c[e] = beta * ct.Float[ic.at(e)]
			}
		}
		if M == 0 || N == 0 {
			return []*Tensor{y}, nil
		}
		lda, ldb := ac, bc
		if K == 0 { // an empty product: y = beta·C
			copy(y.Float, c)
			return []*Tensor{y}, nil
		}
		if M == 1 && tA == blas.NoTrans && c != nil {
			// one row: y = C + alpha·Bᵀx, accumulated onto C as package
			// nn's single-observation forward pass does
			copy(y.Float, c)
			if tB == blas.NoTrans {
				nn.Sgemv(blas.Trans, K, N, alpha, in[1].Float, ldb, in[0].Float, 1, 1, y.Float, 1)
			} else {
				nn.Sgemv(blas.NoTrans, N, K, alpha, in[1].Float, ldb, in[0].Float, 1, 1, y.Float, 1)
			}
			return []*Tensor{y}, nil
		}
		nn.Sgemm(tA, tB, M, N, K, alpha, in[0].Float, lda, in[1].Float, ldb, 0, y.Float, N)
		for e, v := range c {
			y.Float[e] += v
		}
		return []*Tensor{y}, nil
	}, nil
}

func matMul(in []*Tensor) ([]*Tensor, error) {
	M, K, err := matrix(in[0], "MatMul's A")
	if err != nil {
		return nil, err
	}
	K2, N, err := matrix(in[1], "MatMul's B")
	if err != nil {
		return nil, err
	}
	if K != K2 {
		return nil, fmt.Errorf("operator MatMul: %v and %v do not multiply", in[0].Dims, in[1].Dims)
	}
	y, err := newTensor(Float, []int64{int64(M), int64(N)})
	if err != nil {
		return nil, err
	}
	if M > 0 && N > 0 && K > 0 {
		nn.Sgemm(blas.NoTrans, blas.NoTrans, M, N, K, 1, in[0].Float, K, in[1].Float, N, 0, y.Float, N)
	}
	return []*Tensor{y}, nil
}

func normAxis(axis int64, rank int) (int, error) {
	if axis < -int64(rank) || axis >= int64(rank) {
		return 0, fmt.Errorf("axis %d out of range for rank %d", axis, rank)
	}
	if axis < 0 {
		axis += int64(rank)
	}
	return int(axis), nil
}

func buildGather(a attrs) (kernel, error) {
	axis, err := a.int("axis", 0)
	if err != nil {
		return nil, err
	}
	return func(in []*Tensor) ([]*Tensor, error) {
		x, idx := in[0], in[1]
		if err := wantType(idx, Int64, "Gather's indices"); err != nil {
			return nil, err
		}
		if len(x.Dims) == 0 {
			return nil, fmt.Errorf("operator Gather: data is a scalar")
		}
		ax, err := normAxis(axis, len(x.Dims))
		if err != nil {
			return nil, fmt.Errorf("operator Gather: %w", err)
		}
		dims := slices.Concat(x.Dims[:ax], idx.Dims, x.Dims[ax+1:])
		if len(dims) > MaxRank {
			return nil, fmt.Errorf("operator Gather: result rank %d over %d", len(dims), MaxRank)
		}
		y, err := newTensor(x.Type, dims)
		if err != nil {
			return nil, err
		}
		outer, inner := 1, 1
		for _, d := range x.Dims[:ax] {
			outer *= int(d)
		}
		for _, d := range x.Dims[ax+1:] {
			inner *= int(d)
		}
		size := x.Dims[ax]
		pos := make([]int, len(idx.Int64))
		for i, v := range idx.Int64 {
			if v < -size || v >= size {
				return nil, fmt.Errorf("operator Gather: index %d out of range for axis of %d", v, size)
			}
			if v < 0 {
				v += size
			}
			pos[i] = int(v)
		}
		o := 0
		for r := range outer {
			for _, p := range pos {
				src := (r*int(size) + p) * inner
				switch x.Type {
				case Float:
					copy(y.Float[o:o+inner], x.Float[src:src+inner])
				case Int64:
					copy(y.Int64[o:o+inner], x.Int64[src:src+inner])
				case Bool:
					copy(y.Bool[o:o+inner], x.Bool[src:src+inner])
				}
				o += inner
			}
		}
		return []*Tensor{y}, nil
	}, nil
}

func buildArgMax(a attrs) (kernel, error) {
	axis, err := a.int("axis", 0)
	if err != nil {
		return nil, err
	}
	keep, err := a.int("keepdims", 1)
	if err != nil {
		return nil, err
	}
	last, err := a.int("select_last_index", 0)
	if err != nil {
		return nil, err
	}
	return func(in []*Tensor) ([]*Tensor, error) {
		x := in[0]
		if err := wantType(x, Float, "ArgMax's input"); err != nil {
			return nil, err
		}
		if len(x.Dims) == 0 {
			return nil, fmt.Errorf("operator ArgMax: input is a scalar")
		}
		ax, err := normAxis(axis, len(x.Dims))
		if err != nil {
			return nil, fmt.Errorf("operator ArgMax: %w", err)
		}
		size := int(x.Dims[ax])
		if size == 0 {
			return nil, fmt.Errorf("ArgMax over an empty axis")
		}
		dims := slices.Clone(x.Dims)
		if keep != 0 {
			dims[ax] = 1
		} else {
			dims = slices.Delete(dims, ax, ax+1)
		}
		y, err := newTensor(Int64, dims)
		if err != nil {
			return nil, err
		}
		outer, inner := 1, 1
		for _, d := range x.Dims[:ax] {
			outer *= int(d)
		}
		for _, d := range x.Dims[ax+1:] {
			inner *= int(d)
		}
		for o := range outer {
			for i := range inner {
				base := o*size*inner + i
				best := 0
				for k := 1; k < size; k++ {
					v, b := x.Float[base+k*inner], x.Float[base+best*inner]
					if v > b || (last != 0 && v == b) {
						best = k
					}
				}
				y.Int64[o*inner+i] = int64(best)
			}
		}
		return []*Tensor{y}, nil
	}, nil
}

func buildConstant(a attrs) (kernel, error) {
	if len(a) != 1 {
		return nil, fmt.Errorf("%w: Constant needs exactly one value attribute", ErrFormat)
	}
	var t *Tensor
	for name, x := range a {
		switch {
		case name == "value" && x.Type == AttrTensor:
			t = x.T
		case name == "value_float" && x.Type == AttrFloat:
			t = &Tensor{Type: Float, Float: []float32{x.F}}
		case name == "value_floats" && x.Type == AttrFloats:
			t = &Tensor{Type: Float, Dims: []int64{int64(len(x.Floats))}, Float: x.Floats}
		case name == "value_int" && x.Type == AttrInt:
			t = &Tensor{Type: Int64, Int64: []int64{x.I}}
		case name == "value_ints" && x.Type == AttrInts:
			t = &Tensor{Type: Int64, Dims: []int64{int64(len(x.Ints))}, Int64: x.Ints}
		default:
			return nil, fmt.Errorf("%w: Constant attribute %s of type %d", ErrFormat, name, x.Type)
		}
	}
	return func([]*Tensor) ([]*Tensor, error) { return []*Tensor{t}, nil }, nil
}
