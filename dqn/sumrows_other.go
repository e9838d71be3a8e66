//go:build !amd64

package dqn

// sumRows adds rows W[r·H : (r+1)·H] for r in rows, in order, to h (len
// H): the sparse first layer's forward pass for one sample.
func sumRows(h, W []float32, rows []int32, H int) { sumRowsGo(h, W, rows, H) }

// addToRows adds x (len H) to rows W[r·H : (r+1)·H] for r in rows, in
// order: the sparse first layer's weight gradient for one sample.
func addToRows(W, x []float32, rows []int32, H int) { addToRowsGo(W, x, rows, H) }
