// Command write leaves the ONNX check fixtures of package onnxfixture (an
// exported SAC actor and DQN Q-network, their inputs and vlmrb's own
// outputs) in a directory, for scripts/onnx-check.sh to run in
// onnxruntime-node: go run ./onnx/onnxfixture/write DIR.
package main
