package replay

import (
	"bytes"
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

// checkGenRing asserts that the ring-derived generation of every slot
// equals the stored one.
func checkGenRing(t *testing.T, b *Buffer, when string) {
	t.Helper()
	if !b.genRing {
		t.Fatalf("%s: generations no longer follow the ring", when)
	}
	for i, g := range b.gen {
		if got := b.genAt(int32(i)); got != g {
			t.Fatalf("%s: slot %d (pos %d) derived generation %d, stored %d", when, i, b.pos, got, g)
		}
	}
}

// TestGenAtFollowsRing checks that the generation derived from the ring
// position (genAt, used by draws and write-backs) equals the stored
// generation of every slot after every Add — with and without ShareNextObs
// (whose phantom slots also take ring slots) — across a save/load, through
// the uint32 wrap past 0, and that generations which do not follow the ring
// turn the derivation off.
func TestGenAtFollowsRing(t *testing.T) {
	t.Parallel()
	for _, share := range []bool{false, true} {
		b, err := NewBuffer(Config{Capacity: 7, ObsDim: 3, ActDim: 2, ShareNextObs: share})
		if err != nil {
			t.Fatal(err)
		}
		checkGenRing(t, b, "empty")
		obs := []float64{0, 1, 2}
		for k := range 40 {
			next := []float64{float64(k + 1), 1, 2}
			if k%6 == 3 { // a caller that does not continue from NextObs: a phantom
				obs = []float64{-1, 0, 0}
			}
			b.Add(Transition{Obs: obs, Action: []float64{0, 0}, NextObs: next, Truncated: k%9 == 8, Episode: int64(k / 9)})
			obs = next
			checkGenRing(t, b, "after add")
		}
		var f bytes.Buffer
		if err := b.Save(&f); err != nil {
			t.Fatal(err)
		}
		b2, _ := NewBuffer(b.cfg)
		if err := b2.Load(&f); err != nil {
			t.Fatal(err)
		}
		checkGenRing(t, b2, "after load")

		// generations about to wrap past 0
		b2.mu.Lock()
		for i := range b2.gen {
			b2.gen[i] = math.MaxUint32
			if i < b2.pos {
				b2.gen[i] = 1
			}
		}
		b2.syncGenLocked()
		b2.mu.Unlock()
		checkGenRing(t, b2, "near the wrap")
		for range 10 {
			b2.Add(Transition{Obs: obs, Action: []float64{0, 0}, NextObs: obs, Episode: 100})
			checkGenRing(t, b2, "across the wrap")
		}

		// generations off the ring: stored ones rule
		b2.mu.Lock()
		b2.gen[3] += 5
		b2.syncGenLocked()
		b2.mu.Unlock()
		if b2.genRing {
			t.Fatal("generations off the ring still derived")
		}
		if g := b2.gen[3]; !b2.Valid(Ref{Slot: 3, Gen: g}) || b2.Valid(Ref{Slot: 3, Gen: g - 5}) {
			t.Fatal("off-ring validity does not follow the stored generation")
		}
	}
}
