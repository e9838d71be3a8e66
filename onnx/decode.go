package onnx

import (
	"errors"
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Limits on what Unmarshal and Run accept. A policy network is a few
// megabytes; these bound the memory a crafted file can claim.
const (
	// MaxModelBytes is the largest encoded model ReadFile reads (256 MiB).
	MaxModelBytes = 256 << 20
	// MaxTensorElems bounds the elements of any tensor, stored or
	// computed (2²⁴, 64 MiB of float32; DoorKey's one-hot input layer
	// has 132,224 weights).
	MaxTensorElems = 1 << 24
	// MaxRank bounds tensor ranks.
	MaxRank = 8
)

// ErrFormat is wrapped by every error about a malformed or truncated
// encoding.
var ErrFormat = errors.New("onnx: bad encoding")

// ErrUnsupported is wrapped by every error about a valid ONNX feature
// this package does not implement (an operator, a data type, external
// data, a subgraph).
var ErrUnsupported = errors.New("onnx: not supported")

// field is one decoded protobuf field: a varint or fixed value in u, or
// the bytes of a length-delimited one in b.
type field struct {
	num protowire.Number
	typ protowire.Type
	u   uint64
	b   []byte
}

// fields calls f for each field of the message b.
func fields(b []byte, what string, f func(fl field) error) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return fmt.Errorf("%w: %s: %v", ErrFormat, what, protowire.ParseError(n))
		}
		b = b[n:]
		fl := field{num: num, typ: typ}
		switch typ {
		case protowire.VarintType:
			fl.u, n = protowire.ConsumeVarint(b)
		case protowire.Fixed32Type:
			var v uint32
			v, n = protowire.ConsumeFixed32(b)
			fl.u = uint64(v)
		case protowire.Fixed64Type:
			fl.u, n = protowire.ConsumeFixed64(b)
		case protowire.BytesType:
			fl.b, n = protowire.ConsumeBytes(b)
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
		}
		if n < 0 {
			return fmt.Errorf("%w: %s field %d: %v", ErrFormat, what, num, protowire.ParseError(n))
		}
		b = b[n:]
		if typ == protowire.StartGroupType {
			continue // groups are not part of onnx.proto; skip them
		}
		if err := f(fl); err != nil {
			return err
		}
	}
	return nil
}

func (fl field) want(t protowire.Type, what string) error {
	if fl.typ != t {
		return fmt.Errorf("%w: %s field %d has wire type %d, want %d", ErrFormat, what, fl.num, fl.typ, t)
	}
	return nil
}

// int64s decodes a repeated int64 field, packed or not, appending to dst.
func (fl field) int64s(dst []int64, what string) ([]int64, error) {
	switch fl.typ {
	case protowire.VarintType:
		return append(dst, int64(fl.u)), nil
	case protowire.BytesType:
		b := fl.b
		for len(b) > 0 {
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return nil, fmt.Errorf("%w: %s: packed varints: %v", ErrFormat, what, protowire.ParseError(n))
			}
			dst = append(dst, int64(v))
			b = b[n:]
		}
		return dst, nil
	}
	return nil, fmt.Errorf("%w: %s field %d has wire type %d for integers", ErrFormat, what, fl.num, fl.typ)
}

