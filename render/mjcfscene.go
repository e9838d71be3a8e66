package render

import (
	"github.com/go-gl/mathgl/mgl64"

	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

// MJCFScene draws an imported MJCF model: its geoms (primitives, ellipsoids
// and meshes as visual geometry) in their rgba or material colours, at the
// poses of a sim.State. Geoms of MuJoCo's hidden groups (3 and above) and
// fully transparent ones are left out, as MuJoCo's viewer does by default.
type MJCFScene struct {
	m      *mjcf.Model
	meshes map[*mjcf.Mesh]*TriMesh
	Scene  Scene
}

// NewMJCFScene prepares the scene of m (meshes are converted once).
func NewMJCFScene(m *mjcf.Model) *MJCFScene {
	ms := &MJCFScene{m: m, meshes: map[*mjcf.Mesh]*TriMesh{}}
	for _, g := range m.Geoms {
		if g.Mesh == nil || ms.meshes[g.Mesh] != nil {
			continue
		}
		t := &TriMesh{Vertices: make([][3]float32, len(g.Mesh.Vertices)), Triangles: make([][3]uint32, len(g.Mesh.Triangles))}
		for i, v := range g.Mesh.Vertices {
			t.Vertices[i] = [3]float32{float32(v.X), float32(v.Y), float32(v.Z)}
		}
		for i, tr := range g.Mesh.Triangles {
			t.Triangles[i] = [3]uint32{uint32(tr[0]), uint32(tr[1]), uint32(tr[2])}
		}
		ms.meshes[g.Mesh] = t
	}
	return ms
}

var mjcfKinds = map[string]Kind{"box": Box, "sphere": Sphere, "capsule": Capsule, "cylinder": Cylinder, "plane": Plane, "ellipsoid": Ellipsoid, "mesh": Mesh}

// Update poses the geoms for state s and returns the scene.
func (ms *MJCFScene) Update(s *sim.State) *Scene {
	sc := &ms.Scene
	sc.Objects = sc.Objects[:0]
	for i := range ms.m.Geoms {
		g := &ms.m.Geoms[i]
		if g.Group >= 3 || g.RGBA[3] == 0 {
			continue
		}
		kind, ok := mjcfKinds[g.Type]
		if !ok || (kind == Mesh && ms.meshes[g.Mesh] == nil) {
			continue
		}
		pos, rot := g.Frame.World(s)
		o := Object{Name: g.Name, Kind: kind, Size: vec(g.Size), Pos: vec(pos), Rot: quat(rot),
			ID: int32(g.Frame.Body) + 1, Mesh: ms.meshes[g.Mesh], Role: RoleRobot}
		c := g.RGBA
		o.Mat = Solid(c[0], c[1], c[2])
		if kind == Plane {
			o.Size[2] = 0
			o.Role = RoleStatic
			o.Mat = Checker([3]float32{c[0], c[1], c[2]}, [3]float32{c[0] * 0.8, c[1] * 0.8, c[2] * 0.8}, 5)
			if o.Size[0] == 0 && o.Size[1] == 0 {
				o.Size = mgl64.Vec3{}
			}
		}
		sc.Objects = append(sc.Objects, o)
		if len(sc.Objects) == MaxObjects {
			break
		}
	}
	sc.Lights = append(sc.Lights[:0], defaultLights...)
	sc.Ambient = [3]float32{0.3, 0.3, 0.32}
	sc.Background = [3]float32{0.62, 0.72, 0.85}
	return sc
}

// MJCFCamera returns camera i of m at its pose in state s, or, for i < 0,
// a camera looking at the model's geoms from the front-right above.
func MJCFCamera(m *mjcf.Model, s *sim.State, i, w, h int) Camera {
	if i >= 0 && i < len(m.Cameras) {
		c := &m.Cameras[i]
		pos, rot := c.Frame.World(s)
		return Camera{Name: c.Name, Pos: vec(pos), Rot: quat(rot), FovY: c.Fovy, Width: w, Height: h, Far: 50}
	}
	// frame the non-plane geoms (their centres ± bounding size)
	lo, hi := sim.V3(1e9, 1e9, 1e9), sim.V3(-1e9, -1e9, -1e9)
	n := 0
	for i := range m.Geoms {
		g := &m.Geoms[i]
		if g.Type == "plane" || g.Group >= 3 {
			continue
		}
		p, _ := g.Frame.World(s)
		r := g.Size.Norm()
		if g.Mesh != nil {
			for _, v := range g.Mesh.Vertices {
				r = max(r, v.Norm())
			}
		}
		lo = sim.V3(min(lo.X, p.X-r), min(lo.Y, p.Y-r), min(lo.Z, p.Z-r))
		hi = sim.V3(max(hi.X, p.X+r), max(hi.Y, p.Y+r), max(hi.Z, p.Z+r))
		n++
	}
	return frameBox(lo, hi, n, w, h)
}

// frameBox is the default camera of a model whose n non-plane geoms fill
// the box lo..hi: from the front-right above, the box's bounding sphere
// in a 45° view.
func frameBox(lo, hi sim.Vec3, n, w, h int) Camera {
	if n == 0 {
		lo, hi = sim.V3(-0.5, -0.5, 0), sim.V3(0.5, 0.5, 0.5)
	}
	c := lo.Add(hi).Scale(0.5)
	r := max(hi.Sub(lo).Norm()/2, 0.02)
	dir := sim.V3(1, -0.8, 0.6).Normalize()
	eye := c.Add(dir.Scale(r / 0.38)) // fits a sphere of radius r in a 45° view
	cam := LookAt(vec(eye), vec(c), mgl64.Vec3{0, 0, 1}, 45, w, h)
	cam.Name, cam.Far = "default", 50
	return cam
}
