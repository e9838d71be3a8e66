package train

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/vlmprio"
)

// Options are the run-time settings of Run that are not part of the
// experiment (they never enter config.yaml).
type Options struct {
	// Resume continues the run in Config.Out from its newest complete
	// checkpoint instead of starting a new one.
	Resume bool
	// Stdout receives the console table and the progress bar (nil: none).
	Stdout io.Writer
	// Stderr receives warnings (nil: none).
	Stderr io.Writer
	// Quiet suppresses the console table and the progress bar.
	Quiet bool
	// VLMRequired stops the run at the first failure of a VLM server
	// (scorer, rater or embedder). Without it training continues and the
	// failures are warned once per kind and reported (outage.go).
	VLMRequired bool
	// Hooks observe every stored transition, gradient update, evaluation
	// and checkpoint of the run (hooks.go), after the run's own hooks.
	Hooks []Hook
	// Frames, when set, gives env i's camera: VLM-RB's scorer takes its
	// frames from it instead of rendering the simulation (a real camera
	// from package hw, a recording, any frame.Source). Next is called once
	// per env step, before the action; the run closes the sources.
	Frames func(env int) (frame.Source, error)
	// Scorer, when set, replaces the configured clip scorer of replay
	// vlmrb (Config.Scorer still decides whether frames are rendered:
	// none for oracle). It must be safe for concurrent use.
	Scorer vlmprio.Scorer
}

// Result is what a run did. Run returns it (with the counters reached so
// far) even when it stops with an error or an interrupt.
type Result struct {
	RunDir      string
	Step        int64 // env steps taken (all envs)
	Updates     int64 // gradient updates
	Episodes    int64 // finished training episodes
	Elapsed     time.Duration
	EnvSPS      float64 // env steps per second of this process (time/fps)
	UpdatesPS   float64 // gradient updates per second of this process
	FinalEval   *rundir.EvalResult
	Checkpoint  string   // newest checkpoint directory
	Curves      []string // learning-curve PNGs
	GIFs        []string // evaluation GIFs
	Interrupted bool
	// Verdict, when set, says what the final evaluation means for this
	// configuration (rundir.MainJobVerdict: the main job's study numbers).
	Verdict string
	// Failed reports a run that stopped on an error (set by the caller
	// that received it; Summary then does not say "finished").
	Failed bool
	// VLMFailures lists, per VLM user, the failed calls by kind
	// ("VLM-RB scorer: 57 failed (client 57)"); empty when none failed.
	VLMFailures []string
	// AlreadyFinished reports a resume of a run whose newest checkpoint
	// had reached the step budget: nothing was run or written.
	AlreadyFinished bool
	Resumed         bool
	ResumedFrom     int64 // step of the checkpoint resumed from
}

// Summary is the human-readable end-of-run report: where everything is.
func (r *Result) Summary() string {
	var b strings.Builder
	if r.AlreadyFinished {
		_, _ = fmt.Fprintf(&b, "\nrun %s already finished at env step %d (%d updates, %d episodes); nothing was run or written. To train it further: robot-train train --resume %s --steps N (N > %d)\n",
			r.RunDir, r.Step, r.Updates, r.Episodes, r.RunDir, r.Step)
		if r.Checkpoint != "" {
			_, _ = fmt.Fprintf(&b, "  checkpoint:  %s\n", r.Checkpoint)
		}
		return b.String()
	}
	state := "finished"
	if r.Interrupted {
		state = "stopped early"
	}
	if r.Failed {
		state = "stopped by an error"
	}
	_, _ = fmt.Fprintf(&b, "\nrun %s: %s at env step %d (%d updates, %d episodes) in %s\n",
		r.RunDir, state, r.Step, r.Updates, r.Episodes, r.Elapsed.Round(time.Second))
	if r.Resumed {
		_, _ = fmt.Fprintf(&b, "  resumed from the checkpoint at step %d\n", r.ResumedFrom)
	}
	_, _ = fmt.Fprintf(&b, "  throughput: %.0f env steps/s, %.1f updates/s\n", r.EnvSPS, r.UpdatesPS)
	for _, f := range r.VLMFailures {
		_, _ = fmt.Fprintf(&b, "  VLM outage:  %s\n", f)
	}
	if e := r.FinalEval; e != nil {
		_, _ = fmt.Fprintf(&b, "  final eval: success rate %.2f, mean return %.1f ± %.1f over %d episodes\n",
			e.SuccessRate, e.MeanReturn, e.StdReturn, e.Episodes)
		if s := e.Stochastic; s != nil {
			_, _ = fmt.Fprintf(&b, "  final eval, stochastic policy: success rate %.2f over the same %d episodes\n", s.SuccessRate, s.Episodes)
		}
		if r.Verdict != "" {
			_, _ = fmt.Fprintf(&b, "  %s\n", r.Verdict)
		}
	}
	_, _ = fmt.Fprintf(&b, "  metrics:     %s/metrics.csv, %s/metrics.jsonl, TensorBoard: tensorboard --logdir %s/tb\n", r.RunDir, r.RunDir, r.RunDir)
	if len(r.Curves) > 0 {
		_, _ = fmt.Fprintf(&b, "  curves:      %s\n", strings.Join(r.Curves, ", "))
	}
	if len(r.GIFs) > 0 {
		_, _ = fmt.Fprintf(&b, "  eval GIFs:   %s\n", strings.Join(r.GIFs, ", "))
	}
	if r.Checkpoint != "" {
		_, _ = fmt.Fprintf(&b, "  checkpoint:  %s (continue: robot-train train --resume %s --steps N)\n", r.Checkpoint, r.RunDir)
	}
	return b.String()
}
