package rundir

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// decodeRecords splits a TFRecord file into payloads, checking both masked
// CRCs, independently of the writer's code paths (the mask is recomputed here
// from record_writer.cc's formula).
func decodeRecords(b []byte) ([][]byte, error) {
	tab := crc32.MakeTable(crc32.Castagnoli)
	mask := func(p []byte) uint32 {
		c := crc32.Checksum(p, tab)
		return ((c >> 15) | (c << 17)) + 0xa282ead8
	}
	var out [][]byte
	for len(b) > 0 {
		if len(b) < 12 {
			return nil, errors.New("short header")
		}
		n := binary.LittleEndian.Uint64(b[:8])
		if binary.LittleEndian.Uint32(b[8:12]) != mask(b[:8]) {
			return nil, errors.New("bad length crc")
		}
		if uint64(len(b)) < 12+n+4 {
			return nil, errors.New("short record")
		}
		data := b[12 : 12+n]
		if binary.LittleEndian.Uint32(b[12+n:16+n]) != mask(data) {
			return nil, errors.New("bad data crc")
		}
		out = append(out, data)
		b = b[16+n:]
	}
	return out, nil
}

type pbField struct {
	num  int
	wire int
	u    uint64
	b    []byte
}

// parsePB is a minimal generic protobuf decoder (varint, fixed64, bytes, fixed32).
func parsePB(b []byte) ([]pbField, error) {
	var fs []pbField
	for len(b) > 0 {
		k, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, errors.New("bad key")
		}
		b = b[n:]
		f := pbField{num: int(k >> 3), wire: int(k & 7)}
		switch f.wire {
		case 0:
			v, n := binary.Uvarint(b)
			if n <= 0 {
				return nil, errors.New("bad varint")
			}
			f.u, b = v, b[n:]
		case 1:
			f.u, b = binary.LittleEndian.Uint64(b[:8]), b[8:]
		case 2:
			l, n := binary.Uvarint(b)
			if n <= 0 || uint64(len(b)-n) < l {
				return nil, errors.New("bad length")
			}
			f.b, b = b[n:n+int(l)], b[n+int(l):]
		case 5:
			f.u, b = uint64(binary.LittleEndian.Uint32(b[:4])), b[4:]
		default:
			return nil, fmt.Errorf("wire type %d", f.wire)
		}
		fs = append(fs, f)
	}
	return fs, nil
}

func TestCRC32CCheckValue(t *testing.T) {
	t.Parallel()
	// The CRC-32C check value of "123456789" is 0xE3069283 (RFC 3720 §B.4).
	if got := crc32.Checksum([]byte("123456789"), crc32c); got != 0xE3069283 {
		t.Fatalf("crc32c = %#x", got)
	}
}

func TestEventFileDecodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	w, err := NewEventWriter(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int64]map[string]float64{
		100: {"rollout/ep_rew_mean": 1.5, "losses/qf1": 0.25},
		200: {"eval/success_rate": 0.75},
	}
	for _, s := range []int64{100, 200} {
		if err := w.WriteScalars(s, want[s]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(w.Path()) != dir {
		t.Fatalf("event file %s not in %s", w.Path(), dir)
	}
	b, err := os.ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	recs, err := decodeRecords(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3 (version + 2)", len(recs))
	}
	// first record: file_version
	fs, err := parsePB(recs[0])
	if err != nil {
		t.Fatal(err)
	}
	var version string
	for _, f := range fs {
		if f.num == 3 && f.wire == 2 {
			version = string(f.b)
		}
	}
	if version != "brain.Event:2" {
		t.Fatalf("file_version %q", version)
	}
	for i, step := range []int64{100, 200} {
		fs, err := parsePB(recs[i+1])
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]float64{}
		var gotStep int64 = -1
		var wall float64
		for _, f := range fs {
			switch {
			case f.num == 1 && f.wire == 1:
				wall = math.Float64frombits(f.u)
			case f.num == 2 && f.wire == 0:
				gotStep = int64(f.u)
			case f.num == 5 && f.wire == 2:
				vals, err := parsePB(f.b)
				if err != nil {
					t.Fatal(err)
				}
				for _, v := range vals {
					if v.num != 1 || v.wire != 2 {
						t.Fatalf("summary field %d/%d", v.num, v.wire)
					}
					inner, err := parsePB(v.b)
					if err != nil {
						t.Fatal(err)
					}
					var tag string
					var val float32
					for _, x := range inner {
						if x.num == 1 && x.wire == 2 {
							tag = string(x.b)
						}
						if x.num == 2 && x.wire == 5 {
							val = math.Float32frombits(uint32(x.u))
						}
					}
					got[tag] = float64(val)
				}
			}
		}
		if gotStep != step || wall < 1.6e9 {
			t.Fatalf("record %d: step %d wall %v", i, gotStep, wall)
		}
		if len(got) != len(want[step]) {
			t.Fatalf("step %d: got %v want %v", step, got, want[step])
		}
		for k, v := range want[step] {
			if got[k] != v { // all test values are exact in float32
				t.Fatalf("step %d %s: got %v want %v", step, k, got[k], v)
			}
		}
	}
}
