package mjcf

import (
	"encoding/binary"
	"math"
	"testing"
)

// FuzzMesh: any bytes as an OBJ or a binary STL are parsed or refused
// with an error, never a panic, and never past the triangle budget; what
// is accepted has faces indexing its vertices and finite coordinates, and
// meshMass of it is finite.
func FuzzMesh(f *testing.F) {
	f.Add(false, []byte("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"))
	f.Add(false, []byte("v 0 0 0\nv 1 0 0\nv 1 1 0\nf 1/1/1 2/2/2 3/3/3 -1\n"))
	stl := make([]byte, 84+50)
	binary.LittleEndian.PutUint32(stl[80:], 1)
	for k, v := range []float32{0, 0, 0, 1, 0, 0, 0, 1, 0} {
		binary.LittleEndian.PutUint32(stl[96+4*k:], math.Float32bits(v))
	}
	f.Add(true, stl)
	f.Fuzz(func(t *testing.T, isSTL bool, data []byte) {
		const budget = 1000
		var m *Mesh
		var err error
		if isSTL {
			m, err = parseSTL(data, budget)
		} else {
			m, err = parseOBJ(data, budget)
		}
		if err != nil {
			return
		}
		if len(m.Triangles) > budget {
			t.Fatalf("%d triangles past the budget of %d", len(m.Triangles), budget)
		}
		for _, tr := range m.Triangles {
			for _, i := range tr {
				if i < 0 || int(i) >= len(m.Vertices) {
					t.Fatalf("face index %d of %d vertices", i, len(m.Vertices))
				}
			}
		}
		for _, v := range m.Vertices {
			if !(math.Abs(v.X) <= math.MaxFloat64 && math.Abs(v.Y) <= math.MaxFloat64 && math.Abs(v.Z) <= math.MaxFloat64) {
				t.Fatalf("non-finite vertex %v", v)
			}
		}
		_, _, _, _ = meshMass(m, false)
		_, _, _, _ = meshMass(m, true)
	})
}
