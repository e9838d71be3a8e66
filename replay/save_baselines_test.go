package replay

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math/rand/v2"
	"reflect"
	"testing"
)

// ERO's replay policy, its pending decisions and per-slot features, and
// AER's λ schedule survive Save and Load: after loading, the restored
// samplers draw exactly what the originals draw from the same stream.
func TestSaveLoadEROAndAER(t *testing.T) {
	t.Parallel()
	build := func() (*Buffer, *ERO, *AER) {
		buf, err := NewBuffer(Config{Capacity: 64, ObsDim: 2, ActDim: 1})
		if err != nil {
			t.Fatal(err)
		}
		e, err := NewERO(buf, EROConfig{Candidates: 3, LR: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		a, err := NewAER(buf, AERConfig{Lambda0: 4, LambdaSteps: 50})
		if err != nil {
			t.Fatal(err)
		}
		return buf, e, a
	}
	buf, ero, aer := build()
	for i := range 80 { // wraps the ring
		buf.Add(Transition{Obs: []float64{float64(i), 1}, Action: []float64{0}, NextObs: []float64{0, 0}, Reward: float64(i % 3)})
	}
	rng := rand.New(rand.NewPCG(7, 7))
	b := NewBatch(8, 2, 1)
	for k := range 6 {
		ero.Sample(b, rng)
		tds := make([]float64, b.Len())
		for i := range tds {
			tds[i] = float64(k + i)
		}
		ero.UpdatePriorities(b.Refs, tds)
		if k == 2 {
			ero.Reward(1.5) // trains the policy and clears the decisions
		}
		aer.SetQuery([]float64{3, 1})
		aer.Sample(b, rng)
	}
	var file bytes.Buffer
	if err := buf.Save(&file); err != nil {
		t.Fatal(err)
	}
	buf2, ero2, aer2 := build()
	if err := buf2.Load(bytes.NewReader(file.Bytes())); err != nil {
		t.Fatal(err)
	}
	if ero2.Weights() != ero.Weights() || ero2.Weights() == ([eroFeatures]float64{}) {
		t.Fatalf("ERO policy %v after load, %v before", ero2.Weights(), ero.Weights())
	}
	if aer2.Lambda() != aer.Lambda() || aer.Lambda() == 4 {
		t.Fatalf("AER λ %v after load, %v before", aer2.Lambda(), aer.Lambda())
	}
	if !reflect.DeepEqual(ero2.mem, ero.mem) || len(ero.mem) == 0 {
		t.Fatalf("ERO kept %d pending decisions, the original %d", len(ero2.mem), len(ero.mem))
	}
	if ero2.seen != ero.seen || ero2.perCall != ero.perCall || ero.perCall == 0 {
		t.Fatalf("ERO seen %d and %d decisions per batch after load, %d and %d before", ero2.seen, ero2.perCall, ero.seen, ero.perCall)
	}
	aer2.SetQuery([]float64{3, 1}) // the query is the caller's, set before every draw
	r1, r2 := rand.New(rand.NewPCG(9, 9)), rand.New(rand.NewPCG(9, 9))
	b1, b2 := NewBatch(8, 2, 1), NewBatch(8, 2, 1)
	for range 3 {
		ero.Sample(b1, r1)
		ero2.Sample(b2, r2)
		if !reflect.DeepEqual(b1.Refs, b2.Refs) {
			t.Fatalf("ERO draws %v after load, %v from the original", b2.Refs, b1.Refs)
		}
		aer.Sample(b1, r1)
		aer2.Sample(b2, r2)
		if !reflect.DeepEqual(b1.Refs, b2.Refs) {
			t.Fatalf("AER draws %v after load, %v from the original", b2.Refs, b1.Refs)
		}
	}
}

// A file written before AER and ERO saved state (no sampler section)
// loads into a buffer with them; they start from their defaults.
func TestLoadLegacyFileIntoERO(t *testing.T) {
	t.Parallel()
	old, err := NewBuffer(Config{Capacity: 16, ObsDim: 1, ActDim: 1})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		old.Add(Transition{Obs: []float64{float64(i)}, Action: []float64{0}, NextObs: []float64{0}})
	}
	var file bytes.Buffer
	if err := old.Save(&file); err != nil {
		t.Fatal(err)
	}
	buf, err := NewBuffer(Config{Capacity: 16, ObsDim: 1, ActDim: 1})
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewERO(buf, EROConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if err := buf.Load(bytes.NewReader(file.Bytes())); err != nil {
		t.Fatalf("legacy file: %v", err)
	}
	if buf.Len() != 10 || e.Weights() != ([eroFeatures]float64{}) {
		t.Fatalf("len %d, policy %v", buf.Len(), e.Weights())
	}
}

// A file whose ERO section is of the older kind (no count of decisions
// seen, no decisions per batch) loads: the policy, memory and per-slot
// features come back, seen is the memory's size, and the decisions per
// batch come from the next Sample. The older file is made from a new one
// by dropping those 12 bytes, restoring the kind and re-sealing it.
func TestLoadOlderEROSection(t *testing.T) {
	t.Parallel()
	buf, err := NewBuffer(Config{Capacity: 32, ObsDim: 1, ActDim: 1})
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewERO(buf, EROConfig{Candidates: 2, LR: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		buf.Add(Transition{Obs: []float64{float64(i)}, Action: []float64{0}, NextObs: []float64{0}, Reward: float64(i % 2)})
	}
	rng := rand.New(rand.NewPCG(4, 4))
	b := NewBatch(4, 1, 1)
	for range 3 {
		e.Sample(b, rng)
	}
	e.Reward(1)
	e.Sample(b, rng)
	var file bytes.Buffer
	if err := buf.Save(&file); err != nil {
		t.Fatal(err)
	}
	raw := file.Bytes()
	body := raw[:len(raw)-trailerLen]
	// ERO's section is the last: its state ends with seen u64, perCall u32
	// after td f32[20] and born i64[20]; its kind word comes before the state
	stateLen := 4*8 + 3*8 + 8 + 4 + len(e.mem)*(eroFeatures+1)*8 + 20*4 + 20*8 + 12
	kindAt := len(body) - stateLen - 4
	if k := binary.LittleEndian.Uint32(body[kindAt:]); k != kindERO2 {
		t.Fatalf("kind word %d at %d, want %d: the layout this test assumes changed", k, kindAt, kindERO2)
	}
	older := append([]byte(nil), body[:len(body)-12]...)
	binary.LittleEndian.PutUint32(older[kindAt:], kindERO)
	var tr [trailerLen]byte
	binary.LittleEndian.PutUint64(tr[0:], uint64(len(older)))
	binary.LittleEndian.PutUint32(tr[8:], crc32.Checksum(older, crcTable))
	copy(tr[12:], endMagic[:])
	older = append(older, tr[:]...)

	buf2, err := NewBuffer(Config{Capacity: 32, ObsDim: 1, ActDim: 1})
	if err != nil {
		t.Fatal(err)
	}
	e2, err := NewERO(buf2, EROConfig{Candidates: 2, LR: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if err := buf2.Load(bytes.NewReader(older)); err != nil {
		t.Fatalf("older ERO section: %v", err)
	}
	if e2.Weights() != e.Weights() || !reflect.DeepEqual(e2.mem, e.mem) || e2.seen != int64(len(e.mem)) || e2.perCall != 0 {
		t.Fatalf("after load: policy %v (want %v), %d decisions, seen %d, per batch %d", e2.Weights(), e.Weights(), len(e2.mem), e2.seen, e2.perCall)
	}
	e2.Sample(b, rng)
	if e2.perCall != 8 {
		t.Fatalf("decisions per batch %d after a Sample of 4 rows × 2 candidates", e2.perCall)
	}
	// and a file of the current kind still loads after this one
	if err := buf2.Load(bytes.NewReader(raw)); err != nil || e2.perCall != e.perCall {
		t.Fatalf("current file after an older one: %v, per batch %d", err, e2.perCall)
	}
}
