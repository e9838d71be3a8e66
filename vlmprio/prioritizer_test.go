package vlmprio

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/replay"
)

// funcScorer adapts a function to Scorer.
type funcScorer func(ctx context.Context, c *Clip) (Score, error)

func (f funcScorer) Score(ctx context.Context, c *Clip) (Score, error) { return f(ctx, c) }

// gateScorer blocks every Score call until release is closed (or ctx ends).
func gateScorer(release <-chan struct{}, started chan<- *Clip) funcScorer {
	return func(ctx context.Context, c *Clip) (Score, error) {
		if started != nil {
			started <- c
		}
		select {
		case <-release:
			return Score{Value: 0.5, Method: "test"}, nil
		case <-ctx.Done():
			return Score{}, &ScoreError{Kind: KindCanceled, Err: ctx.Err()}
		}
	}
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute) // bounds a hang only; load cannot reach it
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestPrioritizerEndToEnd runs Clipper → Prioritizer(pixel) → sink for
// several envs and checks every covered transition gets the score of its
// clip, computed independently.
func TestPrioritizerEndToEnd(t *testing.T) {
	checkNoLeak(t)
	sink := newRecordSink()
	sc := NewPixelScorer(testSpec)
	p := NewPrioritizer(sc, sink, PrioritizerConfig{Workers: 2, QueueSize: 1024})
	p.Start(context.Background())
	defer p.Close()

	var clips []*Clip
	for env := range 3 {
		for _, c := range episodeClips(t, env%2 == 0, 40, 64, 48, uint64(env+1)) {
			// give each env its own slots
			for i := range c.Refs {
				c.Refs[i] = sink.add(int32(env*1000) + c.Refs[i].Slot)
			}
			c.Env = env
			clips = append(clips, c)
			if !p.Submit(c) {
				t.Fatal("Submit refused with a large queue")
			}
		}
	}
	waitFor(t, "all clips scored", func() bool { m := p.Metrics(); return m.Scored+m.Failed == int64(len(clips)) })
	m := p.Metrics()
	if m.Failed != 0 || m.Dropped != 0 || m.Stale != 0 {
		t.Fatalf("metrics %+v", m)
	}
	nrefs := 0
	for _, c := range clips {
		want, err := sc.Score(context.Background(), c)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range c.Refs {
			nrefs++
			got, ok := sink.score(r)
			if !ok || got != want.Value {
				t.Fatalf("ref %v: score %v (written %v), want %v", r, got, ok, want.Value)
			}
		}
	}
	if m.Written != int64(nrefs) {
		t.Fatalf("Written %d, want %d", m.Written, nrefs)
	}
	if m.LatencyP50 <= 0 || m.LatencyP95 < m.LatencyP50 {
		t.Fatalf("latencies p50 %v p95 %v", m.LatencyP50, m.LatencyP95)
	}
}

// TestPrioritizerStaleWriteDropped: a slot overwritten while its clip is
// being scored keeps the new transition's state; the write is counted stale.
func TestPrioritizerStaleWriteDropped(t *testing.T) {
	checkNoLeak(t)
	sink := newRecordSink()
	release := make(chan struct{})
	started := make(chan *Clip, 1)
	p := NewPrioritizer(gateScorer(release, started), sink, PrioritizerConfig{Workers: 1})
	p.Start(context.Background())
	defer p.Close()
	old := sink.add(5)
	keep := sink.add(6)
	p.Submit(&Clip{Refs: []replay.Ref{old, keep}})
	<-started
	fresh := sink.add(5) // the ring overwrote slot 5
	close(release)
	waitFor(t, "write-back", func() bool { m := p.Metrics(); return m.Written+m.Stale == 2 })
	if _, ok := sink.score(old); ok {
		t.Fatal("stale write landed")
	}
	if _, ok := sink.score(fresh); ok {
		t.Fatal("the new transition in slot 5 received the old clip's score")
	}
	if v, ok := sink.score(keep); !ok || v != 0.5 {
		t.Fatalf("slot 6 got %v %v", v, ok)
	}
	if m := p.Metrics(); m.Stale != 1 || m.Written != 1 {
		t.Fatalf("metrics %+v", m)
	}
}

