package onnx

import (
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"github.com/vlmrb/vlmrb/internal/safefile"
)

// DataType is TensorProto.DataType.
type DataType int32

// The element types this package computes with (onnx.proto's numbering).
const (
	Undefined DataType = 0
	Float     DataType = 1
	Int64     DataType = 7
	Bool      DataType = 9
)

func (t DataType) String() string {
	switch t {
	case Float:
		return "float"
	case Int64:
		return "int64"
	case Bool:
		return "bool"
	}
	return fmt.Sprintf("data type %d", int32(t))
}

// AttrType is AttributeProto.AttributeType.
type AttrType int32

// Attribute types (onnx.proto's numbering); GRAPH and the sequence types
// of tensors and graphs are not read.
const (
	AttrFloat   AttrType = 1
	AttrInt     AttrType = 2
	AttrString  AttrType = 3
	AttrTensor  AttrType = 4
	AttrFloats  AttrType = 6
	AttrInts    AttrType = 7
	AttrStrings AttrType = 8
)

// Model is a ModelProto: one graph with the operator sets it uses and
// free-form metadata.
type Model struct {
	IRVersion       int64 // 7 goes with opset 13
	Opsets          []OpsetID
	ProducerName    string
	ProducerVersion string
	DocString       string
	Graph           Graph
	Metadata        []Prop // metadata_props, in order
}

// OpsetID is an OperatorSetIdProto; Domain "" is the default ONNX domain.
type OpsetID struct {
	Domain  string
	Version int64
}

// Prop is a StringStringEntryProto.
type Prop struct{ Key, Value string }

// Graph is a GraphProto: nodes in topological order, constant
// initializers, and the graph's inputs and outputs.
type Graph struct {
	Name         string
	Nodes        []Node
	Initializers []*Tensor
	Inputs       []ValueInfo
	Outputs      []ValueInfo
	DocString    string
}

// Node is a NodeProto: one operator application.
type Node struct {
	Name, OpType, Domain string
	Inputs, Outputs      []string
	Attrs                []Attr
}

// Attr is an AttributeProto of one of the AttrType kinds above.
type Attr struct {
	Name    string
	Type    AttrType
	F       float32
	I       int64
	S       string
	T       *Tensor
	Floats  []float32
	Ints    []int64
	Strings []string
}

// ValueInfo is a ValueInfoProto of a tensor type.
type ValueInfo struct {
	Name  string
	Type  DataType
	Shape []Dim // nil: rank unknown
	Doc   string
}

// Dim is one dimension of a shape: a fixed size, or a named symbolic one
// (Param, such as "batch") when Value is 0.
type Dim struct {
	Value int64
	Param string
}

// Tensor is a TensorProto held in memory: dimensions and the values of
// its type (Float, Int64 or Bool) in row-major order.
type Tensor struct {
	Name  string
	Type  DataType
	Dims  []int64
	Float []float32
	Int64 []int64
	Bool  []bool
}

// NewFloat returns a float tensor of the given dims holding v (not copied).
// It panics when len(v) is not the product of dims.
func NewFloat(name string, v []float32, dims ...int64) *Tensor {
	t := &Tensor{Name: name, Type: Float, Dims: dims, Float: v}
	if n, ok := numElems(dims); !ok || n != len(v) {
		panic("onnx: NewFloat values do not fill dims")
	}
	return t
}

// NewInt64 returns an int64 tensor of the given dims holding v (not copied).
func NewInt64(name string, v []int64, dims ...int64) *Tensor {
	t := &Tensor{Name: name, Type: Int64, Dims: dims, Int64: v}
	if n, ok := numElems(dims); !ok || n != len(v) {
		panic("onnx: NewInt64 values do not fill dims")
	}
	return t
}

// Len returns the number of elements.
func (t *Tensor) Len() int {
	switch t.Type {
	case Float:
		return len(t.Float)
	case Int64:
		return len(t.Int64)
	case Bool:
		return len(t.Bool)
	}
	return 0
}

// numElems is the product of dims; ok is false for a negative dim or a
// product past MaxTensorElems.
func numElems(dims []int64) (int, bool) {
	n := int64(1)
	for _, d := range dims {
		if d < 0 || d > MaxTensorElems {
			return 0, false
		}
		n *= d
		if n > MaxTensorElems {
			return 0, false
		}
	}
	return int(n), true
}

// Meta returns the value of metadata key k and whether it is present.
func (m *Model) Meta(k string) (string, bool) {
	for _, p := range m.Metadata {
		if p.Key == k {
			return p.Value, true
		}
	}
	return "", false
}

