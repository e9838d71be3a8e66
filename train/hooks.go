package train

import (
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/vlmprio"
)

// Hook observes a training run at four points of its loop, in the manner
// of Stable-Baselines3's callbacks. The run calls its own hooks first
// (batch diagnostics, VLM-RB clip scoring, the learned reward, priority
// feedback) and then Options.Hooks in order. A hook returning an error
// stops the run with that error, after the usual checkpoint-free cleanup
// (a failed run never overwrites its last good checkpoint).
//
// Hooks run on the training goroutine: they must not retain the slices of
// an event after returning (the run reuses them), and a slow hook slows
// training. Embed NopHook to implement only some methods.
type Hook interface {
	// OnStep is called for every transition added to the replay buffer,
	// right after it is added.
	OnStep(StepEvent) error
	// AfterUpdate is called after every gradient update.
	AfterUpdate(UpdateEvent) error
	// OnEval is called after every evaluation (including the final one).
	OnEval(EvalEvent) error
	// OnCheckpoint is called after every checkpoint is written.
	OnCheckpoint(CheckpointEvent) error
}

// NopHook implements Hook with methods that do nothing.
type NopHook struct{}

// OnStep implements Hook.
func (NopHook) OnStep(StepEvent) error { return nil }

// AfterUpdate implements Hook.
func (NopHook) AfterUpdate(UpdateEvent) error { return nil }

// OnEval implements Hook.
func (NopHook) OnEval(EvalEvent) error { return nil }

// OnCheckpoint implements Hook.
func (NopHook) OnCheckpoint(CheckpointEvent) error { return nil }

// StepEvent is one transition as stored in the replay buffer.
type StepEvent struct {
	// Step is the run's env-step counter before the vector step that
	// produced the transition (all envs counted).
	Step int64
	// Env is the index of the training environment.
	Env int
	// Ref is where the buffer stored the transition.
	Ref replay.Ref
	// Transition is what was stored. For DQN's n-step returns, Reward is
	// the discounted n-step return and NextObs the state n steps on.
	Transition replay.Transition
	// Info is the task's info of the state after the transition
	// ("success", "progress", "stage", … ; nil where the task has none).
	Info map[string]float64
	// Done reports the end of the episode (terminated or truncated).
	Done bool
	// Demo marks a demonstration: an episode of the scripted expert
	// (demos N) or a recorded one (demos_path).
	Demo bool
	// Recorded marks a transition read from a dataset (demos_path) before
	// the first env step: no live env or camera frame stands behind it,
	// and Info holds only "success".
	Recorded bool
	// Frame is o_t, the observation the transition's action was taken in,
	// as the run's VLM-RB scoring captured it before the step (or the
	// recording's frame and progress for a Recorded transition); it
	// travelled with the transition, through n-step returns too. nil when
	// the run scores no clips or the scorer cannot score the recording.
	// Valid only during the call.
	Frame *vlmprio.Observed
}

// UpdateEvent is one gradient update.
type UpdateEvent struct {
	Step    int64 // env steps so far
	Update  int64 // updates so far, this one included
	Batch   *replay.Batch
	Metrics UpdateMetrics
	// Prioritized is how many of the batch's first draws came from a
	// prioritized branch (VLM-RB puts them first; 0 for other samplers).
	Prioritized int
	// BufferLen is the number of transitions in the buffer.
	BufferLen int
}

// UpdateMetrics is a learner's latest update metrics (sac.Metrics, dqn.Metrics).
type UpdateMetrics interface {
	Range(func(name string, value float64))
}

// EvalEvent is one evaluation of the deterministic policy.
type EvalEvent struct {
	Step   int64
	Result *rundir.EvalResult
	Final  bool // the evaluation at the end of the run
}

// CheckpointEvent is one checkpoint written.
type CheckpointEvent struct {
	Step int64
	Dir  string
}

// HookFuncs adapts functions to a Hook; nil fields do nothing.
type HookFuncs struct {
	Step       func(StepEvent) error
	Update     func(UpdateEvent) error
	Eval       func(EvalEvent) error
	Checkpoint func(CheckpointEvent) error
}

// OnStep implements Hook.
func (h HookFuncs) OnStep(e StepEvent) error {
	if h.Step == nil {
		return nil
	}
	return h.Step(e)
}

// AfterUpdate implements Hook.
func (h HookFuncs) AfterUpdate(e UpdateEvent) error {
	if h.Update == nil {
		return nil
	}
	return h.Update(e)
}

// OnEval implements Hook.
func (h HookFuncs) OnEval(e EvalEvent) error {
	if h.Eval == nil {
		return nil
	}
	return h.Eval(e)
}

// OnCheckpoint implements Hook.
func (h HookFuncs) OnCheckpoint(e CheckpointEvent) error {
	if h.Checkpoint == nil {
		return nil
	}
	return h.Checkpoint(e)
}

// hookList calls every hook in order and stops at the first error.
type hookList []Hook

func (l hookList) step(e StepEvent) error {
	for _, h := range l {
		if err := h.OnStep(e); err != nil {
			return err
		}
	}
	return nil
}

func (l hookList) update(e UpdateEvent) error {
	for _, h := range l {
		if err := h.AfterUpdate(e); err != nil {
			return err
		}
	}
	return nil
}

func (l hookList) eval(e EvalEvent) error {
	for _, h := range l {
		if err := h.OnEval(e); err != nil {
			return err
		}
	}
	return nil
}

func (l hookList) checkpoint(e CheckpointEvent) error {
	for _, h := range l {
		if err := h.OnCheckpoint(e); err != nil {
			return err
		}
	}
	return nil
}