func TestPrioritizerDropPolicies(t *testing.T) {
	checkNoLeak(t)
	for _, pol := range []DropPolicy{DropNewest, DropOldest} {
		sink := newRecordSink()
		release := make(chan struct{})
		started := make(chan *Clip, 16)
		p := NewPrioritizer(gateScorer(release, started), sink, PrioritizerConfig{Workers: 1, QueueSize: 2, Drop: pol})
		p.Start(context.Background())
		clip := func(i int) *Clip { return &Clip{Start: i, Refs: []replay.Ref{sink.add(int32(i))}} }
		p.Submit(clip(0))
		<-started // the worker holds clip 0
		// Submit must not block although the queue is full: the ten calls
		// return while the worker still holds clip 0 (a blocking Submit
		// would wait for the release that comes only after them)
		submitted := make(chan struct{})
		go func() {
			for i := 1; i <= 10; i++ {
				p.Submit(clip(i))
			}
			close(submitted)
		}()
		select {
		case <-submitted:
		case <-time.After(time.Minute):
			t.Fatal("Submit blocked on a full queue")
		}
		m := p.Metrics()
		if m.Dropped != 8 || m.QueueDepth != 2 || m.Submitted != 11 {
			t.Fatalf("%v: metrics %+v, want 8 dropped, 2 queued", pol, m)
		}
		close(release)
		waitFor(t, "queue drained", func() bool { return p.Metrics().Scored == 3 })
		var got []int
		for range 2 {
			got = append(got, (<-started).Start)
		}
		want := []int{1, 2}
		if pol == DropOldest {
			want = []int{9, 10}
		}
		if got[0] != want[0] || got[1] != want[1] {
			t.Fatalf("%v: kept clips %v, want %v", pol, got, want)
		}
		p.Close()
	}
}

