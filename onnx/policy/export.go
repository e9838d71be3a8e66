package policy

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/dqn"
	"github.com/vlmrb/vlmrb/nn"
	"github.com/vlmrb/vlmrb/onnx"
	"github.com/vlmrb/vlmrb/sac"
)

// Opset is the ONNX operator set exported models import; IRVersion is
// the IR version that goes with it.
const (
	Opset     = 13
	IRVersion = 7
)

// Names of the graph's input and outputs.
const (
	InputName  = "obs"
	ActionName = "action"
	QName      = "q_values"
)

// Metadata keys written into metadata_props.
const (
	KeyPolicy      = "vlmrb.policy"            // KindSACActor or KindDQN
	KeyTask        = "vlmrb.task"              // task name (robot-train tasks)
	KeyRun         = "vlmrb.run"               // run directory the checkpoint came from
	KeyStep        = "vlmrb.step"              // env step of the checkpoint
	KeyObsSpace    = "vlmrb.observation_space" // JSON, see Space
	KeyActSpace    = "vlmrb.action_space"      // JSON, see Space
	KeySelection   = "vlmrb.action_selection"  // how the output becomes an action
	KeyNormalising = "vlmrb.observation_normalization"
)

// The kinds of exported policy.
const (
	KindSACActor = "sac_actor_deterministic"
	KindDQN      = "dqn_q_values"
)

// Space is a Gymnasium-style space description, stored as JSON in the
// model's metadata: a Box (Shape, and Low/High when every bound is
// finite) or a Discrete space of N actions. Categorical lists the
// per-element cardinalities of a categorical observation (0: the element
// is a plain number).
type Space struct {
	Type        string    `json:"type"` // "box" or "discrete"
	Shape       []int     `json:"shape,omitempty"`
	Dtype       string    `json:"dtype"`
	Low         []float64 `json:"low,omitempty"`
	High        []float64 `json:"high,omitempty"`
	N           int       `json:"n,omitempty"`
	Categorical []int     `json:"categorical,omitempty"`
}

// Info is what the exporter records beside the network: where it came
// from, and any further metadata (train adds the evaluation settings of
// the run so that evaluating the model repeats them).
type Info struct {
	Task  string
	Run   string
	Step  int64
	Extra []onnx.Prop
}

func box(n int, lo, hi []float64) Space {
	s := Space{Type: "box", Shape: []int{n}, Dtype: "float32"}
	if len(lo) == n && len(hi) == n {
		for i := range lo {
			if math.IsInf(lo[i], 0) || math.IsInf(hi[i], 0) || math.IsNaN(lo[i]) || math.IsNaN(hi[i]) {
				return s
			}
		}
		s.Low, s.High = lo, hi
	}
	return s
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic("policy: " + err.Error()) // Space holds only finite numbers
	}
	return string(b)
}

func newModel(kind string, info Info, obs, act Space, selection string) *onnx.Model {
	m := &onnx.Model{
		IRVersion:    IRVersion,
		Opsets:       []onnx.OpsetID{{Version: Opset}},
		ProducerName: "vlmrb",
		DocString:    "vlmrb " + kind + " policy for task " + info.Task,
	}
	m.Metadata = []onnx.Prop{
		{Key: KeyPolicy, Value: kind},
		{Key: KeyTask, Value: info.Task},
		{Key: KeyRun, Value: info.Run},
		{Key: KeyStep, Value: strconv.FormatInt(info.Step, 10)},
		{Key: KeyObsSpace, Value: mustJSON(obs)},
		{Key: KeyActSpace, Value: mustJSON(act)},
		{Key: KeySelection, Value: selection},
		{Key: KeyNormalising, Value: "none: the agent was trained on raw observations"},
	}
	m.Metadata = append(m.Metadata, info.Extra...)
	return m
}

// builder appends nodes and initializers to a graph with fresh names.
type builder struct {
	g *onnx.Graph
	n int
}

func (b *builder) name(prefix string) string {
	b.n++
	return fmt.Sprintf("%s_%d", prefix, b.n)
}

func (b *builder) constF(prefix string, v []float32, dims ...int64) string {
	t := onnx.NewFloat(b.name(prefix), v, dims...)
	b.g.Initializers = append(b.g.Initializers, t)
	return t.Name
}

