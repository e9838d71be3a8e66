package mjcf_test

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

// TestKinematicsByHand: a hinge about z through the world origin (anchor
// 1 m behind the body's frame) turned by 90° carries the body from (1, 0,
// 0) to (0, 1, 0), turned by 90°; a slide along the turned x then moves it
// by its coordinate along the world's y; the hinge's ref is subtracted.
func TestKinematicsByHand(t *testing.T) {
	a := parse(t, `<mujoco><compiler angle="radian"/><option><flag contact="disable"/></option><worldbody>
<body pos="1 0 0"><joint name="h" axis="0 0 1" pos="-1 0 0" ref="0.25"/><joint name="s" type="slide" axis="1 0 0"/><geom size=".1"/></body>
</worldbody></mujoco>`)
	pos, rot := make([]sim.Vec3, 2), make([]sim.Quat, 2)
	if err := a.Kinematics([]float64{0.25 + math.Pi/2, 0.3}, pos, rot); err != nil {
		t.Fatal(err)
	}
	if want := sim.V3(0, 1.3, 0); !near(pos[1], want, 1e-12) {
		t.Errorf("body at %v, want %v", pos[1], want)
	}
	if x := rot[1].Rotate(sim.V3(1, 0, 0)); !near(x, sim.V3(0, 1, 0), 1e-12) {
		t.Errorf("body x axis %v, want (0, 1, 0)", x)
	}
	if err := a.Kinematics([]float64{0}, pos, rot); err == nil {
		t.Error("a qpos of the wrong length was accepted")
	}
}

// TestKinematicsIsForward: on the feature models with every joint type
// (hinge, slide, ball, free), in states the engine steps to from random
// coordinates, Kinematics puts every body where articulated.Forward does.
func TestKinematicsIsForward(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, name := range []string{"hinge_chain", "slide_hinge", "ball", "free", "combined", "sites"} {
		a, err := mjcf.Load(filepath.Join("testdata", "articulated", name+".xml"), mjcf.Options{})
		if err != nil {
			t.Fatal(err)
		}
		m := a.Model
		d := articulated.NewData(m)
		pos, rot := make([]sim.Vec3, len(m.Bodies)), make([]sim.Quat, len(m.Bodies))
		seen := map[articulated.JointType]bool{}
		for trial := range 4 {
			articulated.Reset(m, d)
			for j := range m.Joints {
				seen[m.Joints[j].Type] = true
				if typ := m.Joints[j].Type; typ == articulated.Hinge || typ == articulated.Slide {
					d.Qpos[m.QposAdr(j)] += rng.Float64() - 0.5
				}
			}
			for range 50 * trial {
				articulated.Step(m, d)
			}
			articulated.Forward(m, d)
			if err := a.Kinematics(d.Qpos, pos, rot); err != nil {
				t.Fatal(err)
			}
			for i := 1; i < len(m.Bodies); i++ {
				want := sim.V3(d.Xpos[i][0], d.Xpos[i][1], d.Xpos[i][2])
				wq := sim.Quat{W: d.Xquat[i][0], X: d.Xquat[i][1], Y: d.Xquat[i][2], Z: d.Xquat[i][3]}
				dot := math.Abs(rot[i].W*wq.W + rot[i].X*wq.X + rot[i].Y*wq.Y + rot[i].Z*wq.Z)
				if !near(pos[i], want, 1e-9) || 1-dot > 1e-9 {
					t.Errorf("%s, trial %d, body %q: Kinematics %v %v, Forward %v %v", name, trial, m.Bodies[i].Name, pos[i], rot[i], want, wq)
				}
			}
		}
		t.Logf("%s: joint types %v", name, seen)
	}
}
