package sim_test

import (
	"math"

	"github.com/vlmrb/vlmrb/sim"
)

// tabletop is the benchmark scene of ../shared/research/anchors/tabletop.xml:
// table plane, mocap-welded hand with two slide fingers, a 5 cm cube and a
// drawer in a fixed cabinet at (0.2, 0.35).
type tabletop struct {
	m       *sim.Model
	g       sim.Gripper
	cube    sim.BodyID
	cubeGeo sim.ShapeID
	drawer  sim.BodyID
	slide   sim.JointID
	handle  sim.ShapeID
}

// newTabletop builds the scene with a cube of the given mass (kg) and the
// given timestep (s; 0 = default).
func newTabletop(cubeMass, dt float64) (*tabletop, error) {
	return newTabletopOpt(cubeMass, dt, nil)
}

// newTabletopOpt is newTabletop with a hook that edits the Options.
func newTabletopOpt(cubeMass, dt float64, opt func(*sim.Options)) (*tabletop, error) {
	b := sim.NewBuilder()
	if dt > 0 {
		b.Opt.Timestep = dt
	}
	if opt != nil {
		opt(&b.Opt)
	}
	b.AddShape(sim.World, sim.ShapeDesc{Name: "table", Kind: sim.Plane, Size: sim.V3(0.6, 0.6, 0), Friction: 1,
		Color: [4]float32{0.55, 0.45, 0.35, 1}})
	g := sim.AddGripper(b, sim.DefaultGripper())
	cube := b.AddBody(sim.BodyDesc{Name: "cube", Mass: cubeMass, Pos: sim.V3(0, 0, 0.025)})
	cubeGeo := b.AddShape(cube, sim.ShapeDesc{Name: "cube", Kind: sim.Box, Size: sim.V3(0.025, 0.025, 0.025),
		Friction: 1.5, TorsionalFriction: 0.005, Color: [4]float32{0.1, 0.5, 0.9, 1}})

	cabPos := sim.V3(0.2, 0.35, 0)
	cab := b.AddBody(sim.BodyDesc{Name: "cabinet", Pos: cabPos})
	wood := [4]float32{0.5, 0.3, 0.2, 1}
	for _, p := range []struct {
		name      string
		pos, half sim.Vec3
	}{
		{"cab_bottom", sim.V3(0, 0, 0.005), sim.V3(0.1, 0.1, 0.005)},
		{"cab_top", sim.V3(0, 0, 0.125), sim.V3(0.1, 0.1, 0.005)},
		{"cab_left", sim.V3(0, 0.095, 0.065), sim.V3(0.1, 0.005, 0.055)},
		{"cab_right", sim.V3(0, -0.095, 0.065), sim.V3(0.1, 0.005, 0.055)},
		{"cab_back", sim.V3(0.095, 0, 0.065), sim.V3(0.005, 0.1, 0.055)},
	} {
		b.AddShape(cab, sim.ShapeDesc{Name: p.name, Kind: sim.Box, Pos: p.pos, Size: p.half, Color: wood})
	}
	drawer := b.AddBody(sim.BodyDesc{Name: "drawer", Pos: cabPos, Mass: 0.53})
	dw := [4]float32{0.7, 0.5, 0.3, 1}
	for _, p := range []struct {
		name      string
		pos, half sim.Vec3
	}{
		{"dr_bottom", sim.V3(0, 0, 0.016), sim.V3(0.085, 0.085, 0.004)},
		{"dr_front", sim.V3(-0.09, 0, 0.066), sim.V3(0.005, 0.088, 0.048)},
		{"dr_l", sim.V3(0, 0.08, 0.045), sim.V3(0.085, 0.004, 0.025)},
		{"dr_r", sim.V3(0, -0.08, 0.045), sim.V3(0.085, 0.004, 0.025)},
		{"handle_l", sim.V3(-0.105, 0.04, 0.07), sim.V3(0.01, 0.004, 0.004)},
		{"handle_r", sim.V3(-0.105, -0.04, 0.07), sim.V3(0.01, 0.004, 0.004)},
	} {
		b.AddShape(drawer, sim.ShapeDesc{Name: p.name, Kind: sim.Box, Pos: p.pos, Size: p.half, Color: dw})
	}
	handle := b.AddShape(drawer, sim.ShapeDesc{Name: "handle", Kind: sim.Capsule, Pos: sim.V3(-0.115, 0, 0.07),
		Rot: sim.QuatFromAxisAngle(sim.V3(1, 0, 0), math.Pi/2), Size: sim.V3(0.008, 0.04, 0),
		Color: [4]float32{0.2, 0.2, 0.2, 1}})
	slide := b.AddJoint(sim.JointDesc{Name: "drawer_slide", Kind: sim.Prismatic, Parent: cab, Child: drawer,
		Anchor: cabPos, Axis: sim.V3(1, 0, 0), Limited: true, Lower: -0.15, Upper: 0, Damping: 5})
	m, err := b.Build()
	if err != nil {
		return nil, err
	}
	return &tabletop{m: m, g: g, cube: cube, cubeGeo: cubeGeo, drawer: drawer, slide: slide, handle: handle}, nil
}

// Scenarios of mujoco_bench/mjbench.c: control step = 5 physics steps,
// episodes of 250 control steps.
const (
	frameSkip = 5
	epLen     = 250
)

type scenario int

const (
	idle scenario = iota
	push
	lift
)

// reset starts an episode of the scenario (mjbench.c episode_start).
func (t *tabletop) reset(s *sim.State, sc scenario) {
	s.Reset(t.m)
	switch sc {
	case push:
		t.g.Reset(t.m, s, sim.V3(-0.08, 0, 0.08), 1)
	default:
		t.g.Reset(t.m, s, sim.V3(0, 0, 0.2), 0)
	}
	s.SetBodyPose(t.cube, sim.V3(0, 0, 0.025), sim.Identity())
}

// control applies the scripted control of control step k (mjbench.c control).
func (t *tabletop) control(s *sim.State, sc scenario, k int) {
	mp, _ := s.Mocap(t.g.Mocap)
	switch sc {
	case push:
		mp.X = -0.08 + 0.001*float64(k)
		t.g.Command(s, 1)
	case lift:
		switch {
		case k < 50:
			mp.Z = 0.2 - (0.2-0.075)*float64(k+1)/50
			t.g.Command(s, 0)
		case k < 100:
			mp.Z = 0.075
			if k < 60 {
				t.g.Command(s, 0)
			} else {
				t.g.Command(s, 1)
			}
		case k < 200:
			mp.Z = 0.075 + (0.25-0.075)*float64(k-99)/100
			t.g.Command(s, 1)
		default:
			mp.Z = 0.25
			t.g.Command(s, 1)
		}
	}
	s.SetMocap(t.g.Mocap, mp, sim.Quat{})
}

// episode runs one whole scenario episode.
func (t *tabletop) episode(s *sim.State, sc scenario) {
	t.reset(s, sc)
	for k := 0; k < epLen; k++ {
		t.control(s, sc, k)
		for i := 0; i < frameSkip; i++ {
			sim.Step(t.m, s)
		}
	}
}
