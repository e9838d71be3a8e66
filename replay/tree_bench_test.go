package replay

import (
	"math/rand/v2"
	"testing"
)

func benchTree(n int) *sumTree {
	t := newSumTree(n)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range n {
		t.leaf[i] = toLeaf(powAlpha(rng.Float64()+1e-3, 0.6))
	}
	t.rebuild()
	return t
}

// BenchmarkTreeDescent measures the batched stratified descent alone.
func BenchmarkTreeDescent(b *testing.B) {
	t := benchTree(benchCap)
	idx := make([]int32, benchBatch)
	rng := rand.New(rand.NewPCG(7, 8))
	n := 0
	clk := startCPU()
	for b.Loop() {
		t.sampleStratified(idx, nil, rng)
		n++
	}
	reportBatches(b, n, clk)
}

// BenchmarkTreeFind measures one-at-a-time descents (no batching).
func BenchmarkTreeFind(b *testing.B) {
	t := benchTree(benchCap)
	idx := make([]int32, benchBatch)
	rng := rand.New(rand.NewPCG(7, 8))
	n := 0
	clk := startCPU()
	for b.Loop() {
		seg := t.total / benchBatch
		for j := range idx {
			idx[j] = int32(t.find((float64(j) + rng.Float64()) * seg))
		}
		n++
	}
	reportBatches(b, n, clk)
}

func BenchmarkTreeDescentSmall(b *testing.B) {
	t := benchTree(10000)
	idx := make([]int32, benchBatch)
	rng := rand.New(rand.NewPCG(7, 8))
	n := 0
	clk := startCPU()
	for b.Loop() {
		t.sampleStratified(idx, nil, rng)
		n++
	}
	reportBatches(b, n, clk)
}
