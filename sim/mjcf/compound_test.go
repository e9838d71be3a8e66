package mjcf_test

import (
	"math"
	"testing"

	"github.com/vlmrb/vlmrb/sim"
)

// TestParentFilter: MuJoCo's parent filter skips a body welded to the
// world: a hinged link overlapping the world's geom collides with it, while
// the same link under a free body does not collide with its parent.
func TestParentFilter(t *testing.T) {
	for _, tc := range []struct {
		name, xml string
		collide   bool
	}{
		{"world parent", `<mujoco><option gravity="0 0 0"/><worldbody><geom type="box" size=".1 .1 .1"/>
			<body pos="0 0 .15"><joint axis="0 1 0"/><geom type="box" size=".1 .1 .1"/></body></worldbody></mujoco>`, true},
		{"free parent", `<mujoco><option gravity="0 0 0"/><worldbody><body pos="0 0 2"><freejoint/><geom type="box" size=".1 .1 .1"/>
			<body pos="0 0 .15"><joint axis="0 1 0"/><geom type="box" size=".1 .1 .1"/></body></body></worldbody></mujoco>`, false},
	} {
		m := parse(t, tc.xml)
		s := m.Sim.NewState()
		sim.Step(m.Sim, s)
		if got := len(s.Contacts()) > 0; got != tc.collide {
			t.Errorf("%s: contacts %v, want %v (MuJoCo filters parent-child pairs unless a body is welded to the world)", tc.name, got, tc.collide)
		}
	}
}

// TestCompoundImport: a body with three hinges is one sim body on a
// compound joint, and after it swings the body's pose is the MJCF
// kinematics (Model.Kinematics) of the reported joint coordinates.
func TestCompoundImport(t *testing.T) {
	m := parse(t, `<mujoco><option gravity="2 3 -9.81" timestep="0.002"/><worldbody>
		<body name="thigh" pos="0 0 1">
		  <joint name="x" axis="1 0 0" damping=".5" stiffness="2"/>
		  <joint name="z" axis="0 0 1" damping=".5" stiffness="2" pos="0 0 -.02"/>
		  <joint name="y" axis="0 1 .3" damping=".5" stiffness="2" range="-30 30"/>
		  <geom type="capsule" fromto="0 0 0 .05 .02 -.3" size=".05"/>
		</body></worldbody></mujoco>`)
	if n := len(m.Sim.Bodies); n != 2 {
		t.Fatalf("%d sim bodies, want 2 (world and the thigh: no chain intermediates)", n)
	}
	s := m.Sim.NewState()
	q := make([]float64, len(m.Joints))
	pos := make([]sim.Vec3, len(m.Bodies))
	rot := make([]sim.Quat, len(m.Bodies))
	for step := 1; step <= 500; step++ {
		sim.Step(m.Sim, s)
		if step%100 != 0 {
			continue
		}
		for j := range m.Joints {
			q[j] = m.JointPos(s, j)
		}
		m.Kinematics(q, pos, rot)
		p, r := m.BodyPose(s, 1)
		if d := p.Sub(pos[1]).Norm(); d > 5e-4 {
			t.Errorf("step %d: thigh at %v, kinematics of q=%.4f give %v (%.2g m)", step, p, q, pos[1], d)
		}
		dr := r.Mul(rot[1].Conj())
		if a := 2 * math.Asin(min(1, math.Sqrt(dr.X*dr.X+dr.Y*dr.Y+dr.Z*dr.Z))); a > 2e-3 {
			t.Errorf("step %d: thigh rotation off the kinematics by %.2g rad", step, a)
		}
		if lim := 30 * math.Pi / 180; math.Abs(q[2]) > lim+0.01 {
			t.Errorf("step %d: limited hinge at %.4f rad, range ±%.4f", step, q[2], lim)
		}
	}
	if math.Abs(q[0])+math.Abs(q[1])+math.Abs(q[2]) < 0.05 {
		t.Errorf("the body barely moved (q = %v): the test checks nothing", q)
	}
}

// TestCompoundSnapshot: a State copied mid-run (compound joints, rotors,
// contacts) continues bit-identically to the original.
func TestCompoundSnapshot(t *testing.T) {
	m := parse(t, `<mujoco><option timestep="0.005"/><worldbody><geom type="plane" size="0 0 1"/>
		<body pos="0 0 .5"><freejoint/><geom type="capsule" fromto="0 -.1 0 0 .1 0" size=".05"/>
		  <body pos="0 0 -.1"><joint axis="1 0 0" armature=".01" range="-30 30"/><joint axis="0 1 0" pos="0 0 .02" armature=".01"/>
		    <geom type="capsule" fromto="0 0 0 .05 0 -.25" size=".04"/></body></body></worldbody></mujoco>`)
	s := m.Sim.NewState()
	for i := 0; i < 100; i++ {
		sim.Step(m.Sim, s)
	}
	c := s.Clone(m.Sim)
	for i := 0; i < 100; i++ {
		sim.Step(m.Sim, s)
		sim.Step(m.Sim, c)
	}
	for i := range s.Bodies {
		if s.Bodies[i] != c.Bodies[i] {
			t.Fatalf("body %d: original %+v, copy %+v", i, s.Bodies[i], c.Bodies[i])
		}
	}
	if len(s.Contacts()) == 0 {
		t.Error("no contacts: the run does not exercise the floor")
	}
}
