package sim

import (
	"math/rand/v2"
	"testing"
)

// TestPlaneCullKeepsContacts: a shape whose margin-grown AABB
// aboveThePlane culls gets no contact candidate from the plane routine
// either (so the cull changes no state), over random shapes, poses and
// tilted planes placed around the margin boundary; and the cull does
// skip most of the pairs that are clear of the plane.
func TestPlaneCullKeepsContacts(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 35))
	unitQuat := func() Quat {
		return Quat{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}.Normalize()
	}
	kinds := []ShapeKind{Box, Sphere, Capsule, Cylinder}
	culled, clear := 0, 0
	for i := 0; i < 20000; i++ {
		m := &Model{Shapes: []ShapeDesc{{Kind: Plane}, {
			Kind: kinds[i%len(kinds)],
			Size: V3(0.01+0.2*rng.Float64(), 0.01+0.2*rng.Float64(), 0.01+0.2*rng.Float64()),
		}}}
		ws := &workspace{shapePos: make([]Vec3, 2), shapeRot: make([]Mat3, 2)}
		pq := Identity()
		if i%2 == 1 {
			pq = unitQuat()
		}
		p0 := V3(rng.Float64()-0.5, rng.Float64()-0.5, rng.Float64()-0.5)
		ws.shapePos[0], ws.shapeRot[0] = p0, pq.Mat3()
		r := unitQuat().Mat3()
		e := shapeExtent(&m.Shapes[1], &r)
		mg := 0.002 + 0.02*rng.Float64()
		// put the AABB's lowest point along n within ±3 mg of the plane
		_, n := planeFrame(p0, &ws.shapeRot[0])
		an := n.Abs()
		c := p0.AddScaled(n, an.Dot(e.Add(V3(mg, mg, mg)))+0.01*float64(i%4/2)+mg*(6*rng.Float64()-3))
		lat := V3(rng.Float64()-0.5, rng.Float64()-0.5, rng.Float64()-0.5)
		c = c.Add(lat.Sub(n.Scale(n.Dot(lat)))) // anywhere along the plane
		ws.shapePos[1], ws.shapeRot[1] = c, r
		g := e.Add(V3(mg, mg, mg))
		lo, hi := c.Sub(g), c.Add(g)
		// the pair's margin: the shape's plus the plane's beyond the base
		// margin (0 for sim's planes today; half the cases test more)
		extra := 0.0
		if i%4 >= 2 {
			extra = 0.01 * rng.Float64()
		}
		var buf candBuf
		dispatch(m, ws, 1, 0, mg+extra, &buf)
		if buf.n == 0 {
			clear++
		}
		if aboveThePlane(p0, n, an, lo, hi, extra) {
			culled++
			if buf.n != 0 {
				t.Fatalf("case %d (%v): culled but the plane routine found %d candidates (sep %g, margin %g)",
					i, m.Shapes[1].Kind, buf.n, buf.c[0].sep, mg)
			}
		}
	}
	if culled < clear/4 {
		t.Errorf("culled %d of %d pairs clear of the plane", culled, clear)
	}
	t.Logf("culled %d, clear %d of 20000", culled, clear)
}
