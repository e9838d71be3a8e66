package sim_test

import (
	"math"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/sim"
)

// hinge is one member of a compound joint in a test: world anchor and axis
// at the initial pose, and spring stiffness.
type hinge struct {
	anchor, axis sim.Vec3
	k            float64
}

// compoundPendulum builds a box of 1.2 kg hanging from the world by a
// compound joint with the given hinges (damped springs), under gravity g.
func compoundPendulum(t *testing.T, g sim.Vec3, hs []hinge) (*sim.Model, sim.BodyID, []sim.JointID) {
	t.Helper()
	b := sim.NewBuilder()
	b.Opt.Gravity = g
	b.Opt.Timestep = 0.002
	body := b.AddBody(sim.BodyDesc{Name: "foot", Mass: 1.2, Inertia: sim.V3(0.002, 0.004, 0.005), COM: sim.V3(0.06, 0.01, -0.03), Pos: sim.V3(0, 0, 1), Rot: sim.Identity()})
	var js []sim.JointID
	for i, h := range hs {
		js = append(js, b.AddJoint(sim.JointDesc{Kind: sim.Revolute, Parent: sim.World, Child: body,
			Anchor: h.anchor, Axis: h.axis, Stiffness: h.k, Damping: 0.3, Compound: i > 0}))
	}
	return mustBuild(t, b), body, js
}

// poe returns the world pose of a point y (world coordinates at the initial
// pose) and of the initial rotation after the hinges turn by q in sequence:
// the product of exponentials T_1(q_1)·…·T_k(q_k).
func poe(hs []hinge, q []float64, y sim.Vec3) (sim.Vec3, sim.Quat) {
	r := sim.Identity()
	for i := len(hs) - 1; i >= 0; i-- {
		d := sim.QuatFromAxisAngle(hs[i].axis.Normalize(), q[i])
		y = hs[i].anchor.Add(d.Rotate(y.Sub(hs[i].anchor)))
		r = d.Mul(r)
	}
	return y, r
}

// TestCompoundStatics: a body on two hinges with different anchors (a
// humanoid's ankle) and on three orthogonal hinges (a hip) comes to rest
// under tilted gravity where each hinge's spring torque k·q balances the
// gravity torque about that hinge's current axis through its current
// anchor (virtual work), and the body's pose is the product-of-exponentials
// kinematics of the reported coordinates (the locked rows hold).
func TestCompoundStatics(t *testing.T) {
	t.Parallel()
	g := sim.V3(3, 4, -9)
	for name, hs := range map[string][]hinge{
		"ankle": {{sim.V3(0, 0, 1.08), sim.V3(0, 1, 0), 6}, {sim.V3(0, 0, 1.04), sim.V3(1, 0, 0.5), 3}},
		"hip":   {{sim.V3(0, 0, 1), sim.V3(1, 0, 0), 5}, {sim.V3(0, 0, 1), sim.V3(0, 0, 1), 4}, {sim.V3(0, 0, 1), sim.V3(0, 1, 0), 6}},
	} {
		m, body, js := compoundPendulum(t, g, hs)
		s := m.NewState()
		for i := 0; i < 2500; i++ {
			sim.Step(m, s)
		}
		q := make([]float64, len(js))
		for i, j := range js {
			q[i] = s.JointPos(m, j)
			if v := s.JointVel(m, j); math.Abs(v) > 1e-4 {
				t.Errorf("%s: hinge %d still moving at %g rad/s", name, i, v)
			}
		}
		t.Logf("%s: rest q = %.4f", name, q)
		// kinematics: body origin and rotation from q
		origin, rot := poe(hs, q, sim.V3(0, 0, 1))
		bs := s.Bodies[body]
		if d := bs.Pos.Sub(origin).Norm(); d > 2e-4 {
			t.Errorf("%s: body origin %v, kinematics of q=%v give %v (%.2g m apart)", name, bs.Pos, q, origin, d)
		}
		dr := bs.Rot.Mul(rot.Conj())
		if a := 2 * math.Asin(min(1, math.Sqrt(dr.X*dr.X+dr.Y*dr.Y+dr.Z*dr.Z))); a > 1e-3 {
			t.Errorf("%s: body rotation off the kinematics by %.2g rad", name, a)
		}
		// statics: torque of gravity about hinge i's current axis through
		// its current anchor (earlier hinges carry it) balances k_i·q_i
		com, _ := poe(hs, q, sim.V3(0.06, 0.01, 0.97))
		for i := range hs {
			anchor, r := poe(hs[:i], q[:i], hs[i].anchor)
			axis := r.Rotate(hs[i].axis.Normalize())
			tau := com.Sub(anchor).Cross(g.Scale(1.2)).Dot(axis)
			if math.Abs(tau-hs[i].k*q[i]) > 0.01*math.Abs(tau)+1e-4 {
				t.Errorf("%s: hinge %d: spring torque %.5f N·m, gravity torque %.5f (q = %.4f rad)", name, i, hs[i].k*q[i], tau, q[i])
			}
		}
	}
}

