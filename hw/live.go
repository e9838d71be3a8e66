package hw

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vlmrb/vlmrb/frame"
)

// connectFunc runs one connection to a live camera until it fails or ctx is
// cancelled. It calls s.connected once the stream is established and
// s.publish for each frame. A nil return means the stream ended cleanly.
type connectFunc func(ctx context.Context, s *sink) error

// live is a frame.Source over a device or network stream: a producer
// goroutine that reconnects with backoff, a latest-frame slot, and decoding
// on the consumer's side.
type live struct {
	name string
	opts Options
	c    counters
	slot *slot
	shp  shaper
	seq  uint64

	cancel    context.CancelFunc
	done      chan struct{} // closed when the producer goroutine returns
	ready     chan struct{} // closed on the first established connection
	readyOnce sync.Once
	closed    atomic.Bool
	closeOnce sync.Once
	termErr   error // set before done is closed
}

// startLive starts the producer for connect and waits, bounded by ctx, until
// the first connection is established. Transient failures are retried with
// backoff until ctx ends; permanent ones return at once.
func startLive(ctx context.Context, name string, opts Options, connect connectFunc) (*live, error) {
	l := newLive(name, opts)
	runCtx, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	go l.run(runCtx, connect)
	return l.waitOpen(ctx)
}

func newLive(name string, opts Options) *live {
	l := &live{
		name:  name,
		opts:  opts,
		done:  make(chan struct{}),
		ready: make(chan struct{}),
	}
	l.slot = newSlot(&l.c, opts.Buffer)
	l.shp = shaper{opts: opts}
	return l
}

// waitOpen waits, bounded by ctx, until the producer has connected (the
// source is open) or has given up (it is closed and the error returned).
func (l *live) waitOpen(ctx context.Context) (*live, error) {
	name := l.name
	select {
	case <-l.ready:
		return l, nil
	case <-l.done:
		// A stream can connect, deliver and end before this select runs;
		// then both cases are ready and select picks one at random. Once
		// connected, the source is open: Next returns the frames it
		// queued, then the terminal error.
		if l.isReady() {
			return l, nil
		}
		_ = l.Close()
		return nil, l.termErr
	case <-ctx.Done():
		last := l.c.snapshot().LastError
		_ = l.Close()
		if last != "" {
			return nil, fmt.Errorf("hw: %s: not connected (%w); last error: %s", name, ctx.Err(), last)
		}
		return nil, fmt.Errorf("hw: %s: not connected: %w (the server accepted the connection but sent no complete response: slow, silent or not a camera)", name, ctx.Err())
	}
}

func (l *live) logf(format string, args ...any) {
	if l.opts.Logf != nil {
		l.opts.Logf("hw: %s: "+format, append([]any{l.name}, args...)...)
	}
}

// run is the producer loop: connect, stream, back off, reconnect.
func (l *live) run(ctx context.Context, connect connectFunc) {
	defer close(l.done)
	backoff := l.opts.BackoffMin
	failures := 0
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			l.c.reconnects.Add(1)
		}
		s := &sink{l: l}
		connCtx, cancel := context.WithCancel(ctx)
		s.stall = time.AfterFunc(l.opts.StallTimeout, func() {
			s.stalled.Store(true)
			cancel()
		})
		err := connect(connCtx, s)
		s.stall.Stop()
		cancel()
		if ctx.Err() != nil {
			l.termErr = frame.ErrClosed
			return
		}
		switch {
		case s.stalled.Load():
			err = fmt.Errorf("hw: %s: no frame for %v: %w", l.name, l.opts.StallTimeout, ErrStalled)
		case err == nil:
			err = fmt.Errorf("hw: %s: stream ended: %w", l.name, io.EOF)
		}
		msg := err.Error()
		l.c.lastErr.Store(&msg)
		if errors.Is(err, ErrFrameTooLarge) || errors.Is(err, errHeadersTooLarge) {
			l.c.tooLarge.Add(1)
		}
		l.logf("connection lost: %v", err)
		if s.gotFrame.Load() {
			backoff, failures = l.opts.BackoffMin, 0
		}
		failures++
		// before the first connection, Open's ctx alone bounds the retries
		limited := l.isReady() && (l.opts.MaxReconnects < 0 || (l.opts.MaxReconnects > 0 && failures > l.opts.MaxReconnects))
		if isPermanent(err) || limited {
			l.termErr = err
			l.slot.fail(err)
			return
		}
		// full jitter in [backoff/2, backoff]
		d := backoff/2 + time.Duration(rand.Int64N(int64(backoff/2)+1))
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			l.termErr = frame.ErrClosed
			return
		case <-t.C:
		}
		backoff = min(2*backoff, l.opts.BackoffMax)
	}
}

