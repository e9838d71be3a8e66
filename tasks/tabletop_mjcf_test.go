package tasks

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

// Groundwork for issue 47 item 5 (the tabletop on the articulated
// engine): scenes/pick-place.xml is the pick-place scene of this
// package written in MJCF. The tasks do not run on it yet; these tests
// hold its geometry to the Go scene's and check that EEDelta's action
// semantics pick the puck on the articulated engine.

// mjcfTabletop drives the MJCF scene with EEDelta's semantics: a mocap
// target moved by ActionScale·a[0:3] and clamped to the hand box, finger
// servo targets interpolated from open (a[3] = −1) to closed (+1), and
// FrameSkip physics steps per control step.
type mjcfTabletop struct {
	m                      *articulated.Model
	d                      *articulated.Data
	target                 [3]float64
	hand, fingerR, fingerL int
	puck                   int // qpos address of the puck's free joint
}

func loadMJCFTabletop(tb testing.TB) *mjcfTabletop {
	tb.Helper()
	a, err := mjcf.Load(filepath.Join("scenes", "pick-place.xml"), mjcf.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	if len(a.Warnings) > 0 {
		tb.Fatalf("warnings: %v", a.Warnings)
	}
	t := &mjcfTabletop{m: a.Model, d: articulated.NewData(a.Model), hand: -1, fingerR: -1, fingerL: -1, puck: -1}
	for i, b := range t.m.Bodies {
		switch b.Name {
		case "hand":
			t.hand = i
		case "right finger":
			t.fingerR = i
		case "left finger":
			t.fingerL = i
		}
	}
	for j := range t.m.Joints {
		if t.m.Joints[j].Name == "red puck" {
			t.puck = t.m.QposAdr(j)
		}
	}
	if t.hand < 0 || t.fingerR < 0 || t.fingerL < 0 || t.puck < 0 || len(t.m.MocapBodies) != 2 || t.m.NU != 2 {
		tb.Fatal("scenes/pick-place.xml: missing hand, fingers, puck, mocap bodies or grip actuators")
	}
	return t
}

// reset puts the hand (and its target) at MetaWorld's start and the puck at p.
func (t *mjcfTabletop) reset(p [3]float64) {
	articulated.Reset(t.m, t.d)
	t.target = t.d.MocapPos[0]
	copy(t.d.Qpos[t.puck:t.puck+3], p[:])
	t.step([]float64{0, 0, 0, -1}) // settle one control step, gripper open
}

// step is EEDelta.Step.
func (t *mjcfTabletop) step(a []float64) {
	lo, hi := [3]float64{handLowX, handLowY, handLowZ}, [3]float64{handHighX, handHighY, handHighZ}
	for k := range 3 {
		t.target[k] = min(max(t.target[k]+ActionScale*clamp1(a[k]), lo[k]), hi[k])
	}
	t.d.MocapPos[0] = t.target
	g := (clamp1(a[3]) + 1) / 2
	for k := range 2 {
		t.d.Ctrl[k] = (1-g)*fingerOpenTarget + g*fingerClosedTarget
	}
	for range FrameSkip {
		articulated.Step(t.m, t.d)
	}
}

// tcp is Env.TCP: midway between the fingers, tcpDrop below the hand.
func (t *mjcfTabletop) tcp() sim.Vec3 {
	r, l := t.d.Xpos[t.fingerR], t.d.Xpos[t.fingerL]
	return sim.V3((r[0]+l[0])/2, (r[1]+l[1])/2, (r[2]+l[2])/2-(tcpDrop-fingerDrop))
}

func (t *mjcfTabletop) puckPos() sim.Vec3 {
	q := t.d.Qpos[t.puck:]
	return sim.V3(q[0], q[1], q[2])
}

// pickAct is the pick-place expert's reach-descend-grasp-lift, by phase k
// of control steps: above the puck, down to it, close, then lift.
func (t *mjcfTabletop) pickAct(k int, a []float64) {
	tcp, puck := t.tcp(), t.puckPos()
	target, grip := puck.Add(sim.V3(0, 0, 0.06)), -1.0
	switch {
	case k >= 95:
		target, grip = sim.V3(puck.X, puck.Y, 0.25), 1
	case k >= 80:
		target, grip = puck, 1
	case k >= 40:
		target = puck
	}
	d := target.Sub(tcp).Scale(10)
	a[0], a[1], a[2], a[3] = d.X, d.Y, d.Z, grip
}

// The MJCF scene has the geoms, masses, finger travel and servo the
// tasks' code assumes (the constants of tasks/scenes.go, common.go) and
// MetaWorld's 2.5 ms timestep.
func TestTabletopMJCFMatchesGoScene(t *testing.T) {
	tt := loadMJCFTabletop(t)
	m := tt.m
	if m.Opt.Timestep != 0.0025 {
		t.Errorf("timestep %g, the tasks use MetaWorld's 0.0025", m.Opt.Timestep)
	}
	size := map[string][3]float64{
		"gripper palm":     {palmHalfX, palmHalfY, palmHalfZ},
		"right finger pad": {fingerHalfX, fingerHalfY, fingerHalfZ},
		"left finger pad":  {fingerHalfX, fingerHalfY, fingerHalfZ},
		"red puck":         {puckRadius, puckHalfHeight, 0},
		"table":            {tableHalfX, tableHalfY, 0.05},
	}
	for _, g := range m.Geoms {
		if want, ok := size[g.Name]; ok {
			if g.Size != want {
				t.Errorf("geom %q size %v, Go scene %v", g.Name, g.Size, want)
			}
			delete(size, g.Name)
		}
	}
	if len(size) > 0 {
		t.Errorf("geoms missing from the MJCF scene: %v", size)
	}
	mass := map[int]float64{tt.hand: handMass, tt.fingerR: fingerMass, tt.fingerL: fingerMass}
	for b, want := range mass {
		if got := m.Bodies[b].Mass; math.Abs(got-want) > 1e-12 || m.Bodies[b].Gravcomp != 1 {
			t.Errorf("body %q mass %g gravcomp %g, Go scene %g and no gravity", m.Bodies[b].Name, got, m.Bodies[b].Gravcomp, want)
		}
	}
	for _, b := range []int{tt.fingerR, tt.fingerL} {
		side := math.Copysign(1, m.Bodies[b].Pos[1])
		want := [3]float64{0, side * (fingerOpenGap/2 + fingerHalfY), -fingerDrop}
		if m.Bodies[b].Pos != want {
			t.Errorf("finger %q at %v in the hand, Go scene %v", m.Bodies[b].Name, m.Bodies[b].Pos, want)
		}
	}
	for _, j := range m.Joints {
		if j.Type == articulated.Slide && (j.Range != [2]float64{0, fingerTravel} || j.Damping != 5) {
			t.Errorf("finger joint %q range %v damping %g, Go scene [0 %g] and 5", j.Name, j.Range, j.Damping, fingerTravel)
		}
	}
	for _, a := range m.Actuators {
		if a.GainPrm[0] != gripKp || a.BiasPrm != [3]float64{0, -gripKp, -gripKd} ||
			a.CtrlRange != [2]float64{fingerOpenTarget, fingerClosedTarget} || a.ForceRange != [2]float64{-gripMaxForce, gripMaxForce} {
			t.Errorf("actuator %q: gain %v bias %v ctrlrange %v forcerange %v, Go scene kp %g kd %g targets %g..%g ±%g N",
				a.Name, a.GainPrm, a.BiasPrm, a.CtrlRange, a.ForceRange, gripKp, gripKd, fingerOpenTarget, fingerClosedTarget, gripMaxForce)
		}
	}
}

// EEDelta's semantics pick the puck on the articulated engine: over 20
// puck positions drawn from pick-place's range, the scripted
// reach-descend-close-lift ends with the puck held between the pads at
// least 15 cm above the table, with no engine warning.
func TestTabletopMJCFPicksThePuck(t *testing.T) {
	tt := loadMJCFTabletop(t)
	rng := rand.New(rand.NewPCG(47, 5))
	a := make([]float64, ActDim)
	for ep := range 20 {
		p := [3]float64{-0.1 + 0.2*rng.Float64(), 0.6 + 0.1*rng.Float64(), puckHalfHeight}
		tt.reset(p)
		for k := range 150 {
			tt.pickAct(k, a)
			tt.step(a)
		}
		puck, tcp := tt.puckPos(), tt.tcp()
		if w := tt.d.Warnings.Total(); w > 0 {
			t.Fatalf("episode %d: %d engine warnings", ep, w)
		}
		if puck.Z < 0.15 || xyDist(puck, tcp) > 0.01 {
			t.Errorf("episode %d: puck from %v ends at %v, TCP at %v: not lifted in the grip", ep, p, puck, tcp)
		}
	}
}

// BenchmarkTabletopMJCFStep: control steps (FrameSkip physics steps of
// 2.5 ms) of the MJCF pick-place scene on the articulated engine under the
// scripted pick, episodes of 150 steps; compare BenchmarkStep/pick-place
// (the old engine, the Env's observation and reward included).
func BenchmarkTabletopMJCFStep(b *testing.B) {
	tt := loadMJCFTabletop(b)
	a := make([]float64, ActDim)
	p := [3]float64{0.03, 0.65, puckHalfHeight}
	tt.reset(p)
	k := 0
	b.ReportAllocs()
	start, cpu0 := time.Now(), cpuSeconds()
	for b.Loop() {
		if k == 150 {
			tt.reset(p)
			k = 0
		}
		tt.pickAct(k, a)
		tt.step(a)
		k++
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "steps/s")
	if cpu := cpuSeconds() - cpu0; cpu > 0 {
		b.ReportMetric(float64(b.N)/cpu, "steps/cpu-s")
	}
}
