package replay

import (
	"fmt"
	"math"
)

// AER state: step i64 (the λ schedule's Sample count).

func (s *AER) onAdd(int)   {}
func (s *AER) onReady(int) {}

func (s *AER) kind() uint32 { return kindAER }

func (s *AER) writeState(e *encoder, _ int) { e.u64(uint64(s.step)) }

func (s *AER) readState(d *decoder, _ int) error {
	step := int64(d.u64())
	if d.err != nil {
		return nil // reported by the caller
	}
	if step < 0 {
		return fmt.Errorf("%w: saved AER step %d", ErrCorrupt, step)
	}
	s.step = step
	return nil
}

func (s *AER) resetLocked() { s.step = 0 }

// ERO state: the replay policy w f64[4], max |δ| f64, reward range lo/hi
// f64, updates i64, decisions since the last policy update (count u32,
// then features and decision f64[5] each), td f32[size], born i64[size],
// then (kind ERO2 only) the decisions seen since the last update i64 and
// the decisions per batch u32. An older ERO section loads with seen = the
// decisions it holds and the decisions per batch from the next Sample.

func (s *ERO) kind() uint32 { return kindERO2 }

func (s *ERO) writeState(e *encoder, size int) {
	for _, w := range s.w {
		e.f64(w)
	}
	e.f64(s.maxTD)
	e.f64(s.rewards.lo)
	e.f64(s.rewards.hi)
	e.u64(uint64(s.updates))
	e.u32(uint32(len(s.mem)))
	for _, rec := range s.mem {
		for _, v := range rec {
			e.f64(v)
		}
	}
	e.f32s(s.td[:size])
	e.i64s(s.born[:size])
	e.u64(uint64(s.seen))
	e.u32(uint32(s.perCall))
}

func (s *ERO) readState(d *decoder, size int) error {
	var w [eroFeatures]float64
	for i := range w {
		w[i] = d.f64()
	}
	maxTD, lo, hi := d.f64(), d.f64(), d.f64()
	updates := int64(d.u64())
	n := int(d.u32())
	if d.err != nil {
		return nil
	}
	if n > s.cfg.Memory {
		return fmt.Errorf("%w: saved ERO memory of %d decisions, the sampler keeps %d", ErrCorrupt, n, s.cfg.Memory)
	}
	mem := make([][eroFeatures + 1]float64, n)
	for i := range mem {
		for j := range mem[i] {
			mem[i][j] = d.f64()
		}
	}
	d.f32s(s.td[:size])
	d.i64s(s.born[:size])
	legacy := s.legacyState
	s.legacyState = false
	seen, perCall := int64(n), 0
	if !legacy {
		seen, perCall = int64(d.u64()), int(d.u32())
	}
	if d.err != nil {
		return nil
	}
	if seen < int64(n) || perCall < 0 {
		return fmt.Errorf("%w: saved ERO memory of %d decisions out of %d seen", ErrCorrupt, n, seen)
	}
	for _, v := range w {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: saved ERO policy %v", ErrCorrupt, w)
		}
	}
	if !(maxTD > 0) || math.IsInf(maxTD, 0) || updates < 0 {
		return fmt.Errorf("%w: saved ERO max |δ| %v, updates %d", ErrCorrupt, maxTD, updates)
	}
	s.w, s.maxTD, s.updates, s.mem = w, maxTD, updates, mem
	s.seen, s.perCall = seen, perCall
	s.rewards.lo, s.rewards.hi = lo, hi
	return nil
}

func (s *ERO) resetLocked() {
	s.w, s.maxTD, s.updates, s.mem = [eroFeatures]float64{}, 1, 0, s.mem[:0]
	s.seen, s.perCall = 0, 0
	s.rewards.lo, s.rewards.hi = math.Inf(1), math.Inf(-1)
	clear(s.td)
	clear(s.born)
}
