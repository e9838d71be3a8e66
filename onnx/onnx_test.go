package onnx

import (
	"errors"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// mlpModel is a 2-layer tanh MLP of in → hidden → out with a symbolic
// batch: Gemm (transB=1, PyTorch's weight layout), Tanh, Gemm.
func mlpModel(rng *rand.Rand, in, hidden, out int) *Model {
	r := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64() * 0.5)
		}
		return v
	}
	m := &Model{IRVersion: 7, Opsets: []OpsetID{{Version: 13}}, ProducerName: "test",
		Metadata: []Prop{{"k", "v"}, {"ключ", "значение"}}}
	g := &m.Graph
	g.Name = "mlp"
	g.Initializers = []*Tensor{
		NewFloat("W1", r(hidden*in), int64(hidden), int64(in)), NewFloat("B1", r(hidden), int64(hidden)),
		NewFloat("W2", r(out*hidden), int64(out), int64(hidden)), NewFloat("B2", r(out), int64(out)),
	}
	tb := Attr{Name: "transB", Type: AttrInt, I: 1}
	g.Nodes = []Node{
		{Name: "l1", OpType: "Gemm", Inputs: []string{"x", "W1", "B1"}, Outputs: []string{"h"}, Attrs: []Attr{tb}},
		{OpType: "Tanh", Inputs: []string{"h"}, Outputs: []string{"a"}},
		{OpType: "Gemm", Inputs: []string{"a", "W2", "B2"}, Outputs: []string{"y"}, Attrs: []Attr{tb, {Name: "alpha", Type: AttrFloat, F: 1}}},
	}
	g.Inputs = []ValueInfo{{Name: "x", Type: Float, Shape: []Dim{{Param: "batch"}, {Value: int64(in)}}}}
	g.Outputs = []ValueInfo{{Name: "y", Type: Float, Shape: []Dim{{Param: "batch"}, {Value: int64(out)}}}}
	return m
}

// naiveMLP evaluates mlpModel's network in float64.
func naiveMLP(m *Model, x []float32, n int) []float64 {
	w1, b1, w2, b2 := m.Graph.Initializers[0], m.Graph.Initializers[1], m.Graph.Initializers[2], m.Graph.Initializers[3]
	H, I, O := int(w1.Dims[0]), int(w1.Dims[1]), int(w2.Dims[0])
	y := make([]float64, n*O)
	for r := range n {
		h := make([]float64, H)
		for j := range H {
			s := float64(b1.Float[j])
			for i := range I {
				s += float64(w1.Float[j*I+i]) * float64(x[r*I+i])
			}
			h[j] = math.Tanh(s)
		}
		for k := range O {
			s := float64(b2.Float[k])
			for j := range H {
				s += float64(w2.Float[k*H+j]) * h[j]
			}
			y[r*O+k] = s
		}
	}
	return y
}

func TestRoundTrip(t *testing.T) {
	m := mlpModel(rand.New(rand.NewPCG(1, 1)), 5, 8, 3)
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, m) {
		t.Fatalf("round trip changed the model:\n got %+v\nwant %+v", got, m)
	}
	path := filepath.Join(t.TempDir(), "m.onnx")
	if err := m.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(path); err != nil {
		t.Fatal(err)
	}
}

func TestRunMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	m := mlpModel(rng, 6, 16, 4)
	s, err := NewSession(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 37} {
		x := make([]float32, n*6)
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		res, err := s.Run(map[string]*Tensor{"x": NewFloat("x", x, int64(n), 6)})
		if err != nil {
			t.Fatal(err)
		}
		y := res["y"]
		if !reflect.DeepEqual(y.Dims, []int64{int64(n), 4}) {
			t.Fatalf("batch %d: output dims %v", n, y.Dims)
		}
		want := naiveMLP(m, x, n)
		for i, v := range y.Float {
			if math.Abs(float64(v)-want[i]) > 1e-5 {
				t.Fatalf("batch %d: y[%d] = %g, float64 reference %g", n, i, v, want[i])
			}
		}
	}
}

