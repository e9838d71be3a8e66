package replay

import (
	"math"
	"testing"
	"unsafe"
)

// TestBytesPerTransition checks the reported figure against what NewBuffer
// actually allocates per slot.
func TestBytesPerTransition(t *testing.T) {
	t.Parallel()
	b, err := NewBuffer(Config{Capacity: 10, ObsDim: 39, ActDim: 4})
	if err != nil {
		t.Fatal(err)
	}
	size := func(n int, elem uintptr) int { return n * int(elem) }
	total := size(len(b.obs), 4) + size(len(b.nextObs), 4) + size(len(b.act), 4) +
		size(len(b.hot), unsafe.Sizeof(b.hot[0])) + size(len(b.gen), 4) + size(len(b.env), unsafe.Sizeof(b.env[0])) +
		size(len(b.ep), unsafe.Sizeof(b.ep[0])) + size(len(b.step), unsafe.Sizeof(b.step[0]))
	if got := BytesPerTransition(39, 4); got != total/10 {
		t.Fatalf("BytesPerTransition = %d, buffer allocates %d per slot", got, total/10)
	}
}

// TestAddRingAndRead checks ring order, generations, separate terminated and
// truncated flags, float32 rounding and metadata.
func TestAddRingAndRead(t *testing.T) {
	t.Parallel()
	b, refs := newTestBuffer(t, 4, 6) // wraps: slots 0,1 hold transitions 4,5
	if b.Len() != 4 || b.Adds() != 6 {
		t.Fatalf("len %d adds %d", b.Len(), b.Adds())
	}
	for k, r := range refs {
		if int(r.Slot) != k%4 || r.Gen != uint32(k/4+1) {
			t.Fatalf("ref %d = %+v", k, r)
		}
	}
	dst := NewBatch(1, 3, 2)
	for k := 2; k < 6; k++ {
		if !b.Read(refs[k], dst, 0) {
			t.Fatalf("valid ref %d unreadable", k)
		}
		want := float32(k)
		if dst.Obs[0] != want || dst.NextObs[0] != want+1 || dst.Actions[0] != -want || dst.Rewards[0] != float32(float64(k)/10) {
			t.Fatalf("transition %d read back as obs %v next %v act %v rew %v", k, dst.Obs, dst.NextObs, dst.Actions, dst.Rewards)
		}
		if (dst.Terminated[0] == 1) != (k%5 == 4) || (dst.Truncated[0] == 1) != (k%7 == 6) || dst.Weights[0] != 1 {
			t.Fatalf("transition %d flags term %v trunc %v", k, dst.Terminated[0], dst.Truncated[0])
		}
		m, ok := b.Meta(refs[k])
		if !ok || m.Env != int32(k%3) || m.Episode != int64(k/10) || m.Step != int32(k%10) {
			t.Fatalf("meta %d = %+v", k, m)
		}
	}
	if b.Read(refs[0], dst, 0) {
		t.Fatal("overwritten ref still readable")
	}
	// float64 inputs are rounded to float32
	r := b.Add(Transition{Obs: []float64{math.Pi, 0, 0}, Action: []float64{0, 0}, NextObs: []float64{0, 0, 0}})
	b.Read(r, dst, 0)
	if dst.Obs[0] != float32(math.Pi) {
		t.Fatalf("obs %v, want float32(π)", dst.Obs[0])
	}
}

func TestAddPanicsOnWrongLengths(t *testing.T) {
	t.Parallel()
	b, _ := newTestBuffer(t, 4, 0)
	defer func() {
		if recover() == nil {
			t.Fatal("Add with a short obs did not panic")
		}
	}()
	b.Add(Transition{Obs: []float64{1}, Action: []float64{0, 0}, NextObs: []float64{0, 0, 0}})
}
