package nn

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"

	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"github.com/vlmrb/vlmrb/internal/safefile"
)

// File format of Save (all integers little-endian):
//
//	magic "VLMRBNN\x00" | version u32 | payload length u64 | payload | CRC-32C u32
//
// The CRC (Castagnoli) covers everything before it. The payload is
// MLP.MarshalBinary. Version 1 is the only version so far.
const (
	fileMagic   = "VLMRBNN\x00"
	fileVersion = 1
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrFormat is wrapped by every error about a malformed, truncated or
// corrupted network or optimiser encoding.
var ErrFormat = errors.New("nn: bad encoding")

// MarshalBinary encodes the network's shape, activation and parameters
// (not its gradients).
func (m *MLP) MarshalBinary() ([]byte, error) {
	b := make([]byte, 0, 16+4*len(m.Sizes)+4*len(m.Params))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(m.Sizes)))
	for _, s := range m.Sizes {
		b = binary.LittleEndian.AppendUint32(b, uint32(s))
	}
	b = append(b, byte(m.Act))
	b = AppendFloat32s(b, m.Params)
	return b, nil
}

// UnmarshalBinary replaces m with the network encoded in data.
func (m *MLP) UnmarshalBinary(data []byte) error {
	r := Reader{buf: data}
	ns := r.Uint32()
	if r.Err() != nil || ns < 2 || ns > MaxLayers {
		return fmt.Errorf("%w: MLP layer count %d (2..%d)", ErrFormat, ns, MaxLayers)
	}
	sizes := make([]int, ns)
	for i := range sizes {
		s := r.Uint32()
		if s == 0 || s > MaxWidth {
			return fmt.Errorf("%w: MLP width %d (1..%d)", ErrFormat, s, MaxWidth)
		}
		sizes[i] = int(s)
	}
	act := Activation(r.Byte())
	if act != ReLU && act != Tanh {
		return fmt.Errorf("%w: unknown activation %d", ErrFormat, act)
	}
	if r.Err() != nil {
		return r.Err()
	}
	n, err := CheckSizes(sizes)
	if err != nil {
		return err
	}
	// the parameters must be in the data before they are allocated
	if need := 8 + 4*int64(n); int64(r.Remaining()) < need {
		return fmt.Errorf("%w: layer sizes %v need %d bytes of parameters, %d remain", ErrFormat, sizes, need, r.Remaining())
	}
	nm := newMLP(sizes, act)
	r.Float32s(nm.Params)
	if err := r.Done(); err != nil {
		return err
	}
	*m = *nm
	return nil
}

// MarshalBinary encodes the optimiser's hyperparameters, step count and moments.
func (a *Adam) MarshalBinary() ([]byte, error) {
	b := make([]byte, 0, 64+8*len(a.M))
	for _, f := range []float64{a.LR, a.Beta1, a.Beta2, a.Eps, a.MaxGradNorm} {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
	}
	b = binary.LittleEndian.AppendUint64(b, uint64(a.T))
	b = AppendFloat32s(b, a.M)
	b = AppendFloat32s(b, a.V)
	return b, nil
}

// UnmarshalBinary replaces a with the optimiser encoded in data.
func (a *Adam) UnmarshalBinary(data []byte) error {
	r := Reader{buf: data}
	var na Adam
	for _, f := range []*float64{&na.LR, &na.Beta1, &na.Beta2, &na.Eps, &na.MaxGradNorm} {
		*f = math.Float64frombits(r.Uint64())
	}
	na.T = int64(r.Uint64())
	na.M = r.Float32sAlloc()
	na.V = r.Float32sAlloc()
	if err := r.Done(); err != nil {
		return err
	}
	if len(na.M) != len(na.V) {
		return fmt.Errorf("%w: Adam moments of different lengths", ErrFormat)
	}
	*a = na
	return nil
}

// AppendFloat32s appends a u64 length and the little-endian values.
func AppendFloat32s(b []byte, v []float32) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(v)))
	for _, f := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	return b
}

// AppendBytes appends a u64 length and the bytes.
func AppendBytes(b, v []byte) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(len(v)))
	return append(b, v...)
}

// Reader decodes the little-endian encodings above. The first error sticks;
// later reads return zero values.
type Reader struct {
	buf []byte
	off int
	err error
}

// NewReader returns a Reader over data.
func NewReader(data []byte) *Reader { return &Reader{buf: data} }

func (r *Reader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || len(r.buf)-r.off < n {
		r.err = fmt.Errorf("%w: truncated at byte %d (need %d more)", ErrFormat, r.off, n)
		return nil
	}
	b := r.buf[r.off : r.off+n]
	r.off += n
	return b
}

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

