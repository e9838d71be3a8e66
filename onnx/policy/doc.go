// Package policy exports vlmrb's trained agents as ONNX models and loads
// ONNX policy networks back as control.Policy values, so a deployment
// artefact can be run and evaluated like a checkpoint.
//
// SAC exports the deterministic actor: obs → the Gemm/ReLU layers → the
// mean head → tanh → the affine map of [−1, 1] onto the action bounds
// (the training loop's scaling), output "action". DQN exports the online
// Q network, output "q_values": the one-hot input encoding of
// Config.Categorical is part of the graph (Gather, rounding by Cast,
// clamping and an exact 0/1 code from Relu(1 − |r − c|)), so the model
// takes the raw observation; the action is argmax over q_values, lowest
// index on ties, as metadata_props say. vlmrb trains on raw observations,
// so there is no normalisation to fold in; metadata_props say so too.
// Models use opset 13 and a symbolic batch dimension.
//
// Load reads any model of one float input [batch, obs] and one output:
// float [batch, act] actions, float [batch, n] Q-values (with the
// metadata saying so) or int64 action indices from an ArgMax.
//
// What it does not own: the ONNX encoding and runtime (package onnx),
// finding checkpoints of a run (train).
package policy
