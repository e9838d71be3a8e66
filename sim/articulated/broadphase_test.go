package articulated

import (
	"math/rand/v2"
	"testing"

	"github.com/vlmrb/vlmrb/sim/convex"
)

// The box mid-phase (boundFiltered) only skips pairs the narrow phase
// would give no contact: over random poses of every primitive pair, with
// random margins and a plane, no skipped pair has a contact when collided
// anyway, and the filter does skip pairs (it is not vacuous).
func TestBoundFilterDropsNoContact(t *testing.T) {
	kinds := []convex.Kind{convex.Sphere, convex.Capsule, convex.Ellipsoid, convex.Cylinder, convex.Box}
	rng := rand.New(rand.NewPCG(47, 5))
	skipped, kept, boxOnly := 0, 0, 0
	for trial := range 1000 {
		id := [4]float64{1, 0, 0, 0}
		bodies := []Body{{Parent: -1}}
		var joints []Joint
		geoms := []Geom{{Name: "floor", Type: convex.Plane, Body: 0, Contype: 1, Conaffinity: 1,
			Quat: [4]float64{1, 0.3 * rng.NormFloat64(), 0.3 * rng.NormFloat64(), 0}}}
		for b := 1; b <= 3; b++ {
			bodies = append(bodies, Body{Parent: 0, Quat: id, IQuat: id, Mass: 1, Inertia: [3]float64{1, 1, 1}})
			joints = append(joints, Joint{Type: Free, Body: b})
			k := kinds[rng.IntN(len(kinds))]
			g := Geom{Type: k, Body: b, Contype: 1, Conaffinity: 1, Margin: 0.02 * rng.Float64() * float64(trial%2)}
			for i := range 3 {
				g.Size[i] = 0.02 + 0.1*rng.Float64()
			}
			g.Pos = [3]float64{0.05 * rng.NormFloat64(), 0.05 * rng.NormFloat64(), 0.05 * rng.NormFloat64()}
			g.Quat = [4]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			if trial%4 >= 2 {
				// long thin shapes, axis-aligned or nearly: bounding
				// spheres overlap where the boxes are apart (a drawer in
				// a cabinet)
				g.Size = [3]float64{0.01 + 0.02*rng.Float64(), 0.01 + 0.02*rng.Float64(), 0.01 + 0.02*rng.Float64()}
				g.Size[rng.IntN(3)] = 0.3
				g.Quat = [4]float64{1, 0.05 * rng.NormFloat64(), 0.05 * rng.NormFloat64(), 0.05 * rng.NormFloat64()}
			}
			geoms = append(geoms, g)
		}
		m, err := New(Option{Timestep: 0.002}, bodies, joints, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.SetGeoms(geoms, nil); err != nil {
			t.Fatal(err)
		}
		d := NewData(m)
		for b := range 3 {
			q := d.Qpos[7*b : 7*b+7]
			for i := range 3 {
				q[i] = 0.25 * rng.NormFloat64()
			}
			for i := 3; i < 7; i++ {
				q[i] = rng.NormFloat64()
			}
			if trial%4 >= 2 {
				q[3], q[4], q[5], q[6] = 1, 0, 0, 0
			}
		}
		Forward(m, d)
		var c convex.Collider
		buf := make([]convex.Contact, 0, convex.MaxContacts)
		for k := range m.pairs {
			p := &m.pairs[k]
			if !m.boundFiltered(d, p) {
				kept++
				continue
			}
			skipped++
			if m.Geoms[p.g1].Type != convex.Plane {
				x1, x2 := d.GeomXpos[p.g1], d.GeomXpos[p.g2]
				dx := sub3(x1, x2)
				r := m.rbound[p.g1] + m.rbound[p.g2] + p.margin + p.gap
				if dot3(dx, dx) <= r*r {
					boxOnly++ // the bounding spheres overlap: the box test skipped it
				}
			}
			p1 := convex.Pose{Pos: convex.Vec3(d.GeomXpos[p.g1]), Rot: convex.Mat3(d.GeomXmat[p.g1])}
			p2 := convex.Pose{Pos: convex.Vec3(d.GeomXpos[p.g2]), Rot: convex.Mat3(d.GeomXmat[p.g2])}
			got, err := c.Collide(buf[:0], &m.shapes[p.g1], &p1, &m.shapes[p.g2], &p2, p.margin, p.gap)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) > 0 {
				t.Errorf("trial %d: pair %v–%v skipped by the filter has %d contacts (dist %.3g, margin %.3g)",
					trial, m.Geoms[p.g1].Type, m.Geoms[p.g2].Type, len(got), got[0].Dist, p.margin)
			}
		}
	}
	if skipped < 100 || kept < 100 || boxOnly < 50 {
		t.Errorf("filter skipped %d (%d past the spheres) and kept %d pairs: the trials do not test both sides", skipped, boxOnly, kept)
	}
	t.Logf("skipped %d pairs (%d with overlapping bounding spheres), kept %d", skipped, boxOnly, kept)
}