// TestPrioritizerFailuresKeepDefault: a VLM server that always fails
// leaves every ref unwritten and counts errors by kind.
func TestPrioritizerFailuresKeepDefault(t *testing.T) {
	checkNoLeak(t)
	v := newVLMServer(t, func(w http.ResponseWriter, r *http.Request, body map[string]any, n int64) {
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	s := v.scorer(t, OpenAIConfig{MaxRetries: 1, BreakerThreshold: -1})
	sink := newRecordSink()
	p := NewPrioritizer(s, sink, PrioritizerConfig{Workers: 2})
	p.Start(context.Background())
	defer p.Close()
	for i := range 4 {
		c := testClip()
		c.Task += string(rune('a' + i))
		c.Refs = []replay.Ref{sink.add(int32(i))}
		p.Submit(c)
	}
	waitFor(t, "failures", func() bool { return p.Metrics().Failed == 4 })
	m := p.Metrics()
	if m.Errors[KindServer] != 4 || m.Written != 0 || len(sink.writes) != 0 {
		t.Fatalf("metrics %+v, writes %d", m, len(sink.writes))
	}
	if n := v.n.Load(); n != 8 {
		t.Fatalf("server saw %d requests, want 8 (4 clips × 2 attempts)", n)
	}
}

// TestPrioritizerShutdown: cancelling Start's ctx stops workers blocked in
// Score; Close waits for them; nothing leaks; Submit after Close drops.
func TestPrioritizerShutdown(t *testing.T) {
	checkNoLeak(t)
	sink := newRecordSink()
	started := make(chan *Clip, 8)
	p := NewPrioritizer(gateScorer(make(chan struct{}), started), sink, PrioritizerConfig{Workers: 3, QueueSize: 4})
	ctx, cancel := context.WithCancel(context.Background())
	p.Start(ctx)
	for i := range 7 {
		p.Submit(&Clip{Refs: []replay.Ref{sink.add(int32(i))}})
	}
	for range 3 {
		<-started
	}
	cancel()
	done := make(chan struct{})
	go func() { p.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not return after cancel")
	}
	m := p.Metrics()
	if m.Errors[KindCanceled] != 3 || m.Written != 0 || m.Dropped != 4 {
		t.Fatalf("metrics %+v", m)
	}
	if p.Submit(&Clip{Refs: []replay.Ref{{}}}) {
		t.Fatal("Submit after Close queued a clip")
	}
	p.Close() // idempotent
}

// TestPrioritizerCombineMax: with ApplyWhole and overlapping clips, a
// transition keeps the highest score of the clips covering it, whatever
// order they finish in.
func TestPrioritizerCombineMax(t *testing.T) {
	checkNoLeak(t)
	sink := newRecordSink()
	// a clip's score is its start step / 100
	sc := funcScorer(func(ctx context.Context, c *Clip) (Score, error) {
		return Score{Value: float64(c.Start) / 100}, nil
	})
	p := NewPrioritizer(sc, sink, PrioritizerConfig{Workers: 4, QueueSize: 256})
	p.Start(context.Background())
	defer p.Close()
	cl := NewClipper(ClipperConfig{Length: 8, Stride: 2, Apply: ApplyWhole, Tail: TailShorter})
	refs := make([]replay.Ref, 40)
	for i := range refs {
		refs[i] = sink.add(int32(i))
		for _, c := range cl.Push(0, Step{Episode: 1, Frame: frame.Frame{Image: image.NewRGBA(image.Rect(0, 0, 1, 1))}, Ref: refs[i], Done: i == len(refs)-1}) {
			p.Submit(c)
		}
	}
	waitFor(t, "scores", func() bool { return p.Metrics().Scored == cl.Stats().Clips })
	for i, r := range refs {
		// covering clips start at s ≡ 0 mod 2 with s ≤ i < s+8; the highest is the largest even s ≤ i
		want := float64(i-i%2) / 100
		if got, _ := sink.score(r); got != want {
			t.Fatalf("transition %d: %v, want max %v", i, got, want)
		}
	}
}

func TestPrioritizerThresholdAndTokens(t *testing.T) {
	checkNoLeak(t)
	sink := newRecordSink()
	sc := funcScorer(func(ctx context.Context, c *Clip) (Score, error) {
		return Score{Value: float64(c.Start) / 10, PromptTokens: 100, CompletionTokens: 1}, nil
	})
	p := NewPrioritizer(sc, sink, PrioritizerConfig{Priority: Threshold(0.5, 0.01, 1)})
	p.Start(context.Background())
	defer p.Close()
	r1, r2 := sink.add(1), sink.add(2)
	p.Submit(&Clip{Start: 3, Refs: []replay.Ref{r1}})
	p.Submit(&Clip{Start: 8, Refs: []replay.Ref{r2}})
	waitFor(t, "scores", func() bool { return p.Metrics().Written == 2 })
	if v, _ := sink.score(r1); v != 0.01 {
		t.Fatalf("score 0.3 → %v, want 0.01", v)
	}
	if v, _ := sink.score(r2); v != 1 {
		t.Fatalf("score 0.8 → %v, want 1", v)
	}
	if m := p.Metrics(); m.PromptTokens != 200 || m.CompletionTokens != 2 {
		t.Fatalf("tokens %+v", m)
	}
}

// TestPrioritizerConcurrentSubmit hammers Submit from several goroutines
// while workers write back (run under -race).
func TestPrioritizerConcurrentSubmit(t *testing.T) {
	checkNoLeak(t)
	sink := newRecordSink()
	sc := funcScorer(func(ctx context.Context, c *Clip) (Score, error) {
		if c.Start%7 == 0 {
			return Score{}, &ScoreError{Kind: KindNoScore, Err: errors.New("no")}
		}
		return Score{Value: 0.25}, nil
	})
	p := NewPrioritizer(sc, sink, PrioritizerConfig{Workers: 3, QueueSize: 8, Drop: DropOldest})
	p.Start(context.Background())
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				p.Submit(&Clip{Start: i, Refs: []replay.Ref{sink.add(int32(g*1000 + i))}})
				_ = p.Metrics()
			}
		}()
	}
	wg.Wait()
	p.Close()
	m := p.Metrics()
	if m.Submitted != 2000 || m.Scored+m.Failed+m.Dropped != 2000 {
		t.Fatalf("accounting: %+v", m)
	}
	if m.Errors[KindNoScore] != m.Failed {
		t.Fatalf("errors %+v failed %d", m.Errors, m.Failed)
	}
}

// batchSink is a recordSink that also takes whole clips at once.
type batchSink struct {
	*recordSink
	batches int
}

func (b *batchSink) SetScores(refs []replay.Ref, scores []float64, ok []bool) {
	b.mu.Lock()
	b.batches++
	b.mu.Unlock()
	for i, r := range refs {
		ok[i] = b.SetScore(r, scores[i])
	}
}

