package train

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// countingHook checks what a library user's hook sees: every stored
// transition in order per env, every update once, evaluations and
// checkpoints with the step they happened at.
type countingHook struct {
	t                      *testing.T
	steps, updates         int64
	evals, finals, ckpts   int
	lastUpdate             int64
	perEnv                 map[int]int32 // next expected episode step per env
	batchSize              int
	ckptDirs               []string
	metricsSeen, prioBound bool
}

func (h *countingHook) OnStep(e StepEvent) error {
	h.steps++
	if e.Transition.Env != int32(e.Env) {
		h.t.Errorf("step event of env %d carries env %d", e.Env, e.Transition.Env)
	}
	if want := h.perEnv[e.Env]; e.Transition.Step != want {
		h.t.Errorf("env %d: transition at episode step %d, want %d (a transition was missed or repeated)", e.Env, e.Transition.Step, want)
	}
	h.perEnv[e.Env] = e.Transition.Step + 1
	if e.Done {
		h.perEnv[e.Env] = 0
	}
	return nil
}

func (h *countingHook) AfterUpdate(e UpdateEvent) error {
	h.updates++
	if e.Update != h.lastUpdate+1 {
		h.t.Errorf("update %d after %d", e.Update, h.lastUpdate)
	}
	h.lastUpdate = e.Update
	if len(e.Batch.Refs) != h.batchSize {
		h.t.Errorf("batch of %d, want %d", len(e.Batch.Refs), h.batchSize)
	}
	if e.Metrics != nil {
		n := 0
		e.Metrics.Range(func(string, float64) { n++ })
		h.metricsSeen = h.metricsSeen || n > 0
	}
	if e.Prioritized < 0 || e.Prioritized > len(e.Batch.Refs) || e.BufferLen <= 0 {
		h.t.Errorf("prioritized %d of %d, buffer %d", e.Prioritized, len(e.Batch.Refs), e.BufferLen)
	}
	return nil
}

func (h *countingHook) OnEval(e EvalEvent) error {
	h.evals++
	if e.Final {
		h.finals++
	}
	if e.Result == nil {
		h.t.Error("eval event without a result")
	}
	return nil
}

func (h *countingHook) OnCheckpoint(e CheckpointEvent) error {
	h.ckpts++
	h.ckptDirs = append(h.ckptDirs, e.Dir)
	return nil
}

func TestHooksSeeEveryTransitionAndUpdate(t *testing.T) {
	t.Parallel()
	for _, replay := range []string{"uniform", "vlmrb"} {
		t.Run(replay, func(t *testing.T) {
			t.Parallel()
			c := tinyConfig(filepath.Join(t.TempDir(), "run"), replay)
			c.Eval.Every = 100
			h := &countingHook{t: t, perEnv: map[int]int32{}, batchSize: c.SAC.BatchSize}
			res, err := Run(context.Background(), valid(t, c), Options{Hooks: []Hook{h}})
			if err != nil {
				t.Fatal(err)
			}
			// SAC stores one transition per env step
			if h.steps != res.Step || h.updates != res.Updates || res.Updates == 0 {
				t.Fatalf("hook saw %d transitions and %d updates; the run took %d steps and %d updates", h.steps, h.updates, res.Step, res.Updates)
			}
			if !h.metricsSeen {
				t.Error("update events carried no metrics")
			}
			// evaluations at 100 and at the end (200); checkpoints at 100 and the end
			if h.evals != 2 || h.finals != 1 || h.ckpts != 2 {
				t.Errorf("evals %d (final %d), checkpoints %d; want 2 (1), 2", h.evals, h.finals, h.ckpts)
			}
			if len(h.ckptDirs) == 0 || h.ckptDirs[len(h.ckptDirs)-1] != res.Checkpoint {
				t.Errorf("last checkpoint event %v, result %s", h.ckptDirs, res.Checkpoint)
			}
		})
	}
}

func TestHooksDQNNStep(t *testing.T) {
	t.Parallel()
	c := tinyGridConfig(filepath.Join(t.TempDir(), "run"), "uniform", "pixel")
	c.Eval.GIF = false
	h := &countingHook{t: t, perEnv: map[int]int32{}, batchSize: c.DQN.BatchSize}
	res, err := Run(context.Background(), valid(t, c), Options{Hooks: []Hook{h}})
	if err != nil {
		t.Fatal(err)
	}
	// n-step returns hold back at most n−1 transitions per env
	held := int64(c.NumEnvs * (c.DQN.NStep - 1))
	if h.steps > res.Step || h.steps < res.Step-held || h.updates != res.Updates || res.Updates == 0 {
		t.Fatalf("hook saw %d transitions and %d updates; the run took %d steps (≤ %d held back) and %d updates",
			h.steps, h.updates, res.Step, held, res.Updates)
	}
}

// A hook's error stops the run with that error and no final checkpoint.
func TestHookErrorStopsRun(t *testing.T) {
	t.Parallel()
	c := tinyConfig(filepath.Join(t.TempDir(), "run"), "uniform")
	stop := errors.New("enough")
	n := 0
	res, err := Run(context.Background(), valid(t, c), Options{Hooks: []Hook{HookFuncs{Update: func(UpdateEvent) error {
		if n++; n == 5 {
			return stop
		}
		return nil
	}}}})
	if !errors.Is(err, stop) {
		t.Fatalf("err %v, want the hook's", err)
	}
	if res.Updates != 5 || res.FinalEval != nil {
		t.Fatalf("result %+v: the run went on after the hook's error", res)
	}
}
