// Package nn is a small float32 neural-network kit for reinforcement
// learning on the CPU: dense layers, ReLU/tanh, backprop written by hand,
// Adam, PyTorch-like initialisation and a versioned, checksummed file format.
//
// Matrices are row-major float32 slices laid out for BLAS. A batch of n
// inputs is an n×In matrix; a Dense layer keeps its weights as an In×Out
// matrix W so that the forward pass is the single GEMM Y = X·W + b.
//
// Two BLAS backends are available: gonum's pure-Go blas32 (the default, and
// the only one when built with CGO_ENABLED=0 or the noopenblas tag) and
// OpenBLAS through cgo. SetBackend or the VLMRB_BLAS environment variable
// ("gonum", "openblas" or "auto") selects one at run time; SetThreads sets
// how many threads OpenBLAS may use (gonum's GEMM follows GOMAXPROCS).
//
// A Pool (one helper goroutine) lets BackwardWith overlap each layer's
// weight-gradient and input-gradient GEMMs on two cores with results equal
// to Backward's. With OpenBLAS, the element-wise work (bias and ReLU,
// ReLU masks, Adam, Polyak) runs in small vectorised C kernels; with gonum
// it is plain Go.
//
// What it does not own: losses, optimiser schedules and the RL algorithm
// (package sac). An MLP with its Tape does not allocate in Forward or
// Backward once the Tape is large enough (OpenBLAS backend; gonum's parallel
// GEMM allocates goroutines internally). An MLP, a Tape and an Adam are for
// one goroutine at a time; the backend selection is process-wide and must
// not change while other goroutines run GEMMs.
package nn
