package sim_test

import (
	"fmt"

	"github.com/vlmrb/vlmrb/sim"
)

// A 5 cm box dropped from 10 cm comes to rest on the table.
func ExampleStep() {
	b := sim.NewBuilder()
	b.AddShape(sim.World, sim.ShapeDesc{Name: "table", Kind: sim.Plane})
	box := b.AddBody(sim.BodyDesc{Name: "box", Mass: 0.1, Pos: sim.V3(0, 0, 0.1)})
	b.AddShape(box, sim.ShapeDesc{Kind: sim.Box, Size: sim.V3(0.025, 0.025, 0.025), Color: [4]float32{1, 0, 0, 1}})
	m, err := b.Build()
	if err != nil {
		panic(err)
	}
	s := m.NewState()
	for s.Time < 1 {
		sim.Step(m, s)
	}
	fmt.Printf("z = %.3f m, %d contact points\n", s.Bodies[box].Pos.Z, len(s.Contacts()))
	// Output: z = 0.025 m, 4 contact points
}

// The MetaWorld-like gripper: move the mocap target, close the fingers.
func ExampleAddGripper() {
	b := sim.NewBuilder()
	b.AddShape(sim.World, sim.ShapeDesc{Kind: sim.Plane})
	g := sim.AddGripper(b, sim.DefaultGripper()) // hand at (0, 0, 0.2)
	cube := b.AddBody(sim.BodyDesc{Mass: 0.1, Pos: sim.V3(0, 0, 0.025)})
	b.AddShape(cube, sim.ShapeDesc{Kind: sim.Box, Size: sim.V3(0.025, 0.025, 0.025), Friction: 1.5})
	m, _ := b.Build()
	s := m.NewState()
	// move the mocap target in a straight line over n steps (a 12 cm jump
	// in one step would yank the hand at ~30 g and shake the cube loose)
	steps := func(n int, target sim.Vec3) {
		from, _ := s.Mocap(g.Mocap)
		for i := 1; i <= n; i++ {
			p := from.Add(target.Sub(from).Scale(float64(i) / float64(n)))
			s.SetMocap(g.Mocap, p, sim.Quat{}) // zero Quat: keep orientation
			sim.Step(m, s)
		}
	}
	steps(200, sim.V3(0, 0, 0.078)) // descend (0.5 s)
	g.Command(s, 1)                 // close: Ctrl[g.LeftCtrl] = Ctrl[g.RightCtrl] = 0.04 m
	steps(200, sim.V3(0, 0, 0.078))
	steps(400, sim.V3(0, 0, 0.2)) // lift
	fmt.Printf("cube lifted: %v\n", s.Bodies[cube].Pos.Z > 0.1)
	// Output: cube lifted: true
}
