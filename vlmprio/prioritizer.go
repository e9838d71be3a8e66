package vlmprio

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vlmrb/vlmrb/replay"
)

// DropPolicy says which clip is dropped when the queue is full.
type DropPolicy int

const (
	// DropNewest rejects the clip being submitted (the default: queued
	// clips are older and closer to being overwritten, but already waited).
	DropNewest DropPolicy = iota
	// DropOldest evicts the oldest queued clip to make room: scores favour
	// fresh data, which is least likely to be overwritten before scoring.
	DropOldest
)

// Combine says how several scores for one transition (overlapping clips
// under ApplyWhole) are combined before the write-back.
type Combine int

const (
	// CombineMax writes the highest score seen so far.
	CombineMax Combine = iota
	// CombineMean writes the running mean of the scores seen so far.
	CombineMean
)

// PrioritizerConfig configures a Prioritizer. Zero fields take the defaults.
//
// The yaml keys are those of robot-train's vlm section, which embeds it
// (there vlm.workers 0 means Inline).
type PrioritizerConfig struct {
	Workers int `yaml:"workers"` // concurrent Score calls (default 2)
	// Inline scores each clip inside Submit, on the caller's goroutine, with
	// no workers or queue: Submit blocks for the Score call, and a score is
	// written at the same point of the caller's work on every run, so a
	// training run with a local scorer is a function of its seed. Clips
	// submitted before Start are dropped (counted).
	Inline bool `yaml:"-"`
	// Lag, with workers (not Inline), delivers scores at a fixed point of
	// the caller's work: a clip submitted between Ticks k−1 and k is scored
	// by a worker while the caller goes on, and its score is written back
	// inside Tick k+Lag, which waits for it if the worker has not finished.
	// Write-backs happen in submission order and a clip is dropped only
	// when QueueSize clips are outstanding (submitted, not yet written),
	// so with a deterministic scorer a training run is again a function
	// of its seed while scoring overlaps training. 0: each score is
	// written when its worker finishes (the loop never waits; where a
	// score lands depends on timing).
	Lag       int        `yaml:"lag"`
	QueueSize int        `yaml:"queue"` // clips waiting for a worker (default 64); under Lag, clips outstanding
	Drop      DropPolicy `yaml:"-"`     // default DropNewest
	Combine   Combine    `yaml:"-"`     // default CombineMax
	// CombineMemory is how many recent refs the combiner remembers (default
	// 65536). Overlapping clips of one transition arrive within L steps of
	// each other, so a bounded FIFO memory suffices.
	CombineMemory int `yaml:"-"`
	// Priority maps a clip score in [0,1] to the value written back
	// (default: the score itself). Threshold builds the paper's 0.5 rule.
	Priority func(score float64) float64 `yaml:"-"`
	// LatencyWindow is how many recent latencies the p50/p95 cover (default 1024).
	LatencyWindow int `yaml:"-"`
}

// Threshold returns a Priority function giving hi for scores > t, else lo
// (VLM-RB thresholds P(yes) at 0.5; a small lo > 0 keeps rejected
// transitions reachable through the prioritized branch).
func Threshold(t, lo, hi float64) func(float64) float64 {
	return func(s float64) float64 {
		if s > t {
			return hi
		}
		return lo
	}
}

func (c PrioritizerConfig) withDefaults() PrioritizerConfig {
	if c.Workers <= 0 {
		c.Workers = 2
	}
	if c.QueueSize <= 0 {
		c.QueueSize = 64
	}
	if c.CombineMemory <= 0 {
		c.CombineMemory = 1 << 16
	}
	if c.LatencyWindow <= 0 {
		c.LatencyWindow = 1024
	}
	return c
}