// TestCompoundLimit: a limited member of a compound joint stops at its
// limit while the other hinge swings freely.
func TestCompoundLimit(t *testing.T) {
	t.Parallel()
	b := sim.NewBuilder()
	body := b.AddBody(sim.BodyDesc{Mass: 1, Inertia: sim.V3(0.01, 0.01, 0.01), COM: sim.V3(0.2, 0, 0), Pos: sim.V3(0, 0, 1), Rot: sim.Identity()})
	j0 := b.AddJoint(sim.JointDesc{Kind: sim.Revolute, Parent: sim.World, Child: body, Anchor: sim.V3(0, 0, 1), Axis: sim.V3(0, 1, 0), Limited: true, Lower: -0.3, Upper: 0.3})
	j1 := b.AddJoint(sim.JointDesc{Kind: sim.Revolute, Parent: sim.World, Child: body, Anchor: sim.V3(0, 0, 1), Axis: sim.V3(0, 0, 1), Compound: true, Damping: 0.1})
	m := mustBuild(t, b)
	s := m.NewState()
	for i := 0; i < 800; i++ {
		sim.Step(m, s)
	}
	// gravity pulls the arm down about +y (q0 > 0) onto the upper limit
	if q := s.JointPos(m, j0); math.Abs(q-0.3) > 0.01 {
		t.Errorf("limited hinge at %.4f rad, want the upper limit 0.3", q)
	}
	if q := s.JointPos(m, j1); math.Abs(q) > 1e-6 {
		t.Errorf("the vertical hinge turned to %.3g rad with no torque about it", q)
	}
}

// TestCompoundBuildErrors: bad compound groups are refused with a reason.
func TestCompoundBuildErrors(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		axes   []sim.Vec3
		motor  bool
		reason string
	}{
		"parallel": {[]sim.Vec3{sim.V3(0, 1, 0), sim.V3(0, 2, 0)}, false, "independent"},
		"coplanar": {[]sim.Vec3{sim.V3(1, 0, 0), sim.V3(0, 1, 0), sim.V3(1, 1, 0)}, false, "independent"},
		"four":     {[]sim.Vec3{sim.V3(1, 0, 0), sim.V3(0, 1, 0), sim.V3(0, 0, 1), sim.V3(1, 1, 1)}, false, "at most 3"},
		"motor":    {[]sim.Vec3{sim.V3(1, 0, 0), sim.V3(0, 1, 0)}, true, "without Motor"},
	} {
		b := sim.NewBuilder()
		body := b.AddBody(sim.BodyDesc{Mass: 1, Pos: sim.V3(0, 0, 1), Rot: sim.Identity(), Inertia: sim.V3(0.01, 0.01, 0.01)})
		for i, a := range c.axes {
			b.AddJoint(sim.JointDesc{Kind: sim.Revolute, Parent: sim.World, Child: body, Anchor: sim.V3(0, 0, 1), Axis: a, Compound: i > 0, Motor: c.motor && i == 1, Kp: 1})
		}
		_, err := b.Build()
		if err == nil || !strings.Contains(err.Error(), c.reason) {
			t.Errorf("%s: Build error %v, want one saying %q", name, err, c.reason)
		}
	}
}

