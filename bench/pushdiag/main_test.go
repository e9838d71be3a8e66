package main

import (
	"math"
	"testing"

	"github.com/vlmrb/vlmrb/sim"
)

// The classes follow doc.go's definitions, from a cube pushed from the
// origin toward a goal 15 cm along +x; the final distance comes from the
// geometry, not from the classifier.
func TestClassify(t *testing.T) {
	const d0 = 0.15
	cases := []struct {
		name          string
		success, term bool
		end           sim.Vec3 // the cube's final horizontal displacement
		moved         float64  // largest displacement on the way (0: |end|)
		want          string
	}{
		{"at the goal", true, false, sim.V3(0.14, 0.01, 0), 0, "success"},
		{"fell off", false, true, sim.V3(0.3, 0, 0), 0, "off-table"},
		{"never moved", false, false, sim.V3(0.004, 0, 0), 0, "untouched"},
		{"pushed and back", false, false, sim.V3(0.004, 0, 0), 0.05, "short"},
		{"past the goal", false, false, sim.V3(0.22, 0.01, 0), 0, "overshoot"},
		{"sideways", false, false, sim.V3(0.10, 0.06, 0), 0, "off-line"},
		{"6 cm short", false, false, sim.V3(0.09, 0, 0), 0, "close"},
		{"10 cm short", false, false, sim.V3(0.05, 0.01, 0), 0, "short"},
	}
	for _, c := range cases {
		moved := c.moved
		if moved == 0 {
			moved = c.end.Norm()
		}
		dFinal := c.end.Sub(sim.V3(d0, 0, 0)).Norm()
		if got := classify(c.success, c.term, moved, c.end.X, math.Abs(c.end.Y), d0, dFinal); got != c.want {
			t.Errorf("%s: classify = %s, want %s (final distance %.3f m)", c.name, got, c.want, dFinal)
		}
	}
}

// +x is away from the arm's base; the four sectors split the circle at
// the diagonals.
func TestSector(t *testing.T) {
	for _, c := range []struct {
		deg  float64
		want string
	}{{0, "+x"}, {44, "+x"}, {46, "+y"}, {90, "+y"}, {180, "-x"}, {-170, "-x"}, {-90, "-y"}, {-46, "-y"}, {-44, "+x"}} {
		r := c.deg * math.Pi / 180
		if got := sector(sim.V3(math.Cos(r), math.Sin(r), 0)); got != c.want {
			t.Errorf("sector(%g°) = %s, want %s", c.deg, got, c.want)
		}
	}
}