func (b *builder) constI(prefix string, v []int64, dims ...int64) string {
	t := onnx.NewInt64(b.name(prefix), v, dims...)
	b.g.Initializers = append(b.g.Initializers, t)
	return t.Name
}

// op adds a node and returns its output's name (out, or a fresh one).
func (b *builder) op(op, out string, in []string, attrs ...onnx.Attr) string {
	if out == "" {
		out = b.name(op)
	}
	b.g.Nodes = append(b.g.Nodes, onnx.Node{Name: b.name("n" + op), OpType: op, Inputs: in, Outputs: []string{out}, Attrs: attrs})
	return out
}

// dense adds x·W + b for an In×Out layer (W row-major In×Out, Gemm's B
// without transB), keeping only output columns [0, cols).
func (b *builder) dense(x string, l *nn.Dense, cols int, out string) string {
	w := make([]float32, l.In*cols)
	for i := range l.In {
		copy(w[i*cols:(i+1)*cols], l.W[i*l.Out:i*l.Out+cols])
	}
	bias := append([]float32(nil), l.B[:cols]...)
	W := b.constF("W", w, int64(l.In), int64(cols))
	B := b.constF("B", bias, int64(cols))
	return b.op("Gemm", out, []string{x, W, B})
}

// mlp adds the layers of m from layer `from` on, with m.Act after every
// hidden layer, the last one cut to cols outputs.
func (b *builder) mlp(x string, m *nn.MLP, from, cols int, out string) string {
	last := len(m.Layers) - 1
	for li := from; li <= last; li++ {
		l := &m.Layers[li]
		if li < last {
			x = b.dense(x, l, l.Out, "")
			x = b.activation(x, m.Act)
		} else {
			x = b.dense(x, l, cols, out)
		}
	}
	return x
}

func (b *builder) activation(x string, a nn.Activation) string {
	if a == nn.Tanh {
		return b.op("Tanh", "", []string{x})
	}
	return b.op("Relu", "", []string{x})
}

func tensorInfo(name string, dt onnx.DataType, width int) onnx.ValueInfo {
	return onnx.ValueInfo{Name: name, Type: dt, Shape: []onnx.Dim{{Param: "batch"}, {Value: int64(width)}}}
}

// SAC returns the deterministic policy of a: the actor's mean head,
// squashed by tanh and mapped from [−1, 1] onto spec's action bounds,
// action = low + (tanh(mean) + 1)/2·(high − low).
func SAC(a *sac.Agent, spec control.Spec, info Info) (*onnx.Model, error) {
	O, A := a.ObsDim(), a.ActDim()
	if spec.ObsDim != O || spec.ActDim != A || spec.Discrete != 0 {
		return nil, fmt.Errorf("policy: SAC agent of obs %d, act %d does not fit the task's spaces (obs %d, act %d, discrete %d)", O, A, spec.ObsDim, spec.ActDim, spec.Discrete)
	}
	scale, offset := make([]float32, A), make([]float32, A)
	for j := range A {
		lo, hi := -1.0, 1.0
		if len(spec.ActLow) == A && len(spec.ActHigh) == A {
			lo, hi = spec.ActLow[j], spec.ActHigh[j]
		}
		scale[j], offset[j] = float32((hi-lo)/2), float32((hi+lo)/2)
	}
	m := newModel(KindSACActor, info, box(O, spec.ObsLow, spec.ObsHigh), box(A, spec.ActLow, spec.ActHigh),
		"action is the output: low + (tanh(mean) + 1)/2·(high − low) of the SAC actor's mean")
	b := &builder{g: &m.Graph}
	m.Graph.Name = "vlmrb_sac_actor"
	m.Graph.Inputs = []onnx.ValueInfo{tensorInfo(InputName, onnx.Float, O)}
	m.Graph.Outputs = []onnx.ValueInfo{tensorInfo(ActionName, onnx.Float, A)}
	mean := b.mlp(InputName, a.Actor(), 0, A, "mean")
	t := b.op("Tanh", "", []string{mean})
	s := b.op("Mul", "", []string{t, b.constF("act_scale", scale, int64(A))})
	b.op("Add", ActionName, []string{s, b.constF("act_offset", offset, int64(A))})
	return m, nil
}

