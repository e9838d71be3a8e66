package rundir

import (
	"fmt"
	"reflect"
)

// mainJobTarget is issue 49's bar for the main job (`make run`): a median
// deterministic success of at least 0.9 on 50 evaluation episodes.
const mainJobTarget = 0.9

// mainJobStudy is what studies/main-job measured for DefaultConfig (10
// seeds, pre-registered; bench/RESULTS.md, section "main-job"): final
// success on 50 evaluation episodes at the default step budget.
var mainJobStudy = struct {
	Seeds                   int
	DetMedian, DetLo, DetHi float64 // deterministic policy: median and range over seeds
	StochMedian             float64 // stochastic policy, same episodes
	CPUSecondsMax           float64 // the slowest run's process CPU time
}{Seeds: 10, DetMedian: 0.98, DetLo: 0.88, DetHi: 1, StochMedian: 1, CPUSecondsMax: 176}

// IsMainJob reports whether c trains what DefaultConfig trains: the same
// task, reward, replay, learner, budget and episodes. Seed, output,
// evaluation, logging, checkpoint and BLAS settings and sac.threads (which
// leave the learning bit-identical) may differ.
func IsMainJob(c Config) bool {
	d := DefaultConfig()
	if c.ResolvedReplay() != d.ResolvedReplay() {
		return false
	}
	c.Replay, c.Seed, c.Out, c.Eval, c.Log, c.Ckpt, c.BLAS = d.Replay, d.Seed, d.Out, d.Eval, d.Log, d.Ckpt, d.BLAS
	c.SAC.Threads = d.SAC.Threads
	c.SAC.Gamma, d.SAC.Gamma = c.ResolvedGamma(), d.ResolvedGamma() // 0 is the task's default
	if c.Replay != "vlmrb" {                                        // the scorer and its frames are unused without VLM-RB
		c.Scorer, c.VLM = d.Scorer, d.VLM
	}
	return reflect.DeepEqual(c, d)
}

// MainJobVerdict is the line a main-job run's summary ends with: what
// studies/main-job measured for this configuration against issue 49's
// target, and how this run compares. It is empty for any other
// configuration, a run without a final evaluation, or before the study.
func MainJobVerdict(c Config, final *EvalResult, runDir string) string {
	s := mainJobStudy
	if s.Seeds == 0 || final == nil || !IsMainJob(c) {
		return ""
	}
	line := fmt.Sprintf("main job: studies/main-job (this configuration, %d seeds) ended at median %.2f deterministic success (seeds %.2f–%.2f) and %.2f stochastic on 50 evaluation episodes, at most %.0f CPU-s a run",
		s.Seeds, s.DetMedian, s.DetLo, s.DetHi, s.StochMedian, s.CPUSecondsMax)
	if s.DetMedian >= mainJobTarget {
		line += fmt.Sprintf("; the target is ≥ %.1f", mainJobTarget)
	} else {
		line += fmt.Sprintf(", below the target of %.1f", mainJobTarget)
	}
	if got := final.SuccessRate; got < mainJobTarget {
		line += fmt.Sprintf(". This run's %.2f is below it; train longer with --resume %s --steps N", got, runDir)
	}
	return line
}
