package sim_test

import (
	"math"
	"testing"

	"github.com/vlmrb/vlmrb/sim"
)

// TestContactPairs places a dynamic shape on a static one with a known
// overlap and checks the manifold of Step1: point count, depth and a normal
// that points from the static shape to the dynamic one along the expected axis.
func TestContactPairs(t *testing.T) {
	t.Parallel()
	const d = 0.001 // overlap (m)
	lying := sim.QuatFromAxisAngle(sim.V3(1, 0, 0), math.Pi/2)
	turned := sim.QuatFromAxisAngle(sim.V3(0, 0, 1), math.Pi/4)
	box := func(h float64) sim.ShapeDesc { return sim.ShapeDesc{Kind: sim.Box, Size: sim.V3(h, h, h)} }
	tests := []struct {
		name     string
		static   sim.ShapeDesc
		top      float64 // z of the static shape's top surface
		dyn      sim.ShapeDesc
		bottom   float64 // distance from the dynamic body origin to its lowest point
		rot      sim.Quat
		min, max int // expected point count
	}{
		{"sphere/plane", sim.ShapeDesc{Kind: sim.Plane}, 0, sim.ShapeDesc{Kind: sim.Sphere, Size: sim.V3(0.03, 0, 0)}, 0.03, sim.Quat{}, 1, 1},
		{"box/plane", sim.ShapeDesc{Kind: sim.Plane}, 0, box(0.025), 0.025, sim.Quat{}, 4, 4},
		{"capsule-lying/plane", sim.ShapeDesc{Kind: sim.Plane}, 0, sim.ShapeDesc{Kind: sim.Capsule, Size: sim.V3(0.01, 0.04, 0)}, 0.01, lying, 2, 2},
		{"cylinder-standing/plane", sim.ShapeDesc{Kind: sim.Plane}, 0, sim.ShapeDesc{Kind: sim.Cylinder, Size: sim.V3(0.02, 0.02, 0)}, 0.02, sim.Quat{}, 4, 4},
		{"cylinder-lying/plane", sim.ShapeDesc{Kind: sim.Plane}, 0, sim.ShapeDesc{Kind: sim.Cylinder, Size: sim.V3(0.02, 0.04, 0)}, 0.02, lying, 2, 2},
		{"box/box", box(0.1), 0.1, box(0.025), 0.025, sim.Quat{}, 4, 4},
		{"box-turned/box", box(0.1), 0.1, box(0.025), 0.025, turned, 4, 4},
		{"sphere/box", box(0.1), 0.1, sim.ShapeDesc{Kind: sim.Sphere, Size: sim.V3(0.03, 0, 0)}, 0.03, sim.Quat{}, 1, 1},
		{"capsule-lying/box", box(0.1), 0.1, sim.ShapeDesc{Kind: sim.Capsule, Size: sim.V3(0.01, 0.04, 0)}, 0.01, lying, 2, 2},
		{"cylinder-standing/box", box(0.1), 0.1, sim.ShapeDesc{Kind: sim.Cylinder, Size: sim.V3(0.02, 0.02, 0)}, 0.02, sim.Quat{}, 4, 4},
		{"sphere/sphere", sim.ShapeDesc{Kind: sim.Sphere, Size: sim.V3(0.05, 0, 0)}, 0.05, sim.ShapeDesc{Kind: sim.Sphere, Size: sim.V3(0.03, 0, 0)}, 0.03, sim.Quat{}, 1, 1},
		{"capsule/capsule-parallel", sim.ShapeDesc{Kind: sim.Capsule, Size: sim.V3(0.02, 0.05, 0), Rot: lying}, 0.02,
			sim.ShapeDesc{Kind: sim.Capsule, Size: sim.V3(0.01, 0.03, 0)}, 0.01, lying, 2, 2},
		{"sphere/capsule", sim.ShapeDesc{Kind: sim.Capsule, Size: sim.V3(0.02, 0.05, 0), Rot: lying}, 0.02,
			sim.ShapeDesc{Kind: sim.Sphere, Size: sim.V3(0.03, 0, 0)}, 0.03, sim.Quat{}, 1, 1},
		{"sphere/cylinder-cap", sim.ShapeDesc{Kind: sim.Cylinder, Size: sim.V3(0.05, 0.02, 0)}, 0.02,
			sim.ShapeDesc{Kind: sim.Sphere, Size: sim.V3(0.01, 0, 0)}, 0.01, sim.Quat{}, 1, 1},
		{"sphere/cylinder-side", sim.ShapeDesc{Kind: sim.Cylinder, Size: sim.V3(0.02, 0.05, 0), Rot: lying}, 0.02,
			sim.ShapeDesc{Kind: sim.Sphere, Size: sim.V3(0.01, 0, 0)}, 0.01, sim.Quat{}, 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := sim.NewBuilder()
			st := tc.static
			if st.Kind != sim.Plane {
				st.Pos = sim.V3(0, 0, 0)
			}
			sa := b.AddShape(sim.World, st)
			// off-centre on flat statics; centred on curved ones
			off := sim.V3(0.003, -0.002, 0)
			if st.Kind != sim.Plane && st.Kind != sim.Box {
				off = sim.Vec3{}
			}
			id := b.AddBody(sim.BodyDesc{Mass: 0.1, Pos: off.Add(sim.V3(0, 0, tc.top+tc.bottom-d)), Rot: tc.rot})
			sb := b.AddShape(id, tc.dyn)
			m := mustBuild(t, b)
			s := m.NewState()
			sim.Step1(m, s)
			cs := s.Contacts()
			if len(cs) < tc.min || len(cs) > tc.max {
				t.Fatalf("%d contact points, want %d..%d: %+v", len(cs), tc.min, tc.max, cs)
			}
			for _, c := range cs {
				n := c.Normal
				if c.ShapeA == sb && c.ShapeB == sa {
					n = n.Neg()
				} else if c.ShapeA != sa || c.ShapeB != sb {
					t.Fatalf("contact between shapes %d and %d, want %d and %d", c.ShapeA, c.ShapeB, sa, sb)
				}
				if n.Sub(sim.V3(0, 0, 1)).Norm() > 1e-6 {
					t.Errorf("normal (static→dynamic) %v, want +z", n)
				}
				if math.Abs(c.Depth-d) > 1e-6 {
					t.Errorf("depth %.6g, want %g", c.Depth, d)
				}
			}
		})
	}
}