// float32s decodes a repeated float field, packed or not.
func (fl field) float32s(dst []float32, what string) ([]float32, error) {
	switch fl.typ {
	case protowire.Fixed32Type:
		return append(dst, math.Float32frombits(uint32(fl.u))), nil
	case protowire.BytesType:
		if len(fl.b)%4 != 0 {
			return nil, fmt.Errorf("%w: %s: packed floats of %d bytes", ErrFormat, what, len(fl.b))
		}
		for i := 0; i < len(fl.b); i += 4 {
			dst = append(dst, math.Float32frombits(le32(fl.b[i:])))
		}
		return dst, nil
	}
	return nil, fmt.Errorf("%w: %s field %d has wire type %d for floats", ErrFormat, what, fl.num, fl.typ)
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

func (fl field) str(what string) (string, error) {
	if err := fl.want(protowire.BytesType, what); err != nil {
		return "", err
	}
	return string(fl.b), nil
}

// Unmarshal decodes an ONNX ModelProto. Fields outside the subset this
// package reads are skipped when they do not change the meaning of the
// model (doc strings, value_info, training info) and rejected otherwise.
func Unmarshal(data []byte) (*Model, error) {
	if len(data) > MaxModelBytes {
		return nil, fmt.Errorf("%w: model of %d bytes is over the %d-byte limit", ErrFormat, len(data), MaxModelBytes)
	}
	m := &Model{}
	sawGraph := false
	err := fields(data, "ModelProto", func(fl field) error {
		var err error
		switch fl.num {
		case modelIRVersion:
			err = fl.want(protowire.VarintType, "ModelProto.ir_version")
			m.IRVersion = int64(fl.u)
		case modelProducer:
			m.ProducerName, err = fl.str("ModelProto.producer_name")
		case modelProdVer:
			m.ProducerVersion, err = fl.str("ModelProto.producer_version")
		case modelDoc:
			m.DocString, err = fl.str("ModelProto.doc_string")
		case modelGraph:
			if err = fl.want(protowire.BytesType, "ModelProto.graph"); err == nil {
				if sawGraph {
					return fmt.Errorf("%w: ModelProto has two graphs", ErrFormat)
				}
				sawGraph = true
				err = m.Graph.unmarshal(fl.b)
			}
		case modelOpset:
			if err = fl.want(protowire.BytesType, "ModelProto.opset_import"); err == nil {
				var o OpsetID
				err = fields(fl.b, "OperatorSetIdProto", func(f field) error {
					var e error
					switch f.num {
					case opsetDomain:
						o.Domain, e = f.str("OperatorSetIdProto.domain")
					case opsetVersion:
						e = f.want(protowire.VarintType, "OperatorSetIdProto.version")
						o.Version = int64(f.u)
					}
					return e
				})
				m.Opsets = append(m.Opsets, o)
			}
		case modelMeta:
			if err = fl.want(protowire.BytesType, "ModelProto.metadata_props"); err == nil {
				var p Prop
				err = fields(fl.b, "StringStringEntryProto", func(f field) error {
					var e error
					switch f.num {
					case propKey:
						p.Key, e = f.str("metadata key")
					case propValue:
						p.Value, e = f.str("metadata value")
					}
					return e
				})
				m.Metadata = append(m.Metadata, p)
			}
		case 20: // functions
			return fmt.Errorf("%w: model-local functions", ErrUnsupported)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !sawGraph {
		return nil, fmt.Errorf("%w: ModelProto has no graph (is this an ONNX model file?)", ErrFormat)
	}
	return m, nil
}

func (g *Graph) unmarshal(b []byte) error {
	return fields(b, "GraphProto", func(fl field) error {
		var err error
		switch fl.num {
		case graphNode:
			if err = fl.want(protowire.BytesType, "GraphProto.node"); err == nil {
				var n Node
				err = n.unmarshal(fl.b)
				g.Nodes = append(g.Nodes, n)
			}
		case graphName:
			g.Name, err = fl.str("GraphProto.name")
		case graphInit:
			if err = fl.want(protowire.BytesType, "GraphProto.initializer"); err == nil {
				var t *Tensor
				t, err = unmarshalTensor(fl.b)
				g.Initializers = append(g.Initializers, t)
			}
		case graphDoc:
			g.DocString, err = fl.str("GraphProto.doc_string")
		case graphInput, graphOutput:
			if err = fl.want(protowire.BytesType, "GraphProto.input/output"); err == nil {
				var v ValueInfo
				err = v.unmarshal(fl.b)
				if fl.num == graphInput {
					g.Inputs = append(g.Inputs, v)
				} else {
					g.Outputs = append(g.Outputs, v)
				}
			}
		case 15: // sparse_initializer
			return fmt.Errorf("%w: sparse initializers", ErrUnsupported)
		}
		return err
	})
}

func (n *Node) unmarshal(b []byte) error {
	return fields(b, "NodeProto", func(fl field) error {
		var err error
		var s string
		switch fl.num {
		case nodeInput:
			s, err = fl.str("NodeProto.input")
			n.Inputs = append(n.Inputs, s)
		case nodeOutput:
			s, err = fl.str("NodeProto.output")
			n.Outputs = append(n.Outputs, s)
		case nodeName:
			n.Name, err = fl.str("NodeProto.name")
		case nodeOpType:
			n.OpType, err = fl.str("NodeProto.op_type")
		case nodeDomain:
			n.Domain, err = fl.str("NodeProto.domain")
		case nodeAttr:
			if err = fl.want(protowire.BytesType, "NodeProto.attribute"); err == nil {
				var a Attr
				err = a.unmarshal(fl.b)
				n.Attrs = append(n.Attrs, a)
			}
		}
		return err
	})
}

func (a *Attr) unmarshal(b []byte) error {
	var kinds []AttrType // the kinds whose fields were present
	err := fields(b, "AttributeProto", func(fl field) error {
		var err error
		switch fl.num {
		case attrName:
			a.Name, err = fl.str("AttributeProto.name")
		case attrType:
			err = fl.want(protowire.VarintType, "AttributeProto.type")
			a.Type = AttrType(int32(fl.u))
		case attrF:
			err = fl.want(protowire.Fixed32Type, "AttributeProto.f")
			a.F = math.Float32frombits(uint32(fl.u))
			kinds = append(kinds, AttrFloat)
		case attrI:
			err = fl.want(protowire.VarintType, "AttributeProto.i")
			a.I = int64(fl.u)
			kinds = append(kinds, AttrInt)
		case attrS:
			a.S, err = fl.str("AttributeProto.s")
			kinds = append(kinds, AttrString)
		case attrT:
			if err = fl.want(protowire.BytesType, "AttributeProto.t"); err == nil {
				a.T, err = unmarshalTensor(fl.b)
			}
			kinds = append(kinds, AttrTensor)
		case attrFloats:
			a.Floats, err = fl.float32s(a.Floats, "AttributeProto.floats")
			kinds = append(kinds, AttrFloats)
		case attrInts:
			a.Ints, err = fl.int64s(a.Ints, "AttributeProto.ints")
			kinds = append(kinds, AttrInts)
		case attrStrings:
			var s string
			s, err = fl.str("AttributeProto.strings")
			a.Strings = append(a.Strings, s)
			kinds = append(kinds, AttrStrings)
		case attrG, attrGraphs:
			return fmt.Errorf("%w: attribute %q holds a subgraph (control flow is not supported)", ErrUnsupported, a.Name)
		case attrTensors, 22, 23: // tensors, sparse tensors
			return fmt.Errorf("%w: attribute %q holds a tensor list or sparse tensor", ErrUnsupported, a.Name)
		case attrRefName:
			return fmt.Errorf("%w: attribute %q refers to a function attribute", ErrUnsupported, a.Name)
		}
		return err
	})
	if err != nil {
		return err
	}
	if a.Type == 0 && len(kinds) == 1 { // IR < 2 writers leave type unset
		a.Type = kinds[0]
	}
	switch a.Type {
	case AttrFloat, AttrInt, AttrString, AttrTensor, AttrFloats, AttrInts, AttrStrings:
	default:
		return fmt.Errorf("%w: attribute %q of type %d", ErrUnsupported, a.Name, a.Type)
	}
	if a.Type == AttrTensor && a.T == nil {
		return fmt.Errorf("%w: tensor attribute %q has no tensor", ErrFormat, a.Name)
	}
	return nil
}

func (v *ValueInfo) unmarshal(b []byte) error {
	return fields(b, "ValueInfoProto", func(fl field) error {
		var err error
		switch fl.num {
		case viName:
			v.Name, err = fl.str("ValueInfoProto.name")
		case viDoc:
			v.Doc, err = fl.str("ValueInfoProto.doc_string")
		case viType:
			if err = fl.want(protowire.BytesType, "ValueInfoProto.type"); err != nil {
				return err
			}
			sawTensor := false
			err = fields(fl.b, "TypeProto", func(f field) error {
				switch f.num {
				case typeTensor:
					sawTensor = true
					if e := f.want(protowire.BytesType, "TypeProto.tensor_type"); e != nil {
						return e
					}
					return v.unmarshalTensorType(f.b)
				case 4, 5, 8, 9: // sequence, map, sparse tensor, optional
					return fmt.Errorf("%w: value %q is not a dense tensor", ErrUnsupported, v.Name)
				}
				return nil
			})
			if err == nil && !sawTensor {
				err = fmt.Errorf("%w: value %q has no tensor type", ErrUnsupported, v.Name)
			}
		}
		return err
	})
}

func (v *ValueInfo) unmarshalTensorType(b []byte) error {
	return fields(b, "TypeProto.Tensor", func(f field) error {
		switch f.num {
		case ttElemType:
			if e := f.want(protowire.VarintType, "TypeProto.Tensor.elem_type"); e != nil {
				return e
			}
			v.Type = DataType(int32(f.u))
		case ttShape:
			if e := f.want(protowire.BytesType, "TypeProto.Tensor.shape"); e != nil {
				return e
			}
			v.Shape = []Dim{}
			return fields(f.b, "TensorShapeProto", func(d field) error {
				if d.num != shapeDim {
					return nil
				}
				if e := d.want(protowire.BytesType, "TensorShapeProto.dim"); e != nil {
					return e
				}
				if len(v.Shape) >= MaxRank {
					return fmt.Errorf("%w: value %q has rank over %d", ErrUnsupported, v.Name, MaxRank)
				}
				var dim Dim
				err := fields(d.b, "Dimension", func(x field) error {
					var e error
					switch x.num {
					case dimValue:
						e = x.want(protowire.VarintType, "Dimension.dim_value")
						dim.Value = int64(x.u)
					case dimParam:
						dim.Param, e = x.str("Dimension.dim_param")
					}
					return e
				})
				if dim.Value < 0 {
					return fmt.Errorf("%w: value %q has dimension %d", ErrFormat, v.Name, dim.Value)
				}
				v.Shape = append(v.Shape, dim)
				return err
			})
		}
		return nil
	})
}

func unmarshalTensor(b []byte) (*Tensor, error) {
	t := &Tensor{}
	var raw []byte
	hasRaw := false
	var floats []float32
	var ints []int64 // int64_data, or int32_data for bool
	var int32s []int64
	err := fields(b, "TensorProto", func(fl field) error {
		var err error
		switch fl.num {
		case tensorDims:
			t.Dims, err = fl.int64s(t.Dims, "TensorProto.dims")
			if len(t.Dims) > MaxRank {
				err = fmt.Errorf("%w: tensor %q has rank over %d", ErrUnsupported, t.Name, MaxRank)
			}
		case tensorType:
			err = fl.want(protowire.VarintType, "TensorProto.data_type")
			t.Type = DataType(int32(fl.u))
		case tensorName:
			t.Name, err = fl.str("TensorProto.name")
		case tensorRaw:
			err = fl.want(protowire.BytesType, "TensorProto.raw_data")
			raw, hasRaw = fl.b, true
		case tensorFloats:
			floats, err = fl.float32s(floats, "TensorProto.float_data")
		case tensorInt64s:
			ints, err = fl.int64s(ints, "TensorProto.int64_data")
		case tensorInt32s:
			int32s, err = fl.int64s(int32s, "TensorProto.int32_data")
		case tensorSegment:
			return fmt.Errorf("%w: segmented tensors", ErrUnsupported)
		case tensorExternal:
			return fmt.Errorf("%w: tensor %q keeps its data in an external file", ErrUnsupported, t.Name)
		case tensorLocation:
			if fl.typ == protowire.VarintType && fl.u != 0 {
				return fmt.Errorf("%w: tensor %q keeps its data in an external file", ErrUnsupported, t.Name)
			}
		case tensorStrings, tensorDoubles, tensorUint64s:
			return fmt.Errorf("%w: tensor %q holds string, double or uint64 data", ErrUnsupported, t.Name)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	n, ok := numElems(t.Dims)
	if !ok {
		return nil, fmt.Errorf("%w: tensor %q has dims %v (negative, or over %d elements)", ErrFormat, t.Name, t.Dims, MaxTensorElems)
	}
	size := map[DataType]int{Float: 4, Int64: 8, Bool: 1}[t.Type]
	if size == 0 {
		return nil, fmt.Errorf("%w: tensor %q of %v (this package computes with float, int64 and bool)", ErrUnsupported, t.Name, t.Type)
	}
	if hasRaw {
		if len(raw) != n*size {
			return nil, fmt.Errorf("%w: tensor %q has %d bytes of raw data for %d elements of %v", ErrFormat, t.Name, len(raw), n, t.Type)
		}
		switch t.Type {
		case Float:
			t.Float = make([]float32, n)
			for i := range t.Float {
				t.Float[i] = math.Float32frombits(le32(raw[4*i:]))
			}
		case Int64:
			t.Int64 = make([]int64, n)
			for i := range t.Int64 {
				t.Int64[i] = int64(uint64(le32(raw[8*i:])) | uint64(le32(raw[8*i+4:]))<<32)
			}
		case Bool:
			t.Bool = make([]bool, n)
			for i := range t.Bool {
				t.Bool[i] = raw[i] != 0
			}
		}
		return t, nil
	}
	switch t.Type {
	case Float:
		t.Float = floats
	case Int64:
		t.Int64 = ints
	case Bool:
		t.Bool = make([]bool, len(int32s))
		for i, v := range int32s {
			t.Bool[i] = v != 0
		}
	}
	if t.Len() != n {
		return nil, fmt.Errorf("%w: tensor %q holds %d values for dims %v", ErrFormat, t.Name, t.Len(), t.Dims)
	}
	return t, nil
}
