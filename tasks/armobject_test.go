package tasks

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

const gripperArm = "testdata/gripper_arm.xml"

func loadArmObject(t *testing.T, task, reward string) *ArmObject {
	t.Helper()
	e, err := LoadArmObject(gripperArm, ArmObjectOptions{Task: task, Reward: reward})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// runExpert runs the expert for one episode; fn sees every step.
func runExpert(t *testing.T, e *ArmObject, seed uint64, fn func(info control.Info)) control.Info {
	t.Helper()
	obs, _ := e.Reset(seed)
	pol, act := e.Expert(), make([]float64, 4)
	for {
		pol.Act(obs, act)
		var term, trunc bool
		var info control.Info
		var err error
		obs, _, term, trunc, info, err = e.Step(act)
		if err != nil {
			t.Fatal(err)
		}
		if fn != nil {
			fn(info)
		}
		if term || trunc {
			return info
		}
	}
}

// TestArmObjectCubeRestsOnTable: left alone, the cube stays on the table
// top (its centre a half side above it, within the contact's soft
// penetration of a millimetre), level, for 2 s; the arm holds the ready
// pose (the gravity feedforward: the site within 5 mm of where the IK put
// it).
func TestArmObjectCubeRestsOnTable(t *testing.T) {
	e := loadArmObject(t, "push", "")
	e.Reset(3)
	p0 := e.SitePos()
	hold := []float64{0, 0, 0, -1}
	for range 50 {
		if _, _, _, _, _, err := e.Step(hold); err != nil {
			t.Fatal(err)
		}
	}
	c := e.CubePos()
	if dz := c.Z - (e.TableZ() + ArmCubeHalf); math.Abs(dz) > 0.001 {
		t.Errorf("cube centre %.4f m from resting on the table (want |dz| ≤ 1 mm)", dz)
	}
	q := e.Data().Qpos[e.cubeQ+3 : e.cubeQ+7]
	if tilt := 2 * math.Acos(math.Min(1, math.Abs(q[0]))); tilt > 0.01 {
		t.Errorf("cube tilted by %.3f rad at rest", tilt)
	}
	if d := e.SitePos().Sub(p0).Norm(); d > 0.005 {
		t.Errorf("the arm drifted %.4f m from the ready pose in 2 s", d)
	}
}

// TestArmObjectPickExpert: the expert lifts the cube with the fingers closed
// on it (whenever the task reports success, the cube is 2 cm or more
// above the table and the finger gap equals its side within 4 mm: the
// pads press into the cube by their soft contacts' 1–2 mm each) and holds it at the goal, on ≥ 5 of 6 seeds.
func TestArmObjectPickExpert(t *testing.T) {
	e := loadArmObject(t, "pick", "")
	wins := 0
	for k := range 6 {
		liftedShut := false
		info := runExpert(t, e, control.EpisodeSeed(7, 0, k), func(info control.Info) {
			c := e.CubePos()
			if !info.Success() {
				return
			}
			if c.Z < e.TableZ()+ArmCubeHalf+0.02 {
				t.Errorf("seed %d: success with the cube %.3f m above the table", k, c.Z-e.TableZ())
			}
			// the pads' inner faces are at ±(0.005 + q) from the site's axis
			gap := 2 * (0.005 + e.Data().Qpos[e.gripQ])
			if math.Abs(gap-2*ArmCubeHalf) <= 0.004 {
				liftedShut = true
			} else {
				t.Errorf("seed %d: cube %.3f m above the table with a finger gap of %.4f m (cube side %.3f)", k, c.Z-e.TableZ(), gap, 2*ArmCubeHalf)
			}
		})
		if info.Success() {
			wins++
			if !liftedShut {
				t.Errorf("seed %d: success without the cube lifted between closed fingers", k)
			}
		}
	}
	if wins < 5 {
		t.Errorf("pick expert succeeded %d/6, want ≥ 5", wins)
	}
}

// TestArmObjectPushExpert: the expert's pushes move the cube toward the
// goal and end within push-v3's 5 cm on ≥ 5 of 6 seeds; the cube never
// leaves the table top (its centre stays a half side above it, ±1 mm).
func TestArmObjectPushExpert(t *testing.T) {
	e := loadArmObject(t, "push", "")
	wins := 0
	for k := range 6 {
		_, info0 := e.Reset(control.EpisodeSeed(9, 0, k))
		d0 := info0.Get("obj_to_target")
		info := runExpert(t, e, control.EpisodeSeed(9, 0, k), func(control.Info) {
			if dz := e.CubePos().Z - (e.TableZ() + ArmCubeHalf); dz < -0.001 {
				t.Fatalf("seed %d: cube %.4f m into the table", k, -dz)
			}
		})
		if d := info.Get("obj_to_target"); d >= d0 {
			t.Errorf("seed %d: the push left the cube %.3f m from the goal, from %.3f", k, d, d0)
		}
		if info.Success() {
			wins++
		}
	}
	if wins < 5 {
		t.Errorf("push expert succeeded %d/6, want ≥ 5", wins)
	}
}

// TestArmObjectRewards: the rewards are the documented formulas of the
// state, for dense and sparse, pick and push.
func TestArmObjectRewards(t *testing.T) {
	for _, task := range []string{"pick", "push"} {
		for _, reward := range []string{"dense", "sparse"} {
			e := loadArmObject(t, task, reward)
			obs, _ := e.Reset(11)
			pol := e.Expert()
			act := make([]float64, 4)
			for s := range 120 {
				pol.Act(obs, act)
				var r float64
				var info control.Info
				var err error
				obs, r, _, _, info, err = e.Step(act)
				if err != nil {
					t.Fatal(err)
				}
				p, c, g := e.SitePos(), e.CubePos(), e.Goal()
				dr := c.Sub(p).Norm()
				dv := c.Sub(g)
				if task == "push" {
					dv.Z = 0
				}
				dg := dv.Norm()
				reach, place := 1-math.Tanh(10*dr), 1-math.Tanh(10*dg)
				// held: the cube touches two bodies of the arm, lifted 2 cm
				touch := map[int]bool{}
				for _, ct := range e.Data().Contacts {
					b1, b2 := e.m.Geoms[ct.Geom1].Body, e.m.Geoms[ct.Geom2].Body
					if ct.Dist <= 0 && b1 == e.cube && b2 > 0 {
						touch[b2] = true
					}
					if ct.Dist <= 0 && b2 == e.cube && b1 > 0 {
						touch[b1] = true
					}
				}
				held := c.Z >= e.TableZ()+ArmCubeHalf+0.02 && len(touch) >= 2
				grasp := 0.0
				if held {
					grasp = 1
				}
				var succ bool
				var want float64
				if task == "pick" {
					succ = dg <= ArmPickSuccess && held
					want = 0.2*reach + 0.3*grasp + 0.5*grasp*place
				} else {
					succ = dg <= ArmPushSuccess
					want = 0.25*reach + 0.75*place
				}
				if succ {
					want = 1
				}
				if reward == "sparse" {
					want = 0
					if succ {
						want = 1
					}
				}
				if math.Abs(r-want) > 1e-12 || info.Success() != succ || math.Abs(info.Get("obj_to_target")-dg) > 1e-12 {
					t.Fatalf("%s %s step %d: reward %v success %v, want %v %v", task, reward, s, r, info.Success(), want, succ)
				}
			}
		}
	}
}

// TestArmObjectScenePadsKeyframes: the composed scene keeps the arm's home
// keyframe, padded with the cube's qpos0 (where the wrapper put it).
func TestArmObjectScenePadsKeyframes(t *testing.T) {
	e := loadArmObject(t, "pick", "")
	m := e.Model().Model
	k, ok := m.Key("home")
	if !ok {
		t.Fatal("the scene lost the arm's home keyframe")
	}
	q := m.Keys[k].Qpos
	for i := e.cubeQ; i < e.cubeQ+7; i++ {
		if q[i] != m.Qpos0[i] {
			t.Errorf("home qpos[%d] = %v, want the cube's qpos0 %v", i, q[i], m.Qpos0[i])
		}
	}
	if q[1] != 0.6 || q[2] != 1.2 {
		t.Errorf("home qpos starts %v, want the arm's own 0 0.6 1.2", q[:3])
	}
}

// TestArmObjectBadInput: bad options and actions are errors that say what
// was wrong, never panics.
func TestArmObjectBadInput(t *testing.T) {
	cases := []struct {
		opts ArmObjectOptions
		want string
	}{
		{ArmObjectOptions{Task: "stack"}, "must be pick or push"},
		{ArmObjectOptions{Reward: "vlm"}, "must be dense or sparse"},
		{ArmObjectOptions{Site: "nope"}, `no site or body "nope"`},
		{ArmObjectOptions{Grip: "a1x"}, `no actuator "a1x"`},
		{ArmObjectOptions{Actuators: []string{"a1", "a2"}}, "at least 3"},
		{ArmObjectOptions{Keyframe: "away"}, `no keyframe "away"`},
	}
	for _, c := range cases {
		_, err := LoadArmObject(gripperArm, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", c.opts, err, c.want)
		}
	}
	if _, err := LoadArmObject(filepath.Join(t.TempDir(), "none.xml"), ArmObjectOptions{}); err == nil {
		t.Error("a missing model file loaded")
	}
	// the bare arm, without the task's scene
	a, err := mjcf.Load(gripperArm, mjcf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewArmObject(a, ArmObjectOptions{}); err == nil || !strings.Contains(err.Error(), "ArmObjectScene") {
		t.Errorf("bare arm: error %v, want one naming ArmObjectScene", err)
	}
	e := loadArmObject(t, "pick", "")
	e.Reset(1)
	if _, _, _, _, _, err := e.Step([]float64{0, 0, 0}); err == nil || !strings.Contains(err.Error(), "want 4") {
		t.Errorf("short action: error %v", err)
	}
	if _, _, _, _, _, err := e.Step([]float64{0, math.NaN(), 0, 0}); !errors.Is(err, control.ErrNonFiniteAction) {
		t.Errorf("NaN action: error %v", err)
	}
}

// TestArmObjectMenagerie runs the experts on Menagerie's mjx_panda.xml
// when VLMRB_PANDA names it (a copy whose mesh files exist or are
// stand-ins: bench/panda-tasks.sh): ≥ 18 of 20 fixed seeds for each task.
func TestArmObjectMenagerie(t *testing.T) {
	path := os.Getenv("VLMRB_PANDA")
	if path == "" {
		t.Skip("VLMRB_PANDA is not set (bench/panda-tasks.sh sets it)")
	}
	for _, task := range []string{"pick", "push"} {
		e, err := LoadArmObject(path, ArmObjectOptions{Task: task})
		if err != nil {
			t.Fatal(err)
		}
		wins := 0
		for k := range 20 {
			if runExpert(t, e, control.EpisodeSeed(1, 0, k), nil).Success() {
				wins++
			}
		}
		t.Logf("%s expert on %s: %d/20 (seeds control.EpisodeSeed(1, 0, 0..19))", armTaskName(task), path, wins)
		if wins < 18 {
			t.Errorf("%s expert: %d/20, want ≥ 18", task, wins)
		}
	}
}

// TestArmObjectHoldScene writes, when VLMRB_PANDA_HOLD names a file in the
// folder of the model VLMRB_PANDA names, the panda-pick scene with a
// keyframe "hold": the state and controls after 80 expert steps of seed 3,
// the cube held in the fingers at the goal. bench/panda-tasks.sh steps it
// in both engines (robot-train simulate, MuJoCo 3.3.8) and compares.
func TestArmObjectHoldScene(t *testing.T) {
	path, out := os.Getenv("VLMRB_PANDA"), os.Getenv("VLMRB_PANDA_HOLD")
	if path == "" || out == "" {
		t.Skip("VLMRB_PANDA and VLMRB_PANDA_HOLD are not set (bench/panda-tasks.sh sets them)")
	}
	if filepath.Dir(out) != filepath.Dir(path) {
		t.Fatalf("VLMRB_PANDA_HOLD %s must be in the model's folder %s (the scene includes the model)", out, filepath.Dir(path))
	}
	e, err := LoadArmObject(path, ArmObjectOptions{Task: "pick"})
	if err != nil {
		t.Fatal(err)
	}
	obs, _ := e.Reset(3)
	pol, act := e.Expert(), make([]float64, 4)
	for range 80 {
		pol.Act(obs, act)
		if obs, _, _, _, _, err = e.Step(act); err != nil {
			t.Fatal(err)
		}
	}
	if !e.held() {
		t.Fatal("the expert does not hold the cube after 80 steps of seed 3")
	}
	arm, err := mjcf.Load(path, mjcf.Options{})
	if err != nil {
		t.Fatal(err)
	}
	scene, err := ArmObjectScene(filepath.Base(path), arm)
	if err != nil {
		t.Fatal(err)
	}
	f := func(v []float64) string {
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = strconv.FormatFloat(x, 'g', -1, 64)
		}
		return strings.Join(s, " ")
	}
	key := "  <keyframe><key name=\"hold\" qpos=\"" + f(e.Data().Qpos) + "\" qvel=\"" + f(e.Data().Qvel) + "\" ctrl=\"" + f(e.Data().Ctrl) + "\"/></keyframe>\n</mujoco>\n"
	xml := strings.Replace(string(scene), "</mujoco>\n", key, 1)
	if err := os.WriteFile(out, []byte(xml), 0o644); err != nil {
		t.Fatal(err)
	}
}
