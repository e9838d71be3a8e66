package tasks_test

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/sim/mjcf"
	"github.com/vlmrb/vlmrb/tasks"
)

func armReach(t *testing.T, opts tasks.ArmReachOptions) *tasks.ArmReach {
	t.Helper()
	m, err := mjcf.Load(filepath.Join("..", "sim", "mjcf", "testdata", "arm6.xml"), mjcf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e, err := tasks.NewArmReach(m, opts)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestArmReachExpert: the IK expert reaches ≥ 90% of random goals within
// 5 cm in both control modes; a zero action does not (the goals are not
// at the start pose).
func TestArmReachExpert(t *testing.T) {
	for _, mode := range []string{"joint", "ee"} {
		e := armReach(t, tasks.ArmReachOptions{Control: mode})
		var _ control.Env = e
		pol := tasks.ArmReachExpert(e)
		zero := control.PolicyFunc(func(obs, dst []float64) { clear(dst) })
		for name, p := range map[string]control.Policy{"expert": pol, "zero": zero} {
			const n = 20
			succ := armSuccesses(t, e, p, n, nil)
			t.Logf("%s control, %s: %d/%d", mode, name, succ, n)
			if name == "expert" && succ < n*9/10 {
				t.Errorf("%s control: expert reached %d/%d goals", mode, succ, n)
			}
			if name == "zero" && succ > n/2 {
				t.Errorf("%s control: doing nothing reached %d/%d goals: goals are too easy", mode, succ, n)
			}
		}
	}
}

// armSuccesses runs p for n episodes of e (seeds 0 … n−1) and counts the
// successes; check, when given, sees each episode's final info.
func armSuccesses(t *testing.T, e *tasks.ArmReach, p control.Policy, n int, check func(ep int, info control.Info)) int {
	t.Helper()
	succ := 0
	for ep := 0; ep < n; ep++ {
		obs, _ := e.Reset(uint64(ep))
		act := make([]float64, e.Spec().ActDim)
		var info control.Info
		for trunc := false; !trunc; {
			p.Act(obs, act)
			var err error
			obs, _, _, trunc, info, err = e.Step(act)
			if err != nil {
				t.Fatal(err)
			}
		}
		if check != nil {
			check(ep, info)
		}
		if info.Success() {
			succ++
		}
	}
	return succ
}

// TestArmReachSpec: reward bounds, determinism of Reset and the errors.
func TestArmReachSpec(t *testing.T) {
	e := armReach(t, tasks.ArmReachOptions{Reward: "sparse"})
	sp := e.Spec()
	if sp.ActDim != 6 || sp.ObsDim != 30 || math.Abs(sp.ControlDt-0.04) > 1e-12 {
		t.Errorf("spec %+v", sp)
	}
	a, _ := e.Reset(7)
	g := e.Goal()
	b, _ := e.Reset(7)
	if e.Goal() != g || a[len(a)-1] != b[len(b)-1] {
		t.Error("Reset(7) twice differs")
	}
	_, r, _, _, _, err := e.Step(make([]float64, 6))
	if err != nil || (r != 0 && r != 1) {
		t.Errorf("sparse reward %g, err %v", r, err)
	}
	if _, _, _, _, _, err := e.Step([]float64{math.NaN(), 0, 0, 0, 0, 0}); err != control.ErrNonFiniteAction {
		t.Errorf("NaN action: %v", err)
	}
	m := e.Model()
	if _, err := tasks.NewArmReach(m, tasks.ArmReachOptions{Site: "nope"}); err == nil {
		t.Error("a missing site is accepted")
	}
	if _, err := tasks.NewArmReach(m, tasks.ArmReachOptions{Control: "torque"}); err == nil {
		t.Error("an unknown control mode is accepted")
	}
	if _, err := tasks.NewArmReach(m, tasks.ArmReachOptions{Actuators: []string{"shoulder_pan", "elbo"}}); err == nil || !strings.Contains(err.Error(), `no actuator "elbo"`) || !strings.Contains(err.Error(), "elbow") {
		t.Errorf("a misspelt actuator: %v, want an error naming it and listing the model's actuators", err)
	}
}

// TestArmReachObservationState: the observation carries the controller's
// state. At Reset the servos hold qpos0 (no lag); with zero actions the arm
// sags under gravity below its unchanged targets, and the observation
// shows it: the commanded site stays put while the real one drops by
// several cm, and the lag terms say by how much. The goal vector is
// 10 × (goal − site).
func TestArmReachObservationState(t *testing.T) {
	e := armReach(t, tasks.ArmReachOptions{Control: "ee"})
	n := 6
	site := func(o []float64) [3]float64 { return [3]float64{o[3*n], o[3*n+1], o[3*n+2]} }
	lag := func(o []float64) [3]float64 { return [3]float64{o[3*n+9] / 10, o[3*n+10] / 10, o[3*n+11] / 10} }
	obs, _ := e.Reset(3)
	p0, l0 := site(obs), lag(obs)
	for i := range n {
		if obs[2*n+i] != 0 {
			t.Errorf("joint %d: servo lag %g at Reset", i, obs[2*n+i])
		}
	}
	if math.Abs(l0[0])+math.Abs(l0[1])+math.Abs(l0[2]) > 1e-9 {
		t.Errorf("commanded site − site %v at Reset", l0)
	}
	for range 50 {
		obs, _, _, _, _, _ = e.Step(make([]float64, 3))
	}
	p, l := site(obs), lag(obs)
	if drop := p0[2] - p[2]; drop < 0.05 {
		t.Fatalf("the site dropped %.3f m under gravity; arm6's servos should sag > 5 cm", drop)
	}
	for k := range 3 { // commanded site = old site (targets unchanged) = site + lag
		if math.Abs(p[k]+l[k]-p0[k]) > 1e-9 {
			t.Errorf("axis %d: site %.4f + lag %.4f ≠ commanded %.4f", k, p[k], l[k], p0[k])
		}
	}
	g := e.Goal()
	for k, gk := range []float64{g.X, g.Y, g.Z} {
		if math.Abs(obs[3*n+6+k]-10*(gk-p[k])) > 1e-9 || obs[3*n+3+k] != gk {
			t.Errorf("axis %d: goal %g, goal vector %g, site %g", k, obs[3*n+3+k], obs[3*n+6+k], p[k])
		}
	}
}

// TestArmReachBodyAsEndEffector: a model without a site (Menagerie's UR5e
// has none at its flange) takes a body's name as the end effector, whose
// position is then the body's origin; the IK expert reaches with it; and a
// name that is neither a site nor a body is refused with the model's sites
// and bodies.
func TestArmReachBodyAsEndEffector(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "sim", "mjcf", "testdata", "arm6.xml"))
	if err != nil {
		t.Fatal(err)
	}
	noSite := regexp.MustCompile(`<site [^>]*/>`).ReplaceAll(data, nil)
	m, err := mjcf.Parse(noSite, filepath.Join("..", "sim", "mjcf", "testdata"), mjcf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Sites) != 0 {
		t.Fatalf("%d sites left", len(m.Sites))
	}
	if _, err := tasks.NewArmReach(m, tasks.ArmReachOptions{Site: "hand"}); err == nil ||
		!strings.Contains(err.Error(), "wrist_3_link") || !strings.Contains(err.Error(), `"hand"`) {
		t.Errorf("an unknown end effector gave %v, want an error naming it and listing the bodies", err)
	}
	e, err := tasks.NewArmReach(m, tasks.ArmReachOptions{Site: "wrist_3_link", Control: "ee"})
	if err != nil {
		t.Fatal(err)
	}
	b := -1
	for i := range m.Model.Bodies {
		if m.Model.Bodies[i].Name == "wrist_3_link" {
			b = i
		}
	}
	succ := armSuccesses(t, e, tasks.ArmReachExpert(e), 10, func(ep int, info control.Info) {
		// the reported distance is the body origin's (the engine's Xpos) to the goal
		x := e.Data().Xpos[b]
		if d := sim.V3(x[0], x[1], x[2]).Sub(e.Goal()).Norm(); math.Abs(d-info.Values["obj_to_target"]) > 1e-12 {
			t.Fatalf("episode %d: distance %g, the body origin is %g from the goal", ep, info.Values["obj_to_target"], d)
		}
	})
	if succ < 9 {
		t.Errorf("the expert reached %d/10 goals with a body as end effector", succ)
	}
}