// OpsetVersion returns the version of the default domain's operator set
// (0 when the model imports none).
func (m *Model) OpsetVersion() int64 {
	for _, o := range m.Opsets {
		if o.Domain == "" || o.Domain == "ai.onnx" {
			return o.Version
		}
	}
	return 0
}

// Field numbers of onnx.proto (proto3 text of onnx 1.14).
const (
	modelIRVersion = 1
	modelProducer  = 2
	modelProdVer   = 3
	modelDomain    = 4
	modelVersion   = 5
	modelDoc       = 6
	modelGraph     = 7
	modelOpset     = 8
	modelMeta      = 14

	graphNode   = 1
	graphName   = 2
	graphInit   = 5
	graphDoc    = 10
	graphInput  = 11
	graphOutput = 12
	graphVInfo  = 13

	nodeInput  = 1
	nodeOutput = 2
	nodeName   = 3
	nodeOpType = 4
	nodeAttr   = 5
	nodeDoc    = 6
	nodeDomain = 7

	attrName    = 1
	attrF       = 2
	attrI       = 3
	attrS       = 4
	attrT       = 5
	attrG       = 6
	attrFloats  = 7
	attrInts    = 8
	attrStrings = 9
	attrTensors = 10
	attrGraphs  = 11
	attrDoc     = 13
	attrType    = 20
	attrRefName = 21

	tensorDims     = 1
	tensorType     = 2
	tensorSegment  = 3
	tensorFloats   = 4
	tensorInt32s   = 5
	tensorStrings  = 6
	tensorInt64s   = 7
	tensorName     = 8
	tensorRaw      = 9
	tensorDoubles  = 10
	tensorUint64s  = 11
	tensorDoc      = 12
	tensorExternal = 13
	tensorLocation = 14

	viName = 1
	viType = 2
	viDoc  = 3

	typeTensor = 1

	ttElemType = 1
	ttShape    = 2

	shapeDim = 1

	dimValue = 1
	dimParam = 2

	opsetDomain  = 1
	opsetVersion = 2

	propKey   = 1
	propValue = 2
)

// MarshalBinary encodes m as an ONNX ModelProto.
func (m *Model) MarshalBinary() ([]byte, error) {
	var b []byte
	b = appendInt(b, modelIRVersion, m.IRVersion)
	b = appendString(b, modelProducer, m.ProducerName)
	b = appendString(b, modelProdVer, m.ProducerVersion)
	b = appendString(b, modelDoc, m.DocString)
	g, err := m.Graph.marshal()
	if err != nil {
		return nil, err
	}
	b = appendMessage(b, modelGraph, g)
	for _, o := range m.Opsets {
		var ob []byte
		ob = appendString(ob, opsetDomain, o.Domain)
		ob = appendInt(ob, opsetVersion, o.Version)
		b = appendMessage(b, modelOpset, ob)
	}
	for _, p := range m.Metadata {
		var pb []byte
		pb = appendString(pb, propKey, p.Key)
		pb = appendString(pb, propValue, p.Value)
		b = appendMessage(b, modelMeta, pb)
	}
	return b, nil
}

// WriteFile writes m to path atomically (temporary file, fsync, rename).
func (m *Model) WriteFile(path string) error {
	b, err := m.MarshalBinary()
	if err != nil {
		return fmt.Errorf("onnx: write %s: %w", path, err)
	}
	if err := atomicfile.WriteBytes(path, b); err != nil {
		return fmt.Errorf("onnx: write %s: %w", path, err)
	}
	return nil
}

// ReadFile reads and decodes the model at path through internal/safefile:
// a FIFO, device or directory is refused without blocking, and a file over
// MaxModelBytes before it is read (or, counted as read, once it passes).
func ReadFile(path string) (*Model, error) {
	data, err := safefile.ReadFile(path, MaxModelBytes)
	if err != nil {
		return nil, fmt.Errorf("onnx: %w", err)
	}
	m, err := Unmarshal(data)
	if err != nil {
		return nil, fmt.Errorf("onnx: %s: %w", path, err)
	}
	return m, nil
}

func (g *Graph) marshal() ([]byte, error) {
	var b []byte
	for i := range g.Nodes {
		b = appendMessage(b, graphNode, g.Nodes[i].marshal())
	}
	b = appendString(b, graphName, g.Name)
	for _, t := range g.Initializers {
		tb, err := t.marshal()
		if err != nil {
			return nil, err
		}
		b = appendMessage(b, graphInit, tb)
	}
	b = appendString(b, graphDoc, g.DocString)
	for _, v := range g.Inputs {
		b = appendMessage(b, graphInput, v.marshal())
	}
	for _, v := range g.Outputs {
		b = appendMessage(b, graphOutput, v.marshal())
	}
	return b, nil
}

