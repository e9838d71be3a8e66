package convex

import (
	"encoding/binary"
	"math"
	"testing"
)

// FuzzCollide drives Collide with arbitrary kinds, sizes and poses: it
// must never panic, must reject what is invalid with an error, and every
// contact it returns must be finite with a unit normal and dist < margin
// (≤ for the plane colliders).
func FuzzCollide(f *testing.F) {
	f.Add([]byte{6, 6, 10, 20, 30, 40, 50, 60, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte{0, 5, 0, 0, 0, 0, 0, 0, 100, 100, 100, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1})
	hull, err := BuildHull(cubeCorners(0.1), HullOptions{})
	if err != nil {
		f.Fatal(err)
	}
	kinds := []Kind{Plane, Sphere, Capsule, Ellipsoid, Cylinder, Box, Mesh}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Bytes → small numbers in [−0.25, 0.25) m or sizes in (0, 0.2] m.
		next := func() float64 {
			if len(data) < 2 {
				return 0.1
			}
			v := binary.LittleEndian.Uint16(data)
			data = data[2:]
			return float64(v)/65536 - 0.5
		}
		var sh [2]*Shape
		var ps [2]Pose
		for k := 0; k < 2; k++ {
			kind := kinds[int(math.Abs(next()*100))%len(kinds)]
			s := &Shape{Kind: kind, Size: Vec3{math.Abs(next()) * 0.4, math.Abs(next()) * 0.4, math.Abs(next()) * 0.4}}
			if kind == Mesh {
				s.Hull = hull
			}
			sh[k] = s
			ps[k] = Pose{Pos: Vec3{next() * 0.5, next() * 0.5, next() * 0.5}, Rot: AxisAngle(Vec3{next(), next(), next() + 1}, next()*10)}
		}
		margin := math.Abs(next()) * 0.1
		var c Collider
		con, err := c.Collide(nil, sh[0], &ps[0], sh[1], &ps[1], margin, 0)
		if err != nil {
			if sh[0].Validate() == nil && sh[1].Validate() == nil {
				t.Fatalf("valid shapes refused: %v", err)
			}
			return
		}
		if len(con) > MaxContacts {
			t.Fatalf("%d contacts", len(con))
		}
		for _, k := range con {
			if !finite(k.Pos) || math.IsNaN(k.Dist) || math.Abs(k.Normal().Norm()-1) > 1e-9 {
				t.Fatalf("%v-%v: bad contact %+v", sh[0].Kind, sh[1].Kind, k)
			}
			if k.Dist > margin+1e-12 {
				t.Fatalf("%v-%v: dist %v beyond margin %v", sh[0].Kind, sh[1].Kind, k.Dist, margin)
			}
		}
	})
}
