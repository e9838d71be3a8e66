package vlmprio_test

// Tests against the real tasks (test-only imports: the vlmprio package
// itself never imports tasks or render).

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/vlmprio"
)

// episodePolicy returns env's scripted expert (reset for a new episode) or,
// when expert is false, a uniform-random policy seeded by seed.
func episodePolicy(env *tasks.Env, expert bool, seed uint64) control.Policy {
	if !expert {
		rng := rand.New(rand.NewPCG(seed, 99))
		return control.PolicyFunc(func(_, dst []float64) {
			for i := range dst {
				dst[i] = 2*rng.Float64() - 1
			}
		})
	}
	pol := env.Expert()
	if r, ok := pol.(control.Resetter); ok {
		r.Reset()
	}
	return pol
}

// taskClips runs one episode of the named task with the scripted expert or
// a uniform-random policy through a Clipper and returns the clips, carrying
// the task's privileged progress. Frames carry no image: the oracle does
// not look at pixels.
func taskClips(t *testing.T, name string, expert bool, steps int, seed uint64) []*vlmprio.Clip {
	t.Helper()
	env, err := tasks.Make(name, tasks.Options{MaxSteps: steps})
	if err != nil {
		t.Fatal(err)
	}
	defer env.Close()
	obs, _ := env.Reset(seed)
	pol := episodePolicy(env, expert, seed)
	cl := vlmprio.NewClipper(vlmprio.ClipperConfig{Length: 32, Stride: 8, Tail: vlmprio.TailSkip,
		Task: env.Description(), Family: env.Family()})
	act := make([]float64, tasks.ActDim)
	var clips []*vlmprio.Clip
	for i := 0; ; i++ {
		pol.Act(obs, act)
		var term, trunc bool
		obs, _, term, trunc, _, err = env.Step(act)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := env.Progress()
		clips = append(clips, cl.Push(0, vlmprio.Step{Episode: int64(seed), Ref: replay.Ref{Slot: int32(i)},
			Progress: p, HasProgress: true, Done: term || trunc})...)
		if term || trunc {
			break
		}
	}
	return clips
}

// TestOracleRanksTaskExpertAboveRandom: on the real tasks, the oracle
// scores clips of the scripted expert above clips of a random policy in
// ≥ 90% of pairs.
func TestOracleRanksTaskExpertAboveRandom(t *testing.T) {
	t.Parallel()
	seeds := 3
	if testing.Short() || raceEnabled {
		seeds = 1
	}
	for _, name := range []string{"reach", "push", "pick-place"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var expert, random []*vlmprio.Clip
			for s := range seeds {
				expert = append(expert, taskClips(t, name, true, 160, uint64(s+1))...)
				random = append(random, taskClips(t, name, false, 160, uint64(s+101))...)
			}
			score := func(cs []*vlmprio.Clip) []float64 {
				out := make([]float64, len(cs))
				for i, c := range cs {
					sc, err := vlmprio.OracleScorer{}.Score(context.Background(), c)
					if err != nil {
						t.Fatal(err)
					}
					out[i] = sc.Value
				}
				return out
			}
			e, r := score(expert), score(random)
			frac := vlmprio.PairWinFraction(e, r)
			t.Logf("%s: oracle ranks expert above random in %.3f of %d pairs", name, frac, len(e)*len(r))
			if frac < 0.9 {
				t.Fatalf("%s: %.3f of pairs, want ≥ 0.90", name, frac)
			}
		})
	}
}
