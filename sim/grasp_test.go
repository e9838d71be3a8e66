package sim_test

import (
	"math"
	"testing"

	"github.com/vlmrb/vlmrb/sim"
)

// moveMocap drives the gripper's mocap linearly from its current target to
// dst over the given time (s), stepping the simulation.
func moveMocap(tt *tabletop, s *sim.State, dst sim.Vec3, seconds float64) {
	src, _ := s.Mocap(tt.g.Mocap)
	n := int(math.Round(seconds / tt.m.Opt.Timestep))
	for i := 1; i <= n; i++ {
		f := float64(i) / float64(n)
		s.SetMocap(tt.g.Mocap, src.Add(dst.Sub(src).Scale(f)), sim.Quat{})
		sim.Step(tt.m, s)
	}
}

// cubeInHand returns the cube's position in the hand frame (m).
func cubeInHand(tt *tabletop, s *sim.State) sim.Vec3 {
	h := s.Bodies[tt.g.Hand]
	return h.Rot.InvRotate(s.Bodies[tt.cube].Pos.Sub(h.Pos))
}

// TestGraspLift is issue test 7: the hand descends, the fingers close on a
// 5 cm cube (0.1 kg and 0.75 kg), lift 20 cm and hold 5 s: the cube slips
// less than 5 mm relative to the hand; after opening, the cube falls.
func TestGraspLift(t *testing.T) {
	t.Parallel()
	const maxSlip = 5e-3 // m, from the issue
	for _, mass := range []float64{0.1, 0.75} {
		tt, err := newTabletop(mass, 0)
		if err != nil {
			t.Fatal(err)
		}
		s := tt.m.NewState()
		tt.reset(s, lift)
		moveMocap(tt, s, sim.V3(0, 0, 0.075), 0.5)
		tt.g.Command(s, 1)
		moveMocap(tt, s, sim.V3(0, 0, 0.075), 0.5)
		moveMocap(tt, s, sim.V3(0, 0, 0.275), 1)
		moveMocap(tt, s, sim.V3(0, 0, 0.275), 0.2)
		rel0 := cubeInHand(tt, s)
		if z := s.Bodies[tt.cube].Pos.Z; z < 0.2 {
			t.Fatalf("mass %g: cube not lifted: z = %.4f", mass, z)
		}
		moveMocap(tt, s, sim.V3(0, 0, 0.275), 5)
		slip := cubeInHand(tt, s).Sub(rel0).Norm()
		t.Logf("mass %g kg: cube z %.4f, slip over 5 s hold %.3g m, closure %.3f", mass, s.Bodies[tt.cube].Pos.Z, slip, tt.g.Closure(tt.m, s))
		if slip > maxSlip {
			t.Errorf("mass %g: cube slipped %.4g m in 5 s (max %g)", mass, slip, maxSlip)
		}
		tt.g.Command(s, 0)
		moveMocap(tt, s, sim.V3(0, 0, 0.275), 1)
		if z := s.Bodies[tt.cube].Pos.Z; z > 0.03 {
			t.Errorf("mass %g: cube did not fall after opening: z = %.4f", mass, z)
		}
		if s.Warnings.Total() != 0 {
			t.Errorf("mass %g: warnings %+v", mass, s.Warnings)
		}
	}
}

// TestPush is issue test 8: closed fingers push the cube 20 cm along +x; it
// ends within 2 cm of the line and never passes through the pads.
func TestPush(t *testing.T) {
	t.Parallel()
	tt, err := newTabletop(0.1, 0)
	if err != nil {
		t.Fatal(err)
	}
	s := tt.m.NewState()
	tt.reset(s, push)
	// pads start 3.5 cm behind the cube; push until the cube moved 20 cm
	n := int(math.Round(3 / tt.m.Opt.Timestep))
	for i := 0; i < n && s.Bodies[tt.cube].Pos.X < 0.2; i++ {
		mp, _ := s.Mocap(tt.g.Mocap)
		mp.X += 0.1 * tt.m.Opt.Timestep
		s.SetMocap(tt.g.Mocap, mp, sim.Quat{})
		sim.Step(tt.m, s)
		lp, _ := s.ShapePose(tt.m, tt.g.LeftPad)
		if lp.X > s.Bodies[tt.cube].Pos.X {
			t.Fatalf("tunnelling at t=%.3f: pad at %.4f passed the cube at %.4f rot %.3f", s.Time, lp, s.Bodies[tt.cube].Pos, s.Bodies[tt.cube].Rot)
		}
	}
	c := s.Bodies[tt.cube].Pos
	t.Logf("push: cube at %.4f after %.2f s", c, s.Time)
	if c.X < 0.2 {
		t.Errorf("cube only reached x=%.4f", c.X)
	}
	if math.Abs(c.Y) > 0.02 {
		t.Errorf("cube left the line: y=%.4f", c.Y)
	}
	if s.Warnings.Total() != 0 {
		t.Errorf("warnings %+v", s.Warnings)
	}
}

// TestGraspPuck grasps MetaWorld's puck (a 0.75 kg cylinder, r 2 cm, half
// height 2 cm) at two yaws: the grip width is the diameter either way and
// the puck holds for 2 s without slipping.
func TestGraspPuck(t *testing.T) {
	t.Parallel()
	for _, yaw := range []float64{0, math.Pi / 4} {
		b := sim.NewBuilder()
		b.AddShape(sim.World, sim.ShapeDesc{Kind: sim.Plane, Friction: 1})
		g := sim.AddGripper(b, sim.DefaultGripper())
		puck := b.AddBody(sim.BodyDesc{Name: "puck", Mass: 0.75, Pos: sim.V3(0, 0, 0.02),
			Rot: sim.QuatFromAxisAngle(sim.V3(0, 0, 1), yaw)})
		b.AddShape(puck, sim.ShapeDesc{Kind: sim.Cylinder, Size: sim.V3(0.02, 0.02, 0), Friction: 1, TorsionalFriction: 0.005})
		m := mustBuild(t, b)
		s := m.NewState()
		g.Reset(m, s, sim.V3(0, 0, 0.2), 0)
		mv := func(dst sim.Vec3, seconds float64) {
			src, _ := s.Mocap(g.Mocap)
			n := int(math.Round(seconds / m.Opt.Timestep))
			for i := 1; i <= n; i++ {
				s.SetMocap(g.Mocap, src.Add(dst.Sub(src).Scale(float64(i)/float64(n))), sim.Quat{})
				sim.Step(m, s)
			}
		}
		mv(sim.V3(0, 0, 0.078), 0.5)
		g.Command(s, 1)
		mv(sim.V3(0, 0, 0.078), 0.5)
		// each pad's inner face (0.04 - q from the centre) rests on the puck's side
		q := s.JointPos(m, g.LeftJoint)
		if gap := 0.04 - q; math.Abs(gap-0.02) > 0.001 {
			t.Errorf("yaw %.2f: pad face at %.4f m from the axis, want the radius 0.02", yaw, gap)
		}
		mv(sim.V3(0, 0, 0.25), 1)
		h := s.Bodies[g.Hand]
		rel0 := h.Rot.InvRotate(s.Bodies[puck].Pos.Sub(h.Pos))
		mv(sim.V3(0, 0, 0.25), 2)
		h = s.Bodies[g.Hand]
		slip := h.Rot.InvRotate(s.Bodies[puck].Pos.Sub(h.Pos)).Sub(rel0).Norm()
		if z := s.Bodies[puck].Pos.Z; z < 0.15 || slip > 5e-3 {
			t.Errorf("yaw %.2f: puck at z %.4f, slip %.4g m", yaw, z, slip)
		}
	}
}
