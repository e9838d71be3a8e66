package vlmprio_test

import (
	"context"
	"fmt"
	"time"

	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/vlmprio"
)

// Example wires the VLM-RB layer the way train does: every env step is
// stored in replay and pushed to the Clipper; completed clips go to the
// Prioritizer, whose workers score them and write back into replay's VLM-RB
// sampler (a ScoreSink). The oracle scorer stands in for a VLM here.
func Example() {
	buf, _ := replay.NewBuffer(replay.Config{Capacity: 1000, ObsDim: 3, ActDim: 1})
	cfg := replay.DefaultVLMRBConfig()
	cfg.Mapping = replay.MapRaw // keep the raw score as p^VLM
	smp, _ := replay.NewVLMRB(buf, cfg)

	clipper := vlmprio.NewClipper(vlmprio.ClipperConfig{Length: 32, Stride: 8, Tail: vlmprio.TailPad,
		Task: "reach the red target", Family: "reach"})
	prio := vlmprio.NewPrioritizer(vlmprio.OracleScorer{}, smp, vlmprio.PrioritizerConfig{Workers: 2})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	prio.Start(ctx)
	defer prio.Close()

	obs, act := make([]float64, 3), make([]float64, 1)
	var refs []replay.Ref
	const T = 40 // one 40-step episode of one env
	for t := range T {
		ref := buf.Add(replay.Transition{Obs: obs, Action: act, NextObs: obs, Env: 0, Episode: 1, Step: int32(t)})
		refs = append(refs, ref)
		progress := float64(t) / T // privileged progress; a camera frame would go in Frame
		for _, c := range clipper.Push(0, vlmprio.Step{Episode: 1, Ref: ref, Progress: progress, HasProgress: true, Done: t == T-1}) {
			prio.Submit(c) // never blocks; drops (counted) when the queue is full
		}
	}
	for prio.Metrics().Scored < clipper.Stats().Clips {
		time.Sleep(time.Millisecond)
	}
	m := prio.Metrics()
	first, _, _ := smp.Score(refs[0])
	fmt.Printf("clips %d, tail clips %d, refs written %d, dropped %d\n", clipper.Stats().Clips, clipper.Stats().TailClips, m.Written, m.Dropped)
	// clip [0,32): 0.5·max progress (31/40) + 0.5·min(1, gain/0.1) = 0.8875,
	// stored by replay as float32 (0.88749999…)
	fmt.Printf("score of transition 0: %.3f\n", first)
	// Full clips start at steps 0 and 8; tail clips (padded) at 16, 24, 32.

	// Output:
	// clips 5, tail clips 3, refs written 40, dropped 0
	// score of transition 0: 0.887
}
