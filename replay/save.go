package replay

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"math"
	"slices"

	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"github.com/vlmrb/vlmrb/internal/safefile"
)

// File format (little-endian), version 2:
//
//	header   magic "VLMRBRB\x00", version u32, capacity/obsDim/actDim u64,
//	         size/pos u64, adds i64, number of sampler sections u32,
//	         layout u32 (0: next obs per slot, 1: ShareNextObs)
//	slots    for slots [0, size): obs f32, next obs f32 (layout 0 only),
//	         action f32, reward f32, terminated u8, truncated u8, env i32,
//	         episode i64, step i32, generation u32, and for layout 1 a
//	         sampleable flag u8 and next-obs slot i32 — each field as one
//	         contiguous array
//	pending  layout 1 only: count u32, then per env with a transition
//	         waiting for its successor, by env id: env i32, slot i32,
//	         generation u32, next obs f32[obsDim]
//	samplers per attached stateful sampler, in attach order: kind u32, then
//	         its state (see the writeState methods)
//	trailer  payload length u64, CRC-32C u32 of everything before the
//	         trailer, end magic "VLMRBEND"
//
// Version 1 is version 2 without the layout word (always layout 0); Load
// reads both. The valid slots of a ring are always [0, size), so nothing
// else is stored.
const (
	fileVersion = 2
	trailerLen  = 8 + 4 + 8
)

var (
	fileMagic = [8]byte{'V', 'L', 'M', 'R', 'B', 'R', 'B', 0}
	endMagic  = [8]byte{'V', 'L', 'M', 'R', 'B', 'E', 'N', 'D'}
	crcTable  = crc32.MakeTable(crc32.Castagnoli)
)

// Sampler kinds in a saved file.
const (
	kindPER   uint32 = 1
	kindReLo  uint32 = 2
	kindVLMRB uint32 = 3
	kindAER   uint32 = 4
	kindERO   uint32 = 5 // ERO before its reservoir: no seen and perCall
	kindERO2  uint32 = 6
)

// ErrCorrupt is wrapped by Load errors for data that is truncated, fails
// its checksum or does not decode.
var ErrCorrupt = errors.New("replay: corrupt or truncated buffer file")

// stateful is implemented by samplers with per-slot state to save.
type stateful interface {
	kind() uint32
	writeState(e *encoder, size int)
	readState(d *decoder, size int) error
	resetLocked()
}

// statefulLocked lists the attached samplers that have state, in attach
// order.
func (b *Buffer) statefulLocked() []stateful {
	var out []stateful
	for _, a := range b.samplers {
		if st, ok := a.(stateful); ok {
			out = append(out, st)
		}
	}
	return out
}

