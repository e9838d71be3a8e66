// Package gonnxcheck runs vlmrb's exported ONNX policies in gonnx
// (github.com/advancedclimatesystems/gonnx, a pure-Go ONNX runtime) and
// compares them with vlmrb's own forward pass. It is a module of its own
// because gonnx brings gorgonia's tensor package, Apache Arrow,
// flatbuffers and gogo/protobuf with it, none of which the core module
// should carry; `make onnx-check` (run by .ci/run) tests it.
package gonnxcheck
