package dqn

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/vlmrb/vlmrb/nn"
)

// FuzzUnmarshal feeds re-sealed payloads with crafted headers to
// Unmarshal: an agent or an nn.ErrFormat error, never a panic, and
// nothing allocated from a header before it is checked against the bytes
// that follow.
func FuzzUnmarshal(f *testing.F) {
	a, err := New(Config{Hidden: []int{4, 4}, BatchSize: 4}, 3, 4)
	if err != nil {
		f.Fatal(err)
	}
	b, err := a.MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	_, p, err := nn.Unseal(ckptMagic, b)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(append([]byte(nil), p...))
	obsOff := 8 + int(binary.LittleEndian.Uint64(p))
	for _, v := range []uint32{4_000_000_000, 2_000_000, 1 << 16} {
		q := append([]byte(nil), p...)
		binary.LittleEndian.PutUint32(q[obsOff:], v)
		f.Add(q)
		q = append([]byte(nil), p...)
		binary.LittleEndian.PutUint32(q[obsOff+4:], v)
		f.Add(q)
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, payload []byte) {
		_, err := Unmarshal(nn.Seal(ckptMagic, ckptVersion, payload))
		if err != nil && !errors.Is(err, nn.ErrFormat) {
			t.Fatalf("error does not wrap nn.ErrFormat: %v", err)
		}
	})
}