// Save writes the buffer and the state of every attached sampler
// (priorities, scores, scored flags, running maxima, schedule steps) to w in
// the versioned, checksummed format above. It holds the buffer's lock while
// writing, so writers and samplers wait. Use SaveFile for an atomic file.
func (b *Buffer) Save(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	e := &encoder{w: bw, h: crc32.New(crcTable)}

	b.mu.Lock()
	size := b.size
	sts := b.statefulLocked()
	e.bytes(fileMagic[:])
	e.u32(fileVersion)
	e.u64(uint64(b.cfg.Capacity))
	e.u64(uint64(b.cfg.ObsDim))
	e.u64(uint64(b.cfg.ActDim))
	e.u64(uint64(size))
	e.u64(uint64(b.pos))
	e.u64(uint64(b.adds))
	e.u32(uint32(len(sts)))
	share := b.cfg.ShareNextObs
	e.u32(uint32(b2u(share)))
	od, ad := b.cfg.ObsDim, b.cfg.ActDim
	e.f32s(b.obs[:size*od])
	if !share {
		e.f32s(b.nextObs[:size*od])
	}
	e.f32s(b.act[:size*ad])
	hot := b.hot[:size]
	e.chunked(size, 4, func(d []byte, i int) { binary.LittleEndian.PutUint32(d, math.Float32bits(hot[i].rew)) })
	e.chunked(size, 1, func(d []byte, i int) { d[0] = hot[i].term })
	e.chunked(size, 1, func(d []byte, i int) { d[0] = hot[i].trunc })
	e.i32s(b.env[:size])
	e.i64s(b.ep[:size])
	e.i32s(b.step[:size])
	e.chunked(size, 4, func(d []byte, i int) { binary.LittleEndian.PutUint32(d, b.gen[i]) })
	if share {
		e.chunked(size, 1, func(d []byte, i int) { d[0] = hot[i].ready })
		e.i32s(b.next[:size])
		envs := make([]int32, 0, len(b.pend))
		for env, pe := range b.pend {
			if pe.live && b.gen[pe.slot] == pe.gen {
				envs = append(envs, env)
			}
		}
		slices.Sort(envs)
		e.u32(uint32(len(envs)))
		for _, env := range envs {
			pe := b.pend[env]
			e.u32(uint32(env))
			e.u32(uint32(pe.slot))
			e.u32(pe.gen)
			e.f32s(pe.next)
		}
	}
	for _, st := range sts {
		e.u32(st.kind())
		st.writeState(e, size)
	}
	b.mu.Unlock()

	if e.err != nil {
		return fmt.Errorf("replay: save: %w", e.err)
	}
	var tr [trailerLen]byte
	binary.LittleEndian.PutUint64(tr[0:], uint64(e.n))
	binary.LittleEndian.PutUint32(tr[8:], e.h.Sum32())
	copy(tr[12:], endMagic[:])
	if _, err := bw.Write(tr[:]); err != nil {
		return fmt.Errorf("replay: save: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("replay: save: %w", err)
	}
	return nil
}

// SaveFile writes Save's output to path atomically: a temporary file in the
// same directory is written, synced and renamed over path.
func (b *Buffer) SaveFile(path string) error {
	if err := atomicfile.Write(path, 0o644, b.Save); err != nil {
		return fmt.Errorf("replay: save: %w", err)
	}
	return nil
}

// LoadFile is Load from the file at path.
func (b *Buffer) LoadFile(path string) error {
	f, err := safefile.Open(path) // a FIFO or device is refused, not read
	if err != nil {
		return fmt.Errorf("replay: load: %w", err)
	}
	defer f.Close()
	if err := b.Load(f); err != nil {
		return fmt.Errorf("%w (file %s)", err, path)
	}
	return nil
}

// Load replaces the buffer's contents, and the state of its attached
// samplers, with what Save wrote. The buffer must have the saved capacity
// and dimensions. Its stateful samplers (PER, ReLo, VLMRB; Uniform has no
// state) must be the saved kinds in the saved order; a buffer with none
// loads only the data. PER and ReLo must have the saved Alpha and Eps,
// since their leaves are stored after the exponent; VLMRB stores raw scores
// and |δ| and recomputes leaves with its current config.
//
// Everything is checked (length, end marker, CRC-32C) before anything is
// changed: truncated or corrupt data returns an error wrapping ErrCorrupt
// and leaves b as it was. r is read twice when it is an io.ReadSeeker (an
// *os.File); any other reader is first read into memory.
func (b *Buffer) Load(r io.Reader) error {
	rs, ok := r.(io.ReadSeeker)
	if !ok {
		data, err := io.ReadAll(r)
		if err != nil {
			return fmt.Errorf("replay: load: %w", err)
		}
		rs = bytes.NewReader(data)
	}
	base, err := rs.Seek(0, io.SeekCurrent)
	if err != nil {
		return fmt.Errorf("replay: load: %w", err)
	}
	payload, err := verify(rs, base)
	if err != nil {
		return err
	}
	if _, err := rs.Seek(base, io.SeekStart); err != nil {
		return fmt.Errorf("replay: load: %w", err)
	}
	d := &decoder{r: bufio.NewReaderSize(io.LimitReader(rs, payload), 1<<20)}

	var magic [8]byte
	d.bytes(magic[:])
	version := d.u32()
	capacity, od, ad := d.u64(), d.u64(), d.u64()
	size, pos, adds := d.u64(), d.u64(), d.u64()
	nst := d.u32()
	layout := uint32(0)
	if version >= 2 {
		layout = d.u32()
	}
	if d.err != nil {
		return fmt.Errorf("%w: header: %v", ErrCorrupt, d.err)
	}
	share := b.cfg.ShareNextObs
	switch {
	case magic != fileMagic:
		return fmt.Errorf("%w: not a replay buffer file", ErrCorrupt)
	case version != 1 && version != fileVersion:
		return fmt.Errorf("replay: load: file version %d, this build reads versions 1 and %d", version, fileVersion)
	case layout > 1:
		return fmt.Errorf("%w: layout %d", ErrCorrupt, layout)
	case (layout == 1) != share:
		return fmt.Errorf("replay: load: file has ShareNextObs %v, buffer %v: make the buffer with the saved Config", layout == 1, share)
	case capacity != uint64(b.cfg.Capacity) || od != uint64(b.cfg.ObsDim) || ad != uint64(b.cfg.ActDim):
		return fmt.Errorf("replay: load: file holds capacity %d obs %d act %d, buffer is %d/%d/%d: make the buffer with the saved Config",
			capacity, od, ad, b.cfg.Capacity, b.cfg.ObsDim, b.cfg.ActDim)
	case size > capacity || pos >= max(capacity, 1) || (size < capacity && pos != size):
		return fmt.Errorf("%w: size %d pos %d for capacity %d", ErrCorrupt, size, pos, capacity)
	}

	// the declared transitions must be in the payload before any is read
	perSlot := 4*od*2 + 4*ad + 4 + 1 + 1 + 4 + 8 + 4 + 4
	if share {
		perSlot -= 4*od - 1 - 4
	}
	hdr := uint64(8 + 4 + 6*8 + 4)
	if version >= 2 {
		hdr += 4
	}
	if size > 0 && (uint64(payload) < hdr || (uint64(payload)-hdr)/perSlot < size) {
		return fmt.Errorf("%w: header declares %d transitions (%d bytes each), the payload holds %d bytes", ErrCorrupt, size, perSlot, payload)
	}

	b.mu.Lock()
	defer b.mu.Unlock()
	sts := b.statefulLocked()
	// files written before AER and ERO saved their state hold none for
	// them: such a buffer loads with those samplers at their defaults
	legacy := nst == 0 && !slices.ContainsFunc(sts, func(st stateful) bool { k := st.kind(); return k != kindAER && k != kindERO2 })
	if legacy {
		sts = nil
	}
	if len(sts) > 0 && int(nst) != len(sts) {
		return fmt.Errorf("replay: load: file holds %d sampler states, buffer has %d stateful samplers attached", nst, len(sts))
	}
	n := int(size)
	iod, iad := int(od), int(ad)
	d.f32s(b.obs[:n*iod])
	if !share {
		d.f32s(b.nextObs[:n*iod])
	}
	d.f32s(b.act[:n*iad])
	hot := b.hot[:n]
	d.chunked(n, 4, func(s []byte, i int) { hot[i].rew = math.Float32frombits(binary.LittleEndian.Uint32(s)) })
	d.chunked(n, 1, func(s []byte, i int) { hot[i].term = s[0] })
	d.chunked(n, 1, func(s []byte, i int) { hot[i].trunc = s[0] })
	d.i32s(b.env[:n])
	d.i64s(b.ep[:n])
	d.i32s(b.step[:n])
	gen := b.gen[:n]
	d.chunked(n, 4, func(s []byte, i int) { gen[i] = binary.LittleEndian.Uint32(s) })
	clear(b.hot[n:])
	clear(b.gen[n:])
	b.size, b.pos, b.adds = n, int(pos), int64(adds)
	b.syncGenLocked()
	fail := func(err error) error {
		b.emptyLocked()
		return err
	}
	if !share {
		for i := range hot {
			hot[i].ready = 1
		}
		b.ready = n
	} else if err := b.readShared(d, n); err != nil {
		return fail(err)
	}
	for _, a := range b.samplers { // everyone at defaults first
		if st, ok := a.(stateful); ok {
			st.resetLocked()
		}
		for i := range n {
			a.onAdd(i)
		}
	}
	if len(sts) > 0 {
		for _, st := range sts {
			k := d.u32()
			if d.err != nil {
				break
			}
			if e, ok := st.(*ERO); ok && k == kindERO {
				e.legacyState = true // an older ERO section: read it, fill in the rest
			} else if k != st.kind() {
				return fail(fmt.Errorf("replay: load: file holds %s sampler state, buffer has %s attached (buffer emptied)", kindName(k), kindName(st.kind())))
			}
			if err := st.readState(d, n); err != nil {
				return fail(fmt.Errorf("replay: load: %w (buffer emptied)", err))
			}
		}
		if d.err == nil {
			if m, _ := d.r.Read(d.buf[:1]); m != 0 {
				d.err = errors.New("bytes left after the sampler state")
			}
		}
	}
	if d.err != nil {
		// the data changed between the check and the read, or a valid
		// checksum covers a malformed body
		return fail(fmt.Errorf("%w: %v (buffer emptied)", ErrCorrupt, d.err))
	}
	return nil
}

// readShared reads the ShareNextObs arrays and pending records of n slots
// and checks them: a sampleable slot's next slot is a valid slot other
// than itself, an unsampleable one has none, and each pending record names
// an unsampleable slot of its env at its generation.
func (b *Buffer) readShared(d *decoder, n int) error {
	hot := b.hot[:n]
	d.chunked(n, 1, func(s []byte, i int) { hot[i].ready = s[0] })
	d.i32s(b.next[:n])
	for i := range b.next[n:] {
		b.next[n+i] = -1
	}
	np := d.u32()
	clear(b.pend)
	if d.err != nil {
		return fmt.Errorf("%w: %v (buffer emptied)", ErrCorrupt, d.err)
	}
	ready := 0
	for i, h := range hot {
		k := b.next[i]
		if h.ready > 1 || (h.ready == 1) != (k >= 0) || int(k) >= n || int(k) == i {
			return fmt.Errorf("%w: slot %d sampleable %d next slot %d (buffer emptied)", ErrCorrupt, i, h.ready, k)
		}
		ready += int(h.ready)
	}
	b.ready = ready
	if int64(np) > int64(n) {
		return fmt.Errorf("%w: %d pending records for %d slots (buffer emptied)", ErrCorrupt, np, n)
	}
	for range np {
		env, slot, gen := int32(d.u32()), int32(d.u32()), d.u32()
		pe := &pendingObs{slot: slot, gen: gen, live: true, next: make([]float32, b.cfg.ObsDim)}
		d.f32s(pe.next)
		if d.err != nil {
			return fmt.Errorf("%w: %v (buffer emptied)", ErrCorrupt, d.err)
		}
		if slot < 0 || int(slot) >= n || b.gen[slot] != gen || hot[slot].ready != 0 || b.env[slot] != env || b.pend[env] != nil {
			return fmt.Errorf("%w: pending record env %d slot %d gen %d (buffer emptied)", ErrCorrupt, env, slot, gen)
		}
		b.pend[env] = pe
	}
	return nil
}

// emptyLocked forgets every transition, after a load failed midway.
func (b *Buffer) emptyLocked() {
	clear(b.hot)
	clear(b.gen)
	for i := range b.next {
		b.next[i] = -1
	}
	clear(b.pend)
	b.size, b.pos, b.ready = 0, 0, 0
	b.genLo, b.genHi, b.genRing = 0, 1, true
	for _, a := range b.samplers {
		if st, ok := a.(stateful); ok {
			st.resetLocked()
		}
	}
}

func kindName(k uint32) string {
	switch k {
	case kindPER:
		return "PER"
	case kindReLo:
		return "ReLo"
	case kindVLMRB:
		return "VLMRB"
	case kindAER:
		return "AER"
	case kindERO, kindERO2:
		return "ERO"
	}
	return fmt.Sprintf("unknown (%d)", k)
}

// verify checks the trailer and checksum of the data from base to the end
// of rs and returns the payload length.
func verify(rs io.ReadSeeker, base int64) (int64, error) {
	end, err := rs.Seek(0, io.SeekEnd)
	if err != nil {
		return 0, fmt.Errorf("replay: load: %w", err)
	}
	sz := end - base
	if sz < trailerLen+8 {
		return 0, fmt.Errorf("%w: %d bytes, too short to be a replay buffer file", ErrCorrupt, sz)
	}
	var tr [trailerLen]byte
	if _, err := rs.Seek(end-trailerLen, io.SeekStart); err != nil {
		return 0, fmt.Errorf("replay: load: %w", err)
	}
	if _, err := io.ReadFull(rs, tr[:]); err != nil {
		return 0, fmt.Errorf("replay: load: %w", err)
	}
	if !bytes.Equal(tr[12:], endMagic[:]) {
		return 0, fmt.Errorf("%w: no end marker: truncated while writing, or not a replay buffer file", ErrCorrupt)
	}
	payload := sz - trailerLen
	if n := int64(binary.LittleEndian.Uint64(tr[0:])); n != payload {
		return 0, fmt.Errorf("%w: payload is %d bytes, trailer says %d", ErrCorrupt, payload, n)
	}
	if _, err := rs.Seek(base, io.SeekStart); err != nil {
		return 0, fmt.Errorf("replay: load: %w", err)
	}
	h := crc32.New(crcTable)
	if _, err := io.CopyN(h, rs, payload); err != nil {
		return 0, fmt.Errorf("replay: load: %w", err)
	}
	if want := binary.LittleEndian.Uint32(tr[8:]); h.Sum32() != want {
		return 0, fmt.Errorf("%w: checksum mismatch (CRC-32C %08x, trailer %08x)", ErrCorrupt, h.Sum32(), want)
	}
	return payload, nil
}

// encoder writes little-endian values through a hash, remembering the
// first error.
type encoder struct {
	w   io.Writer
	h   hash.Hash32
	n   int64
	err error
	buf [1 << 16]byte
}

func (e *encoder) bytes(p []byte) {
	if e.err != nil {
		return
	}
	e.h.Write(p)
	var n int
	n, e.err = e.w.Write(p)
	e.n += int64(n)
}

func (e *encoder) u32(v uint32) {
	binary.LittleEndian.PutUint32(e.buf[:4], v)
	e.bytes(e.buf[:4])
}

func (e *encoder) u64(v uint64) {
	binary.LittleEndian.PutUint64(e.buf[:8], v)
	e.bytes(e.buf[:8])
}

func (e *encoder) f64(v float64) { e.u64(math.Float64bits(v)) }

// chunked writes n elements of size sz, encoding up to len(buf)/sz at a time.
func (e *encoder) chunked(n, sz int, put func(dst []byte, i int)) {
	per := len(e.buf) / sz
	for i := 0; i < n; i += per {
		m := min(per, n-i)
		for k := range m {
			put(e.buf[k*sz:], i+k)
		}
		e.bytes(e.buf[:m*sz])
	}
}

func (e *encoder) f32s(v []float32) {
	e.chunked(len(v), 4, func(d []byte, i int) { binary.LittleEndian.PutUint32(d, math.Float32bits(v[i])) })
}

func (e *encoder) i32s(v []int32) {
	e.chunked(len(v), 4, func(d []byte, i int) { binary.LittleEndian.PutUint32(d, uint32(v[i])) })
}

func (e *encoder) i64s(v []int64) {
	e.chunked(len(v), 8, func(d []byte, i int) { binary.LittleEndian.PutUint64(d, uint64(v[i])) })
}

// decoder mirrors encoder (the checksum was verified before decoding).
type decoder struct {
	r   io.Reader
	err error
	buf [1 << 16]byte
}

func (d *decoder) bytes(p []byte) {
	if d.err != nil {
		return
	}
	if _, err := io.ReadFull(d.r, p); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			err = errors.New("file ends early")
		}
		d.err = err
	}
}

