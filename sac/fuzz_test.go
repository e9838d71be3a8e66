package sac

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/vlmrb/vlmrb/nn"
)

// FuzzUnmarshal feeds re-sealed (valid CRC) payloads with crafted headers
// to Unmarshal: it must return an agent or an nn.ErrFormat error, never
// panic, and never allocate from a header before checking it against the
// bytes that follow (a run of this fuzzer stays within a few hundred MB;
// before the checks, obsDim 4e9 or widths 2^20 died out of memory).
func FuzzUnmarshal(f *testing.F) {
	a, err := New(Config{Hidden: []int{4, 4}, BatchSize: 4}, 3, 2)
	if err != nil {
		f.Fatal(err)
	}
	b, err := a.MarshalBinary()
	a.Close()
	if err != nil {
		f.Fatal(err)
	}
	_, p, err := nn.Unseal(ckptMagic, b)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(append([]byte(nil), p...))
	cfgLen := int(binary.LittleEndian.Uint64(p))
	obsOff := 8 + cfgLen
	for _, v := range []uint32{4_000_000_000, 2_000_000, 1 << 16, 0} {
		q := append([]byte(nil), p...)
		binary.LittleEndian.PutUint32(q[obsOff:], v)
		f.Add(q)
	}
	// the actor's widths (after obs, act, updates and log α)
	net := obsOff + 16 + 8 + 4 + 8
	for _, w := range []uint32{1 << 20, 16384, 8000} {
		q := append([]byte(nil), p...)
		binary.LittleEndian.PutUint32(q[net+8:], w)
		binary.LittleEndian.PutUint32(q[net+12:], w)
		f.Add(q)
	}
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, payload []byte) {
		a, err := Unmarshal(nn.Seal(ckptMagic, ckptVersion, payload))
		if err != nil {
			if !errors.Is(err, nn.ErrFormat) {
				t.Fatalf("error does not wrap nn.ErrFormat: %v", err)
			}
			return
		}
		a.Close()
	})
}
