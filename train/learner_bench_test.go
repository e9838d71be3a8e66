package train

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/nn"
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/sac"
	"github.com/vlmrb/vlmrb/vlmprio"
)

// instantScorer scores every clip 0.7 at once, so the benchmark measures
// the write-back path, not a scorer.
type instantScorer struct{}

func (instantScorer) Score(context.Context, *vlmprio.Clip) (vlmprio.Score, error) {
	return vlmprio.Score{Value: 0.7}, nil
}

// BenchmarkLearnerScoringOverhead measures the learner — VLM-RB sample of
// 256 plus one SAC update (obs 39, act 4, 256-256) — with a Prioritizer
// writing 1,000 scores/s back into the same buffer (125 clips/s × 8 refs)
// against the same learner with no scoring. Phases alternate in rounds so
// drifts in machine load cancel; %learner is the ratio of updates/s.
func BenchmarkLearnerScoringOverhead(b *testing.B) {
	if err := nn.SetBackend("auto"); err != nil {
		b.Fatal(err)
	}
	const capacity, obsDim, actDim = 100_000, 39, 4
	buf, err := replay.NewBuffer(replay.Config{Capacity: capacity, ObsDim: obsDim, ActDim: actDim})
	if err != nil {
		b.Fatal(err)
	}
	smp, err := replay.NewVLMRB(buf, replay.DefaultVLMRBConfig())
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	obs, next, act := make([]float64, obsDim), make([]float64, obsDim), make([]float64, actDim)
	refs := make([]replay.Ref, capacity)
	for i := range refs {
		for j := range obs {
			obs[j], next[j] = rng.NormFloat64(), rng.NormFloat64()
		}
		for j := range act {
			act[j] = 2*rng.Float64() - 1
		}
		refs[i] = buf.Add(replay.Transition{Obs: obs, Action: act, Reward: rng.Float64(), NextObs: next, Step: int32(i % 500)})
	}
	cfg := sac.DefaultConfig()
	cfg.Seed = 1
	agent, err := sac.New(cfg, obsDim, actDim)
	if err != nil {
		b.Fatal(err)
	}
	defer agent.Close()
	batch := replay.NewBatch(cfg.BatchSize, obsDim, actDim)
	learn := func(d time.Duration) (updates int, wall float64) {
		t0 := time.Now()
		for time.Since(t0) < d {
			smp.Sample(batch, rng)
			if _, err := agent.Update(batch); err != nil {
				b.Fatal(err)
			}
			updates++
		}
		return updates, time.Since(t0).Seconds()
	}
	learn(200 * time.Millisecond) // warm-up

	const round = time.Second
	var offN, onN, written int
	var offT, onT float64
	scored := func() {
		ctx, cancel := context.WithCancel(context.Background())
		p := vlmprio.NewPrioritizer(instantScorer{}, smp, vlmprio.PrioritizerConfig{Workers: 1})
		p.Start(ctx)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			tk := time.NewTicker(8 * time.Millisecond)
			defer tk.Stop()
			for k := 0; ; k = (k + 8) % (capacity - 8) {
				select {
				case <-ctx.Done():
					return
				case <-tk.C:
					p.Submit(&vlmprio.Clip{Refs: refs[k : k+8]})
				}
			}
		}()
		n, t := learn(round)
		onN, onT = onN+n, onT+t
		cancel()
		wg.Wait()
		p.Close()
		written += int(p.Metrics().Written)
	}
	rounds := 0
	for b.Loop() {
		if rounds%2 == 0 {
			n, t := learn(round)
			offN, offT = offN+n, offT+t
			scored()
		} else {
			scored()
			n, t := learn(round)
			offN, offT = offN+n, offT+t
		}
		rounds++
	}
	b.ReportMetric(float64(offN)/offT, "updates/s-off")
	b.ReportMetric(float64(onN)/onT, "updates/s-on")
	b.ReportMetric(100*(float64(onN)/onT)/(float64(offN)/offT), "%learner")
	b.ReportMetric(float64(written)/onT, "scores/s")
}
