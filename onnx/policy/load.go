package policy

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/vlmrb/vlmrb/onnx"
)

// Output says how a policy's output becomes an action.
type Output int

const (
	// Actions: the output is the action vector.
	Actions Output = iota
	// QValues: the output holds one value per discrete action; the action
	// is the argmax (lowest index on ties).
	QValues
	// Indices: the output is the discrete action index (an ArgMax).
	Indices
)

func (o Output) String() string {
	return [...]string{"actions", "q-values", "action indices"}[o]
}

// Policy is an ONNX policy network loaded for inference. Its Act method
// makes it a control.Policy. A Policy is for one goroutine at a time.
type Policy struct {
	Model  *onnx.Model
	Kind   string // metadata vlmrb.policy ("" for models from elsewhere)
	Task   string // metadata vlmrb.task
	Step   int64  // metadata vlmrb.step
	ObsDim int
	// OutDim is the output width: the action dimension, the number of
	// Q-values, or 1 for action indices.
	OutDim int
	Output Output

	sess    *onnx.Session
	in, out string
	obs     []float32
	err     error
}

// Load reads the model at path (at most onnx.MaxModelBytes) and checks
// that it is a policy this package can run.
func Load(path string) (*Policy, error) {
	m, err := onnx.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, err := New(m)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// New checks m — one float input [batch, obs], one output of actions,
// Q-values or action indices — and prepares it to run. A test batch of
// zeros must run and give one output row per observation.
func New(m *onnx.Model) (*Policy, error) {
	s, err := onnx.NewSession(m)
	if err != nil {
		return nil, err
	}
	ins, outs := s.Inputs(), s.Outputs()
	if len(ins) != 1 || len(outs) != 1 {
		return nil, fmt.Errorf("policy: the graph has %d inputs and %d outputs; a policy has one observation input and one output", len(ins), len(outs))
	}
	in := ins[0]
	if in.Type != onnx.Float || len(in.Shape) != 2 || in.Shape[1].Value <= 0 {
		return nil, fmt.Errorf("policy: input %q must be float [batch, obs] with a fixed obs width (it is %v %v)", in.Name, in.Type, dimsOf(in.Shape))
	}
	p := &Policy{Model: m, sess: s, in: in.Name, out: outs[0].Name, ObsDim: int(in.Shape[1].Value)}
	p.Kind, _ = m.Meta(KeyPolicy)
	p.Task, _ = m.Meta(KeyTask)
	if v, ok := m.Meta(KeyStep); ok {
		p.Step, _ = strconv.ParseInt(v, 10, 64)
	}
	// run a batch of three zero observations to learn the output's form
	const probe = 3
	res, err := s.Run(map[string]*onnx.Tensor{p.in: onnx.NewFloat(p.in, make([]float32, probe*p.ObsDim), probe, int64(p.ObsDim))})
	if err != nil {
		return nil, fmt.Errorf("policy: a test batch does not run: %w", err)
	}
	y := res[p.out]
	switch {
	case y.Type == onnx.Float && len(y.Dims) == 2 && y.Dims[0] == probe && y.Dims[1] > 0:
		p.OutDim = int(y.Dims[1])
		if p.Kind == KindDQN || selectsArgmax(m) {
			p.Output = QValues
		}
	case y.Type == onnx.Int64 && (len(y.Dims) == 1 && y.Dims[0] == probe || len(y.Dims) == 2 && y.Dims[0] == probe && y.Dims[1] == 1):
		p.OutDim, p.Output = 1, Indices
	default:
		return nil, fmt.Errorf("policy: output %q is %v %v for a batch of %d; want float [batch, n] or int64 [batch] indices", p.out, y.Type, y.Dims, probe)
	}
	if p.Kind == KindDQN {
		var sp Space
		if v, ok := m.Meta(KeyActSpace); ok && json.Unmarshal([]byte(v), &sp) == nil && sp.N != 0 && sp.N != p.OutDim {
			return nil, fmt.Errorf("policy: metadata says %d actions, the network gives %d Q-values", sp.N, p.OutDim)
		}
	}
	return p, nil
}

func selectsArgmax(m *onnx.Model) bool {
	var sp Space
	v, ok := m.Meta(KeyActSpace)
	return ok && json.Unmarshal([]byte(v), &sp) == nil && sp.Type == "discrete"
}

func dimsOf(s []onnx.Dim) string {
	if s == nil {
		return "(rank unknown)"
	}
	out := "["
	for i, d := range s {
		if i > 0 {
			out += ", "
		}
		if d.Param != "" {
			out += d.Param
		} else {
			out += strconv.FormatInt(d.Value, 10)
		}
	}
	return out + "]"
}

// ActDim returns the width of the actions Act writes: OutDim for
// continuous actions, 1 (the index) for discrete ones.
func (p *Policy) ActDim() int {
	if p.Output == Actions {
		return p.OutDim
	}
	return 1
}

// Discrete reports whether the policy chooses discrete actions.
func (p *Policy) Discrete() bool { return p.Output != Actions }

// Forward runs n observations (obs n×ObsDim, row-major) and returns the
// raw output: n×OutDim actions or Q-values, or n action indices.
func (p *Policy) Forward(obs []float32, n int) ([]float32, error) {
	if n < 1 || len(obs) != n*p.ObsDim {
		return nil, fmt.Errorf("policy: %d values for %d observations of %d", len(obs), n, p.ObsDim)
	}
	res, err := p.sess.Run(map[string]*onnx.Tensor{p.in: onnx.NewFloat(p.in, obs, int64(n), int64(p.ObsDim))})
	if err != nil {
		return nil, err
	}
	y := res[p.out]
	if y.Type == onnx.Int64 {
		out := make([]float32, len(y.Int64))
		for i, v := range y.Int64 {
			out[i] = float32(v)
		}
		if len(out) != n {
			return nil, fmt.Errorf("policy: %d indices for %d observations", len(out), n)
		}
		return out, nil
	}
	if len(y.Float) != n*p.OutDim {
		return nil, fmt.Errorf("policy: output of %d values for %d observations of width %d", len(y.Float), n, p.OutDim)
	}
	return y.Float, nil
}

// Act writes the action for obs into dst (control.Policy): the action
// vector, or the discrete action index in dst[0]. If the network fails
// to run, dst is filled with NaN (which control.Env.Step rejects with
// an error) and Err returns the cause.
func (p *Policy) Act(obs, dst []float64) {
	if len(obs) != p.ObsDim {
		p.fail(dst, fmt.Errorf("policy: observation of %d values, the network takes %d", len(obs), p.ObsDim))
		return
	}
	if p.obs == nil {
		p.obs = make([]float32, p.ObsDim)
	}
	for i, v := range obs {
		p.obs[i] = float32(v)
	}
	y, err := p.Forward(p.obs, 1)
	if err != nil {
		p.fail(dst, err)
		return
	}
	switch p.Output {
	case Actions:
		for i := range dst[:min(len(dst), p.OutDim)] {
			dst[i] = float64(y[i])
		}
	case QValues:
		best := 0
		for k := 1; k < len(y); k++ {
			if y[k] > y[best] {
				best = k
			}
		}
		dst[0] = float64(best)
	case Indices:
		dst[0] = float64(y[0])
	}
}

func (p *Policy) fail(dst []float64, err error) {
	if p.err == nil {
		p.err = err
	}
	for i := range dst {
		dst[i] = math.NaN()
	}
}

// Err returns the first error met by Act, or nil.
func (p *Policy) Err() error { return p.err }
