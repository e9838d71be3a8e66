package main

import (
	"errors"
	"math"
	"testing"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/tasks"
)

func TestHandles(t *testing.T) {
	v, err := newVecEnv("reach", 2, "")
	if err != nil {
		t.Fatal(err)
	}
	h := putHandle(v)
	if _, err := getHandle[*env](h, "env"); err == nil {
		t.Fatal("a vector env handle used as an env: want an error")
	}
	if err := closeHandle(h); err != nil {
		t.Fatal(err)
	}
	if err := closeHandle(h); err != nil {
		t.Fatalf("second close: %v, want nil", err)
	}
	if _, err := getHandle[*vecEnv](h, "vector env"); err == nil {
		t.Fatal("use after close: want an error")
	}
}

func TestBadInputIsInputError(t *testing.T) {
	var in inputError
	if _, err := newEnv("reach", `{"nope":1}`); !errors.As(err, &in) {
		t.Fatalf("unknown option: %v, want an inputError", err)
	}
	if _, err := newEnv("reech", ""); !errors.As(err, &in) {
		t.Fatalf("unknown task: %v, want an inputError", err)
	}
	e, err := newEnv("reach", "")
	if err != nil {
		t.Fatal(err)
	}
	obs, info := make([]float64, tasks.ObsDim), make([]float64, len(infoKeys))
	if err := e.Reset(1, obs, info); err != nil {
		t.Fatal(err)
	}
	var r float64
	var te, tr bool
	if err := e.Step(make([]float64, 3), obs, &r, &te, &tr, info); !errors.As(err, &in) {
		t.Fatalf("3 action values: %v, want an inputError", err)
	}
	if err := e.Step([]float64{math.NaN(), 0, 0, 0}, obs, &r, &te, &tr, info); !errors.Is(err, control.ErrNonFiniteAction) {
		t.Fatalf("NaN action: %v, want ErrNonFiniteAction", err)
	}
}

// TestNextStepAutoreset checks Gymnasium 1.x's NEXT_STEP autoreset against
// a tasks.Env stepped by hand with control.EpisodeSeed's seeds.
func TestNextStepAutoreset(t *testing.T) {
	const n, limit, seed = 2, 3, 42
	v, err := newVecEnv("reach", n, `{"max_episode_steps":3}`)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	nk := len(infoKeys)
	obs, info := make([]float64, n*tasks.ObsDim), make([]float64, n*nk)
	rew, te, tr := make([]float64, n), make([]byte, n), make([]byte, n)
	act := make([]float64, n*tasks.ActDim)
	for i := range act {
		act[i] = 0.5
	}
	if err := v.Reset(seed, obs, info); err != nil {
		t.Fatal(err)
	}
	ref, err := tasks.Make("reach", tasks.Options{MaxSteps: limit})
	if err != nil {
		t.Fatal(err)
	}
	for k := range 2 {
		for s := range limit + 1 {
			if k > 0 || s > 0 {
				if err := v.Step(act, obs, rew, te, tr, info); err != nil {
					t.Fatal(err)
				}
			}
			for i := range n {
				var want []float64
				var wantR float64
				var wantTr bool
				if s == 0 {
					want, _ = ref.Reset(control.EpisodeSeed(seed, i, k))
				} else {
					ref.Reset(control.EpisodeSeed(seed, i, k))
					for range s {
						want, wantR, _, wantTr, _, _ = ref.Step(act[:tasks.ActDim])
					}
				}
				got := obs[i*tasks.ObsDim : (i+1)*tasks.ObsDim]
				for j := range want {
					if got[j] != want[j] {
						t.Fatalf("episode %d step %d env %d obs[%d] = %g, want %g", k, s, i, j, got[j], want[j])
					}
				}
				if s > 0 && (rew[i] != wantR || (tr[i] == 1) != wantTr) {
					t.Fatalf("episode %d step %d env %d: reward %g truncated %d, want %g %v", k, s, i, rew[i], tr[i], wantR, wantTr)
				}
				if s == 0 && k > 0 && (rew[i] != 0 || te[i] != 0 || tr[i] != 0) {
					t.Fatalf("autoreset step env %d: reward %g flags %d %d, want 0 and false", i, rew[i], te[i], tr[i])
				}
			}
		}
	}
}

// BenchmarkVecEnvStep is the Go side of Python's vector step (no cgo):
// env-steps/s of 8 reach envs with NEXT_STEP autoreset.
func BenchmarkVecEnvStep(b *testing.B) {
	const n = 8
	v, err := newVecEnv("reach", n, "")
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	obs, info := make([]float64, n*tasks.ObsDim), make([]float64, n*len(infoKeys))
	rew, te, tr := make([]float64, n), make([]byte, n), make([]byte, n)
	act := make([]float64, n*tasks.ActDim)
	if err := v.Reset(1, obs, info); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		act[i%len(act)] = float64(i%7)/3 - 1
		if err := v.Step(act, obs, rew, te, tr, info); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "env-steps/s")
}
