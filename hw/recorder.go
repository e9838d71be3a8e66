package hw

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/vlmrb/vlmrb/frame"
)

// Mark records which camera frame went with a control step.
type Mark struct {
	// Step is the caller's control-step index.
	Step int64
	// StepTime is when Mark was called (wall clock).
	StepTime time.Time
	// FrameTime and FrameSeq identify the frame paired with the step.
	FrameTime time.Time
	FrameSeq  uint64
	// Age is StepTime − FrameTime: how old the frame was at the step.
	Age time.Duration
	// Repeated is true when the previous Mark got the same frame (the
	// control loop runs faster than the camera).
	Repeated bool
}

// RecorderOptions configures a Recorder. Zero values take the defaults.
type RecorderOptions struct {
	// MaxAge makes Mark fail with ErrStaleFrame when the newest frame is
	// older than this at the step (0: no check).
	MaxAge time.Duration
	// History is how many Marks Marks() keeps (default 1024).
	History int
}

// Errors returned by Recorder.Mark.
var (
	// ErrNoFrame: the source has not delivered a frame yet.
	ErrNoFrame = errors.New("hw: recorder has no frame yet")
	// ErrStaleFrame: the newest frame is older than RecorderOptions.MaxAge.
	ErrStaleFrame = errors.New("hw: newest frame is older than MaxAge")
)

// Recorder pulls frames from a Source on its own goroutine and pairs
// control steps with the newest frame, so clips of real camera frames line
// up with the transitions of a robot rollout:
//
//	rec := hw.NewRecorder(cam, hw.RecorderOptions{MaxAge: 200 * time.Millisecond})
//	defer rec.Close()
//	for step := int64(0); ; step++ {
//		obs, ... := env.Step(action)
//		m, err := rec.Mark(step, &f) // f: the frame for this transition
//		clips := clipper.Push(env, vlmprio.Step{Frame: f, ...})
//	}
//
// Mark, Latest, Marks, Stats and Close are safe for concurrent use.
type Recorder struct {
	src    frame.Source
	opts   RecorderOptions
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	cur      frame.Frame // newest frame (pixels owned by the Recorder)
	have     bool
	err      error // why the pulling goroutine stopped
	marks    []Mark
	next     int // ring position in marks
	lastSeq  uint64
	marked   bool
	frames   uint64
	errCount uint64
}

// maxConsecutiveErrors stops the Recorder when the source fails this many
// times in a row (a closed or exhausted source fails every time).
const maxConsecutiveErrors = 8

// NewRecorder starts pulling frames from src. The Recorder owns src from
// now on: Close closes it.
func NewRecorder(src frame.Source, opts RecorderOptions) *Recorder {
	if opts.History <= 0 {
		opts.History = 1024
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &Recorder{src: src, opts: opts, cancel: cancel, done: make(chan struct{})}
	go r.pull(ctx)
	return r
}

func (r *Recorder) pull(ctx context.Context) {
	defer close(r.done)
	var work frame.Frame
	fails := 0
	for {
		err := r.src.Next(ctx, &work)
		if ctx.Err() != nil {
			r.stop(frame.ErrClosed)
			return
		}
		if err != nil {
			r.mu.Lock()
			r.errCount++
			r.mu.Unlock()
			fails++
			if errors.Is(err, frame.ErrEndOfStream) || errors.Is(err, frame.ErrClosed) || fails >= maxConsecutiveErrors {
				r.stop(err)
				return
			}
			continue
		}
		fails = 0
		r.mu.Lock()
		// swap buffers: Next wrote into work; the old newest becomes scratch
		r.cur, work = work, r.cur
		r.have = true
		r.frames++
		r.mu.Unlock()
	}
}

func (r *Recorder) stop(err error) {
	r.mu.Lock()
	r.err = err
	r.mu.Unlock()
}

// Mark pairs control step step with the newest frame, copies that frame
// into dst (reusing dst.Image when the size matches) and logs the pairing.
// It does not wait for a new frame.
func (r *Recorder) Mark(step int64, dst *frame.Frame) (Mark, error) {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.have {
		if r.err != nil {
			return Mark{}, r.err
		}
		return Mark{}, ErrNoFrame
	}
	m := Mark{Step: step, StepTime: now, FrameTime: r.cur.Time, FrameSeq: r.cur.Seq, Age: now.Sub(r.cur.Time)}
	if r.opts.MaxAge > 0 && m.Age > r.opts.MaxAge {
		return m, ErrStaleFrame
	}
	m.Repeated = r.marked && r.lastSeq == m.FrameSeq
	r.lastSeq, r.marked = m.FrameSeq, true
	copyFrame(dst, &r.cur)
	if len(r.marks) < r.opts.History {
		r.marks = append(r.marks, m)
	} else {
		r.marks[r.next] = m
		r.next = (r.next + 1) % len(r.marks)
	}
	return m, nil
}

// Latest copies the newest frame into dst without logging a Mark.
func (r *Recorder) Latest(dst *frame.Frame) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.have {
		if r.err != nil {
			return r.err
		}
		return ErrNoFrame
	}
	copyFrame(dst, &r.cur)
	return nil
}

// WaitFrame blocks until the first frame has arrived, the source failed,
// or ctx ends.
func (r *Recorder) WaitFrame(ctx context.Context) error {
	t := time.NewTicker(5 * time.Millisecond)
	defer t.Stop()
	for {
		r.mu.Lock()
		have, err := r.have, r.err
		r.mu.Unlock()
		if have {
			return nil
		}
		if err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// Marks returns the logged Marks, oldest first (at most History).
func (r *Recorder) Marks() []Mark {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Mark, 0, len(r.marks))
	out = append(out, r.marks[r.next:]...)
	return append(out, r.marks[:r.next]...)
}

// RecorderStats counts what a Recorder saw.
type RecorderStats struct {
	Frames uint64 // frames pulled from the source
	Errors uint64 // errors the source returned
	Marks  int    // Marks currently logged
	Err    error  // why pulling stopped (nil while running)
}

// Stats returns the Recorder's counters.
func (r *Recorder) Stats() RecorderStats {
	r.mu.Lock()
	defer r.mu.Unlock()
	return RecorderStats{Frames: r.frames, Errors: r.errCount, Marks: len(r.marks), Err: r.err}
}

// Close stops pulling, closes the source and waits for the goroutine.
func (r *Recorder) Close() error {
	r.cancel()
	err := r.src.Close()
	<-r.done
	return err
}

// copyFrame deep-copies src into dst, reusing dst's pixel storage.
func copyFrame(dst, src *frame.Frame) {
	img := dst.Image
	if src.Image != nil {
		img = frame.EnsureRGBA(dst.Image, src.Image.Rect)
		copy(img.Pix, src.Image.Pix)
	}
	depth := dst.Depth
	if src.Depth != nil {
		depth = append(depth[:0], src.Depth...)
	} else {
		depth = nil
	}
	*dst = *src
	dst.Image, dst.Depth = img, depth
}
