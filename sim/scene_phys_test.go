package sim_test

import (
	"testing"

	"github.com/vlmrb/vlmrb/sim"
)

// TestScenarios runs the three benchmark scenarios and checks their
// outcomes against mjbench.c's: the cube rests (idle), is pushed to
// x ≈ 0.2 (push) and is lifted to z ≈ 0.194 (lift).
func TestScenarios(t *testing.T) {
	t.Parallel()
	tt, err := newTabletop(0.1, 0.002)
	if err != nil {
		t.Fatal(err)
	}
	s := tt.m.NewState()
	for _, sc := range []struct {
		name string
		sc   scenario
		want sim.Vec3
		tol  float64
	}{
		{"idle", idle, sim.V3(0, 0, 0.025), 0.001},
		{"push", push, sim.V3(0.2, 0, 0.025), 0.02},
		{"lift", lift, sim.V3(0, 0, 0.194), 0.01},
	} {
		tt.episode(s, sc.sc)
		got := s.Bodies[tt.cube].Pos
		t.Logf("%s: cube at %.4f, hand at %.4f, closure %.3f, warnings %+v", sc.name, got, s.Bodies[tt.g.Hand].Pos, tt.g.Closure(tt.m, s), s.Warnings)
		if d := got.Sub(sc.want).Norm(); d > sc.tol {
			t.Errorf("%s: cube ends at %.4f, want %.4f ± %g", sc.name, got, sc.want, sc.tol)
		}
		if s.Warnings.Total() != 0 {
			t.Errorf("%s: warnings %+v", sc.name, s.Warnings)
		}
	}
}
