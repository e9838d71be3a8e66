package tasks_test

import (
	"errors"
	"math"
	"testing"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/tasks"
)

// TestArmReachRobotSideMatchesStep: a second env that never simulates,
// driven as a robot's task side (Reset for the goal, Command for the
// targets, ObserveAt with the joints and velocities the simulating env
// reached), returns the same targets, observation and success as Step on
// every step of an expert episode, in both action modes. That is the
// contract a robot run relies on: the policy sees what it saw in
// training whenever the robot's joints are where the simulation's were.
func TestArmReachRobotSideMatchesStep(t *testing.T) {
	for _, ctl := range []string{"ee", "joint"} {
		t.Run(ctl, func(t *testing.T) {
			sim := armReach(t, tasks.ArmReachOptions{Control: ctl})
			rob := armReach(t, tasks.ArmReachOptions{Control: ctl})
			obs, _ := sim.Reset(7)
			robs, _ := rob.Reset(7)
			if d := maxAbsDiff(obs, robs); d != 0 {
				t.Fatalf("Reset observations differ by %g", d)
			}
			n := len(rob.JointNames())
			if q0 := rob.StartJoints(); len(q0) != n || maxAbsDiff(q0, obs[:n]) != 0 {
				t.Fatalf("StartJoints %v, observation's joints %v", q0, obs[:n])
			}
			if rob.ControlDt() <= 0 {
				t.Fatalf("ControlDt %g", rob.ControlDt())
			}
			exp := sim.Expert()
			act := make([]float64, sim.Spec().ActDim)
			successes := 0
			for step := 0; step < 100; step++ {
				exp.Act(obs, act)
				tgt, err := rob.Command(act)
				if err != nil {
					t.Fatal(err)
				}
				next, _, _, trunc, info, err := sim.Step(act)
				if err != nil {
					t.Fatal(err)
				}
				if d := maxAbsDiff(tgt, sim.Targets()); d != 0 {
					t.Fatalf("step %d: Command's targets differ from Step's by %g", step, d)
				}
				// the robot reports the joints the simulation reached
				// (observation layout: q, 0.1 qvel, ...)
				q, qd := next[:n], make([]float64, n)
				for i := range qd {
					qd[i] = 10 * next[n+i]
				}
				robs, rinfo, err := rob.ObserveAt(q, qd)
				if err != nil {
					t.Fatal(err)
				}
				if d := maxAbsDiff(robs, next); d > 1e-12 {
					t.Fatalf("step %d: ObserveAt's observation differs from Step's by %g", step, d)
				}
				if rinfo.Success() != info.Success() || math.Abs(rinfo.Get("obj_to_target")-info.Get("obj_to_target")) > 1e-12 {
					t.Fatalf("step %d: success %v d %g, Step's %v d %g", step, rinfo.Success(), rinfo.Get("obj_to_target"), info.Success(), info.Get("obj_to_target"))
				}
				if info.Success() {
					successes++
				}
				obs = next
				if trunc {
					break
				}
			}
			if successes == 0 {
				t.Fatal("the expert never reached the goal; the episode checked nothing about success")
			}
		})
	}
}

// TestArmReachRobotSideBadInput: wrong lengths and non-finite values are
// errors that name the problem, and change nothing.
func TestArmReachRobotSideBadInput(t *testing.T) {
	e := armReach(t, tasks.ArmReachOptions{Control: "ee"})
	e.Reset(1)
	before := e.Targets()
	if _, err := e.Command([]float64{0, 0}); err == nil {
		t.Fatal("a 2-value action for a 3-value task was accepted")
	}
	if _, err := e.Command([]float64{math.NaN(), 0, 0}); !errors.Is(err, control.ErrNonFiniteAction) {
		t.Fatalf("NaN action: %v", err)
	}
	if d := maxAbsDiff(before, e.Targets()); d != 0 {
		t.Fatalf("a refused action moved the targets by %g", d)
	}
	n := len(e.JointNames())
	if _, _, err := e.ObserveAt(make([]float64, n-1), make([]float64, n)); err == nil {
		t.Fatal("too few joints accepted")
	}
	q := e.StartJoints()
	q[0] = math.Inf(1)
	if _, _, err := e.ObserveAt(q, make([]float64, n)); err == nil {
		t.Fatal("an infinite joint accepted")
	}
}

func maxAbsDiff(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	d := 0.0
	for i := range a {
		d = math.Max(d, math.Abs(a[i]-b[i]))
	}
	return d
}