// TestArmatureRotor: Armature is rotor inertia on the joint coordinate. A
// free parent and a child on a hinge through both centres of mass, in zero
// gravity, driven by a constant joint torque τ: with the total angular
// momentum zero, q̈ = τ / (I_p·I_c/(I_p+I_c) + A) (Lagrange), not the
// τ·(I_p+I_c+A)/(I_p·(I_c+A)) of inertia added to the child; and the
// parent counter-rotates at θ̈ = −I_c/(I_p+I_c)·q̈.
func TestArmatureRotor(t *testing.T) {
	t.Parallel()
	const ip, ic, arm, tau, T = 0.01, 0.01, 0.02, 0.1, 0.5
	b := sim.NewBuilder()
	b.Opt.Gravity = sim.Vec3{}
	b.Opt.Timestep = 0.002
	p := b.AddBody(sim.BodyDesc{Mass: 1, Inertia: sim.V3(ip, ip, ip), Pos: sim.V3(0, 0, 1), Rot: sim.Identity()})
	c := b.AddBody(sim.BodyDesc{Mass: 1, Inertia: sim.V3(ic, ic, ic), Pos: sim.V3(0, 0, 1), Rot: sim.Identity()})
	j := b.AddJoint(sim.JointDesc{Kind: sim.Revolute, Parent: p, Child: c, Anchor: sim.V3(0, 0, 1), Axis: sim.V3(0, 0, 1), Armature: arm})
	a := b.AddActuator(sim.ActuatorDesc{Joint: j, Gain: 1})
	m := mustBuild(t, b)
	s := m.NewState()
	s.Ctrl[m.Actuators[a].CtrlIndex] = tau
	for i := 0; i < int(math.Round(T/m.Opt.Timestep)); i++ {
		sim.Step(m, s)
	}
	qdd := tau / (ip*ic/(ip+ic) + arm)
	if q, want := s.JointPos(m, j), 0.5*qdd*T*T; math.Abs(q-want) > 0.02*want {
		t.Errorf("q = %.4f rad after %.1f s, rotor dynamics give %.4f (inertia on the child would give %.4f)", q, T, want, 0.5*tau*(ip+ic+arm)/(ip*(ic+arm))*T*T)
	}
	if w, want := s.Bodies[p].AngVel.Z, -ic/(ip+ic)*qdd*T; math.Abs(w-want) > 0.02*math.Abs(want) {
		t.Errorf("parent spins at %.4f rad/s, want %.4f", w, want)
	}
}

// TestMaxJointPush: a revolute joint pulled 2 cm apart closes its gap at
// no more than MaxJointPush per second, and much faster without the cap.
func TestMaxJointPush(t *testing.T) {
	t.Parallel()
	gapAfter := func(cp float64) float64 {
		b := sim.NewBuilder()
		b.Opt.Gravity = sim.Vec3{}
		b.Opt.MaxJointPush = cp
		body := b.AddBody(sim.BodyDesc{Mass: 1, Inertia: sim.V3(0.01, 0.01, 0.01), Pos: sim.V3(0.2, 0, 1), Rot: sim.Identity()})
		b.AddJoint(sim.JointDesc{Kind: sim.Revolute, Parent: sim.World, Child: body, Anchor: sim.V3(0, 0, 1), Axis: sim.V3(0, 1, 0)})
		m := mustBuild(t, b)
		s := m.NewState()
		s.SetBodyPose(body, sim.V3(0.22, 0, 1), sim.Identity())
		for i := 0; i < 4; i++ {
			sim.Step(m, s)
		}
		return s.Bodies[body].Pos.X - 0.2
	}
	const cp = 0.2
	dt := sim.DefaultOptions().Timestep * 4
	if g := gapAfter(cp); g < 0.02-cp*dt*1.05 || g > 0.02 {
		t.Errorf("with a %.1f m/s cap the 2 cm gap is %.4f m after %.0f ms, want ≥ %.4f", cp, g, 1000*dt, 0.02-cp*dt)
	}
	if g := gapAfter(0); g > 0.02-3*cp*dt {
		t.Errorf("without a cap the gap is still %.4f m after %.0f ms", g, 1000*dt)
	}
}
