package sim_test

import (
	"math"
	"testing"

	"github.com/vlmrb/vlmrb/sim"
)

// g is the gravity magnitude the scenes use (m/s²).
const g = 9.81

// mustBuild builds a model or fails the test.
func mustBuild(t testing.TB, b *sim.Builder) *sim.Model {
	t.Helper()
	m, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// ground adds the table plane to the world body.
func ground(b *sim.Builder, mu float64) sim.ShapeID {
	return b.AddShape(sim.World, sim.ShapeDesc{Name: "ground", Kind: sim.Plane, Friction: mu})
}

func stepFor(m *sim.Model, s *sim.State, seconds float64) {
	n := int(math.Round(seconds / m.Opt.Timestep))
	for i := 0; i < n; i++ {
		sim.Step(m, s)
	}
}

// TestFreeFall checks x = x0 + v0 t − g t²/2 over 1 s (issue test 1).
func TestFreeFall(t *testing.T) {
	t.Parallel()
	b := sim.NewBuilder()
	v0 := sim.V3(0.3, -0.2, 2)
	x0 := sim.V3(0, 0, 5)
	id := b.AddBody(sim.BodyDesc{Name: "ball", Mass: 1, Pos: x0, Vel: v0})
	b.AddShape(id, sim.ShapeDesc{Kind: sim.Sphere, Size: sim.V3(0.05, 0, 0)})
	m := mustBuild(t, b)
	s := m.NewState()
	stepFor(m, s, 1)
	tt := s.Time
	want := x0.Add(v0.Scale(tt)).Add(sim.V3(0, 0, -g*tt*tt/2))
	got := s.Bodies[id].Pos
	// semi-implicit Euler with substep h has error g·h·t/2 in position:
	// the 1e-6 relative bound holds for h = 2.5 ms / substeps.
	t.Logf("free fall relative error %.3g", got.Sub(want).Norm()/want.Norm())
	if rel := got.Sub(want).Norm() / want.Norm(); rel > 1e-6 {
		t.Errorf("free fall after %g s: got %v want %v (rel err %.2e)", tt, got, want, rel)
	}
}

// TestBoxRests checks a box resting on the plane for 5 s (issue test 2).
func TestBoxRests(t *testing.T) {
	t.Parallel()
	b := sim.NewBuilder()
	ground(b, 1)
	start := sim.V3(0.1, 0.2, 0.025)
	id := b.AddBody(sim.BodyDesc{Name: "box", Mass: 0.1, Pos: start})
	b.AddShape(id, sim.ShapeDesc{Kind: sim.Box, Size: sim.V3(0.025, 0.025, 0.025)})
	m := mustBuild(t, b)
	s := m.NewState()
	stepFor(m, s, 5)
	t.Logf("resting box: drift %.3g m, speed %.3g m/s", s.Bodies[id].Pos.Sub(start).Norm(), s.Bodies[id].Vel.Norm())
	if d := s.Bodies[id].Pos.Sub(start).Norm(); d > 0.5e-3 {
		t.Errorf("box drifted %.3g m (pos %v)", d, s.Bodies[id].Pos)
	}
	if v := s.Bodies[id].Vel.Norm(); v > 1e-3 {
		t.Errorf("box speed %.3g m/s at 5 s", v)
	}
	if n := len(s.Contacts()); n < 4 {
		t.Errorf("box on plane has %d contact points, want >= 4", n)
	}
	if s.Warnings.Total() != 0 {
		t.Errorf("warnings %+v", s.Warnings)
	}
}
