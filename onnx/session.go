package onnx

import (
	"fmt"
	"strings"
)

// Opset versions a Session accepts for the default domain. The operators
// implemented here keep the same semantics across them.
const (
	MinOpset = 9
	MaxOpset = 22
)

// Session is a checked, ready-to-run graph. It is safe for concurrent Run
// calls: Run keeps its intermediate values to itself.
type Session struct {
	model   *Model
	consts  map[string]*Tensor
	inputs  []ValueInfo // graph inputs that are fed (initializers excluded)
	outputs []ValueInfo
	steps   []step
	// lastUse[i] lists the values step i is the last reader of: Run drops
	// them once it has run (never an initializer, a feed or a graph output).
	lastUse [][]string
	maxLive int64 // MaxLiveBytes (tests lower it)
	maxWork int64 // MaxRunElems (tests lower it)
}

// MaxLiveBytes bounds the memory of the intermediate values a Run holds
// at once (after each value is dropped once its last reader has run). A
// graph over it is an error naming the node, not an out-of-memory crash:
// one tensor may hold MaxTensorElems float32s (64 MiB), so this allows
// four of those alive together.
const MaxLiveBytes = 256 << 20

// MaxRunElems bounds the elements all nodes of one Run produce together
// (2^27, about 134 M: a fraction of a second of work). A policy network
// produces thousands; a graph that chains large broadcasts (121 Adds of
// 16 M elements each, 35 KB on disk) is an error naming the node instead
// of minutes per call.
const MaxRunElems = 1 << 27

type step struct {
	node *Node
	run  kernel
}

// kernel computes a node's outputs from its inputs (nil for an omitted
// optional input).
type kernel func(in []*Tensor) ([]*Tensor, error)

// NewSession checks m's graph and prepares it to run: the opset, every
// operator and its attributes, and that every value a node reads was
// produced earlier (nodes must be in topological order, as ONNX requires).
func NewSession(m *Model) (*Session, error) {
	v := m.OpsetVersion()
	if v == 0 {
		return nil, fmt.Errorf("%w: the model imports no default-domain opset", ErrFormat)
	}
	if v < MinOpset || v > MaxOpset {
		return nil, fmt.Errorf("%w: opset %d (this runtime implements opsets %d–%d)", ErrUnsupported, v, MinOpset, MaxOpset)
	}
	s := &Session{model: m, consts: map[string]*Tensor{}, maxLive: MaxLiveBytes, maxWork: MaxRunElems}
	defined := map[string]bool{}
	for _, t := range m.Graph.Initializers {
		if t.Name == "" {
			return nil, fmt.Errorf("%w: an initializer has no name", ErrFormat)
		}
		if defined[t.Name] {
			return nil, fmt.Errorf("%w: initializer %q is defined twice", ErrFormat, t.Name)
		}
		s.consts[t.Name], defined[t.Name] = t, true
	}
	for _, in := range m.Graph.Inputs {
		if _, ok := s.consts[in.Name]; ok {
			continue // an initializer listed as an input (IR < 4 style): a default value
		}
		if in.Name == "" || defined[in.Name] {
			return nil, fmt.Errorf("%w: graph input %q is unnamed or defined twice", ErrFormat, in.Name)
		}
		switch in.Type {
		case Float, Int64, Bool:
		default:
			return nil, fmt.Errorf("%w: graph input %q is of %v (float, int64 or bool inputs only)", ErrUnsupported, in.Name, in.Type)
		}
		defined[in.Name] = true
		s.inputs = append(s.inputs, in)
	}
	for i := range m.Graph.Nodes {
		n := &m.Graph.Nodes[i]
		where := nodeWhere(n, i)
		if n.Domain != "" && n.Domain != "ai.onnx" {
			return nil, fmt.Errorf("%w: %s is in operator domain %q (only the default ONNX domain is implemented)", ErrUnsupported, where, n.Domain)
		}
		for _, name := range n.Inputs {
			if name != "" && !defined[name] {
				return nil, fmt.Errorf("%w: %s reads %q before any node produces it (nodes must be topologically sorted)", ErrFormat, where, name)
			}
		}
		k, err := prepare(n)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		for _, name := range n.Outputs {
			if name == "" {
				continue
			}
			if defined[name] {
				return nil, fmt.Errorf("%w: %s writes %q, which is already defined", ErrFormat, where, name)
			}
			defined[name] = true
		}
		s.steps = append(s.steps, step{node: n, run: k})
	}
	if len(m.Graph.Outputs) == 0 {
		return nil, fmt.Errorf("%w: the graph has no outputs", ErrFormat)
	}
	for _, out := range m.Graph.Outputs {
		if !defined[out.Name] {
			return nil, fmt.Errorf("%w: graph output %q is never produced", ErrFormat, out.Name)
		}
	}
	s.outputs = m.Graph.Outputs
	s.planFrees()
	return s, nil
}

// planFrees fills lastUse: each value produced by a node is dropped after
// the last step that reads it, unless it is a graph output.
func (s *Session) planFrees() {
	keep := map[string]bool{}
	for _, out := range s.outputs {
		keep[out.Name] = true
	}
	last := map[string]int{}
	for i, st := range s.steps {
		for _, name := range st.node.Outputs {
			if name != "" {
				last[name] = i // produced but never read: dropped at once
			}
		}
		for _, name := range st.node.Inputs {
			if _, produced := last[name]; produced {
				last[name] = i
			}
		}
	}
	s.lastUse = make([][]string, len(s.steps))
	for name, i := range last {
		if !keep[name] {
			s.lastUse[i] = append(s.lastUse[i], name)
		}
	}
}