// Metrics is a snapshot of the Prioritizer's counters.
type Metrics struct {
	QueueDepth int                 // clips waiting now (under Lag: outstanding, scored or not)
	Submitted  int64               // clips offered to Submit
	Dropped    int64               // clips dropped because the queue was full (or after Close)
	Scored     int64               // clips scored successfully
	Failed     int64               // clips whose scoring failed (their refs keep the default priority)
	Errors     map[ErrorKind]int64 // failures by kind
	Written    int64               // refs the sink accepted
	Stale      int64               // refs the sink rejected (slot overwritten)
	Cached     int64               // scores served from a scorer cache
	// ScoreSum and ScoreHist describe the scores of the clips scored so
	// far, before PrioritizerConfig.Priority: their sum, and their counts in
	// tenths ([0, 0.1), …, [0.9, 1]), so a run can show whether its scorer
	// ever crosses a threshold.
	ScoreSum  float64
	ScoreHist [10]int64
	// Waited is the time Tick spent waiting for clips still being scored
	// (Lag): how much the scorer held the caller back.
	Waited           time.Duration
	LatencyP50       time.Duration // over the last LatencyWindow successful Score calls
	LatencyP95       time.Duration
	PromptTokens     int64 // server-reported usage
	CompletionTokens int64
}

// Prioritizer runs a bounded queue of clips and a pool of workers that
// score them and write priorities back through a ScoreSink. Submit never
// blocks. Start it once; Close (or cancelling Start's ctx) stops it and
// waits for every goroutine it started.
type Prioritizer struct {
	cfg    PrioritizerConfig
	scorer Scorer
	sink   ScoreSink
	queue  chan *Clip
	lq     chan *laggedClip // Lag: clips for the workers (never more than QueueSize outstanding)

	startOnce, closeOnce sync.Once
	ctx                  context.Context // Start's, for Inline scoring
	cancel               context.CancelFunc
	wg                   sync.WaitGroup
	closed               atomic.Bool

	submitted, dropped, scored, failed, written, stale, cached atomic.Int64
	promptTok, complTok                                        atomic.Int64

	mu     sync.Mutex
	errs   map[ErrorKind]int64
	lat    []time.Duration // ring of recent latencies
	latN   int
	sum    float64   // scores so far (p.mu)
	hist   [10]int64 // scores so far in tenths (p.mu)
	comb   map[replay.Ref]combEntry
	vals   []float64 // BatchScoreSink scratch (guarded by mu)
	oks    []bool
	combQ  []replay.Ref // FIFO of refs in comb
	combQi int

	// Lag: clips outstanding in submission order (owned by the caller's
	// goroutine: Submit and Tick), the tick count and the time Tick waited.
	lagged      []*laggedClip
	tick        int64
	outstanding atomic.Int64 // len(lagged), for Metrics
	waited      atomic.Int64 // ns
}

// laggedClip is a clip under PrioritizerConfig.Lag: a worker fills res and
// closes done; Tick writes it back once due.
type laggedClip struct {
	c    *Clip
	due  int64
	res  scoreResult
	done chan struct{}
}

// scoreResult is one Score call's outcome, before its write-back.
type scoreResult struct {
	sc   Score
	err  error
	kind ErrorKind // of err
	dt   time.Duration
}

type combEntry struct {
	val float64
	n   int
}

// NewPrioritizer returns a stopped Prioritizer; call Start.
func NewPrioritizer(scorer Scorer, sink ScoreSink, cfg PrioritizerConfig) *Prioritizer {
	if scorer == nil || sink == nil {
		panic("vlmprio: NewPrioritizer needs a scorer and a sink")
	}
	cfg = cfg.withDefaults()
	return &Prioritizer{
		cfg: cfg, scorer: scorer, sink: sink,
		queue: make(chan *Clip, cfg.QueueSize),
		lq:    make(chan *laggedClip, cfg.QueueSize),
		errs:  make(map[ErrorKind]int64),
		lat:   make([]time.Duration, cfg.LatencyWindow),
		comb:  make(map[replay.Ref]combEntry),
	}
}

// Start launches the workers. They stop when ctx is done or Close is called.
func (p *Prioritizer) Start(ctx context.Context) {
	p.startOnce.Do(func() {
		ctx, p.cancel = context.WithCancel(ctx)
		p.ctx = ctx
		if p.cfg.Inline {
			return
		}
		for range p.cfg.Workers {
			p.wg.Add(1)
			go p.worker(ctx)
		}
	})
}

