// Package onnx reads, writes and runs the small subset of ONNX
// (https://onnx.ai, onnx/onnx.proto) that policy networks use: dense
// layers and their activations, the gathers and casts of a one-hot input
// encoding, comparisons and ArgMax, all on float32, int64 and bool
// tensors of the default operator domain.
//
// Model is plain data mirroring ModelProto, GraphProto, NodeProto,
// TensorProto and their neighbours; MarshalBinary writes it as protobuf
// with google.golang.org/protobuf/encoding/protowire alone (no generated
// code) and Unmarshal reads it back, bounded by MaxModelBytes and checked
// field by field, so a crafted file gives an error, never a panic.
// NewSession checks a graph once (operators, attributes, that every value
// is produced before it is used) and Session.Run executes it on a batch;
// its matrix products run on package nn's selected BLAS backend with the
// calls nn's own forward pass makes, so an exported network gives the
// agent's numbers exactly. Run drops each intermediate value once its
// last reader has run, and stops with an error naming the node when the
// values alive at once pass MaxLiveBytes or the elements produced pass
// MaxRunElems, so a small file cannot ask for gigabytes or minutes.
// An operator or feature outside the subset is an error naming it:
// subgraphs, external data, other operator domains, sparse tensors.
//
// What it does not own: which networks are exported and what their
// inputs mean (package onnx/policy), training (sac, dqn).
package onnx
