package tasks

import (
	"math"
	"testing"
)

// TestArmObjectObsNames: each name labels the value it names, read from
// the env's own accessors after a few expert steps (hand, cube, goal,
// fingers, the scaled offsets, the grip command), and there is one name
// per value of the spec.
func TestArmObjectObsNames(t *testing.T) {
	e := loadArmObject(t, "pick", "dense")
	names := ArmObjectObsNames()
	if len(names) != e.Spec().ObsDim || len(ArmObjectActNames()) != e.Spec().ActDim {
		t.Fatalf("%d obs names for %d values, %d action names for %d", len(names), e.Spec().ObsDim, len(ArmObjectActNames()), e.Spec().ActDim)
	}
	obs, _ := e.Reset(3)
	pol, act := e.Expert(), make([]float64, 4)
	for range 30 {
		pol.Act(obs, act)
		var err error
		if obs, _, _, _, _, err = e.Step(act); err != nil {
			t.Fatal(err)
		}
	}
	at := map[string]float64{}
	for i, n := range names {
		at[n] = obs[i]
	}
	h, c, g := e.SitePos(), e.CubePos(), e.Goal()
	q := e.Data().Qpos[e.cubeQ+3 : e.cubeQ+7]
	want := map[string]float64{"hand_x": h.X, "hand_y": h.Y, "hand_z": h.Z, "finger_opening": e.FingerOpening(),
		"cube_x": c.X, "cube_y": c.Y, "cube_z": c.Z, "cube_qw": q[0], "cube_qx": q[1], "cube_qy": q[2], "cube_qz": q[3],
		"goal_x": g.X, "goal_y": g.Y, "goal_z": g.Z,
		"cube_minus_hand_x": (c.X - h.X) * armObsGain, "cube_minus_hand_z": (c.Z - h.Z) * armObsGain,
		"goal_minus_cube_y": (g.Y - c.Y) * armObsGain, "grip_command": act[3]}
	for n, w := range want {
		if math.Abs(at[n]-w) > 1e-12 {
			t.Errorf("%s = %g, want %g", n, at[n], w)
		}
	}
}
