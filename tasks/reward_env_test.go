package tasks

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vlmrb/vlmrb/control"
)

// TestReachRewardFormula checks reach's dense reward against MetaWorld's
// formula 10·tolerance(‖tcp − goal‖, (0, 0.05), margin ‖hand_init − goal‖)
// written out: 10 / (1 + 9·((d − 0.05)/margin)²) outside the goal radius.
func TestReachRewardFormula(t *testing.T) {
	t.Parallel()
	e, err := Make("reach", Options{})
	if err != nil {
		t.Fatal(err)
	}
	e.Reset(3)
	margin := dist(e.Meta().HandInit, e.goal)
	rng := rand.New(rand.NewPCG(3, 3))
	a := make([]float64, ActDim)
	for range 40 {
		e.spec.SampleAction(a, rng.Float64)
		_, r, _, _, _, err := e.Step(a)
		if err != nil {
			t.Fatal(err)
		}
		d := dist(e.TCP(), e.goal)
		want := 10.0
		if d > 0.05 {
			x := (d - 0.05) / margin
			want = 10 / (1 + 9*x*x)
		}
		if math.Abs(r-want) > 1e-12 {
			t.Fatalf("reward %g at d = %g, formula gives %g", r, d, want)
		}
	}
}

// TestHiddenGoal checks Options.HideGoal zeroes the goal in the observation
// and the experts still succeed (they fall back to the Env's goal).
func TestHiddenGoal(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"reach", "pick-place"} {
		e, err := Make(name, Options{HideGoal: true, TerminateOnSuccess: true})
		if err != nil {
			t.Fatal(err)
		}
		obs, _ := e.Reset(4)
		if obs[36] != 0 || obs[37] != 0 || obs[38] != 0 {
			t.Fatalf("%s: hidden goal visible: %v", name, obs[36:39])
		}
		if ok, _, _ := runEpisode(t, e, e.Expert(), 4); !ok {
			t.Errorf("%s: expert failed with the goal hidden", name)
		}
	}
}

// TestDenseRewardFavoursExpert checks the shaping points the right way: the
// expert's mean dense reward per step beats a random policy's on every task.
func TestDenseRewardFavoursExpert(t *testing.T) {
	t.Parallel()
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e, err := Make(name, Options{MaxSteps: 150})
			if err != nil {
				t.Fatal(err)
			}
			mean := func(r []float64) float64 {
				s := 0.0
				for _, x := range r {
					s += x
				}
				return s / float64(len(r))
			}
			_, _, re := runEpisode(t, e, e.Expert(), 21)
			_, _, rr := runEpisode(t, e, randomPolicy{rand.New(rand.NewPCG(21, 1))}, 21)
			if mean(re) <= mean(rr) {
				t.Errorf("expert mean reward %.3f <= random %.3f", mean(re), mean(rr))
			}
		})
	}
}

// TestSafetyOption checks Options.Safety caps the hand's target speed: with
// a 0.2 m/s limit, full-speed actions (0.8 m/s) move the target only
// 2.5 mm per 12.5 ms step and each step counts an intervention.
func TestSafetyOption(t *testing.T) {
	t.Parallel()
	e, err := Make("reach", Options{Safety: &control.Limits{MaxSpeed: 0.2}})
	if err != nil {
		t.Fatal(err)
	}
	e.Reset(1)
	start := e.ctrl.Target()
	var info control.Info
	for range 4 {
		_, _, _, _, info, err = e.Step([]float64{1, 0, 0, 0})
		if err != nil {
			t.Fatal(err)
		}
	}
	if d := e.ctrl.Target().Sub(start).Norm(); math.Abs(d-4*0.2*0.0125) > 1e-9 {
		t.Fatalf("target moved %g m in 4 steps, want %g", d, 4*0.2*0.0125)
	}
	if got := info.Get("safety_interventions"); got != 4 {
		t.Fatalf("safety_interventions = %g, want 4", got)
	}
}

// TestFreezeLayout checks FreezeLayout gives every episode the layout of
// LayoutSeed whatever the Reset seed, and that layouts differ otherwise.
func TestFreezeLayout(t *testing.T) {
	t.Parallel()
	frozen, _ := Make("push", Options{FreezeLayout: true, LayoutSeed: 9})
	free, _ := Make("push", Options{})
	a, _ := frozen.Reset(1)
	b, _ := frozen.Reset(2)
	c, _ := free.Reset(9)
	d, _ := free.Reset(10)
	if firstDiff(a, b) >= 0 || firstDiff(a, c) >= 0 {
		t.Fatalf("frozen layouts differ: %v %v %v", a[4:7], b[4:7], c[4:7])
	}
	if firstDiff(c, d) < 0 {
		t.Fatal("seeds 9 and 10 gave the same layout")
	}
}