// TestBoxBoxEdge checks the edge-edge case: a box turned 45° about x and z
// resting edge-down across another box's edge gives one contact with a
// normal perpendicular to both edges.
func TestBoxBoxEdge(t *testing.T) {
	t.Parallel()
	b := sim.NewBuilder()
	lower := sim.QuatFromAxisAngle(sim.V3(0, 1, 0), math.Pi/4)
	b.AddShape(sim.World, sim.ShapeDesc{Kind: sim.Box, Rot: lower, Size: sim.V3(0.05, 0.05, 0.05)})
	upper := sim.QuatFromAxisAngle(sim.V3(1, 0, 0), math.Pi/4)
	h := 0.05 * math.Sqrt2
	id := b.AddBody(sim.BodyDesc{Mass: 0.1, Pos: sim.V3(0, 0, 2*h-0.001), Rot: upper})
	b.AddShape(id, sim.ShapeDesc{Kind: sim.Box, Size: sim.V3(0.05, 0.05, 0.05)})
	m := mustBuild(t, b)
	s := m.NewState()
	sim.Step1(m, s)
	cs := s.Contacts()
	if len(cs) != 1 {
		t.Fatalf("%d points, want 1: %+v", len(cs), cs)
	}
	if n := cs[0].Normal; math.Abs(math.Abs(n.Z)-1) > 1e-6 {
		t.Errorf("normal %v, want ±z", n)
	}
	if math.Abs(cs[0].Depth-0.001) > 1e-6 {
		t.Errorf("depth %.6g, want 0.001", cs[0].Depth)
	}
	if p := cs[0].Pos; math.Hypot(p.X, p.Y) > 1e-6 || math.Abs(p.Z-h+0.0005) > 1e-6 {
		t.Errorf("point %v, want (0, 0, %.4f)", p, h-0.0005)
	}
}

