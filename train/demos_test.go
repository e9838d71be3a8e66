package train

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/vlmrb/vlmrb/rundir"
)

// demoOutcome runs c and reports, per episode id, whether the episode
// reached success and the largest |action| it stored.
func demoOutcome(t *testing.T, c rundir.Config) (succ map[int64]bool, amax map[int64]float64) {
	t.Helper()
	succ, amax = map[int64]bool{}, map[int64]float64{}
	hook := HookFuncs{Step: func(e StepEvent) error {
		ep := e.Transition.Episode
		succ[ep] = succ[ep] || e.Info["success"] != 0
		for _, a := range e.Transition.Action {
			amax[ep] = max(amax[ep], a, -a)
		}
		return nil
	}}
	if _, err := Run(context.Background(), valid(t, c), Options{Hooks: []Hook{hook}}); err != nil {
		t.Fatal(err)
	}
	return succ, amax
}

// The first `demos` episodes follow the task's scripted expert, which
// solves the task; without demos the same seed's first episodes (random
// actions on a sparse reward) do not.
func TestDemosSAC(t *testing.T) {
	t.Parallel()
	for _, demos := range []int{0, 2} {
		c := tinyConfig(filepath.Join(t.TempDir(), "run"), "uniform")
		c.Reward, c.Demos = "sparse", demos
		c.Steps, c.MaxEpisodeLen, c.SAC.LearningStarts = 600, 150, 300
		succ, amax := demoOutcome(t, c)
		for ep := int64(0); ep < 4; ep++ {
			if want := ep < int64(demos); succ[ep] != want {
				t.Errorf("demos %d: episode %d success %v, want %v", demos, ep, succ[ep], want)
			}
			if amax[ep] > 1 {
				t.Errorf("demos %d: episode %d stored action %v outside the agent's [−1, 1]", demos, ep, amax[ep])
			}
		}
	}
}

func TestDemosDQN(t *testing.T) {
	t.Parallel()
	for _, demos := range []int{0, 2} {
		c := tinyGridConfig(filepath.Join(t.TempDir(), "run"), "uniform", "oracle")
		c.Demos, c.Steps = demos, 2*250 // two 5×5 episodes per env at most (max_steps 250)
		succ, _ := demoOutcome(t, c)
		for ep := int64(0); ep < 2; ep++ {
			if want := ep < int64(demos); succ[ep] != want {
				t.Errorf("demos %d: episode %d success %v, want %v", demos, ep, succ[ep], want)
			}
		}
	}
}

func TestDemosNegativeIsConfigError(t *testing.T) {
	c := tinyConfig("out", "uniform")
	c.Demos = -1
	if err := checkConfig(&c); err == nil {
		t.Fatal("demos −1 validated")
	}
}