// run1 runs a one-node graph over the given inputs (all initializers
// except x, which is fed).
func run1(t *testing.T, op string, attrs []Attr, x *Tensor, consts ...*Tensor) (*Tensor, error) {
	t.Helper()
	m := &Model{IRVersion: 7, Opsets: []OpsetID{{Version: 13}}}
	in := []string{"x"}
	for _, c := range consts {
		in = append(in, c.Name)
	}
	m.Graph.Initializers = consts
	m.Graph.Nodes = []Node{{OpType: op, Inputs: in, Outputs: []string{"y"}, Attrs: attrs}}
	m.Graph.Inputs = []ValueInfo{{Name: "x", Type: x.Type}}
	m.Graph.Outputs = []ValueInfo{{Name: "y"}}
	s, err := NewSession(m)
	if err != nil {
		return nil, err
	}
	res, err := s.Run(map[string]*Tensor{"x": x})
	if err != nil {
		return nil, err
	}
	return res["y"], nil
}

func TestOps(t *testing.T) {
	x := NewFloat("x", []float32{-1.5, 0, 2.5, 3, -0.5, 7}, 2, 3)
	y, err := run1(t, "Add", nil, x, NewFloat("b", []float32{10, 20, 30}, 3))
	if err != nil || !reflect.DeepEqual(y.Float, []float32{8.5, 20, 32.5, 13, 19.5, 37}) {
		t.Errorf("Add with row broadcast: %v %v", y, err)
	}
	y, err = run1(t, "Mul", nil, x, NewFloat("c", []float32{2, -1}, 2, 1))
	if err != nil || !reflect.DeepEqual(y.Float, []float32{-3, 0, 5, -3, 0.5, -7}) {
		t.Errorf("Mul with column broadcast: %v %v", y, err)
	}
	y, err = run1(t, "ArgMax", []Attr{{Name: "axis", Type: AttrInt, I: 1}, {Name: "keepdims", Type: AttrInt, I: 0}}, NewFloat("x", []float32{1, 5, 5, 9, 2, 9}, 2, 3))
	if err != nil || !reflect.DeepEqual(y.Int64, []int64{1, 0}) || !reflect.DeepEqual(y.Dims, []int64{2}) {
		t.Errorf("ArgMax (first of ties): %v %v", y, err)
	}
	y, err = run1(t, "ArgMax", []Attr{{Name: "axis", Type: AttrInt, I: -1}, {Name: "select_last_index", Type: AttrInt, I: 1}}, NewFloat("x", []float32{1, 5, 5, 9, 2, 9}, 2, 3))
	if err != nil || !reflect.DeepEqual(y.Int64, []int64{2, 2}) || !reflect.DeepEqual(y.Dims, []int64{2, 1}) {
		t.Errorf("ArgMax (last of ties): %v %v", y, err)
	}
	y, err = run1(t, "Gather", []Attr{{Name: "axis", Type: AttrInt, I: 1}}, x, NewInt64("i", []int64{2, -3, 2}, 3))
	if err != nil || !reflect.DeepEqual(y.Float, []float32{2.5, -1.5, 2.5, 7, 3, 7}) {
		t.Errorf("Gather axis 1: %v %v", y, err)
	}
	if _, err = run1(t, "Gather", nil, x, NewInt64("i", []int64{2}, 1)); err == nil {
		t.Error("Gather accepted an index past the axis")
	}
	y, err = run1(t, "Cast", []Attr{{Name: "to", Type: AttrInt, I: int64(Int64)}}, x)
	if err != nil || !reflect.DeepEqual(y.Int64, []int64{-1, 0, 2, 3, 0, 7}) {
		t.Errorf("Cast truncates toward zero: %v %v", y, err)
	}
	if _, err = run1(t, "Cast", []Attr{{Name: "to", Type: AttrInt, I: int64(Int64)}}, NewFloat("x", []float32{float32(math.NaN())}, 1)); err == nil {
		t.Error("Cast of NaN to int64 gave no error")
	}
	y, err = run1(t, "GreaterOrEqual", nil, x, NewFloat("z", []float32{0}, 1))
	if err != nil || !reflect.DeepEqual(y.Bool, []bool{false, true, true, true, false, true}) {
		t.Errorf("GreaterOrEqual: %v %v", y, err)
	}
	y, err = run1(t, "Relu", nil, x)
	if err != nil || !reflect.DeepEqual(y.Float, []float32{0, 0, 2.5, 3, 0, 7}) {
		t.Errorf("Relu: %v %v", y, err)
	}
	y, err = run1(t, "MatMul", nil, x, NewFloat("w", []float32{1, 0, 0, 1, 1, 1}, 3, 2))
	if err != nil || !reflect.DeepEqual(y.Float, []float32{1, 2.5, 10, 6.5}) {
		t.Errorf("MatMul: %v %v", y, err)
	}
	if _, err = run1(t, "Add", nil, x, NewFloat("b", []float32{1, 2}, 2)); err == nil {
		t.Error("Add of [2,3] and [2] broadcast")
	}
}

