package dqn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// sumRows must give the same bits as one add per row: the same additions
// in the same order for every element, so a run is the same whichever
// kernel computed it.
func TestSumRowsMatchesAdds(t *testing.T) {
	testSumRows(t)
	if setAVX(false) { // again on the SSE kernel alone
		defer setAVX(true)
		testSumRows(t)
	}
}

func testSumRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, H := range []int{32, 64, 128, 256, 48, 7} {
		const inDim = 300
		W := make([]float32, inDim*H)
		for i := range W {
			// wide magnitudes so that the order of additions matters
			W[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3)))
		}
		for _, n := range []int{0, 1, 2, 148, 500} {
			rows := make([]int32, n)
			for k := range rows {
				rows[k] = int32(rng.IntN(inDim)) // repeats included
			}
			if n > 1 {
				rows[0], rows[n-1] = 0, inDim-1 // both ends of W
			}
			h0 := make([]float32, H)
			for i := range h0 {
				h0[i] = float32(rng.NormFloat64())
			}
			got, want := append([]float32(nil), h0...), append([]float32(nil), h0...)
			sumRows(got, W, rows, H)
			sumRowsGo(want, W, rows, H)
			sameBits(t, fmt.Sprintf("sumRows, H %d, %d rows", H, n), got, want)

			// the gradient's scatter: h0 added to each row in turn
			gotW, wantW := append([]float32(nil), W...), append([]float32(nil), W...)
			addToRows(gotW, h0, rows, H)
			addToRowsGo(wantW, h0, rows, H)
			sameBits(t, fmt.Sprintf("addToRows, H %d, %d rows", H, n), gotW, wantW)
		}
	}
}

func sameBits(t *testing.T, what string, got, want []float32) {
	t.Helper()
	for j := range got {
		if math.Float32bits(got[j]) != math.Float32bits(want[j]) {
			t.Fatalf("%s: element %d = %v, one add per row gives %v", what, j, got[j], want[j])
		}
	}
}

func TestSumRowsRejectsOutOfRange(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("a row past the end of W did not panic")
		}
	}()
	W := make([]float32, 4*32)
	sumRows(make([]float32, 32), W, []int32{1, 4}, 32)
}

func TestAddToRowsRejectsOutOfRange(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("a row past the end of W did not panic")
		}
	}()
	W := make([]float32, 4*128)
	addToRows(W, make([]float32, 128), []int32{4}, 128)
}

func BenchmarkSumRows(b *testing.B) {
	const H, inDim, k = 128, 1033, 148
	rng := rand.New(rand.NewPCG(3, 4))
	W := make([]float32, inDim*H)
	for i := range W {
		W[i] = float32(rng.NormFloat64())
	}
	rows := make([]int32, k)
	for i := range rows {
		rows[i] = int32(rng.IntN(inDim))
	}
	h := make([]float32, H)
	for _, impl := range []struct {
		name string
		f    func(h, W []float32, rows []int32, H int)
	}{{"kernel", sumRows}, {"adds", sumRowsGo}} {
		b.Run(impl.name, func(b *testing.B) {
			for b.Loop() {
				impl.f(h, W, rows, H)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}
