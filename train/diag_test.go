package train

import (
	"math"
	"testing"

	"github.com/vlmrb/vlmrb/replay"
)

// The batch diagnostics count by definition: a transition is semantic when
// its stage advances, its progress rises by ≥ semanticGain, or it ends in
// success; buffer shares follow overwrites; the first k draws of a batch
// are the prioritized ones.
func TestReplayDiagCounts(t *testing.T) {
	d := newReplayDiag(4, 1)
	info := func(p, st, succ float64) map[string]float64 {
		return map[string]float64{"progress": p, "stage": st, "success": succ}
	}
	ref := func(s int) replay.Ref { return replay.Ref{Slot: int32(s)} }
	d.add(ref(0), 0, 0, info(0.10, 0, 0), false)  // first step of an episode: no gain to compare
	d.add(ref(1), 0, 0, info(0.101, 0, 0), false) // +0.001: not semantic
	d.add(ref(2), 0, 0, info(0.20, 1, 0), false)  // stage 0 → 1: semantic
	d.add(ref(3), 0, 1, info(0.20, 1, 1), true)   // success, reward 1: semantic
	want := []bool{false, false, true, true}
	for s, w := range want {
		if d.semantic[s] != w {
			t.Errorf("slot %d semantic %v, want %v", s, d.semantic[s], w)
		}
	}
	if d.nSem != 2 || d.nRew != 1 {
		t.Fatalf("buffer counts sem %d rew %d, want 2 and 1", d.nSem, d.nRew)
	}
	// a new episode overwrites slot 3 (the success) with a plain step
	d.add(ref(3), 0, 0, info(0.9, 2, 0), false) // episode start: not semantic despite the jump
	if d.nSem != 1 || d.nRew != 0 {
		t.Fatalf("after overwrite sem %d rew %d, want 1 and 0", d.nSem, d.nRew)
	}

	// slot 0 now holds a rewarded step (no progress gain: not semantic)
	d.add(ref(0), 0, 1, info(0.9, 2, 0), false)

	b := replay.NewBatch(4, 1, 1)
	for j, s := range []int{2, 2, 0, 1} { // two prioritized draws of the semantic slot 2
		b.Refs[j] = ref(s)
	}
	// the batch's rewards are not what counts (a learned reward may have
	// replaced them): the stored reward of the slot is
	b.Rewards[1], b.Rewards[2] = 1, 0
	d.batch(b, 2, 4)
	v := map[string]float64{}
	d.metrics(v, 4)
	check := func(k string, want float64) {
		if math.Abs(v[k]-want) > 1e-12 {
			t.Errorf("%s = %v, want %v", k, v[k], want)
		}
	}
	check("replay/semantic_buffer_frac", 0.25)
	check("replay/reward_buffer_frac", 0.25)
	check("replay/semantic_hit_rate", 0.5)
	check("replay/semantic_hit_rate_prioritized", 1)
	check("replay/prioritized_frac", 0.5)
	check("replay/reward_batch_frac", 0.25)
	// slot 2 was written 3rd of 6 adds over a 4-slot window: age (6−3)/4
	check("replay/prioritized_age_frac", 0.75)
	// the window restarts
	v2 := map[string]float64{}
	d.metrics(v2, 4)
	if _, ok := v2["replay/semantic_hit_rate"]; ok {
		t.Error("batch counters not reset after a log row")
	}
}