// TestArmReachKeyframe: with a Keyframe the episodes start at rest in the
// key's pose (the joints read back its coordinates), the servos hold it,
// and the IK expert reaches goals drawn around it.
func TestArmReachKeyframe(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "sim", "mjcf", "testdata", "arm6.xml"))
	if err != nil {
		t.Fatal(err)
	}
	key := []float64{0.5, -0.8, 1.0, 0, 0.4, 0}
	src := strings.Replace(string(data), "</mujoco>", `<keyframe><key name="bent" qpos="0.5 -0.8 1.0 0 0.4 0"/></keyframe></mujoco>`, 1)
	m, err := mjcf.Parse([]byte(src), filepath.Join("..", "sim", "mjcf", "testdata"), mjcf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tasks.NewArmReach(m, tasks.ArmReachOptions{Keyframe: "home"}); err == nil || !strings.Contains(err.Error(), "bent") {
		t.Errorf("a missing keyframe gave %v, want an error listing bent", err)
	}
	e, err := tasks.NewArmReach(m, tasks.ArmReachOptions{Keyframe: "bent", Control: "ee"})
	if err != nil {
		t.Fatal(err)
	}
	for ep := 0; ep < 3; ep++ {
		e.Reset(uint64(ep))
		for i, q := range key {
			if got := e.Data().Qpos[m.Model.QposAdr(i)]; math.Abs(got-q) > 1e-9 {
				t.Fatalf("episode %d starts with joint %d at %g, key %g", ep, i, got, q)
			}
		}
	}
	if succ := armSuccesses(t, e, tasks.ArmReachExpert(e), 10, nil); succ < 9 {
		t.Errorf("the expert reached %d/10 goals from the keyframe", succ)
	}
}

