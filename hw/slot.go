package hw

import (
	"context"
	"sync"
	"time"

	"github.com/vlmrb/vlmrb/frame"
)

// payloadKind says how a payload's bytes encode the image.
type payloadKind uint8

const (
	kindJPEG  payloadKind = iota + 1 // JPEG (or PNG, sniffed) bytes
	kindYUYV                         // packed 4:2:2 Y0 U Y1 V, w*h*2 bytes
	kindRGB24                        // packed RGB, w*h*3 bytes
)

// payload is one undecoded frame as it came off the wire or the device.
type payload struct {
	kind payloadKind
	data []byte
	w, h int       // pixels; 0 for self-describing kinds (JPEG)
	t    time.Time // capture (arrival) time
}

// slot holds at most depth pending payloads (by default one: the newest).
// A producer that finds it full drops the oldest pending payload (counted);
// the consumer takes the oldest. At most depth+2 payload buffers exist per
// slot: one being filled, depth pending, one being decoded.
type slot struct {
	mu      sync.Mutex
	depth   int
	pending []*payload // oldest first
	free    []*payload
	err     error         // terminal error, delivered after the pending frame
	notify  chan struct{} // capacity 1: "something changed"
	c       *counters
}

func newSlot(c *counters, depth int) *slot {
	return &slot{notify: make(chan struct{}, 1), c: c, depth: max(1, depth)}
}

// get returns an empty payload buffer for the producer to fill.
func (s *slot) get() *payload {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.free); n > 0 {
		p := s.free[n-1]
		s.free = s.free[:n-1]
		p.data = p.data[:0]
		return p
	}
	return &payload{}
}

// release returns a buffer to the free list (bounded at two).
func (s *slot) release(p *payload) {
	if p == nil {
		return
	}
	s.mu.Lock()
	if len(s.free) < 2 {
		s.free = append(s.free, p)
	}
	s.mu.Unlock()
}

// put publishes p as the newest frame, dropping any pending one.
func (s *slot) put(p *payload) {
	s.mu.Lock()
	if s.err != nil {
		// closed or failed: nobody will read it
		s.mu.Unlock()
		return
	}
	if len(s.pending) >= s.depth {
		old := s.pending[0]
		copy(s.pending, s.pending[1:])
		s.pending = s.pending[:len(s.pending)-1]
		s.c.dropped.Add(1)
		if len(s.free) < 2 {
			s.free = append(s.free, old)
		}
	}
	s.pending = append(s.pending, p)
	s.mu.Unlock()
	s.signal()
}

// fail records a terminal error; the first one wins.
func (s *slot) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
	s.signal()
}

// close drops any pending frame and makes take return frame.ErrClosed.
func (s *slot) close() {
	s.mu.Lock()
	s.err = frame.ErrClosed
	s.pending = nil
	s.free = nil
	s.mu.Unlock()
	s.signal()
}

func (s *slot) signal() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// take waits for the pending payload. A pending frame is returned before a
// terminal error, except after close.
func (s *slot) take(ctx context.Context) (*payload, error) {
	for {
		s.mu.Lock()
		err := s.err
		if len(s.pending) > 0 && err != frame.ErrClosed {
			p := s.pending[0]
			copy(s.pending, s.pending[1:])
			s.pending = s.pending[:len(s.pending)-1]
			s.mu.Unlock()
			return p, nil
		}
		s.mu.Unlock()
		if err != nil {
			// keep the notification armed for other waiters
			s.signal()
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-s.notify:
		}
	}
}