func (d *decoder) u32() uint32 {
	d.bytes(d.buf[:4])
	if d.err != nil {
		return 0
	}
	return binary.LittleEndian.Uint32(d.buf[:4])
}

func (d *decoder) u64() uint64 {
	d.bytes(d.buf[:8])
	if d.err != nil {
		return 0
	}
	return binary.LittleEndian.Uint64(d.buf[:8])
}

func (d *decoder) f64() float64 { return math.Float64frombits(d.u64()) }

func (d *decoder) chunked(n, sz int, get func(src []byte, i int)) {
	per := len(d.buf) / sz
	for i := 0; i < n && d.err == nil; i += per {
		m := min(per, n-i)
		d.bytes(d.buf[:m*sz])
		if d.err != nil {
			return
		}
		for k := range m {
			get(d.buf[k*sz:], i+k)
		}
	}
}

func (d *decoder) f32s(v []float32) {
	d.chunked(len(v), 4, func(s []byte, i int) { v[i] = math.Float32frombits(binary.LittleEndian.Uint32(s)) })
}

func (d *decoder) i32s(v []int32) {
	d.chunked(len(v), 4, func(s []byte, i int) { v[i] = int32(binary.LittleEndian.Uint32(s)) })
}

func (d *decoder) i64s(v []int64) {
	d.chunked(len(v), 8, func(s []byte, i int) { v[i] = int64(binary.LittleEndian.Uint64(s)) })
}

