package tasks

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/vlmrb/vlmrb/internal/mjoracle"
	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

// Issue 47 item 5: the tabletop scenes of this package, written in MJCF
// (scenes/*.xml), are the tasks' only scenes. These tests compare a
// scripted trajectory on each file with MuJoCo 3.3.8 and check that each
// task's mechanism does what the task needs, from the task's own reset
// draws. (Until the old engine's removal they also held each file to the
// Go scene that engine built; the files were written to it.)

// xmlSceneFiles maps each task to its scene file (reach-center shares
// reach's scene).
var xmlSceneFiles = []struct{ task, file string }{
	{"reach", "reach.xml"},
	{"reach-center", "reach.xml"},
	{"pick-place", "pick-place.xml"},
	{"push", "push.xml"},
	{"door-open", "door-open.xml"},
	{"drawer-open", "drawer-open.xml"},
	{"button-press-topdown", "button-press-topdown.xml"},
	{"sweep-into", "sweep-into.xml"},
	{"window-open", "window-open.xml"},
}

func xmlScenePath(task string) string {
	for _, s := range xmlSceneFiles {
		if s.task == task {
			return filepath.Join("scenes", s.file)
		}
	}
	panic("no scene file for " + task)
}

// xmlGoScene builds task's scene on the old engine as Make does.
func xmlLoad(tb testing.TB, path string) *mjcf.Model {
	tb.Helper()
	a, err := mjcf.Load(path, mjcf.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	if len(a.Warnings) > 0 {
		tb.Fatalf("%s: warnings %v", path, a.Warnings)
	}
	return a
}

func xmlV3(a [3]float64) sim.Vec3 { return sim.V3(a[0], a[1], a[2]) }

// xmlWorldPos returns body b's world position at qpos0, requiring every
// frame on the way to be unrotated (the Go scenes rotate nothing).
func xmlWorldPos(tb testing.TB, m *articulated.Model, b int) sim.Vec3 {
	var p sim.Vec3
	for ; b > 0; b = m.Bodies[b].Parent {
		if q := m.Bodies[b].Quat; q != [4]float64{1, 0, 0, 0} {
			tb.Errorf("body %q is rotated (%v); the Go scene rotates nothing", m.Bodies[b].Name, q)
		}
		p = p.Add(xmlV3(m.Bodies[b].Pos))
	}
	return p
}

// xmlWeldOf is MuJoCo's body_weldid: the nearest ancestor-or-self body with
// joints (0: welded to the world; a mocap body has no joints).
func xmlWeldOf(m *articulated.Model, b int) int {
	for b > 0 {
		for _, j := range m.Joints {
			if j.Body == b {
				return b
			}
		}
		b = m.Bodies[b].Parent
	}
	return 0
}

// xmlNeverCollide reports whether MuJoCo's filters keep bodies a and b from
// colliding: an <exclude>, one weld, or the parent filter.
func xmlNeverCollide(m *articulated.Model, a, b int) bool {
	for _, e := range m.Excludes {
		if (e.Body1 == a && e.Body2 == b) || (e.Body1 == b && e.Body2 == a) {
			return true
		}
	}
	wa, wb := xmlWeldOf(m, a), xmlWeldOf(m, b)
	if wa == wb {
		return true
	}
	if wa != 0 && wb != 0 && (wa == xmlWeldOf(m, m.Bodies[wb].Parent) || wb == xmlWeldOf(m, m.Bodies[wa].Parent)) {
		return true
	}
	return false
}

// xmlScripted drives a scene file with EEDelta's semantics (as the
// tasks' Env does on the old engine): a mocap target moved by
// ActionScale·a[0:3] and clamped to the hand box, finger servo targets
// interpolated from open (a[3] = −1) to closed (+1), FrameSkip physics
// steps per control step.
type xmlScripted struct {
	a                      *mjcf.Model
	m                      *articulated.Model
	d                      *articulated.Data
	target                 [3]float64
	hand, fingerR, fingerL int
	padR, padL             int // collision geom indices
	body, geom, qpos       map[string]int
	mocap                  map[string]int // index into Data.MocapPos
}

func newXMLScripted(tb testing.TB, path string) *xmlScripted {
	tb.Helper()
	a := xmlLoad(tb, path)
	s := &xmlScripted{a: a, m: a.Model, d: articulated.NewData(a.Model),
		body: map[string]int{}, geom: map[string]int{}, qpos: map[string]int{}, mocap: map[string]int{}}
	for i, b := range s.m.Bodies {
		s.body[b.Name] = i
	}
	for k, b := range s.m.MocapBodies {
		s.mocap[s.m.Bodies[b].Name] = k
	}
	for i, g := range s.m.Geoms {
		s.geom[g.Name] = i
	}
	for j := range s.m.Joints {
		s.qpos[s.m.Joints[j].Name] = s.m.QposAdr(j)
	}
	s.hand, s.fingerR, s.fingerL = s.body["hand"], s.body["right finger"], s.body["left finger"]
	s.padR, s.padL = s.geom["right finger pad"], s.geom["left finger pad"]
	if _, ok := s.mocap["mocap"]; !ok || s.m.NU != 2 {
		tb.Fatalf("%s: no hand mocap body or not two grip servos", path)
	}
	return s
}

// reset puts the model at qpos0 and the hand target where the model has
// it; the caller then places the task's objects.
func (s *xmlScripted) reset() {
	articulated.Reset(s.m, s.d)
	s.target = s.d.MocapPos[s.mocap["mocap"]]
}

func (s *xmlScripted) step(a []float64) {
	lo, hi := [3]float64{handLowX, handLowY, handLowZ}, [3]float64{handHighX, handHighY, handHighZ}
	for k := range 3 {
		s.target[k] = min(max(s.target[k]+ActionScale*clamp1(a[k]), lo[k]), hi[k])
	}
	s.d.MocapPos[s.mocap["mocap"]] = s.target
	g := (clamp1(a[3]) + 1) / 2
	for k := range 2 {
		s.d.Ctrl[k] = (1-g)*fingerOpenTarget + g*fingerClosedTarget
	}
	for range FrameSkip {
		articulated.Step(s.m, s.d)
	}
}

func (s *xmlScripted) pos(body string) sim.Vec3 { return xmlV3(s.d.Xpos[s.body[body]]) }

// tcp is Env.TCP: midway between the fingers, tcpDrop below the hand
// origin along the hand's z.
func (s *xmlScripted) tcp() sim.Vec3 {
	r, l := s.d.Xpos[s.fingerR], s.d.Xpos[s.fingerL]
	x := s.d.Xmat[s.hand]
	dz := fingerDrop - tcpDrop
	return sim.V3((r[0]+l[0])/2+x[2]*dz, (r[1]+l[1])/2+x[5]*dz, (r[2]+l[2])/2+x[8]*dz)
}

// gripperOpen is Env.GripperOpen.
func (s *xmlScripted) gripperOpen() float64 {
	gap := s.pos("left finger").Sub(s.pos("right finger")).Norm() - 2*fingerHalfY
	return min(max(gap/fingerOpenGap, 0), 1)
}

// obs is the part of the 39-D observation the scripted experts read.
func (s *xmlScripted) obs(obj sim.Vec3) obsView {
	o := make(obsView, ObsDim)
	putVec(o[0:3], s.tcp().Add(sim.V3(0, 0, tcpDrop)))
	o[3] = s.gripperOpen()
	putVec(o[4:7], obj)
	return o
}

// padsTouch reports whether both pads touch geom name (Env.padsTouch).
func (s *xmlScripted) padsTouch(name string) bool {
	g := s.geom[name]
	r, l := false, false
	for _, c := range s.d.Contacts {
		r = r || (c.Geom1 == s.padR && c.Geom2 == g) || (c.Geom2 == s.padR && c.Geom1 == g)
		l = l || (c.Geom1 == s.padL && c.Geom2 == g) || (c.Geom2 == s.padL && c.Geom1 == g)
	}
	return r && l
}

// --- MuJoCo 3.3.8 ---

// xmlScript is a scripted trajectory MuJoCo can run too: a keyframe
// (the hand's TCP placed at tcp, fingers open or closed, the task's
// objects where objects puts them) and the hand's mocap body moving at a
// constant velocity (scripts/mujoco-oracle.mjs --mocap-vel).
type xmlScript struct {
	task     string
	what     string
	tcp      sim.Vec3
	closed   bool
	vel      sim.Vec3
	duration float64
	// free sets a free joint's position (the object starts at rest, upright)
	free map[string]sim.Vec3
}

var xmlScripts = []xmlScript{
	{task: "reach", what: "the hand sweeps over the resting puck", tcp: sim.V3(0, 0.6, 0.155), vel: sim.V3(0.1, 0.15, -0.05), duration: 1},
	// the fingers, closed, between the handle bar and the door; the hand
	// pulls toward the robot
	{task: "door-open", what: "the closed fingers pull the handle: the door swings open", tcp: sim.V3(0.05, 0.82, 0.11), closed: true, vel: sim.V3(0, -0.12, 0), duration: 1},
	{task: "drawer-open", what: "the closed fingers pull the handle: the drawer slides out", tcp: sim.V3(0, 0.775, 0.055), closed: true, vel: sim.V3(0, -0.1, 0), duration: 1},
	{task: "button-press-topdown", what: "the closed fingers press the button down to its stop", tcp: sim.V3(0, 0.85, 0.15), closed: true, vel: sim.V3(0, 0, -0.04), duration: 1},
	{task: "window-open", what: "the closed fingers push the handle: the sash slides right", tcp: sim.V3(-0.11, 0.72, 0.165), closed: true, vel: sim.V3(0.1, 0, 0), duration: 1},
	// the push up to the hole's edge: the tumble into the hole is chaotic
	// (bench/RESULTS.md: VLMRB_SWEEP=speed,duration runs it); the cube
	// starts settled, 10 µm into the table, not exactly touching
	{task: "sweep-into", what: "the closed fingers push the cube toward the hole", tcp: sim.V3(0, 0.665, 0.025), closed: true, vel: sim.V3(0, 0.1, 0), duration: 0.5,
		free: map[string]sim.Vec3{"green cube": sim.V3(0, 0.70, cubeHalf-1e-5)}},
}

// keyed writes the scene with the script's keyframe into a temporary
// folder and returns the file's path.
func (sc xmlScript) keyed(t *testing.T) string {
	t.Helper()
	s := newXMLScripted(t, xmlScenePath(sc.task))
	qpos := append([]float64(nil), s.m.Qpos0...)
	hand := sc.tcp.Add(sim.V3(0, 0, tcpDrop))
	copy(qpos[s.qpos["hand"]:], []float64{hand.X, hand.Y, hand.Z})
	ctrl := fingerOpenTarget
	if sc.closed {
		ctrl = fingerClosedTarget
		qpos[s.qpos["right finger slide"]], qpos[s.qpos["left finger slide"]] = fingerTravel, fingerTravel
	}
	for name, p := range sc.free {
		copy(qpos[s.qpos[name]:], []float64{p.X, p.Y, p.Z})
	}
	var mpos []float64
	for _, b := range s.m.MocapBodies {
		p := s.m.Bodies[b].Pos
		if s.m.Bodies[b].Name == "mocap" {
			p = [3]float64{hand.X, hand.Y, hand.Z}
		}
		mpos = append(mpos, p[:]...)
	}
	nums := func(v []float64) string {
		f := make([]string, len(v))
		for i, x := range v {
			f[i] = fmt.Sprint(x)
		}
		return strings.Join(f, " ")
	}
	key := fmt.Sprintf("  <keyframe>\n    <key name=\"script\" qpos=\"%s\" mpos=\"%s\" ctrl=\"%s\"/>\n  </keyframe>\n</mujoco>",
		nums(qpos), nums(mpos), nums([]float64{ctrl, ctrl}))
	src, err := os.ReadFile(xmlScenePath(sc.task))
	if err != nil {
		t.Fatal(err)
	}
	out := strings.Replace(string(src), "</mujoco>", key, 1)
	path := filepath.Join(t.TempDir(), filepath.Base(xmlScenePath(sc.task)))
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// xmlRunScript steps the articulated engine as the oracle does: the key,
// then the first mocap body at start + v·(i·dt) before step i.
func xmlRunScript(t *testing.T, path string, v sim.Vec3, duration float64, every int) ([]mjoracle.Line, articulated.Warnings) {
	a := xmlLoad(t, path)
	m := a.Model
	d := articulated.NewData(m)
	if err := articulated.ResetKey(m, d, 0); err != nil {
		t.Fatal(err)
	}
	start := d.MocapPos[0]
	vel := [3]float64{v.X, v.Y, v.Z}
	line := func() mjoracle.Line {
		return mjoracle.Line{Time: d.Time, Qpos: append([]float64(nil), d.Qpos...), Qvel: append([]float64(nil), d.Qvel...)}
	}
	out := []mjoracle.Line{line()}
	dt := m.Opt.Timestep
	steps := int(math.Round(duration / dt))
	for i := 1; i <= steps; i++ {
		for k := range 3 {
			d.MocapPos[0][k] = start[k] + vel[k]*(float64(i)*dt)
		}
		articulated.Step(m, d)
		if i%every == 0 {
			out = append(out, line())
		}
	}
	return out, d.Warnings
}

// TestMJCFScenesAgainstMuJoCo: each scene loads in MuJoCo 3.3.8, and over a
// scripted second (the hand pushing or pulling the task's mechanism) the
// articulated engine's largest qpos error against MuJoCo at the scene's
// timestep stays within twice MuJoCo's own difference between dt and
// dt/2, the acceptance of issue 47's contact scenes. The mocap body
// "mocap" is the first in every scene (the hand is written first).
func TestMJCFScenesAgainstMuJoCo(t *testing.T) {
	dir := mjoracle.Dir(t)
	for _, sc := range xmlScripts {
		t.Run(sc.task, func(t *testing.T) {
			t.Parallel() // each waits mostly on its Node processes
			if v := os.Getenv("VLMRB_SWEEP"); v != "" && sc.task == "sweep-into" {
				// push speed (m/s) and duration (s) of the sweep script
				f := strings.Split(v, ",")
				var err error
				if len(f) == 2 {
					if sc.vel.Y, err = strconv.ParseFloat(f[0], 64); err == nil {
						sc.duration, err = strconv.ParseFloat(f[1], 64)
					}
				}
				if len(f) != 2 || err != nil || !(sc.duration > 0) {
					t.Fatalf("VLMRB_SWEEP=%q: want speed,duration (m/s, s), e.g. 0.15,1", v)
				}
			}
			path := sc.keyed(t)
			a := xmlLoad(t, path)
			if a.Model.Bodies[a.Model.MocapBodies[0]].Name != "mocap" {
				t.Fatalf("the first mocap body is %q, not the hand's", a.Model.Bodies[a.Model.MocapBodies[0]].Name)
			}
			const every = 20
			dt := a.Model.Opt.Timestep
			vel := fmt.Sprintf("%v,%v,%v", sc.vel.X, sc.vel.Y, sc.vel.Z)
			args := []string{"--model", path, "--duration", fmt.Sprint(sc.duration), "--keyframe", "0", "--mocap-vel", vel}
			want := mjoracle.Run(t, dir, append(args, "--every", fmt.Sprint(every))...)
			half := mjoracle.Run(t, dir, append(args, "--every", fmt.Sprint(2*every), "--timestep", fmt.Sprint(dt/2))...)
			got, warn := xmlRunScript(t, path, sc.vel, sc.duration, every)
			if warn.Total() != 0 {
				t.Errorf("engine warnings %+v", warn)
			}
			if len(half) != len(want) || len(got) != len(want) {
				t.Fatalf("%d, %d and %d lines", len(got), len(want), len(half))
			}
			ours, at := mjoracle.MaxDiff(got, want, false)
			own, _ := mjoracle.MaxDiff(half, want, false)
			last := want[len(want)-1].Qpos
			t.Logf("| %s | %s | %.3g (t=%.2f s) | %.3g | %.2f |", sc.task, sc.what, ours, at, own, ours/own)
			t.Logf("final qpos: ours %.4g\nMuJoCo %.4g", got[len(got)-1].Qpos, last)
			if os.Getenv("VLMRB_SCENE_TRACE") != "" {
				for i := range want {
					t.Logf("t=%.3f ours %.5f\n  mujoco %.5f\n  dt/2   %.5f", want[i].Time, got[i].Qpos, want[i].Qpos, half[i].Qpos)
				}
			}
			if !(ours <= 2*own) {
				t.Errorf("max |Δqpos| %.3g exceeds twice MuJoCo's own dt vs dt/2 difference %.3g", ours, own)
			}
		})
	}
}
