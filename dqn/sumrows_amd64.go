package dqn

import "golang.org/x/sys/cpu"

// The kernels are in sumrows_amd64.s.
//
//go:noescape
func sumRows32(vec, mat *float32, rows *int32, n, stride int)

//go:noescape
func sumRows128AVX(vec, mat *float32, rows *int32, n, stride int)

//go:noescape
func addToRows128AVX(vec, mat *float32, rows *int32, n, stride int)

var hasAVX = cpu.X86.HasAVX

// checkRows panics unless every row r of rows has 0 ≤ r, (r+1)·H ≤ n.
func checkRows(rows []int32, H, n int) {
	for _, r := range rows {
		if r < 0 || (int(r)+1)*H > n {
			panic("dqn: sparse row out of range")
		}
	}
}

// sumRows adds rows W[r·H : (r+1)·H] for r in rows, in order, to h (len
// H): the sparse first layer's forward pass for one sample. Every r must
// satisfy 0 ≤ r and (r+1)·H ≤ len(W). The kernels hold a block of h in
// registers across the rows; the additions per element are those of
// sumRowsGo, in the same order, so the results are bit-identical.
func sumRows(h, W []float32, rows []int32, H int) {
	if H%32 != 0 || len(rows) == 0 {
		sumRowsGo(h, W, rows, H)
		return
	}
	_ = h[H-1]
	checkRows(rows, H, len(W))
	c := 0
	if hasAVX {
		for ; c+128 <= H; c += 128 {
			sumRows128AVX(&h[c], &W[c], &rows[0], len(rows), H)
		}
	}
	for ; c < H; c += 32 {
		sumRows32(&h[c], &W[c], &rows[0], len(rows), H)
	}
}

// addToRows adds x (len H) to rows W[r·H : (r+1)·H] for r in rows, in
// order: the sparse first layer's weight gradient for one sample. Every r
// must satisfy 0 ≤ r and (r+1)·H ≤ len(W). Bit-identical to addToRowsGo.
func addToRows(W, x []float32, rows []int32, H int) {
	if !hasAVX || H%128 != 0 || len(rows) == 0 {
		addToRowsGo(W, x, rows, H)
		return
	}
	_ = x[H-1]
	checkRows(rows, H, len(W))
	for c := 0; c < H; c += 128 {
		addToRows128AVX(&x[c], &W[c], &rows[0], len(rows), H)
	}
}