// stats encoding shared by the prioritized samplers.
func (e *encoder) stats(s Stats) {
	e.u64(uint64(s.Stale))
	e.u64(uint64(s.Rejected))
	e.u64(uint64(s.Applied))
	e.u64(uint64(s.Scored))
}

func (d *decoder) stats() Stats {
	return Stats{Stale: int64(d.u64()), Rejected: int64(d.u64()), Applied: int64(d.u64()), Scored: int64(d.u64())}
}

// PER state: alpha, eps f64, step i64, maxP f64, stats, leaves f64[size].

func (s *PER) kind() uint32 {
	if s.relo {
		return kindReLo
	}
	return kindPER
}

func (s *PER) writeState(e *encoder, size int) {
	e.f64(s.cfg.Alpha)
	e.f64(s.cfg.Eps)
	e.u64(uint64(s.step))
	e.f64(s.maxP)
	e.stats(s.stats)
	leaves := s.tree.leaf
	e.chunked(size, 8, func(d []byte, i int) { binary.LittleEndian.PutUint64(d, math.Float64bits(float64(leaves[i]))) })
}

func (s *PER) readState(d *decoder, size int) error {
	alpha, eps := d.f64(), d.f64()
	step, maxP := int64(d.u64()), d.f64()
	st := d.stats()
	if d.err != nil {
		return nil // reported by the caller
	}
	if alpha != s.cfg.Alpha || eps != s.cfg.Eps {
		return fmt.Errorf("saved %s has Alpha %v Eps %v, sampler has %v %v: make it with the saved values",
			kindName(s.kind()), alpha, eps, s.cfg.Alpha, s.cfg.Eps)
	}
	if !(maxP > 0) || math.IsInf(maxP, 0) || step < 0 {
		return fmt.Errorf("%w: saved max priority %v, step %d", ErrCorrupt, maxP, step)
	}
	leaves, bad := s.tree.leaf, 0.0
	d.chunked(size, 8, func(src []byte, i int) {
		l := math.Float64frombits(binary.LittleEndian.Uint64(src))
		if !(l >= 0) || math.IsInf(l, 0) {
			bad, l = l, 0
		}
		leaves[i] = toLeaf(l)
	})
	clear(leaves[size:])
	if bad != 0 {
		return fmt.Errorf("%w: saved leaf priority %v", ErrCorrupt, bad)
	}
	s.tree.rebuild()
	s.step, s.maxP, s.maxLeaf, s.stats = step, maxP, powAlpha(maxP, s.cfg.Alpha), st
	return nil
}

