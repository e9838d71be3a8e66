// Package onnxfixture builds the exported policies that the ONNX runtime
// checks compare against vlmrb's own forward pass: a SAC actor of the
// manipulation tasks' spaces and a DQN Q-network of DoorKey's, each with
// 1,000 random observations and the agent's outputs on them. The gonnx
// check (module onnx/gonnxcheck) uses Cases directly; the
// onnxruntime-node check (scripts/onnx-check.sh) reads the files Write
// leaves (go run ./onnx/onnxfixture/write DIR).
package onnxfixture
