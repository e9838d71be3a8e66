package articulated

import (
	"math"
	"strings"
	"testing"
)

// mocapPair is a mocap body (1) and a free 1 kg box (2) welded to it, both
// at the origin, without gravity.
func mocapPair(t *testing.T, keys ...Key) *Model {
	t.Helper()
	id := [4]float64{1, 0, 0, 0}
	bodies := []Body{
		{Name: "world", Parent: -1},
		{Name: "mocap", Parent: 0, Quat: id, IQuat: id, Mocap: true},
		{Name: "box", Parent: 0, Quat: id, IQuat: id, Mass: 1, Inertia: [3]float64{0.01, 0.01, 0.01}},
	}
	joints := []Joint{{Name: "free", Type: Free, Body: 2}}
	m, err := New(Option{Timestep: 0.002}, bodies, joints, nil, keys, Equality{Type: EqWeld, Obj1: 1, Obj2: 2})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A body welded to a mocap body follows the frame the caller sets: after
// 2 s (100 weld time constants) it sits at the mocap pose, and the mocap
// body's own frame is the one set (its quaternion normalized).
func TestMocapWeldFollowsTheCallersFrame(t *testing.T) {
	m := mocapPair(t)
	if len(m.MocapBodies) != 1 || m.MocapBodies[0] != 1 {
		t.Fatalf("mocap bodies %v, want [1]", m.MocapBodies)
	}
	d := NewData(m)
	target := [3]float64{0.05, -0.03, 0.02}
	half := 0.15 // rotation of 0.3 rad about z
	d.MocapPos[0] = target
	d.MocapQuat[0] = [4]float64{2 * math.Cos(half), 0, 0, 2 * math.Sin(half)} // not unit: kinematics normalizes
	for range 1000 {
		Step(m, d)
	}
	if a := testing.AllocsPerRun(100, func() { Step(m, d) }); a != 0 {
		t.Errorf("Step allocates %.1f times per call", a)
	}
	for k := range 3 {
		if math.Abs(d.Xpos[1][k]-target[k]) > 1e-15 {
			t.Errorf("mocap xpos %v, set %v", d.Xpos[1], target)
		}
		if math.Abs(d.Qpos[k]-target[k]) > 1e-6 {
			t.Errorf("welded box at %v, mocap at %v", d.Qpos[:3], target)
		}
	}
	want := [4]float64{math.Cos(half), 0, 0, math.Sin(half)}
	for k := range 4 {
		if math.Abs(d.Xquat[1][k]-want[k]) > 1e-15 || math.Abs(d.Qpos[3+k]-want[k]) > 1e-6 {
			t.Errorf("mocap quat %v and box quat %v, want %v", d.Xquat[1], d.Qpos[3:7], want)
		}
	}
	// Reset puts the mocap body back at its model frame (mj_resetData)
	Reset(m, d)
	if d.MocapPos[0] != ([3]float64{}) || d.MocapQuat[0] != ([4]float64{1, 0, 0, 0}) {
		t.Errorf("after Reset the mocap frame is %v %v, want the model's", d.MocapPos[0], d.MocapQuat[0])
	}
}

// A keyframe's mpos and mquat set the mocap frame; the quaternion is
// normalized as MuJoCo's compiler does.
func TestMocapKeyframe(t *testing.T) {
	m := mocapPair(t, Key{Name: "k", Mpos: []float64{0.1, 0.2, 0.3}, Mquat: []float64{0, 0, 0, 2}})
	d := NewData(m)
	if err := ResetKey(m, d, 0); err != nil {
		t.Fatal(err)
	}
	if d.MocapPos[0] != ([3]float64{0.1, 0.2, 0.3}) || d.MocapQuat[0] != ([4]float64{0, 0, 0, 1}) {
		t.Errorf("key's mocap frame %v %v", d.MocapPos[0], d.MocapQuat[0])
	}
}

// Mocap bodies that MuJoCo refuses are refused with the body named.
func TestMocapRefusals(t *testing.T) {
	id := [4]float64{1, 0, 0, 0}
	world := Body{Name: "world", Parent: -1}
	cases := []struct {
		name   string
		bodies []Body
		joints []Joint
		keys   []Key
		want   string
	}{
		{"joint", []Body{world, {Name: "m", Parent: 0, Quat: id, IQuat: id, Mass: 1, Inertia: [3]float64{1, 1, 1}, Mocap: true}},
			[]Joint{{Name: "h", Type: Hinge, Body: 1, Axis: [3]float64{0, 0, 1}}}, nil, "cannot have joints"},
		{"parent", []Body{world, {Name: "a", Parent: 0, Quat: id, IQuat: id}, {Name: "m", Parent: 1, Quat: id, IQuat: id, Mocap: true}},
			nil, nil, "child of the world"},
		{"key", []Body{world, {Name: "m", Parent: 0, Quat: id, IQuat: id, Mocap: true}},
			nil, []Key{{Name: "k", Mpos: []float64{1, 2}}}, "mpos and mquat need 3 and 4"},
		{"zero quat", []Body{world, {Name: "m", Parent: 0, Quat: id, IQuat: id, Mocap: true}},
			nil, []Key{{Name: "k", Mquat: []float64{0, 0, 0, 0}}}, "quaternion 0 is zero"},
	}
	for _, c := range cases {
		_, err := New(Option{Timestep: 0.002}, c.bodies, c.joints, nil, c.keys)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.want)
		}
	}
}