// Uint32 reads a u32.
func (r *Reader) Uint32() uint32 {
	if b := r.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

// Uint64 reads a u64.
func (r *Reader) Uint64() uint64 {
	if b := r.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// Float64 reads a float64.
func (r *Reader) Float64() float64 { return math.Float64frombits(r.Uint64()) }

// Bytes reads a length-prefixed byte string (a view into the input).
func (r *Reader) Bytes() []byte {
	n := r.Uint64()
	if n > uint64(len(r.buf)) {
		r.fail("length %d exceeds input", n)
		return nil
	}
	return r.take(int(n))
}

// Float32s reads a length-prefixed float32 vector into dst, whose length
// must equal the stored one.
func (r *Reader) Float32s(dst []float32) {
	n := r.Uint64()
	if r.err == nil && n != uint64(len(dst)) {
		r.fail("vector of %d values where %d were expected", n, len(dst))
		return
	}
	b := r.take(4 * len(dst))
	if b == nil {
		return
	}
	for i := range dst {
		dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
}

// Float32sAlloc reads a length-prefixed float32 vector into a new slice.
func (r *Reader) Float32sAlloc() []float32 {
	n := r.Uint64()
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.buf)-r.off)/4 {
		r.fail("vector length %d exceeds input", n)
		return nil
	}
	v := make([]float32, n)
	r.off -= 8
	r.Float32s(v)
	return v
}

func (r *Reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: "+format, append([]any{ErrFormat}, args...)...)
	}
}

// Remaining is the number of bytes not yet read.
func (r *Reader) Remaining() int { return len(r.buf) - r.off }

// Err returns the first error met.
func (r *Reader) Err() error { return r.err }

// Done returns the first error, or an error if input is left over.
func (r *Reader) Done() error {
	if r.err == nil && r.off != len(r.buf) {
		r.fail("%d trailing bytes", len(r.buf)-r.off)
	}
	return r.err
}

// Seal wraps payload in the checksummed container: magic (8 bytes),
// version, length, payload, CRC-32C.
func Seal(magic string, version uint32, payload []byte) []byte {
	if len(magic) != 8 {
		panic("nn: Seal magic must be 8 bytes")
	}
	b := make([]byte, 0, len(payload)+24)
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint32(b, version)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(payload)))
	b = append(b, payload...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// Unseal checks a container written by Seal and returns its version and
// payload (a view into data). It rejects a wrong magic, a truncated file
// and a checksum mismatch with errors wrapping ErrFormat.
func Unseal(magic string, data []byte) (uint32, []byte, error) {
	if len(data) < 24 || !bytes.Equal(data[:8], []byte(magic)) {
		if len(data) >= 8 && !bytes.Equal(data[:8], []byte(magic)) {
			return 0, nil, fmt.Errorf("%w: not a %q file (magic %q)", ErrFormat, magic, data[:8])
		}
		return 0, nil, fmt.Errorf("%w: file of %d bytes is truncated", ErrFormat, len(data))
	}
	version := binary.LittleEndian.Uint32(data[8:])
	n := binary.LittleEndian.Uint64(data[12:])
	if n != uint64(len(data)-24) {
		return 0, nil, fmt.Errorf("%w: payload length %d but file holds %d bytes (truncated or padded)", ErrFormat, n, len(data)-24)
	}
	body := data[:len(data)-4]
	if got, want := crc32.Checksum(body, castagnoli), binary.LittleEndian.Uint32(data[len(data)-4:]); got != want {
		return 0, nil, fmt.Errorf("%w: checksum mismatch (stored %08x, computed %08x): the file is corrupted", ErrFormat, want, got)
	}
	return version, data[20 : len(data)-4], nil
}

// Save writes m to path atomically (temporary file, fsync, rename).
func Save(path string, m *MLP) error {
	p, _ := m.MarshalBinary()
	return atomicfile.WriteBytes(path, Seal(fileMagic, fileVersion, p))
}

// Load reads a network written by Save.
func Load(path string) (*MLP, error) {
	data, err := safefile.ReadFile(path, 64+4*MaxLayers+8*MaxParams)
	if err != nil {
		return nil, fmt.Errorf("nn: load: %w", err)
	}
	v, p, err := Unseal(fileMagic, data)
	if err != nil {
		return nil, fmt.Errorf("nn: load %s: %w", path, err)
	}
	if v != fileVersion {
		return nil, fmt.Errorf("nn: load %s: %w: version %d (this build reads %d)", path, ErrFormat, v, fileVersion)
	}
	m := new(MLP)
	if err := m.UnmarshalBinary(p); err != nil {
		return nil, fmt.Errorf("nn: load %s: %w", path, err)
	}
	return m, nil
}
