package sim_test

import (
	"math"
	"testing"

	"github.com/vlmrb/vlmrb/sim"
)

// TestChainStatics: a chain of three links on hinges with springs (each
// hinge's axis turned by the hinges before it) comes to rest under tilted
// gravity where each hinge's spring torque k·q balances the gravity torque
// of the links it carries about its current axis through its current anchor
// (virtual work), with the joint masses updated every substep and held for
// the step (Options.JointMassPerStep). The locked rows of a hinge whose
// parent turns must not act along the axis: an angular impulse kept from
// turned perpendiculars would (it shifted such a rest pose by 0.01 rad).
func TestChainStatics(t *testing.T) {
	t.Parallel()
	g := sim.V3(2, 3, -9.81)
	type link struct {
		anchor, axis sim.Vec3
		mass, k      float64
	}
	links := []link{
		{sim.V3(0, 0, 1), sim.V3(0, 1, 0), 2, 40},
		{sim.V3(0.3, 0, 1), sim.V3(1, 0, 0), 1.5, 20},
		{sim.V3(0.6, 0, 1), sim.V3(0, 0.6, 0.8), 1, 8},
	}
	com := sim.V3(0.15, 0.02, 0) // in each link's frame; links start unrotated
	for _, perStep := range []bool{false, true} {
		b := sim.NewBuilder()
		b.Opt.Gravity = g
		b.Opt.Timestep = 0.002
		b.Opt.JointMassPerStep = perStep
		parent := sim.World
		var ids []sim.BodyID
		var js []sim.JointID
		for _, l := range links {
			id := b.AddBody(sim.BodyDesc{Mass: l.mass, Inertia: sim.V3(0.002, 0.01, 0.01), COM: com, Pos: l.anchor, Rot: sim.Identity()})
			js = append(js, b.AddJoint(sim.JointDesc{Kind: sim.Revolute, Parent: parent, Child: id,
				Anchor: l.anchor, Axis: l.axis, Stiffness: l.k, Damping: 4}))
			ids = append(ids, id)
			parent = id
		}
		m := mustBuild(t, b)
		s := m.NewState()
		for i := 0; i < 2500; i++ {
			sim.Step(m, s)
		}
		for i, l := range links {
			q := s.JointPos(m, js[i])
			if v := s.JointVel(m, js[i]); math.Abs(v) > 1e-4 {
				t.Errorf("perStep %v: hinge %d still moving at %g rad/s", perStep, i, v)
			}
			// hinge i's anchor and axis ride on its parent (link i−1),
			// which started unrotated at links[i−1].anchor
			anchor, axis := l.anchor, l.axis.Normalize()
			if i > 0 {
				pb := s.Bodies[ids[i-1]]
				anchor = pb.Pos.Add(pb.Rot.Rotate(l.anchor.Sub(links[i-1].anchor)))
				axis = pb.Rot.Rotate(axis)
			}
			var tau float64
			for k := i; k < len(links); k++ {
				bk := s.Bodies[ids[k]]
				c := bk.Pos.Add(bk.Rot.Rotate(com))
				tau += c.Sub(anchor).Cross(g.Scale(links[k].mass)).Dot(axis)
			}
			if math.Abs(tau-l.k*q) > 0.005*math.Abs(tau)+1e-4 {
				t.Errorf("perStep %v: hinge %d: spring torque %.5f N·m, gravity torque %.5f (q = %.4f rad)", perStep, i, l.k*q, tau, q)
			}
		}
	}
}
