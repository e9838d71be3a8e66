package replay

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"
)

// withTrailer closes payload as Save does (length, CRC-32C, end marker),
// so the fuzzer's bytes reach the decoder instead of the checksum.
func withTrailer(payload []byte) []byte {
	var tr [trailerLen]byte
	binary.LittleEndian.PutUint64(tr[0:], uint64(len(payload)))
	binary.LittleEndian.PutUint32(tr[8:], crc32.Checksum(payload, crcTable))
	copy(tr[12:], endMagic[:])
	return append(append([]byte(nil), payload...), tr[:]...)
}

// FuzzLoad feeds payloads with crafted headers (sizes, positions, sampler
// counts, pending records) to Load on a buffer with a PER sampler: each
// loads or fails with an error, never panics, and a failed load leaves
// the buffer empty or as it was.
func FuzzLoad(f *testing.F) {
	cfg := Config{Capacity: 8, ObsDim: 3, ActDim: 2}
	src, err := NewBuffer(cfg)
	if err != nil {
		f.Fatal(err)
	}
	if _, err := NewPER(src, DefaultPERConfig()); err != nil {
		f.Fatal(err)
	}
	for i := range 5 {
		src.Add(Transition{Obs: []float64{1, 2, 3}, Action: []float64{0.5, -0.5}, Reward: float64(i),
			NextObs: []float64{3, 2, 1}, Episode: int64(i / 3), Step: int32(i % 3)})
	}
	var buf bytes.Buffer
	if err := src.Save(&buf); err != nil {
		f.Fatal(err)
	}
	full := buf.Bytes()
	payload := full[:len(full)-trailerLen]
	f.Add(append([]byte(nil), payload...))
	// size (offset 8+4+3·8) claims 2^40 transitions, then capacity
	for _, off := range []int{12, 36, 44} {
		q := append([]byte(nil), payload...)
		binary.LittleEndian.PutUint64(q[off:], 1<<40)
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		b, err := NewBuffer(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := NewPER(b, DefaultPERConfig()); err != nil {
			t.Fatal(err)
		}
		err = b.Load(bytes.NewReader(withTrailer(p)))
		if err != nil && errors.Is(err, ErrCorrupt) && b.Len() != 0 {
			t.Fatalf("failed load left %d transitions: %v", b.Len(), err)
		}
	})
}
