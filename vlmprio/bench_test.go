package vlmprio

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/internal/cputime"
	"github.com/vlmrb/vlmrb/replay"
)

// benchClip is a 32-frame expert pick-place clip at w×h.
func benchClip(b *testing.B, w, h int) *Clip {
	c := NewClipper(ClipperConfig{Length: 32, Stride: 8, Tail: TailSkip})
	rng := rand.New(rand.NewPCG(1, 1))
	states := episode(true, 32, rng)
	var out []*Clip
	for i, s := range states {
		out = append(out, c.Push(0, Step{Frame: frameOf(drawScene(s, w, h, rng)), Ref: replay.Ref{Slot: int32(i)}})...)
	}
	if len(out) != 1 {
		b.Fatalf("%d clips", len(out))
	}
	return out[0]
}

// BenchmarkEncodeClip measures turning a 32-frame clip into JPEG data URLs.
func BenchmarkEncodeClip(b *testing.B) {
	for _, bc := range []struct {
		name string
		w, h int
		enc  Encoding
	}{
		{"sheet8x160x120/src128x96", 128, 96, DefaultEncoding()},
		{"sheet8x160x120/src320x240", 320, 240, DefaultEncoding()},
		{"parts8x224x224/src320x240", 320, 240, Encoding{Layout: ImageParts, Frames: 8, Width: 224, Height: 224}},
		{"sheet32x112x84/src320x240", 320, 240, Encoding{Frames: 32, Width: 112, Height: 84}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c := benchClip(b, bc.w, bc.h)
			var bytes int
			c0 := cputime.Process()
			for b.Loop() {
				urls, err := EncodeClip(c, bc.enc)
				if err != nil {
					b.Fatal(err)
				}
				bytes = 0
				for _, u := range urls {
					bytes += len(u)
				}
			}
			sec := b.Elapsed().Seconds() / float64(b.N)
			if cpu := (cputime.Process() - c0).Seconds(); cpu > 0 {
				b.ReportMetric(cpu/float64(b.N)*1e3, "cpu-ms/clip")
			}
			b.ReportMetric(sec*1e3, "ms/clip")
			b.ReportMetric(1/sec, "clips/s")
			b.ReportMetric(float64(bytes), "payload-bytes")
		})
	}
}

// BenchmarkPixelScorer measures the offline pixel scorer on 32-frame clips.
func BenchmarkPixelScorer(b *testing.B) {
	for _, bc := range []struct {
		name string
		w, h int
	}{{"128x96", 128, 96}, {"320x240", 320, 240}} {
		b.Run(bc.name, func(b *testing.B) {
			c := benchClip(b, bc.w, bc.h)
			s := NewPixelScorer(testSpec)
			ctx := context.Background()
			c0 := cputime.Process()
			for b.Loop() {
				if _, err := s.Score(ctx, c); err != nil {
					b.Fatal(err)
				}
			}
			if cpu := (cputime.Process() - c0).Seconds(); cpu > 0 {
				b.ReportMetric(float64(b.N)/cpu, "clips/cpu-s")
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "clips/s")
			b.ReportMetric(float64(len(SubsampleIndices(32, 16)))*float64(b.N)/b.Elapsed().Seconds(), "frames/s") // 16 of 32 frames examined (default Frames)
		})
	}
}