// TestPrioritizerBatchSink: a BatchScoreSink gets one call per clip, with
// the same per-ref results (stale refs rejected) as single writes.
func TestPrioritizerBatchSink(t *testing.T) {
	checkNoLeak(t)
	sink := &batchSink{recordSink: newRecordSink()}
	sc := funcScorer(func(ctx context.Context, c *Clip) (Score, error) { return Score{Value: 0.75}, nil })
	p := NewPrioritizer(sc, sink, PrioritizerConfig{Workers: 2})
	p.Start(context.Background())
	defer p.Close()
	var refs []replay.Ref
	for i := range 3 {
		var clip []replay.Ref
		for k := range 4 {
			clip = append(clip, sink.add(int32(4*i+k)))
		}
		refs = append(refs, clip...)
		if i == 1 {
			sink.add(int32(4*i + 2)) // overwrite one slot before its clip is scored
		}
		p.Submit(&Clip{Refs: clip})
	}
	waitFor(t, "batches", func() bool { m := p.Metrics(); return m.Written+m.Stale == 12 })
	m := p.Metrics()
	sink.mu.Lock()
	batches := sink.batches
	sink.mu.Unlock()
	if batches != 3 || m.Written != 11 || m.Stale != 1 {
		t.Fatalf("batches %d, metrics %+v", batches, m)
	}
	for i, r := range refs {
		v, ok := sink.score(r)
		if want := i != 6; ok != want || (ok && v != 0.75) {
			t.Fatalf("ref %d: %v %v", i, v, ok)
		}
	}
}

// TestPrioritizerScoreHistogram: Metrics sums the clips' scores and counts
// them in tenths after clamping to [0, 1] (NaN counts as 0), before the
// Priority transform.
func TestPrioritizerScoreHistogram(t *testing.T) {
	checkNoLeak(t)
	vals := []float64{0.05, 0.15, 0.5, 0.95, 1.0, 1.7, -0.2, math.NaN(), 0.49}
	var mu sync.Mutex
	next := 0
	sc := funcScorer(func(ctx context.Context, c *Clip) (Score, error) {
		mu.Lock()
		defer mu.Unlock()
		v := vals[next]
		next++
		return Score{Value: v, Method: "test"}, nil
	})
	sink := newRecordSink()
	p := NewPrioritizer(sc, sink, PrioritizerConfig{Workers: 1, QueueSize: 64, Priority: func(v float64) float64 { return 1 - v }})
	p.Start(context.Background())
	defer p.Close()
	for i := range vals {
		c := testClip()
		c.Refs = []replay.Ref{sink.add(int32(i))}
		if !p.Submit(c) {
			t.Fatal("Submit refused")
		}
	}
	waitFor(t, "all clips scored", func() bool { return p.Metrics().Scored == int64(len(vals)) })
	m := p.Metrics()
	// clamped: 0.05 0.15 0.5 0.95 1 1 0 0 0.49
	want := [10]int64{3, 1, 0, 0, 1, 1, 0, 0, 0, 3}
	if m.ScoreHist != want {
		t.Errorf("ScoreHist %v, want %v", m.ScoreHist, want)
	}
	if s := 0.05 + 0.15 + 0.5 + 0.95 + 1 + 1 + 0.49; math.Abs(m.ScoreSum-s) > 1e-12 {
		t.Errorf("ScoreSum %v, want %v", m.ScoreSum, s)
	}
}

// Inline scores a clip inside Submit, on the caller's goroutine: its score
// is written by the time Submit returns, with no goroutine started.
func TestPrioritizerInline(t *testing.T) {
	checkNoLeak(t)
	sink := newRecordSink()
	calls := 0
	sc := funcScorer(func(ctx context.Context, c *Clip) (Score, error) {
		calls++ // no lock: a second goroutine here is a race the detector reports
		return Score{Value: 0.25 * float64(len(c.Refs))}, nil
	})
	p := NewPrioritizer(sc, sink, PrioritizerConfig{Inline: true})
	early := sink.add(1)
	if p.Submit(&Clip{Refs: []replay.Ref{early}}) {
		t.Fatal("Submit before Start scored a clip")
	}
	p.Start(context.Background())
	defer p.Close()
	for i := range 3 {
		refs := []replay.Ref{sink.add(int32(10 + 2*i)), sink.add(int32(11 + 2*i))}
		if !p.Submit(&Clip{Refs: refs}) {
			t.Fatalf("clip %d not taken", i)
		}
		// written before Submit returned, without waiting
		for _, r := range refs {
			if v, ok := sink.score(r); !ok || v != 0.5 {
				t.Fatalf("clip %d ref %v: score %v, %v right after Submit; want 0.5", i, r, v, ok)
			}
		}
	}
	m := p.Metrics()
	if calls != 3 || m.Scored != 3 || m.Dropped != 1 || m.Written != 6 || m.QueueDepth != 0 {
		t.Fatalf("calls %d, metrics %+v; want 3 scored, 1 dropped, 6 written", calls, m)
	}
}

