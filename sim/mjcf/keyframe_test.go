package mjcf_test

import (
	"math"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

const keyModel = `<mujoco><option gravity="0 0 0"/><worldbody>
<body name="upper" pos="0 0 1"><joint name="shoulder" axis="0 1 0"/><geom type="capsule" fromto="0 0 0 .3 0 0" size=".03"/>
  <body name="lower" pos=".3 0 0"><joint name="elbow" axis="0 0 1"/><joint name="slide" type="slide" axis="1 0 0"/>
    <geom type="capsule" fromto="0 0 0 .25 0 0" size=".025"/><site name="tip" pos=".25 0 0"/></body></body>
<body name="box" pos="1 1 .5"><freejoint/><geom type="box" size=".05 .05 .05"/></body>
</worldbody>
<actuator><position joint="shoulder" kp="10"/><position joint="elbow" kp="10"/></actuator>
<keyframe><key name="home" qpos="0.4 -0.7 0.05 2 3 0.6 0.7071068 0 0 0.7071068" ctrl="0.4 -0.7"/><key qpos="0 0 0 1 1 .5 1 0 0 0"/></keyframe>
</mujoco>`

// TestKeyframe: a key's qpos in MuJoCo's layout (1 number a hinge or
// slide, 7 a free joint, in joint order) sets the pose: the coordinates read
// back, the free body sits where the key puts it, the site is where
// forward kinematics puts it, the bodies are at rest, and ctrl lands in
// State.Ctrl.
func TestKeyframe(t *testing.T) {
	m, err := mjcf.Parse([]byte(keyModel), "", mjcf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(m.KeyframeNames(), ","); got != "home,#1" {
		t.Fatalf("keyframes %q", got)
	}
	k, ok := m.Keyframe("home")
	if !ok {
		t.Fatal("no key home")
	}
	s := m.Sim.NewState()
	m.SetKeyframe(s, k)
	for i, want := range []float64{0.4, -0.7, 0.05} {
		if q := m.JointPos(s, i); math.Abs(q-want) > 1e-12 {
			t.Errorf("joint %s at %.15g, key %g", m.Joints[i].Name, q, want)
		}
	}
	box := m.Bodies[len(m.Bodies)-1]
	p, r := box.Frame.World(s)
	if p.Sub(sim.V3(2, 3, 0.6)).Norm() > 1e-12 || math.Abs(math.Abs(r.W)-math.Sqrt(0.5))+math.Abs(math.Abs(r.Z)-math.Sqrt(0.5)) > 1e-7 {
		t.Errorf("free body at %v %v, key (2, 3, 0.6) turned 90° about z", p, r)
	}
	pos := make([]sim.Vec3, len(m.Bodies))
	rot := make([]sim.Quat, len(m.Bodies))
	site, _ := m.Site("tip")
	sp, _ := m.Sites[site].Frame.World(s)
	if want := m.SitePos(site, m.Keyframes[k].Q, pos, rot); sp.Sub(want).Norm() > 1e-12 {
		t.Errorf("site at %v, forward kinematics of the key %v", sp, want)
	}
	for i := range s.Bodies {
		if s.Bodies[i].Vel != (sim.Vec3{}) || s.Bodies[i].AngVel != (sim.Vec3{}) {
			t.Errorf("body %d moving after SetKeyframe", i)
		}
	}
	for i, want := range []float64{0.4, -0.7} {
		if u := s.Ctrl[m.Actuators[i].Ctrl]; u != want {
			t.Errorf("ctrl %d = %g, key %g", i, u, want)
		}
	}
	// the pose holds: no joint error to correct, nothing moves (no gravity)
	for i := 0; i < 50; i++ {
		sim.Step(m.Sim, s)
	}
	for i, want := range []float64{0.4, -0.7, 0.05} {
		if q := m.JointPos(s, i); math.Abs(q-want) > 1e-6 {
			t.Errorf("after 50 steps joint %s at %.6g, key %g", m.Joints[i].Name, q, want)
		}
	}
}

// TestKeyframeErrors: a key whose qpos or ctrl has the wrong length is
// refused with the line and the count the model needs.
func TestKeyframeErrors(t *testing.T) {
	for _, tc := range []struct{ key, want string }{
		{`<key qpos="0 0"/>`, "the model's joints take 10"},
		{`<key ctrl="1"/>`, "the model has 2 actuators"},
		{`<key qpos="0 0 0 0 0 0 1 0 0 x"/>`, "not a finite number"},
	} {
		src := strings.Replace(keyModel, `<key name="home"`, tc.key+`<key name="home"`, 1)
		_, err := mjcf.Parse([]byte(src), "", mjcf.Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "line 8") {
			t.Errorf("%s: error %v, want one at line 8 saying %q", tc.key, err, tc.want)
		}
	}
}