// DQN returns a's online Q network with its input encoding, output
// q_values [batch, NumActions]; the greedy action is their argmax.
func DQN(a *dqn.Agent, spec control.Spec, info Info) (*onnx.Model, error) {
	O, nA := a.ObsDim(), a.NumActions()
	if spec.ObsDim != O || spec.Discrete != nA {
		return nil, fmt.Errorf("policy: DQN agent of obs %d, %d actions does not fit the task's spaces (obs %d, %d discrete actions)", O, nA, spec.ObsDim, spec.Discrete)
	}
	cat := a.Config().Categorical
	off := a.InputOffsets()
	obs := box(O, spec.ObsLow, spec.ObsHigh)
	obs.Categorical = cat
	m := newModel(KindDQN, info, obs, Space{Type: "discrete", Dtype: "int64", N: nA},
		"action = argmax(q_values, axis=1), the lowest index on ties (greedy; the run's evaluations may add ε-greedy exploration)")
	b := &builder{g: &m.Graph}
	m.Graph.Name = "vlmrb_dqn_q"
	m.Graph.Inputs = []onnx.ValueInfo{tensorInfo(InputName, onnx.Float, O)}
	m.Graph.Outputs = []onnx.ValueInfo{tensorInfo(QName, onnx.Float, nA)}
	first, rest := a.QNetwork()
	l := &first.Layers[0]
	H := l.Out
	// the input columns: categorical element j, code c → input off[j]+c;
	// a pass-through element j → input off[j]
	var catElem, passElem []int64
	var codes, top []float32
	var wc, wp []float32
	for j := range O {
		if len(cat) > 0 && cat[j] > 0 {
			for c := range cat[j] {
				r := off[j] + c
				catElem = append(catElem, int64(j))
				codes = append(codes, float32(c))
				top = append(top, float32(cat[j]-1))
				wc = append(wc, l.W[r*H:(r+1)*H]...)
			}
		} else {
			passElem = append(passElem, int64(j))
			wp = append(wp, l.W[off[j]*H:(off[j]+1)*H]...)
		}
	}
	bias := b.constF("B", append([]float32(nil), l.B...), int64(H))
	var h string
	if len(catElem) > 0 {
		kc := int64(len(catElem))
		x := b.op("Gather", "", []string{InputName, b.constI("cat_elem", catElem, kc)}, onnx.Attr{Name: "axis", Type: onnx.AttrInt, I: 1})
		// r = round(max(x, 0)) as vlmrb's math.Round for x ≥ 0: ⌊x + ½⌋ by
		// truncating Cast, then clamped to the code range
		x = b.op("Relu", "", []string{x})
		x = b.op("Add", "", []string{x, b.constF("half", []float32{0.5}, 1)})
		x = b.op("Cast", "", []string{x}, onnx.Attr{Name: "to", Type: onnx.AttrInt, I: int64(onnx.Int64)})
		r := b.op("Cast", "", []string{x}, onnx.Attr{Name: "to", Type: onnx.AttrInt, I: int64(onnx.Float)})
		over := b.op("Relu", "", []string{b.op("Sub", "", []string{r, b.constF("code_max", top, kc)})})
		r = b.op("Sub", "", []string{r, over})
		// one-hot: 1 − |r − c| is 1 at the code and ≤ 0 elsewhere (r is an integer)
		d := b.op("Abs", "", []string{b.op("Sub", "", []string{r, b.constF("code", codes, kc)})})
		oh := b.op("Relu", "", []string{b.op("Sub", "", []string{b.constF("one", []float32{1}, 1), d})})
		h = b.op("Gemm", "", []string{oh, b.constF("W", wc, kc, int64(H)), bias})
		if len(passElem) > 0 {
			kp := int64(len(passElem))
			xp := b.op("Gather", "", []string{InputName, b.constI("pass_elem", passElem, kp)}, onnx.Attr{Name: "axis", Type: onnx.AttrInt, I: 1})
			h = b.op("Add", "", []string{h, b.op("MatMul", "", []string{xp, b.constF("W", wp, kp, int64(H))})})
		}
	} else {
		h = b.op("Gemm", "", []string{InputName, b.constF("W", wp, int64(O), int64(H)), bias})
	}
	h = b.op("Relu", "", []string{h})
	b.mlp(h, rest, 0, nA, QName)
	return m, nil
}
