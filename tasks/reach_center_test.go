package tasks

import (
	"math"
	"testing"
)

// reach-center's dense reward is 10/(1 + 9(d/d0)²) (dm_control's long-tail
// tolerance with zero-width bounds and margin d0 = ‖hand_init − goal‖),
// its success is reach's (d ≤ 5 cm), and reach keeps MetaWorld's flat top.
func TestReachCenterRewardPeaksAtGoal(t *testing.T) {
	for _, name := range []string{"reach", "reach-center"} {
		e, err := Make(name, Options{})
		if err != nil {
			t.Fatal(err)
		}
		e.Reset(3)
		d0 := dist(e.meta.HandInit, e.Goal())
		expert := e.task.expert(e)
		obs, _ := e.Reset(3)
		act := make([]float64, e.Spec().ActDim)
		inside := 0
		for k := 0; k < 120; k++ {
			expert.Act(obs, act)
			next, r, _, _, info, err := e.Step(act)
			if err != nil {
				t.Fatal(err)
			}
			obs = next
			d := info.Get("obj_to_target")
			if (d <= 0.05) != info.Success() {
				t.Fatalf("%s: success %v at d = %.3f (want d ≤ 0.05)", name, info.Success(), d)
			}
			want := 10 / (1 + 9*(d/d0)*(d/d0))
			if name == "reach" {
				want = 10
				if d > 0.05 {
					x := 3 * (d - 0.05) / d0
					want = 10 / (1 + x*x)
				}
			}
			if math.Abs(r-want) > 1e-9 {
				t.Fatalf("%s step %d: reward %.6f at d = %.4f (d0 %.3f), want %.6f", name, k, r, d, d0, want)
			}
			if d <= 0.05 {
				inside++
			}
		}
		if inside == 0 {
			t.Fatalf("%s: the expert never reached the goal", name)
		}
	}
}