// BenchmarkScoringOverhead measures learner sampling throughput from
// replay's VLM-RB sampler (batch 256, 100k slots, λ = 0.5) without and with
// a Prioritizer writing 1,000 scores/s back into it (125 clips/s × 8 refs,
// the default stride). Rounds alternate off/on so machine load affects
// both alike. The "instant" scorer isolates the prioritizer's own cost
// (queue, goroutines, lock contention on the sampler); "pixel" also runs
// the pixel scorer on 32-frame 128×96 clips on the same CPU, as train does
// without a VLM server.
func BenchmarkScoringOverhead(b *testing.B) {
	for _, name := range []string{"instant", "pixel"} {
		b.Run(name, func(b *testing.B) {
			const capacity, batch, obsDim, actDim = 100_000, 256, 39, 4
			buf, err := replay.NewBuffer(replay.Config{Capacity: capacity, ObsDim: obsDim, ActDim: actDim})
			if err != nil {
				b.Fatal(err)
			}
			cfg := replay.DefaultVLMRBConfig()
			smp, err := replay.NewVLMRB(buf, cfg)
			if err != nil {
				b.Fatal(err)
			}
			obs, act := make([]float64, obsDim), make([]float64, actDim)
			refs := make([]replay.Ref, capacity)
			for i := range refs {
				refs[i] = buf.Add(replay.Transition{Obs: obs, Action: act, NextObs: obs, Step: int32(i % 500)})
			}
			var scorer Scorer = funcScorer(func(ctx context.Context, c *Clip) (Score, error) { return Score{Value: 0.7}, nil })
			var frames *Clip
			if name == "pixel" {
				scorer = NewPixelScorer(testSpec)
				frames = benchClip(b, 128, 96)
			}
			dst := replay.NewBatch(batch, obsDim, actDim)
			rng := rand.New(rand.NewPCG(3, 4))
			const round = 300 * time.Millisecond
			// sampleFor samples for d and adds the samples, wall time and
			// process CPU time to acc.
			type tally struct{ n, wall, cpu float64 }
			sampleFor := func(d time.Duration, acc *tally) {
				n := 0
				c0, t0 := cputime.Process(), time.Now()
				for time.Since(t0) < d {
					smp.Sample(dst, rng)
					n += batch
				}
				acc.n += float64(n)
				acc.wall += time.Since(t0).Seconds()
				acc.cpu += (cputime.Process() - c0).Seconds()
			}
			var off, on tally
			var written int64
			var rounds int
			withScoring := func() {
				ctx, cancel := context.WithCancel(context.Background())
				p := NewPrioritizer(scorer, smp, PrioritizerConfig{Workers: 1, QueueSize: 64})
				p.Start(ctx)
				var wg sync.WaitGroup
				wg.Add(1)
				go func() { // 125 clips/s × 8 refs = 1,000 scores/s
					defer wg.Done()
					tk := time.NewTicker(8 * time.Millisecond)
					defer tk.Stop()
					next := 0
					for {
						select {
						case <-ctx.Done():
							return
						case <-tk.C:
							c := &Clip{Refs: refs[next : next+8]}
							if frames != nil {
								c.Frames = frames.Frames
							}
							next = (next + 8) % (capacity - 8)
							p.Submit(c)
						}
					}
				}()
				sampleFor(round, &on)
				cancel()
				wg.Wait()
				p.Close()
				written += p.Metrics().Written
			}
			for b.Loop() {
				// alternate which phase goes first so drifts in machine load cancel
				if rounds%2 == 0 {
					sampleFor(round, &off)
					withScoring()
				} else {
					withScoring()
					sampleFor(round, &off)
				}
				rounds++
			}
			b.ReportMetric(off.n/off.wall, "samples/s-off")
			b.ReportMetric(on.n/on.wall, "samples/s-on")
			b.ReportMetric(100*(on.n/on.wall)/(off.n/off.wall), "%wall")
			if off.cpu > 0 && on.cpu > 0 {
				// per process CPU second: scoring work is charged to the learner
				b.ReportMetric(off.n/off.cpu, "samples/cpu-s-off")
				b.ReportMetric(on.n/on.cpu, "samples/cpu-s-on")
				b.ReportMetric(100*(on.n/on.cpu)/(off.n/off.cpu), "%cpu")
			}
			b.ReportMetric(float64(written)/on.wall, "scores/s")
		})
	}
}

// BenchmarkPrioritizerWriteBack measures the CPU cost of one score's trip
// through the Prioritizer (Submit → queue → worker → combine → SetScore on
// replay's VLM-RB sampler) with an instant scorer, 8 refs per clip. The
// learner overhead of writing back R scores/s is then about
// R × cpu-µs/score of CPU time, independent of machine load.
func BenchmarkPrioritizerWriteBack(b *testing.B) {
	const capacity, refsPerClip = 100_000, 8
	buf, err := replay.NewBuffer(replay.Config{Capacity: capacity, ObsDim: 39, ActDim: 4})
	if err != nil {
		b.Fatal(err)
	}
	smp, err := replay.NewVLMRB(buf, replay.DefaultVLMRBConfig())
	if err != nil {
		b.Fatal(err)
	}
	obs, act := make([]float64, 39), make([]float64, 4)
	refs := make([]replay.Ref, capacity)
	for i := range refs {
		refs[i] = buf.Add(replay.Transition{Obs: obs, Action: act, NextObs: obs})
	}
	sc := funcScorer(func(ctx context.Context, c *Clip) (Score, error) { return Score{Value: 0.7}, nil })
	p := NewPrioritizer(sc, smp, PrioritizerConfig{Workers: 1, QueueSize: 1024})
	p.Start(context.Background())
	defer p.Close()
	next := 0
	c0 := cputime.Process()
	for b.Loop() {
		for !p.Submit(&Clip{Refs: refs[next : next+refsPerClip]}) {
			// queue full: let the worker catch up (Submit counted a drop)
			time.Sleep(10 * time.Microsecond)
		}
		next = (next + refsPerClip) % (capacity - refsPerClip)
	}
	for p.Metrics().QueueDepth > 0 {
		time.Sleep(100 * time.Microsecond)
	}
	time.Sleep(time.Millisecond) // the last clip in a worker
	cpu := (cputime.Process() - c0).Seconds()
	m := p.Metrics()
	if m.Written > 0 && cpu > 0 {
		b.ReportMetric(cpu/float64(m.Written)*1e6, "cpu-µs/score")
		b.ReportMetric(100*1000*cpu/float64(m.Written), "%core@1000scores/s")
	}
}
