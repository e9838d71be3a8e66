package train

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks/grid"
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

// expertEvents replays the scripted expert on env 0's first episodes of a
// DoorKey run with base seed for steps env steps, independently of the
// training loop, and counts what the buffer holds after them with n-step
// returns: transitions stored (the last n−1 steps of an unfinished episode
// are still queued), those whose own step advanced the stage (picked up the
// key, opened the door, reached the goal) and those with a positive n-step
// return.
func expertEvents(t *testing.T, task string, seed uint64, steps, n int) (stored, events, rewarding int) {
	t.Helper()
	e, err := grid.Make(task, grid.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for k, left := 0, steps; left > 0; k++ {
		e.Reset(control.EpisodeSeed(seed, 0, k))
		p := grid.Expert(e)
		var adv []bool
		var rew []float64
		done := false
		for left > 0 && !done {
			before := e.Stage()
			r, term, trunc := e.StepIndex(p.Next())
			adv, rew = append(adv, e.Stage() > before), append(rew, r)
			done = term || trunc
			left--
		}
		m := len(adv)
		if !done {
			m = max(m-(n-1), 0)
		}
		for j := 0; j < m; j++ {
			stored++
			if adv[j] {
				events++
			}
			ret := 0.0
			for _, v := range rew[j:min(j+n, len(rew))] {
				ret += v
			}
			if ret > 0 {
				rewarding++
			}
		}
	}
	return stored, events, rewarding
}

// On expert-driven DoorKey episodes the DQN loop's diagnostics count the
// progress events by their definition: every solved episode contributes
// three semantic transitions (key picked up, door opened, goal reached),
// whatever the n-step horizon, while the reward-bearing share follows n.
func TestDQNDiagCountsExpertEvents(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 3} {
		c := tinyGridConfig(filepath.Join(t.TempDir(), "run"), "uniform", "oracle")
		c.NumEnvs, c.Demos, c.Steps, c.DQN.NStep = 1, 1000, 200, n
		c.DQN.LearningStarts, c.Buffer.LambdaWarmup = 200, 0
		c.Log.Every, c.Ckpt.Every, c.Eval = 200, 1000, rundir.EvalConfig{Every: 1000, Episodes: 1}
		if _, err := Run(context.Background(), valid(t, c), Options{}); err != nil {
			t.Fatal(err)
		}
		rows, err := rundir.ReadMetricsJSONL(filepath.Join(c.Out, "metrics.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		var row rundir.Row
		for _, r := range rows {
			if _, ok := r.Values["replay/semantic_buffer_frac"]; ok {
				row = r
			}
		}
		if row.Step == 0 {
			t.Fatal("no log row with the replay diagnostics")
		}
		stored, events, rewarding := expertEvents(t, c.Task, c.Seed, int(row.Step), n)
		if events < 6 || rewarding == 0 {
			t.Fatalf("the expert replay saw %d events and %d rewarding transitions in %d steps: too few to test", events, rewarding, row.Step)
		}
		sem := row.Values["replay/semantic_buffer_frac"] * float64(stored)
		rew := row.Values["replay/reward_buffer_frac"] * float64(stored)
		if math.Abs(sem-float64(events)) > 1e-6 || math.Abs(rew-float64(rewarding)) > 1e-6 {
			t.Errorf("n=%d: buffer holds %.3f semantic and %.3f rewarding of %d transitions, want %d and %d",
				n, sem, rew, stored, events, rewarding)
		}
	}
}