// Close stops the workers (in-flight Score calls see a cancelled ctx),
// waits for them, and drops what is still queued (counted). Safe to call
// more than once and without Start.
func (p *Prioritizer) Close() {
	p.closeOnce.Do(func() {
		p.closed.Store(true)
		if p.cancel != nil {
			p.cancel()
		}
		p.wg.Wait()
		// Lag: what was never written back is dropped (a clip a worker
		// took is in p.lagged as well as, untaken, in p.lq)
		p.dropped.Add(int64(len(p.lagged)))
		p.lagged = nil
		p.outstanding.Store(0)
		for {
			select {
			case <-p.lq:
			case <-p.queue:
				p.dropped.Add(1)
			default:
				return
			}
		}
	})
}

// Submit queues a clip for scoring and reports whether it was queued (under
// DropOldest it may instead evict an older clip). It never blocks, except
// under Inline, where it scores the clip before it returns (true).
func (p *Prioritizer) Submit(c *Clip) bool {
	p.submitted.Add(1)
	if c == nil || len(c.Refs) == 0 || p.closed.Load() {
		p.dropped.Add(1)
		return false
	}
	if p.cfg.Inline {
		ctx := p.ctx
		if ctx == nil { // not started
			p.dropped.Add(1)
			return false
		}
		p.process(ctx, c)
		return true
	}
	if p.cfg.Lag > 0 {
		if p.ctx == nil || len(p.lagged) >= p.cfg.QueueSize { // not started, or full
			p.dropped.Add(1)
			return false
		}
		l := &laggedClip{c: c, due: p.tick + int64(p.cfg.Lag), done: make(chan struct{})}
		p.lagged = append(p.lagged, l)
		p.outstanding.Store(int64(len(p.lagged)))
		p.lq <- l // never blocks: at most QueueSize outstanding
		return true
	}
	select {
	case p.queue <- c:
		return true
	default:
	}
	if p.cfg.Drop == DropOldest {
		for range 4 {
			select {
			case <-p.queue:
				p.dropped.Add(1)
			default:
			}
			select {
			case p.queue <- c:
				return true
			default:
			}
		}
	}
	p.dropped.Add(1)
	return false
}

// Tick marks the end of one round of the caller's work (a training loop
// calls it once per step). Under Lag it writes back, in submission order,
// every clip whose round has come, waiting for those still being scored;
// it returns ctx's error if ctx (or Start's) ends while it waits (the clip
// stays outstanding). Without Lag it only counts. Under Lag, Submit, Tick
// and Close are called from one goroutine (the training loop's).
func (p *Prioritizer) Tick(ctx context.Context) error {
	p.tick++
	for len(p.lagged) > 0 && p.lagged[0].due <= p.tick {
		l := p.lagged[0]
		select {
		case <-l.done:
		default:
			t0 := time.Now()
			select {
			case <-l.done:
			case <-ctx.Done():
				p.waited.Add(int64(time.Since(t0)))
				return ctx.Err()
			case <-p.ctx.Done(): // the workers stopped
				p.waited.Add(int64(time.Since(t0)))
				return p.ctx.Err()
			}
			p.waited.Add(int64(time.Since(t0)))
		}
		p.lagged[0] = nil
		p.lagged = p.lagged[1:]
		p.outstanding.Store(int64(len(p.lagged)))
		p.apply(l.c, l.res)
	}
	return nil
}

func (p *Prioritizer) worker(ctx context.Context) {
	defer p.wg.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case l := <-p.lq:
			// Tick applies the result; a clip cancelled by Close is
			// counted as dropped there (it is never written)
			l.res = p.score(ctx, l.c)
			close(l.done)
		case c := <-p.queue:
			if ctx.Err() != nil { // stopping: don't start new work
				p.dropped.Add(1)
				return
			}
			p.process(ctx, c)
		}
	}
}

func (p *Prioritizer) process(ctx context.Context, c *Clip) {
	p.apply(c, p.score(ctx, c))
}

// score calls the Scorer on c, classifying a failure as canceled when ctx
// ended.
func (p *Prioritizer) score(ctx context.Context, c *Clip) scoreResult {
	t0 := time.Now()
	sc, err := p.scorer.Score(ctx, c)
	r := scoreResult{sc: sc, err: err, dt: time.Since(t0)}
	if err != nil {
		r.kind = KindOf(err)
		if ctx.Err() != nil && errors.Is(err, context.Canceled) {
			r.kind = KindCanceled
		}
	}
	return r
}

