package nn

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"
)

// FuzzMLPUnmarshal: crafted layer counts and widths are refused against
// MaxLayers, MaxWidth, MaxParams and the bytes that follow before
// anything is allocated; a network that decodes re-encodes to the same
// bytes.
func FuzzMLPUnmarshal(f *testing.F) {
	m := NewMLP([]int{3, 5, 2}, ReLU, rand.New(rand.NewPCG(1, 2)))
	b, _ := m.MarshalBinary()
	f.Add(b)
	for _, w := range []uint32{1 << 20, MaxWidth, MaxWidth + 1, 8000} {
		q := append([]byte(nil), b...)
		binary.LittleEndian.PutUint32(q[8:], w)
		binary.LittleEndian.PutUint32(q[12:], w)
		f.Add(q)
	}
	q := append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(q, 1024)
	f.Add(q)
	f.Fuzz(func(t *testing.T, data []byte) {
		var got MLP
		if err := got.UnmarshalBinary(data); err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error does not wrap ErrFormat: %v", err)
			}
			return
		}
		re, _ := got.MarshalBinary()
		if string(re) != string(data) {
			t.Fatalf("decoded network re-encodes to %d bytes, input was %d", len(re), len(data))
		}
	})
}

// FuzzAdamUnmarshal: moment lengths are checked against the input.
func FuzzAdamUnmarshal(f *testing.F) {
	a := NewAdam(7, 1e-3)
	b, _ := a.MarshalBinary()
	f.Add(b)
	q := append([]byte(nil), b...)
	binary.LittleEndian.PutUint64(q[48:], 1<<40)
	f.Add(q)
	f.Fuzz(func(t *testing.T, data []byte) {
		var got Adam
		if err := got.UnmarshalBinary(data); err != nil && !errors.Is(err, ErrFormat) {
			t.Fatalf("error does not wrap ErrFormat: %v", err)
		}
	})
}
