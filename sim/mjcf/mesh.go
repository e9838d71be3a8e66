package mjcf

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vlmrb/vlmrb/sim"
)

// Mesh is a triangle mesh (m, in the mesh's frame after scale).
type Mesh struct {
	Name      string
	Vertices  []sim.Vec3
	Triangles [][3]int32
}

// meshAsset is a <mesh> asset with its loaded triangles and mass
// properties per unit density.
type meshAsset struct {
	name   string
	mesh   *Mesh
	volume float64  // m³
	com    sim.Vec3 // centroid in the mesh frame
	rot    sim.Quat // principal axes
	unitI  sim.Vec3 // principal inertia per unit mass (m²)
}

func (c *compiler) meshAssetElem(e *element, cls *class) {
	a := c.attrsOf(e, "mesh", cls)
	file := a.str("file", "")
	name := a.str("name", "")
	scale := a.vec3("scale", sim.V3(1, 1, 1))
	a.ignore("refpos", "refquat", "smoothnormal", "content_type", "maxhullvert", "inertia")
	for _, n := range []string{"vertex", "face", "normal", "texcoord"} {
		if a.has(n) {
			c.fail(e, n, "inline mesh data is not supported; use an OBJ or STL file")
		}
	}
	a.finish()
	if file == "" {
		c.fail(e, "file", "is required")
		return
	}
	if name == "" {
		base := filepath.Base(file)
		name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	ma := &meshAsset{name: name, rot: sim.Identity()}
	c.meshes[name] = ma
	if c.dir == "" {
		c.fail(e, "file", "mesh files need a model directory (use Load)")
		return
	}
	path := filepath.Join(c.dir, filepath.FromSlash(c.meshdir), filepath.FromSlash(file))
	data, err := readCapped(c.opt.ReadFile, c.dir, path, MaxMeshBytes)
	if err != nil {
		c.fail(e, "file", err.Error())
		return
	}
	var m *Mesh
	switch strings.ToLower(filepath.Ext(file)) {
	case ".obj":
		m, err = parseOBJ(data, MaxTriangles-c.triangles)
	case ".stl":
		m, err = parseSTL(data, MaxTriangles-c.triangles)
	default:
		err = fmt.Errorf("only OBJ and binary STL meshes are supported")
	}
	if err != nil {
		c.fail(e, "file", fmt.Sprintf("%s: %v", file, err))
		return
	}
	c.triangles += len(m.Triangles)
	m.Name = name
	for i := range m.Vertices {
		m.Vertices[i] = m.Vertices[i].Mul(scale)
	}
	ma.mesh = m
	ma.volume, ma.com, ma.rot, ma.unitI = meshMass(m, c.exactMeshInertia)
}

// parseOBJ reads the vertices and faces (fan-triangulated) of a Wavefront
// OBJ file; more than budget triangles is an error.
func parseOBJ(data []byte, budget int) (*Mesh, error) {
	m := &Mesh{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "v":
			if len(f) < 4 {
				return nil, fmt.Errorf("line %d: a vertex needs 3 coordinates", line)
			}
			var v [3]float64
			for k := 0; k < 3; k++ {
				x, err := strconv.ParseFloat(f[k+1], 64)
				if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
					return nil, fmt.Errorf("line %d: bad coordinate %q", line, f[k+1])
				}
				v[k] = x
			}
			if len(m.Vertices) >= 3*MaxTriangles {
				return nil, fmt.Errorf("line %d: more than %d vertices (3 per triangle of MaxTriangles): simplify the mesh", line, 3*MaxTriangles)
			}
			m.Vertices = append(m.Vertices, sim.V3(v[0], v[1], v[2]))
		case "f":
			if len(f) < 4 {
				return nil, fmt.Errorf("line %d: a face needs 3 vertices", line)
			}
			idx := make([]int32, 0, len(f)-1)
			for _, s := range f[1:] {
				s, _, _ = strings.Cut(s, "/")
				k, err := strconv.Atoi(s)
				if err != nil {
					return nil, fmt.Errorf("line %d: bad face index %q", line, s)
				}
				if k < 0 {
					k = len(m.Vertices) + k + 1
				}
				if k < 1 || k > len(m.Vertices) {
					return nil, fmt.Errorf("line %d: face index %d out of range", line, k)
				}
				idx = append(idx, int32(k-1))
			}
			if len(m.Triangles)+len(idx)-2 > budget {
				return nil, fmt.Errorf("line %d: more than %d triangles in the model's meshes (the budget, MaxTriangles %d, bounds rendering memory): simplify the mesh, e.g. with a decimation tool", line, budget, MaxTriangles)
			}
			for t := 1; t+1 < len(idx); t++ {
				m.Triangles = append(m.Triangles, [3]int32{idx[0], idx[t], idx[t+1]})
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(m.Triangles) == 0 {
		return nil, fmt.Errorf("no faces")
	}
	return m, nil
}

// parseSTL reads a binary STL file (vertices are not shared); more than
// budget triangles is an error.
func parseSTL(data []byte, budget int) (*Mesh, error) {
	if len(data) >= 5 && string(data[:5]) == "solid" && !stlBinarySize(data) {
		return nil, fmt.Errorf("ASCII STL is not supported; convert it to binary STL or OBJ")
	}
	if len(data) < 84 {
		return nil, fmt.Errorf("too short for a binary STL")
	}
	n := int(binary.LittleEndian.Uint32(data[80:84]))
	if !stlBinarySize(data) || n == 0 {
		return nil, fmt.Errorf("binary STL size %d does not match its %d triangles", len(data), n)
	}
	if n > budget {
		return nil, fmt.Errorf("%d triangles, more than the %d left of the model's budget (MaxTriangles %d, which bounds rendering memory): simplify the mesh, e.g. with a decimation tool", n, budget, MaxTriangles)
	}
	m := &Mesh{Vertices: make([]sim.Vec3, 0, 3*n), Triangles: make([][3]int32, 0, n)}
	for t := 0; t < n; t++ {
		rec := data[84+50*t:]
		for k := 0; k < 3; k++ {
			var v [3]float64
			for d := 0; d < 3; d++ {
				x := float64(math.Float32frombits(binary.LittleEndian.Uint32(rec[12+12*k+4*d:])))
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return nil, fmt.Errorf("triangle %d: non-finite vertex", t)
				}
				v[d] = x
			}
			m.Vertices = append(m.Vertices, sim.V3(v[0], v[1], v[2]))
		}
		m.Triangles = append(m.Triangles, [3]int32{int32(3 * t), int32(3*t + 1), int32(3*t + 2)})
	}
	return m, nil
}

func stlBinarySize(data []byte) bool {
	if len(data) < 84 {
		return false
	}
	n := int64(binary.LittleEndian.Uint32(data[80:84]))
	return int64(len(data)) == 84+50*n
}

// meshMass returns a mesh's volume, centroid, principal axes and
// principal inertia per unit mass the way MuJoCo 2.2.2 computes them by
// default (exactmeshinertia false): from the tetrahedra between each face
// and the area-weighted centroid of the faces, each counted with its
// absolute volume (exact for convex meshes; open or concave meshes such as
// a mug count more than their enclosed volume, as in MuJoCo). With exact
// it uses signed volumes (closed meshes of any shape).
func meshMass(m *Mesh, exact bool) (vol float64, com sim.Vec3, rot sim.Quat, unit sim.Vec3) {
	var fc sim.Vec3
	var area float64
	for _, t := range m.Triangles {
		a, b, d := m.Vertices[t[0]], m.Vertices[t[1]], m.Vertices[t[2]]
		ar := b.Sub(a).Cross(d.Sub(a)).Norm() / 2
		area += ar
		fc = fc.Add(a.Add(b).Add(d).Scale(ar / 3))
	}
	rot = sim.Identity()
	if area == 0 {
		return 0, sim.Vec3{}, rot, sim.Vec3{}
	}
	fc = fc.Scale(1 / area)
	var c sim.Vec3
	var cov [3][3]float64 // ∫ x xᵀ dV about fc
	for _, t := range m.Triangles {
		a, b, d := m.Vertices[t[0]].Sub(fc), m.Vertices[t[1]].Sub(fc), m.Vertices[t[2]].Sub(fc)
		v := a.Dot(b.Cross(d)) / 6
		if !exact {
			v = math.Abs(v)
		}
		vol += v
		c = c.Add(a.Add(b).Add(d).Scale(v / 4))
		p := [3]sim.Vec3{a, b, d}
		for i := 0; i < 3; i++ {
			for j := 0; j < 3; j++ {
				var s float64
				for k := 0; k < 3; k++ {
					for l := 0; l < 3; l++ {
						f := 1.0
						if k == l {
							f = 2
						}
						s += f * p[k].Get(i) * p[l].Get(j)
					}
				}
				cov[i][j] += v * s / 20
			}
		}
	}
	if vol == 0 {
		return 0, sim.Vec3{}, rot, sim.Vec3{}
	}
	cl := c.Scale(1 / vol)
	cc := [3]float64{cl.X, cl.Y, cl.Z}
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			cov[i][j] = cov[i][j]/vol - cc[i]*cc[j]
		}
	}
	tr := cov[0][0] + cov[1][1] + cov[2][2]
	var in sym3
	in.xx, in.yy, in.zz = tr-cov[0][0], tr-cov[1][1], tr-cov[2][2]
	in.xy, in.xz, in.yz = -cov[0][1], -cov[0][2], -cov[1][2]
	unit, rot = in.principal()
	return math.Abs(vol), cl.Add(fc), rot, unit
}