// TestArmReachSiteIsForwardKinematics: on the articulated engine the
// observation's end effector is where forward kinematics of the MJCF body
// tree puts the "ee" site at the observed joint positions. The reference
// is mjcf.Model.Kinematics, composed from the model's static frames
// apart from the engine's kinematics; the check runs along expert episodes
// in both control modes, after every control step (so the frames are
// those of the stepped qpos).
func TestArmReachSiteIsForwardKinematics(t *testing.T) {
	a, err := mjcf.Load(filepath.Join("..", "sim", "mjcf", "testdata", "arm6.xml"), mjcf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	si, ok := a.Site("ee")
	if !ok {
		t.Fatal("arm6.xml has no site ee")
	}
	site := a.Sites[si]
	pos, rot := make([]sim.Vec3, len(a.Model.Bodies)), make([]sim.Quat, len(a.Model.Bodies))
	for _, mode := range []string{"ee", "joint"} {
		e := armReach(t, tasks.ArmReachOptions{Control: mode})
		n := len(a.Model.Joints)
		if e.Spec().ObsDim != 3*n+12 {
			t.Fatalf("obs dim %d, want %d for %d joints", e.Spec().ObsDim, 3*n+12, n)
		}
		pol := tasks.ArmReachExpert(e)
		act := make([]float64, e.Spec().ActDim)
		obs, _ := e.Reset(4)
		for step := range 60 {
			if err := a.Kinematics(obs[:n], pos, rot); err != nil {
				t.Fatal(err)
			}
			want := pos[site.Body].Add(rot[site.Body].Rotate(sim.V3(site.Pos[0], site.Pos[1], site.Pos[2])))
			got := sim.V3(obs[3*n], obs[3*n+1], obs[3*n+2])
			if d := got.Sub(want).Norm(); d > 1e-9 {
				t.Fatalf("%s control, step %d: observed site %v, forward kinematics %v (%.3g m off)", mode, step, got, want, d)
			}
			for i := range n {
				if obs[i] != e.Data().Qpos[i] || obs[n+i] != 0.1*e.Data().Qvel[i] {
					t.Fatalf("%s control, step %d, joint %d: observed %g, %g; engine qpos %g, qvel/10 %g", mode, step, i, obs[i], obs[n+i], e.Data().Qpos[i], 0.1*e.Data().Qvel[i])
				}
			}
			pol.Act(obs, act)
			if obs, _, _, _, _, err = e.Step(act); err != nil {
				t.Fatal(err)
			}
		}
	}
}
