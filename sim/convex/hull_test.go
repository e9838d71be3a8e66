package convex

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

func cubeCorners(h float64) []Vec3 {
	var pts []Vec3
	for i := 0; i < 8; i++ {
		p := Vec3{-h, -h, -h}
		for k := 0; k < 3; k++ {
			if i&(1<<k) != 0 {
				p[k] = h
			}
		}
		pts = append(pts, p)
	}
	return pts
}

// checkHull asserts the invariants of a closed convex triangulated surface
// and that every input point is inside within tol.
func checkHull(t testing.TB, h *Hull, pts []Vec3, tol float64) {
	t.Helper()
	V, F := len(h.Verts), len(h.Faces)
	// Closed 2-manifold of genus 0 with triangles: F = 2V − 4, E = 3F/2.
	if F != 2*V-4 {
		t.Fatalf("V=%d F=%d: a closed triangulated convex surface has F = 2V−4", V, F)
	}
	edges := map[[2]int32]int{}
	for _, f := range h.Faces {
		for k := 0; k < 3; k++ {
			edges[[2]int32{f[k], f[(k+1)%3]}]++
		}
	}
	for e, n := range edges {
		if n != 1 || edges[[2]int32{e[1], e[0]}] != 1 {
			t.Fatalf("edge %v used %d times, reverse %d: not a closed oriented surface", e, n, edges[[2]int32{e[1], e[0]}])
		}
	}
	for fi, f := range h.Faces {
		a, b, c := h.Verts[f[0]], h.Verts[f[1]], h.Verts[f[2]]
		n := b.Sub(a).Cross(c.Sub(a)).Unit()
		if n.Sub(h.Normals[fi]).Norm() > 1e-9 {
			t.Fatalf("face %d normal %v, winding gives %v", fi, h.Normals[fi], n)
		}
		for i, p := range pts {
			if d := n.Dot(p.Sub(a)); d > tol {
				t.Fatalf("point %d %v is %.3g m outside face %d", i, p, d, fi)
			}
		}
	}
	if h.Volume() <= 0 {
		t.Fatalf("volume %v ≤ 0: faces point inward", h.Volume())
	}
}

func TestHullCubeWithInteriorPoints(t *testing.T) {
	pts := cubeCorners(0.5)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200; i++ {
		pts = append(pts, Vec3{rng.Float64() - 0.5, rng.Float64() - 0.5, rng.Float64() - 0.5}.Scale(0.99))
	}
	// Face centres and edge midpoints are coplanar with the faces: not vertices.
	pts = append(pts, Vec3{0.5, 0, 0}, Vec3{0, -0.5, 0}, Vec3{0.5, 0.5, 0}, Vec3{0, 0, 0.5})
	pts = append(pts, pts[:8]...) // duplicates
	h, err := BuildHull(pts, HullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Verts) != 8 || len(h.Faces) != 12 {
		t.Fatalf("cube hull has %d vertices and %d faces, want 8 and 12", len(h.Verts), len(h.Faces))
	}
	checkHull(t, h, pts, 1e-12)
	if v := h.Volume(); math.Abs(v-1) > 1e-12 {
		t.Fatalf("unit cube volume %v", v)
	}
	if math.Abs(h.RBound-math.Sqrt(0.75)) > 1e-15 {
		t.Fatalf("rbound %v, want √0.75", h.RBound)
	}
	for i, adj := range h.Adj {
		if len(adj) < 3 {
			t.Fatalf("vertex %d has %d hull neighbours; a cube corner has at least 3", i, len(adj))
		}
	}
}

func TestHullRandomPointsInside(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := 0; trial < 50; trial++ {
		n := 4 + rng.IntN(300)
		pts := make([]Vec3, n)
		for i := range pts {
			pts[i] = Vec3{rng.NormFloat64(), rng.NormFloat64() * 0.3, rng.NormFloat64() * 2}
		}
		h, err := BuildHull(pts, HullOptions{})
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		checkHull(t, h, pts, 1e-9)
	}
}

func TestHullSpherePointsAreAllVertices(t *testing.T) {
	// Points on a sphere are all extreme: each must become a vertex.
	rng := rand.New(rand.NewPCG(3, 5))
	pts := make([]Vec3, 500)
	for i := range pts {
		pts[i] = Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Unit()
	}
	h, err := BuildHull(pts, HullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Verts) != len(pts) {
		t.Fatalf("%d of %d sphere points are vertices", len(h.Verts), len(pts))
	}
	checkHull(t, h, pts, 1e-9)
	// Volume approaches 4π/3 from below.
	if v := h.Volume(); v > 4*math.Pi/3 || v < 0.97*4*math.Pi/3 {
		t.Fatalf("volume %v, want just under %v", v, 4*math.Pi/3)
	}
}

func TestHullDegenerateInputs(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name string
		pts  []Vec3
		deg  bool
	}{
		{"three points", []Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, true},
		{"coplanar", []Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0.3, 0.2, 1e-13}}, true},
		{"collinear", []Vec3{{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {3, 3, 3}}, true},
		{"one point", []Vec3{{1, 2, 3}, {1, 2, 3}, {1, 2, 3}, {1, 2, 3}}, true},
		{"nan", []Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, nan}}, false},
		{"inf", []Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, math.Inf(1)}}, false},
	}
	for _, c := range cases {
		_, err := BuildHull(c.pts, HullOptions{})
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		if errors.Is(err, ErrDegenerate) != c.deg {
			t.Errorf("%s: %v; ErrDegenerate=%v, want %v", c.name, err, errors.Is(err, ErrDegenerate), c.deg)
		}
	}
	if _, err := BuildHull(cubeCorners(1), HullOptions{Tol: -1}); err == nil {
		t.Error("negative tolerance accepted")
	}
}

func FuzzHull(f *testing.F) {
	f.Add([]byte{0, 0, 0, 10, 0, 0, 0, 10, 0, 0, 0, 10, 3, 3, 3})
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 200, 100, 50, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		// Coordinates on a coarse grid make duplicates and coplanar sets common.
		var pts []Vec3
		for i := 0; i+2 < len(data) && len(pts) < 200; i += 3 {
			pts = append(pts, Vec3{float64(data[i] % 16), float64(data[i+1] % 16), float64(data[i+2] % 16)})
		}
		h, err := BuildHull(pts, HullOptions{})
		if err != nil {
			if !errors.Is(err, ErrDegenerate) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			return
		}
		checkHull(t, h, pts, 1e-6)
	})
}

func TestSupportHillClimbFindsTheMaximum(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	// Points on an ellipsoid plus interior ones: ~300 vertices.
	pts := make([]Vec3, 400)
	for i := range pts {
		u := Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Unit()
		if i%4 == 0 {
			u = u.Scale(0.9)
		}
		pts[i] = Vec3{u[0], u[1] * 0.5, u[2] * 2}
	}
	h, err := BuildHull(pts, HullOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Verts) < hillClimbMin {
		t.Fatalf("hull has %d vertices; the test needs at least %d", len(h.Verts), hillClimbMin)
	}
	for k := 0; k < 2000; k++ {
		d := Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
		best := math.Inf(-1)
		for _, v := range h.Verts {
			best = math.Max(best, v.Dot(d))
		}
		if got := h.Verts[h.Support(d)].Dot(d); got != best {
			t.Fatalf("direction %v: support %v, maximum %v", d, got, best)
		}
	}
}