// tickSink records at which caller tick every write arrived.
type tickSink struct {
	mu   sync.Mutex
	tick int64
	log  []string // "tick:slot=score"
}

func (s *tickSink) SetScore(ref replay.Ref, score float64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, fmt.Sprintf("%d:%d=%g", s.tick, ref.Slot, score))
	return true
}

// TestPrioritizerLagDeterministic checks Lag's contract against an
// independent model of it: a clip submitted between Ticks k−1 and k is
// written inside Tick k+Lag, in submission order, and dropped only when
// QueueSize clips are outstanding — whatever the workers' timing. Scoring
// latencies here are random (0–3 ms, from the wall clock's nanoseconds),
// so two runs see different interleavings and must write the same log.
func TestPrioritizerLagDeterministic(t *testing.T) {
	checkNoLeak(t)
	const lag, queue, ticks = 4, 5, 120
	perTick := func(k int) int { return (k * 7 % 5) % 4 } // 0–3 clips a tick: the queue fills at times
	run := func() ([]string, Metrics) {
		sink := &tickSink{}
		sc := funcScorer(func(ctx context.Context, c *Clip) (Score, error) {
			time.Sleep(time.Duration(time.Now().UnixNano()%3000) * time.Microsecond)
			return Score{Value: float64(c.Refs[0].Slot%10) / 10}, nil
		})
		p := NewPrioritizer(sc, sink, PrioritizerConfig{Workers: 3, Lag: lag, QueueSize: queue})
		p.Start(context.Background())
		defer p.Close()
		slot := int32(0)
		for k := range ticks {
			for range perTick(k) {
				p.Submit(&Clip{Refs: []replay.Ref{{Slot: slot, Gen: 1}}})
				slot++
			}
			sink.mu.Lock()
			sink.tick = int64(k + 1)
			sink.mu.Unlock()
			if err := p.Tick(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		return sink.log, p.Metrics()
	}
	// the model: outstanding clips' due ticks, FIFO
	var want []string
	var out []struct {
		slot int32
		due  int
	}
	dropped, slot := 0, int32(0)
	for k := range ticks {
		for range perTick(k) {
			if len(out) >= queue {
				dropped++
			} else {
				out = append(out, struct {
					slot int32
					due  int
				}{slot, k + lag})
			}
			slot++
		}
		for len(out) > 0 && out[0].due <= k+1 {
			want = append(want, fmt.Sprintf("%d:%d=%g", k+1, out[0].slot, float64(out[0].slot%10)/10))
			out = out[1:]
		}
	}
	if dropped == 0 {
		t.Fatal("the schedule never fills the queue; the test would not cover drops")
	}
	for r := range 2 {
		got, m := run()
		if !slices.Equal(got, want) {
			t.Fatalf("run %d: writes differ from the model\n got %v\nwant %v", r, got, want)
		}
		if m.Dropped != int64(dropped) || m.QueueDepth != len(out) || m.Scored != int64(len(want)) {
			t.Fatalf("run %d: dropped %d, outstanding %d, scored %d; model %d, %d, %d",
				r, m.Dropped, m.QueueDepth, m.Scored, dropped, len(out), len(want))
		}
	}
}

// TestPrioritizerLagTickCancel: a Tick waiting on a clip that never
// finishes returns when its ctx ends, and Close counts the clip dropped.
func TestPrioritizerLagTickCancel(t *testing.T) {
	checkNoLeak(t)
	release := make(chan struct{})
	defer close(release)
	sink := newRecordSink()
	p := NewPrioritizer(gateScorer(release, nil), sink, PrioritizerConfig{Workers: 1, Lag: 1})
	if p.Submit(&Clip{Refs: []replay.Ref{sink.add(1)}}) {
		t.Fatal("Submit before Start took a clip")
	}
	p.Start(context.Background())
	p.Submit(&Clip{Refs: []replay.Ref{sink.add(2)}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := p.Tick(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Tick = %v; want the deadline", err)
	}
	if m := p.Metrics(); m.Waited <= 0 || m.QueueDepth != 1 {
		t.Fatalf("after the cancelled Tick: waited %v, outstanding %d; want > 0 and 1", m.Waited, m.QueueDepth)
	}
	p.Close()
	if m := p.Metrics(); m.Dropped != 2 || m.Written != 0 || m.QueueDepth != 0 {
		t.Fatalf("after Close: %+v; want 2 dropped (before Start, and outstanding), none written", m)
	}
}