func TestSessionErrors(t *testing.T) {
	base := func() *Model { return mlpModel(rand.New(rand.NewPCG(3, 3)), 3, 4, 2) }
	cases := []struct {
		name  string
		edit  func(m *Model)
		want  string
		isErr error
	}{
		{"unknown op", func(m *Model) { m.Graph.Nodes[1].OpType = "Softplus" }, `operator "Softplus"`, ErrUnsupported},
		{"other domain", func(m *Model) { m.Graph.Nodes[1].Domain = "com.microsoft" }, "operator domain", ErrUnsupported},
		{"unsorted", func(m *Model) { m.Graph.Nodes[0], m.Graph.Nodes[1] = m.Graph.Nodes[1], m.Graph.Nodes[0] }, "topologically", ErrFormat},
		{"old opset", func(m *Model) { m.Opsets[0].Version = 7 }, "opset 7", ErrUnsupported},
		{"no opset", func(m *Model) { m.Opsets = nil }, "opset", ErrFormat},
		{"unknown attr", func(m *Model) { m.Graph.Nodes[1].Attrs = []Attr{{Name: "alpha", Type: AttrFloat}} }, `attribute "alpha" of Tanh`, ErrUnsupported},
		{"missing output", func(m *Model) { m.Graph.Outputs[0].Name = "nope" }, "never produced", ErrFormat},
		{"twice defined", func(m *Model) { m.Graph.Nodes[1].Outputs[0] = "h" }, "already defined", ErrFormat},
	}
	for _, c := range cases {
		m := base()
		c.edit(m)
		_, err := NewSession(m)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, c.isErr) {
			t.Errorf("%s: error %v, want one containing %q and wrapping %v", c.name, err, c.want, c.isErr)
		}
	}
	s, err := NewSession(base())
	if err != nil {
		t.Fatal(err)
	}
	for name, feeds := range map[string]map[string]*Tensor{
		"no feed":     {},
		"wrong width": {"x": NewFloat("x", make([]float32, 8), 2, 4)},
		"wrong rank":  {"x": NewFloat("x", make([]float32, 3), 3)},
		"extra feed":  {"x": NewFloat("x", make([]float32, 3), 1, 3), "z": NewFloat("z", []float32{1}, 1)},
		"wrong type":  {"x": NewInt64("x", make([]int64, 3), 1, 3)},
	} {
		if _, err := s.Run(feeds); err == nil {
			t.Errorf("Run with %s: no error", name)
		}
	}
}

func TestUnmarshalErrors(t *testing.T) {
	m := mlpModel(rand.New(rand.NewPCG(4, 4)), 3, 4, 2)
	b, _ := m.MarshalBinary()
	// every prefix decodes to an error or to a model (a prefix can be a
	// shorter valid message), never a panic
	for cut := range len(b) {
		if got, err := Unmarshal(b[:cut]); err == nil {
			_, _ = NewSession(got)
		}
	}
	if _, err := Unmarshal([]byte("not a model at all")); err == nil {
		t.Error("text decoded as a model")
	}
	if _, err := Unmarshal(nil); err == nil || !strings.Contains(err.Error(), "no graph") {
		t.Errorf("empty input: %v", err)
	}
	// a tensor claiming more elements than it holds
	bad := &Model{Opsets: []OpsetID{{Version: 13}}}
	bad.Graph.Initializers = []*Tensor{{Name: "w", Type: Float, Dims: []int64{1 << 20, 1 << 20}}}
	if _, err := bad.MarshalBinary(); err == nil {
		t.Error("marshalled a tensor whose data does not fill its dims")
	}
}

func FuzzUnmarshal(f *testing.F) {
	m := mlpModel(rand.New(rand.NewPCG(5, 5)), 3, 4, 2)
	b, _ := m.MarshalBinary()
	f.Add(b)
	m.Graph.Nodes = append(m.Graph.Nodes,
		Node{OpType: "ArgMax", Inputs: []string{"y"}, Outputs: []string{"i"}, Attrs: []Attr{{Name: "axis", Type: AttrInt, I: 1}}},
		Node{OpType: "Gather", Inputs: []string{"y", "i"}, Outputs: []string{"g"}})
	m.Graph.Outputs = append(m.Graph.Outputs, ValueInfo{Name: "g", Type: Float})
	b, _ = m.MarshalBinary()
	f.Add(b)
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Unmarshal(data)
		if err != nil {
			return
		}
		s, err := NewSession(m)
		if err != nil {
			return
		}
		feeds := map[string]*Tensor{}
		for _, in := range s.Inputs() {
			dims := make([]int64, len(in.Shape))
			for i, d := range in.Shape {
				dims[i] = max(min(d.Value, 64), 1)
				if d.Param != "" {
					dims[i] = 2
				}
			}
			n, ok := numElems(dims)
			if !ok || n > 1<<16 {
				return
			}
			t := &Tensor{Name: in.Name, Type: in.Type, Dims: dims}
			switch in.Type {
			case Float:
				t.Float = make([]float32, n)
			case Int64:
				t.Int64 = make([]int64, n)
			case Bool:
				t.Bool = make([]bool, n)
			}
			feeds[in.Name] = t
		}
		_, _ = s.Run(feeds)
	})
}

