package train

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/rundir"
)

// EvalRun of a finished run with the defaults reproduces the run's final
// evaluation exactly: same checkpoint, episodes, seed, episode length.
func TestEvalRunReproducesFinalEval(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cfg  func(out string) rundir.Config
	}{
		{"sac", func(out string) rundir.Config {
			c := tinyConfig(out, "uniform")
			c.Eval = rundir.EvalConfig{Every: 100, Episodes: 3}
			c.Reward = "dense"
			return c
		}},
		{"dqn", func(out string) rundir.Config {
			c := tinyGridConfig(out, "uniform", "pixel")
			c.Eval.GIF = false
			c.DQN.EvalEps = 0.2 // the ε stream must be the training evaluation's too
			return c
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "run")
			res, err := Run(context.Background(), valid(t, tc.cfg(out)), Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := rundir.EvalRun(context.Background(), out, rundir.EvalRunOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Step != res.Step || got.Checkpoint != res.Checkpoint {
				t.Fatalf("evaluated %s (step %d), the run ended at %s (step %d)", got.Checkpoint, got.Step, res.Checkpoint, res.Step)
			}
			if !reflect.DeepEqual(got.EvalResult, res.FinalEval) {
				t.Fatalf("eval %+v\nfinal eval of the run %+v", got.EvalResult, res.FinalEval)
			}
			// the checkpoint directory itself names the same checkpoint
			again, err := rundir.EvalRun(context.Background(), res.Checkpoint, rundir.EvalRunOptions{})
			if err != nil || again.Step != res.Step || !reflect.DeepEqual(again.EvalResult, res.FinalEval) {
				t.Fatalf("eval of %s: %+v, %v", res.Checkpoint, again, err)
			}
		})
	}
}

// The best checkpoint holds the agent of the best evaluation, and a step
// that has no checkpoint is a clear error naming the ones there are.
func TestEvalRunBestAndStep(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run")
	c := tinyConfig(out, "uniform")
	c.Reward = "dense"
	c.Eval = rundir.EvalConfig{Every: 50, Episodes: 2}
	c.Ckpt.Keep = 10
	var evals []EvalEvent
	if _, err := Run(context.Background(), valid(t, c), Options{Hooks: []Hook{HookFuncs{Eval: func(e EvalEvent) error {
		evals = append(evals, e)
		return nil
	}}}}); err != nil {
		t.Fatal(err)
	}
	want := evals[0]
	for _, e := range evals[1:] {
		if e.Result.SuccessRate > want.Result.SuccessRate ||
			e.Result.SuccessRate == want.Result.SuccessRate && e.Result.MeanReturn > want.Result.MeanReturn {
			want = e
		}
	}
	best, err := rundir.EvalRun(context.Background(), filepath.Join(out, "checkpoints", rundir.BestName), rundir.EvalRunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if best.Step != want.Step || !reflect.DeepEqual(best.EvalResult, want.Result) {
		t.Fatalf("best: step %d %+v, want step %d %+v", best.Step, best.EvalResult, want.Step, want.Result)
	}
	mid, err := rundir.EvalRun(context.Background(), out, rundir.EvalRunOptions{Step: 100})
	if err != nil || mid.Step != 100 {
		t.Fatalf("step 100: %+v, %v", mid, err)
	}
	_, err = rundir.EvalRun(context.Background(), out, rundir.EvalRunOptions{Step: 150})
	var ce *rundir.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "100") || !strings.Contains(err.Error(), "200") {
		t.Fatalf("missing step: %v", err)
	}
}