func (l *live) isReady() bool {
	select {
	case <-l.ready:
		return true
	default:
		return false
	}
}

// Next implements frame.Source: it waits for the newest frame, decodes it
// into dst (reusing dst.Image when the size matches), and stamps it.
func (l *live) Next(ctx context.Context, dst *frame.Frame) error {
	if l.closed.Load() {
		return frame.ErrClosed
	}
	p, err := l.take(ctx)
	if err != nil {
		return err
	}
	err = l.shp.decode(p, dst)
	t := p.t
	l.slot.release(p)
	if err != nil {
		l.c.decodeErrors.Add(1)
		return fmt.Errorf("hw: %s: %w", l.name, err)
	}
	dst.Time = t
	dst.Camera = l.name
	dst.Depth = nil
	dst.Seq = l.seq
	l.seq++
	l.c.delivered.Add(1)
	return nil
}

// Close stops the producer, releases the device or connection and waits
// for every goroutine the source started. It is safe to call twice.
func (l *live) Close() error {
	l.closeOnce.Do(func() {
		l.closed.Store(true)
		l.cancel()
		<-l.done
		l.slot.close()
	})
	return nil
}

// Stats returns the source's counters.
func (l *live) Stats() Stats { return l.c.snapshot() }

// sink is a connection's handle on its source: connection state, the stall
// watchdog and frame publication with rate limiting.
type sink struct {
	l        *live
	stall    *time.Timer
	stalled  atomic.Bool
	gotFrame atomic.Bool
	next     time.Time // MaxFPS schedule
}

// connected reports the stream as established.
func (s *sink) connected() {
	s.stall.Reset(s.l.opts.StallTimeout)
	s.l.readyOnce.Do(func() { close(s.l.ready) })
	s.l.logf("connected")
}

// keep counts an arriving frame, feeds the stall watchdog, and says whether
// the frame passes decimation and rate limiting. Producers call it before
// copying a frame so skipped frames cost nothing more.
func (s *sink) keep(t time.Time) bool {
	s.stall.Reset(s.l.opts.StallTimeout)
	s.gotFrame.Store(true)
	n := s.l.c.frames.Add(1)
	o := &s.l.opts
	if o.Decimate > 1 && (n-1)%uint64(o.Decimate) != 0 {
		s.l.c.decimated.Add(1)
		return false
	}
	if o.MaxFPS > 0 {
		period := time.Duration(float64(time.Second) / o.MaxFPS)
		// scheduled release with a small tolerance for arrival jitter
		if t.Before(s.next.Add(-period / 8)) {
			s.l.c.decimated.Add(1)
			return false
		}
		if t.Sub(s.next) > period {
			s.next = t
		}
		s.next = s.next.Add(period)
	}
	return true
}

// buffer returns an empty payload to fill for publish.
func (s *sink) buffer() *payload { return s.l.slot.get() }

// publish hands a filled payload to the consumer side.
func (s *sink) publish(p *payload) { s.l.slot.put(p) }

// discard returns an unused buffer.
func (s *sink) discard(p *payload) { s.l.slot.release(p) }

var errNotConnected = errors.New("not connected")