// apply counts a score and writes it back (or counts its failure).
func (p *Prioritizer) apply(c *Clip, r scoreResult) {
	sc := r.sc
	if r.err != nil {
		p.failed.Add(1)
		p.mu.Lock()
		p.errs[r.kind]++
		p.mu.Unlock()
		p.promptTok.Add(int64(sc.PromptTokens))
		p.complTok.Add(int64(sc.CompletionTokens))
		return
	}
	dt := r.dt
	if sc.Cached {
		p.cached.Add(1)
	}
	p.promptTok.Add(int64(sc.PromptTokens))
	p.complTok.Add(int64(sc.CompletionTokens))
	raw := clamp01(sc.Value)
	v := raw
	if p.cfg.Priority != nil {
		v = p.cfg.Priority(v)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	// counted last (this defer runs before the unlock): a Metrics reader
	// that sees the clip as scored also sees its scores written back and
	// its histogram entry
	defer p.scored.Add(1)
	p.lat[p.latN%len(p.lat)] = dt
	p.latN++
	p.sum += raw
	p.hist[min(int(raw*10), 9)]++
	// combine and write under one lock: otherwise a worker holding an
	// older combined value could overwrite a newer, higher one
	if bs, ok := p.sink.(BatchScoreSink); ok {
		n := len(c.Refs)
		if cap(p.vals) < n {
			p.vals, p.oks = make([]float64, n), make([]bool, n)
		}
		vals, oks := p.vals[:n], p.oks[:n]
		for i, r := range c.Refs {
			vals[i] = p.combine(r, v)
		}
		bs.SetScores(c.Refs, vals, oks)
		for _, ok := range oks {
			if ok {
				p.written.Add(1)
			} else {
				p.stale.Add(1)
			}
		}
		return
	}
	for _, r := range c.Refs {
		if p.sink.SetScore(r, p.combine(r, v)) {
			p.written.Add(1)
		} else {
			p.stale.Add(1)
		}
	}
}

// combine folds v into the remembered value for r (p.mu held).
func (p *Prioritizer) combine(r replay.Ref, v float64) float64 {
	e, ok := p.comb[r]
	if ok {
		switch p.cfg.Combine {
		case CombineMean:
			e.val = (e.val*float64(e.n) + v) / float64(e.n+1)
		default:
			e.val = max(e.val, v)
		}
		e.n++
		p.comb[r] = e
		return e.val
	}
	p.comb[r] = combEntry{val: v, n: 1}
	if len(p.combQ) < p.cfg.CombineMemory {
		p.combQ = append(p.combQ, r)
	} else {
		delete(p.comb, p.combQ[p.combQi])
		p.combQ[p.combQi] = r
		p.combQi = (p.combQi + 1) % len(p.combQ)
	}
	return v
}

// Metrics returns a snapshot of the counters.
func (p *Prioritizer) Metrics() Metrics {
	m := Metrics{
		QueueDepth:       len(p.queue) + int(p.outstanding.Load()),
		Waited:           time.Duration(p.waited.Load()),
		Submitted:        p.submitted.Load(),
		Dropped:          p.dropped.Load(),
		Scored:           p.scored.Load(),
		Failed:           p.failed.Load(),
		Written:          p.written.Load(),
		Stale:            p.stale.Load(),
		Cached:           p.cached.Load(),
		PromptTokens:     p.promptTok.Load(),
		CompletionTokens: p.complTok.Load(),
		Errors:           make(map[ErrorKind]int64),
	}
	p.mu.Lock()
	for k, v := range p.errs {
		m.Errors[k] = v
	}
	n := min(p.latN, len(p.lat))
	lat := slices.Clone(p.lat[:n])
	m.ScoreSum, m.ScoreHist = p.sum, p.hist
	p.mu.Unlock()
	if n > 0 {
		slices.Sort(lat)
		m.LatencyP50 = lat[(n-1)*50/100]
		m.LatencyP95 = lat[(n-1)*95/100]
	}
	return m
}
