package convex

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vlmrb/vlmrb/internal/cputime"
)

func benchPair(b *testing.B, s1 *Shape, p1 *Pose, s2 *Shape, p2 *Pose, margin float64) {
	benchPairWith(b, Collider{}, s1, p1, s2, p2, margin)
}

func benchPairWith(b *testing.B, c Collider, s1 *Shape, p1 *Pose, s2 *Shape, p2 *Pose, margin float64) {
	dst := make([]Contact, 0, MaxContacts)
	dst, _ = c.Collide(dst[:0], s1, p1, s2, p2, margin, 0)
	if len(dst) == 0 {
		b.Fatal("benchmark pair does not touch")
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cputime.Process()
	for i := 0; i < b.N; i++ {
		dst, _ = c.Collide(dst[:0], s1, p1, s2, p2, margin, 0)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
	// On a shared machine wall time counts other jobs; CPU time does not.
	if cpu := (cputime.Process() - cpu0).Seconds(); cpu > 0 {
		b.ReportMetric(float64(b.N)/cpu, "pairs/CPU-s")
	}
	b.ReportMetric(float64(len(dst)), "contacts/pair")
}

// BenchmarkHullHull: two 60-point random hulls (≈40 vertices each).
func BenchmarkHullHull(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	h1, h2 := randomHull(b, rng, 60, Vec3{0.1, 0.1, 0.1}), randomHull(b, rng, 60, Vec3{0.1, 0.2, 0.1})
	b.Run("penetrating", func(b *testing.B) {
		benchPair(b, h1, posed(Vec3{}, randRot(rng)), h2, posed(Vec3{0.05, 0.02, 0.1}, randRot(rng)), 0.001)
	})
	b.Run("separated", func(b *testing.B) {
		benchPair(b, h1, posed(Vec3{}, randRot(rng)), h2, posed(Vec3{0.6, 0.02, 0.1}, randRot(rng)), 1)
	})
}

// BenchmarkBoxBox: a box resting on a box, turned 30°: a face manifold.
func BenchmarkBoxBox(b *testing.B) {
	box := &Shape{Kind: Box, Size: Vec3{0.05, 0.05, 0.05}}
	benchPair(b, box, posed(Vec3{}, Identity), box, posed(Vec3{0.01, 0, 0.0999}, AxisAngle(Vec3{0, 0, 1}, 0.5)), 0.001)
}

// BenchmarkPlaneHull: a 60-point hull resting on a plane (mjc_PlaneConvex).
func BenchmarkPlaneHull(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	h := randomHull(b, rng, 60, Vec3{0.1, 0.1, 0.1})
	p := posed(Vec3{}, Identity)
	lo := h.Hull.Verts[h.Hull.Support(Vec3{0, 0, -1})][2]
	benchPair(b, &Shape{Kind: Plane}, posed(Vec3{0, 0, lo + 0.001}, Identity), h, p, 0.01)
}

// BenchmarkCapsuleCapsule: crossed capsules (GJK on the segments only).
func BenchmarkCapsuleCapsule(b *testing.B) {
	c := &Shape{Kind: Capsule, Size: Vec3{0.05, 0.2}}
	benchPair(b, c, at(0, 0, 0), c, posed(Vec3{0.09, 0.05, -0.03}, AxisAngle(Vec3{1, 0, 0}, 1.5)), 0)
}

// BenchmarkCapsuleBox: a capsule lying on a box face (two contacts).
func BenchmarkCapsuleBox(b *testing.B) {
	c := &Shape{Kind: Capsule, Size: Vec3{0.05, 0.1}}
	box := &Shape{Kind: Box, Size: Vec3{0.1, 0.1, 0.1}}
	benchPair(b, c, posed(Vec3{0, 0, 0.149}, AxisAngle(Vec3{1, 0, 0}, math.Pi/2)), box, at(0, 0, 0), 0)
}

// BenchmarkCylinderBox: the tabletop tasks' pad–puck pair, GJK and EPA: a
// 0.012 × 0.005 × 0.025 m finger pad pressing 1 mm into the side of a
// 0.02 × 0.02 m puck, turned 0.1 rad, to rounding and with the articulated
// engine's MuJoCo tolerances (ccd_tolerance 1e-6 m, ccd_iterations 35).
func BenchmarkCylinderBox(b *testing.B) {
	puck := &Shape{Kind: Cylinder, Size: Vec3{0.02, 0.02}}
	pad := &Shape{Kind: Box, Size: Vec3{0.012, 0.005, 0.025}}
	pp := posed(Vec3{0.3, 0.6, 0.02}, Identity)
	pd := posed(Vec3{0.3, 0.6 - 0.024, 0.025}, AxisAngle(Vec3{0.2, 0.1, 1}, 0.1))
	b.Run("rounding", func(b *testing.B) { benchPairWith(b, Collider{}, puck, pp, pad, pd, 0) })
	b.Run("mujoco-tol", func(b *testing.B) {
		benchPairWith(b, Collider{Tolerance: 1e-6, MaxIterations: 35}, puck, pp, pad, pd, 0)
	})
}

// BenchmarkBuildHull: Quickhull of 1000 points on a sphere (all vertices).
func BenchmarkBuildHull(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 5))
	pts := make([]Vec3, 1000)
	for i := range pts {
		pts[i] = Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Unit()
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := BuildHull(pts, HullOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*1000/b.Elapsed().Seconds(), "points/s")
}