// tensorBytes is the memory t's values take.
func tensorBytes(t *Tensor) int64 {
	if t == nil {
		return 0
	}
	return 4*int64(len(t.Float)) + 8*int64(len(t.Int64)) + int64(len(t.Bool))
}

func nodeWhere(n *Node, i int) string {
	if n.Name != "" {
		return fmt.Sprintf("node %d %q (%s)", i, n.Name, n.OpType)
	}
	return fmt.Sprintf("node %d (%s)", i, n.OpType)
}

// Model returns the model the session runs.
func (s *Session) Model() *Model { return s.model }

// Inputs returns the graph inputs that Run must be fed.
func (s *Session) Inputs() []ValueInfo { return s.inputs }

// Outputs returns the graph outputs Run returns.
func (s *Session) Outputs() []ValueInfo { return s.outputs }

// Run executes the graph on feeds (one tensor per input, by name) and
// returns the graph outputs by name. A missing feed, a feed of the wrong
// type or shape, and a shape a node cannot compute with are errors.
func (s *Session) Run(feeds map[string]*Tensor) (map[string]*Tensor, error) {
	vals := make(map[string]*Tensor, len(s.consts)+len(s.steps)+len(feeds))
	for k, t := range s.consts {
		vals[k] = t
	}
	for _, in := range s.inputs {
		t, ok := feeds[in.Name]
		if !ok || t == nil {
			return nil, fmt.Errorf("onnx: run: no value fed for input %q", in.Name)
		}
		if err := checkFeed(in, t); err != nil {
			return nil, err
		}
		vals[in.Name] = t
	}
	for name := range feeds {
		if _, ok := vals[name]; !ok {
			return nil, fmt.Errorf("onnx: run: %q is not an input of the graph (inputs: %s)", name, s.inputNames())
		}
	}
	args := make([]*Tensor, 0, 4)
	var live int64 // bytes of the node outputs held now
	var work int64 // elements produced so far
	for i, st := range s.steps {
		args = args[:0]
		for _, name := range st.node.Inputs {
			args = append(args, vals[name]) // "" gives nil
		}
		outs, err := st.run(args)
		if err != nil {
			return nil, fmt.Errorf("onnx: run: %s: %w", nodeWhere(st.node, i), err)
		}
		for j, name := range st.node.Outputs {
			if name != "" && j < len(outs) {
				vals[name] = outs[j]
				live += tensorBytes(outs[j])
				work += int64(outs[j].Len())
			}
		}
		if work > s.maxWork {
			return nil, fmt.Errorf("onnx: run: %s: the graph has produced %d elements in this run, over the budget of %d (MaxRunElems): the model is too large for this runtime", nodeWhere(st.node, i), work, s.maxWork)
		}
		if live > s.maxLive {
			return nil, fmt.Errorf("onnx: run: %s: the graph holds %.1f MiB of intermediate values at once, over the %.1f MiB budget (MaxLiveBytes): the model is too large for this runtime", nodeWhere(st.node, i), float64(live)/(1<<20), float64(s.maxLive)/(1<<20))
		}
		for _, name := range s.lastUse[i] {
			live -= tensorBytes(vals[name])
			delete(vals, name)
		}
	}
	res := make(map[string]*Tensor, len(s.outputs))
	for _, out := range s.outputs {
		t := vals[out.Name]
		if t == nil {
			return nil, fmt.Errorf("onnx: run: output %q was not computed", out.Name)
		}
		res[out.Name] = t
	}
	return res, nil
}

func (s *Session) inputNames() string {
	var n []string
	for _, in := range s.inputs {
		n = append(n, in.Name)
	}
	return strings.Join(n, ", ")
}

func checkFeed(in ValueInfo, t *Tensor) error {
	if t.Type != in.Type {
		return fmt.Errorf("onnx: run: input %q is %v, the graph wants %v", in.Name, t.Type, in.Type)
	}
	n, ok := numElems(t.Dims)
	if !ok || n != t.Len() {
		return fmt.Errorf("onnx: run: input %q holds %d values for dims %v", in.Name, t.Len(), t.Dims)
	}
	if in.Shape == nil {
		return nil
	}
	if len(t.Dims) != len(in.Shape) {
		return fmt.Errorf("onnx: run: input %q has rank %d, the graph wants %s", in.Name, len(t.Dims), shapeString(in.Shape))
	}
	for i, d := range in.Shape {
		if d.Param == "" && d.Value > 0 && t.Dims[i] != d.Value {
			return fmt.Errorf("onnx: run: input %q has shape %v, the graph wants %s", in.Name, t.Dims, shapeString(in.Shape))
		}
	}
	return nil
}

func shapeString(s []Dim) string {
	var p []string
	for _, d := range s {
		if d.Param != "" {
			p = append(p, d.Param)
		} else {
			p = append(p, fmt.Sprint(d.Value))
		}
	}
	return "[" + strings.Join(p, ", ") + "]"
}