func (s *PER) resetLocked() {
	s.maxP, s.maxLeaf, s.step, s.stats = 1, 1, 0, Stats{}
	clear(s.tree.leaf)
	s.tree.rebuild()
}

// VLMRB state: useTD u32, step i64, maxTD f64, stats, score f32[size],
// scored u8[size], td f32[size] when useTD.

func (s *VLMRB) kind() uint32 { return kindVLMRB }

func (s *VLMRB) writeState(e *encoder, size int) {
	useTD := uint32(0)
	if s.td != nil {
		useTD = 1
	}
	e.u32(useTD)
	e.u64(uint64(s.step))
	e.f64(s.maxTD)
	e.stats(s.stats)
	e.f32s(s.score[:size])
	e.bytes(s.scored[:size])
	if s.td != nil {
		e.f32s(s.td[:size])
	}
}

func (s *VLMRB) readState(d *decoder, size int) error {
	useTD := d.u32()
	step, maxTD := int64(d.u64()), d.f64()
	st := d.stats()
	d.f32s(s.score[:size])
	d.bytes(s.scored[:size])
	if useTD == 1 {
		if s.td != nil {
			d.f32s(s.td[:size])
		} else {
			tmp := make([]float32, size) // saved with UseTD, loaded without: drop |δ|
			d.f32s(tmp)
		}
	}
	if d.err != nil {
		return nil // reported by the caller
	}
	if useTD > 1 || step < 0 || !(maxTD > 0) || math.IsInf(maxTD, 0) {
		return fmt.Errorf("%w: saved VLMRB state (useTD %d, step %d, max |δ| %v)", ErrCorrupt, useTD, step, maxTD)
	}
	scored := int64(0)
	for i := range size {
		if s.scored[i] > 1 || !(s.score[i] >= 0) || math.IsInf(float64(s.score[i]), 0) {
			return fmt.Errorf("%w: saved score %v (flag %d) at slot %d", ErrCorrupt, s.score[i], s.scored[i], i)
		}
		scored += int64(s.scored[i])
		if s.td != nil && (useTD == 0 || !(s.td[i] > 0)) {
			s.td[i] = 1 // no saved |δ|: the placeholder new slots start with
		}
	}
	leaves, hot := s.tree.leaf, s.buf.hot
	for i := range size {
		leaves[i] = 0
		if hot[i].ready != 0 {
			leaves[i] = toLeaf(s.leaf(i))
		}
	}
	clear(leaves[size:])
	s.tree.rebuild()
	st.Scored = scored
	s.step, s.stats = step, st
	if s.td != nil && useTD == 1 {
		s.maxTD = maxTD
	}
	return nil
}

func (s *VLMRB) resetLocked() {
	clear(s.scored)
	clear(s.score)
	s.maxTD, s.step, s.stats = 1, 0, Stats{}
	clear(s.tree.leaf)
	s.tree.rebuild()
}