func (n *Node) marshal() []byte {
	var b []byte
	for _, s := range n.Inputs {
		b = protowire.AppendTag(b, nodeInput, protowire.BytesType)
		b = protowire.AppendString(b, s)
	}
	for _, s := range n.Outputs {
		b = protowire.AppendTag(b, nodeOutput, protowire.BytesType)
		b = protowire.AppendString(b, s)
	}
	b = appendString(b, nodeName, n.Name)
	b = appendString(b, nodeOpType, n.OpType)
	for i := range n.Attrs {
		b = appendMessage(b, nodeAttr, n.Attrs[i].marshal())
	}
	b = appendString(b, nodeDomain, n.Domain)
	return b
}

func (a *Attr) marshal() []byte {
	var b []byte
	b = appendString(b, attrName, a.Name)
	switch a.Type {
	case AttrFloat:
		b = protowire.AppendTag(b, attrF, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, math.Float32bits(a.F))
	case AttrInt:
		b = protowire.AppendTag(b, attrI, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(a.I))
	case AttrString:
		b = protowire.AppendTag(b, attrS, protowire.BytesType)
		b = protowire.AppendString(b, a.S)
	case AttrTensor:
		tb, _ := a.T.marshal()
		b = appendMessage(b, attrT, tb)
	case AttrFloats:
		var p []byte
		for _, f := range a.Floats {
			p = protowire.AppendFixed32(p, math.Float32bits(f))
		}
		b = appendMessage(b, attrFloats, p)
	case AttrInts:
		var p []byte
		for _, v := range a.Ints {
			p = protowire.AppendVarint(p, uint64(v))
		}
		b = appendMessage(b, attrInts, p)
	case AttrStrings:
		for _, s := range a.Strings {
			b = protowire.AppendTag(b, attrStrings, protowire.BytesType)
			b = protowire.AppendString(b, s)
		}
	}
	b = protowire.AppendTag(b, attrType, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(a.Type))
}

// marshal writes dims (packed), the type, the name and the values as
// little-endian raw_data, which every runtime reads.
func (t *Tensor) marshal() ([]byte, error) {
	n, ok := numElems(t.Dims)
	if !ok || n != t.Len() {
		return nil, fmt.Errorf("onnx: tensor %q holds %d values for dims %v", t.Name, t.Len(), t.Dims)
	}
	var b []byte
	if len(t.Dims) > 0 {
		var p []byte
		for _, d := range t.Dims {
			p = protowire.AppendVarint(p, uint64(d))
		}
		b = appendMessage(b, tensorDims, p)
	}
	b = protowire.AppendTag(b, tensorType, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(t.Type))
	b = appendString(b, tensorName, t.Name)
	var raw []byte
	switch t.Type {
	case Float:
		raw = make([]byte, 0, 4*len(t.Float))
		for _, f := range t.Float {
			raw = appendLE32(raw, math.Float32bits(f))
		}
	case Int64:
		raw = make([]byte, 0, 8*len(t.Int64))
		for _, v := range t.Int64 {
			raw = appendLE32(raw, uint32(v))
			raw = appendLE32(raw, uint32(uint64(v)>>32))
		}
	case Bool:
		raw = make([]byte, len(t.Bool))
		for i, v := range t.Bool {
			if v {
				raw[i] = 1
			}
		}
	default:
		return nil, fmt.Errorf("onnx: tensor %q: cannot write %v", t.Name, t.Type)
	}
	b = protowire.AppendTag(b, tensorRaw, protowire.BytesType)
	return protowire.AppendBytes(b, raw), nil
}

func appendLE32(b []byte, v uint32) []byte {
	return append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
}

func (v *ValueInfo) marshal() []byte {
	var shape []byte
	for _, d := range v.Shape {
		var db []byte
		if d.Param != "" {
			db = appendString(db, dimParam, d.Param)
		} else {
			db = protowire.AppendTag(db, dimValue, protowire.VarintType)
			db = protowire.AppendVarint(db, uint64(d.Value))
		}
		shape = appendMessage(shape, shapeDim, db)
	}
	var tt []byte
	tt = protowire.AppendTag(tt, ttElemType, protowire.VarintType)
	tt = protowire.AppendVarint(tt, uint64(v.Type))
	if v.Shape != nil {
		tt = appendMessage(tt, ttShape, shape)
	}
	var typ []byte
	typ = appendMessage(typ, typeTensor, tt)
	var b []byte
	b = appendString(b, viName, v.Name)
	b = appendMessage(b, viType, typ)
	return appendString(b, viDoc, v.Doc)
}

func appendString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendInt(b []byte, num protowire.Number, v int64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(v))
}

func appendMessage(b []byte, num protowire.Number, m []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, m)
}