// TestCylinderBox checks the exact box-cylinder contact: a lying cylinder
// on a box touches along a line (2 points), a box on a standing cylinder's
// cap gets a face manifold, and the distance across the cylinder does not
// depend on its yaw (a puck is round, not a square prism).
func TestCylinderBox(t *testing.T) {
	t.Parallel()
	const d = 0.001
	lying := sim.QuatFromAxisAngle(sim.V3(1, 0, 0), math.Pi/2)
	run := func(staticBox bool, rot sim.Quat, z float64, dyn sim.ShapeDesc) []sim.Contact {
		b := sim.NewBuilder()
		if staticBox {
			b.AddShape(sim.World, sim.ShapeDesc{Kind: sim.Box, Size: sim.V3(0.1, 0.1, 0.1)})
		} else {
			b.AddShape(sim.World, sim.ShapeDesc{Kind: sim.Cylinder, Size: sim.V3(0.05, 0.1, 0)})
		}
		id := b.AddBody(sim.BodyDesc{Mass: 0.1, Pos: sim.V3(0, 0, z), Rot: rot})
		b.AddShape(id, dyn)
		m := mustBuild(t, b)
		s := m.NewState()
		sim.Step1(m, s)
		return s.Contacts()
	}
	cyl := sim.ShapeDesc{Kind: sim.Cylinder, Size: sim.V3(0.02, 0.04, 0)}
	if cs := run(true, lying, 0.1+0.02-d, cyl); len(cs) != 2 || math.Abs(cs[0].Depth-d) > 1e-6 {
		t.Errorf("lying cylinder on box: %d points %+v, want 2 at depth %g", len(cs), cs, d)
	}
	box := sim.ShapeDesc{Kind: sim.Box, Size: sim.V3(0.02, 0.02, 0.02)}
	if cs := run(false, sim.Quat{}, 0.1+0.02-d, box); len(cs) != 4 || math.Abs(cs[0].Depth-d) > 1e-6 {
		t.Errorf("box on cylinder cap: %d points %+v, want 4 at depth %g", len(cs), cs, d)
	}
	// a box side touching a standing cylinder's side: depth is yaw-invariant
	for _, yaw := range []float64{0, math.Pi / 8, math.Pi / 4} {
		b := sim.NewBuilder()
		b.Opt.Gravity = sim.Vec3{}
		b.AddShape(sim.World, sim.ShapeDesc{Kind: sim.Box, Size: sim.V3(0.05, 0.05, 0.05)})
		id := b.AddBody(sim.BodyDesc{Mass: 0.1, Pos: sim.V3(0.05+0.02-d, 0, 0), Rot: sim.QuatFromAxisAngle(sim.V3(0, 0, 1), yaw)})
		b.AddShape(id, sim.ShapeDesc{Kind: sim.Cylinder, Size: sim.V3(0.02, 0.02, 0)})
		m := mustBuild(t, b)
		s := m.NewState()
		sim.Step1(m, s)
		cs := s.Contacts()
		if len(cs) < 1 {
			t.Fatalf("yaw %.2f: no contact", yaw)
		}
		for _, c := range cs {
			if math.Abs(c.Depth-d) > 1e-6 || math.Abs(math.Abs(c.Normal.X)-1) > 1e-6 {
				t.Errorf("yaw %.2f: contact %+v, want depth %g along x", yaw, c, d)
			}
		}
	}
}

// TestCylinderCylinder checks parallel cylinders: side by side they touch
// along a line (2 points) whatever their yaw; stacked, over their caps.
func TestCylinderCylinder(t *testing.T) {
	t.Parallel()
	const d = 0.001
	for _, tc := range []struct {
		name   string
		pos    sim.Vec3
		yaw    float64
		n      sim.Vec3
		points int
	}{
		{"side", sim.V3(0.04-d, 0, 0), 0, sim.V3(1, 0, 0), 2},
		{"side-yawed", sim.V3(0.04-d, 0, 0), math.Pi / 4, sim.V3(1, 0, 0), 2},
		{"stacked", sim.V3(0.005, 0, 0.04-d), 0, sim.V3(0, 0, 1), 4},
	} {
		b := sim.NewBuilder()
		b.Opt.Gravity = sim.Vec3{}
		b.AddShape(sim.World, sim.ShapeDesc{Kind: sim.Cylinder, Size: sim.V3(0.02, 0.02, 0)})
		id := b.AddBody(sim.BodyDesc{Mass: 0.1, Pos: tc.pos, Rot: sim.QuatFromAxisAngle(sim.V3(0, 0, 1), tc.yaw)})
		b.AddShape(id, sim.ShapeDesc{Kind: sim.Cylinder, Size: sim.V3(0.02, 0.02, 0)})
		m := mustBuild(t, b)
		s := m.NewState()
		sim.Step1(m, s)
		cs := s.Contacts()
		if len(cs) != tc.points {
			t.Errorf("%s: %d points, want %d: %+v", tc.name, len(cs), tc.points, cs)
			continue
		}
		for _, c := range cs {
			if math.Abs(c.Depth-d) > 1e-6 || c.Normal.Sub(tc.n).Norm() > 1e-6 {
				t.Errorf("%s: contact %+v, want depth %g normal %v", tc.name, c, d, tc.n)
			}
		}
	}
}
