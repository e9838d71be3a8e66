package render

import (
	"github.com/go-gl/mathgl/mgl64"

	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

// ModelScene draws an MJCF model compiled for the articulated engine
// (mjcf.Model): its geoms (primitives, ellipsoids and meshes as
// visual geometry) in their rgba or material colours, at the world
// poses of an articulated.Data — each geom at its body's frame (the
// engine's Xpos, Xquat) composed with its local pose. The Data's
// kinematics must be current (articulated.Forward after changing Qpos).
type ModelScene struct {
	a      *mjcf.Model
	meshes map[*mjcf.Mesh]*TriMesh
	Scene  Scene
}

// NewModelScene prepares the scene of a (meshes are converted once).
func NewModelScene(a *mjcf.Model) *ModelScene {
	as := &ModelScene{a: a, meshes: map[*mjcf.Mesh]*TriMesh{}}
	for _, g := range a.Geoms {
		if g.Mesh == nil || as.meshes[g.Mesh] != nil {
			continue
		}
		as.meshes[g.Mesh] = mjcfTriMesh(g.Mesh)
	}
	return as
}

func mjcfTriMesh(m *mjcf.Mesh) *TriMesh {
	t := &TriMesh{Vertices: make([][3]float32, len(m.Vertices)), Triangles: make([][3]uint32, len(m.Triangles))}
	for i, v := range m.Vertices {
		t.Vertices[i] = [3]float32{float32(v.X), float32(v.Y), float32(v.Z)}
	}
	for i, tr := range m.Triangles {
		t.Triangles[i] = [3]uint32{uint32(tr[0]), uint32(tr[1]), uint32(tr[2])}
	}
	return t
}

// BodyPose is body b's world frame in d (the engine's Xpos, Xquat).
func BodyPose(d *articulated.Data, b int) (sim.Vec3, sim.Quat) {
	p, q := d.Xpos[b], d.Xquat[b]
	return sim.V3(p[0], p[1], p[2]), sim.Quat{W: q[0], X: q[1], Y: q[2], Z: q[3]}
}

// GeomPose is geom g's world pose in d.
func GeomPose(d *articulated.Data, g *mjcf.Geom) (sim.Vec3, sim.Quat) {
	bp, bq := BodyPose(d, g.Body)
	return bp.Add(bq.Rotate(g.Pos)), bq.Mul(g.Rot).Normalize()
}

// Update poses the geoms for d and returns the scene. Geoms of MuJoCo's
// hidden groups (3 and above) and fully transparent ones are left out.
func (as *ModelScene) Update(d *articulated.Data) *Scene {
	sc := &as.Scene
	sc.Objects = sc.Objects[:0]
	for i := range as.a.Geoms {
		g := &as.a.Geoms[i]
		if g.Group >= 3 || g.RGBA[3] == 0 {
			continue
		}
		kind, ok := mjcfKinds[g.Type]
		if !ok || (kind == Mesh && as.meshes[g.Mesh] == nil) {
			continue
		}
		pos, rot := GeomPose(d, g)
		o := Object{Name: g.Name, Kind: kind, Size: vec(g.Size), Pos: vec(pos), Rot: quat(rot),
			ID: int32(g.Body) + 1, Mesh: as.meshes[g.Mesh], Role: RoleRobot}
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

// ModelCamera returns camera i of a at its pose in d, or, for i < 0, a
// camera looking at the model's geoms from the front-right above (as
// frameBox).
func ModelCamera(a *mjcf.Model, d *articulated.Data, i, w, h int) Camera {
	if i >= 0 && i < len(a.Cameras) {
		c := &a.Cameras[i]
		bp, bq := BodyPose(d, c.Body)
		pos, rot := bp.Add(bq.Rotate(c.Pos)), bq.Mul(c.Rot).Normalize()
		return Camera{Name: c.Name, Pos: vec(pos), Rot: quat(rot), FovY: c.Fovy, Width: w, Height: h, Far: 50}
	}
	lo, hi := sim.V3(1e9, 1e9, 1e9), sim.V3(-1e9, -1e9, -1e9)
	n := 0
	for i := range a.Geoms {
		g := &a.Geoms[i]
		if g.Type == "plane" || g.Group >= 3 {
			continue
		}
		p, _ := GeomPose(d, g)
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

// mjcfKinds maps MJCF geom types to the renderer's kinds.
var mjcfKinds = map[string]Kind{"box": Box, "sphere": Sphere, "capsule": Capsule, "cylinder": Cylinder, "plane": Plane, "ellipsoid": Ellipsoid, "mesh": Mesh}

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