// FuzzRun builds graphs from the fuzzer's bytes — random operators on
// random earlier values and small constants of random shapes, types and
// attributes — and runs them: the kernels must return errors for shapes
// and types they cannot take, never panic.
func FuzzRun(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte("Gemm and Gather and ArgMax, broadcast everything"))
	ops := Ops()
	f.Fuzz(func(t *testing.T, data []byte) {
		pos := 0
		next := func() int {
			if pos >= len(data) {
				return 0
			}
			pos++
			return int(data[pos-1])
		}
		m := &Model{Opsets: []OpsetID{{Version: 13}}}
		g := &m.Graph
		g.Inputs = []ValueInfo{{Name: "x", Type: Float, Shape: []Dim{{Param: "b"}, {Value: 3}}}}
		names := []string{"x"}
		for k := 0; k < 6; k++ {
			rank := next() % 3
			dims := make([]int64, rank)
			n := 1
			for i := range dims {
				dims[i] = int64(next() % 4)
				n *= int(dims[i])
			}
			name := "c" + string(rune('a'+k))
			switch next() % 3 {
			case 0:
				v := make([]float32, n)
				for i := range v {
					v[i] = float32(next()) - 128
				}
				g.Initializers = append(g.Initializers, NewFloat(name, v, dims...))
			case 1:
				v := make([]int64, n)
				for i := range v {
					v[i] = int64(next()) - 128
				}
				g.Initializers = append(g.Initializers, NewInt64(name, v, dims...))
			default:
				v := make([]bool, n)
				for i := range v {
					v[i] = next()%2 == 0
				}
				g.Initializers = append(g.Initializers, &Tensor{Name: name, Type: Bool, Dims: dims, Bool: v})
			}
			names = append(names, name)
		}
		for k := 0; k < 8 && pos < len(data); k++ {
			op := ops[next()%len(ops)]
			spec := opTable[op]
			nin := spec.minIn + next()%(spec.maxIn-spec.minIn+1)
			in := make([]string, nin)
			for i := range in {
				in[i] = names[next()%len(names)]
			}
			var attrs []Attr
			for _, a := range spec.attrs {
				if next()%2 == 0 {
					continue
				}
				switch a {
				case "alpha", "beta", "value_float":
					attrs = append(attrs, Attr{Name: a, Type: AttrFloat, F: float32(next()) / 64})
				case "value":
					attrs = append(attrs, Attr{Name: a, Type: AttrTensor, T: g.Initializers[next()%len(g.Initializers)]})
				case "value_floats":
					attrs = append(attrs, Attr{Name: a, Type: AttrFloats, Floats: []float32{1, 2}})
				case "value_ints":
					attrs = append(attrs, Attr{Name: a, Type: AttrInts, Ints: []int64{1, 2}})
				default:
					attrs = append(attrs, Attr{Name: a, Type: AttrInt, I: int64(next()%5) - 2})
				}
			}
			out := "v" + string(rune('a'+k))
			g.Nodes = append(g.Nodes, Node{OpType: op, Inputs: in, Outputs: []string{out}, Attrs: attrs})
			names = append(names, out)
		}
		g.Outputs = []ValueInfo{{Name: names[len(names)-1]}}
		b, err := m.MarshalBinary()
		if err != nil {
			return
		}
		m2, err := Unmarshal(b)
		if err != nil {
			t.Fatalf("a model this package wrote does not decode: %v", err)
		}
		s, err := NewSession(m2)
		if err != nil {
			return
		}
		x := make([]float32, 2*3)
		for i := range x {
			x[i] = float32(next()) - 100
		}
		_, _ = s.Run(map[string]*Tensor{"x": NewFloat("x", x, 2, 3)})
	})
}
