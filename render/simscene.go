package render

import (
	"github.com/go-gl/mathgl/mgl64"
	"github.com/vlmrb/vlmrb/sim"
)

// Style says how FromSim turns simulator shapes into objects. The zero value
// (or a nil *Style) is usable: colours from ShapeDesc.Color, a wooden table,
// DefaultLights and roles guessed from names.
type Style struct {
	Theme      Theme
	Lights     []Light    // nil: DefaultLights()
	Ambient    [3]float32 // zero: 0.3 grey
	Background [3]float32 // zero: pale blue
	// Materials overrides the material of shapes by shape name.
	Materials map[string]Material
	// Roles overrides the role of shapes by shape name, then body name.
	Roles map[string]Role
	// IDs overrides the segmentation id of shapes by shape name (to tell
	// apart static shapes, which all belong to the world body).
	IDs map[string]int32
	// Scenery adds a floor, table legs, a backdrop and a robot arm posed
	// to the gripper (see Scenery); visual only.
	Scenery bool
}

var (
	zeroStyle     Style
	defaultLights = DefaultLights()
)

func vec(v sim.Vec3) mgl64.Vec3  { return mgl64.Vec3{v.X, v.Y, v.Z} }
func quat(q sim.Quat) mgl64.Quat { return mgl64.Quat{W: q.W, V: mgl64.Vec3{q.X, q.Y, q.Z}} }

var kinds = [...]Kind{sim.Box: Box, sim.Sphere: Sphere, sim.Capsule: Capsule, sim.Cylinder: Cylinder, sim.Plane: Plane}

// FromSim returns a new Scene for (m, s); see UpdateFromSim.
func FromSim(m *sim.Model, s *sim.State, st *Style) *Scene {
	sc := &Scene{}
	sc.UpdateFromSim(m, s, st)
	return sc
}

// UpdateFromSim rebuilds sc for (m, s), reusing its storage: one object per
// shape (visual-only shapes included) at its current world pose, with
// segmentation id = body index + 1, then applies st.Theme. It does not
// allocate once sc has held a scene of the same size.
func (sc *Scene) UpdateFromSim(m *sim.Model, s *sim.State, st *Style) {
	if st == nil {
		st = &zeroStyle
	}
	sc.Objects = sc.Objects[:0]
	for i := range m.Shapes {
		d := &m.Shapes[i]
		pos, rot := s.ShapePose(m, sim.ShapeID(i))
		o := Object{Name: d.Name, Size: vec(d.Size), Pos: vec(pos), Rot: quat(rot), ID: int32(d.Body) + 1}
		if int(d.Kind) < len(kinds) {
			o.Kind = kinds[d.Kind]
		}
		if id, ok := st.IDs[d.Name]; ok {
			o.ID = id
		}
		o.Role = guessRole(m, d, st)
		if mat, ok := st.Materials[d.Name]; ok {
			o.Mat = mat
		} else {
			o.Mat = defaultMaterial(d)
		}
		sc.Objects = append(sc.Objects, o)
	}
	if st.Lights != nil {
		sc.Lights = st.Lights
	} else {
		sc.Lights = append(sc.Lights[:0], defaultLights...)
	}
	sc.Ambient, sc.Background = st.Ambient, st.Background
	if sc.Ambient == ([3]float32{}) {
		sc.Ambient = [3]float32{0.3, 0.3, 0.32}
	}
	if sc.Background == ([3]float32{}) {
		sc.Background = [3]float32{0.62, 0.72, 0.85}
	}
	n := len(sc.Objects)
	if st.Scenery {
		sc.addScenery(m, s)
	}
	sc.ApplyTheme(st.Theme)
	if st.Scenery {
		// after the theme: pads take the themed goal colour, paled
		if lo, hi, _, ok := tableBounds(m, s); ok {
			sc.addGoalPads(lo, hi, n)
		}
	}
}

func defaultMaterial(d *sim.ShapeDesc) Material {
	c := d.Color
	if c == ([4]float32{}) {
		c = [4]float32{0.6, 0.6, 0.6, 1}
	}
	if d.Kind == sim.Plane && c == ([4]float32{0.6, 0.6, 0.6, 1}) {
		if containsFold(d.Name, "table") {
			return Wood()
		}
		return Checker([3]float32{0.6, 0.6, 0.6}, [3]float32{0.5, 0.5, 0.5}, 5)
	}
	mt := Solid(c[0], c[1], c[2])
	if d.Kind == sim.Plane {
		mt.Specular = 0.05
	}
	return mt
}

func guessRole(m *sim.Model, d *sim.ShapeDesc, st *Style) Role {
	if r, ok := st.Roles[d.Name]; ok {
		return r
	}
	var b *sim.BodyDesc
	if int(d.Body) < len(m.Bodies) {
		b = &m.Bodies[d.Body]
		if r, ok := st.Roles[b.Name]; ok {
			return r
		}
	}
	bname := ""
	if b != nil {
		bname = b.Name
	}
	has := func(keys ...string) bool {
		for _, k := range keys {
			if containsFold(d.Name, k) || containsFold(bname, k) {
				return true
			}
		}
		return false
	}
	if has("goal", "target", "site", "marker") {
		return RoleGoal
	}
	if has("hand", "finger", "pad", "gripper", "palm", "claw") {
		return RoleGripper
	}
	if d.NoCollide {
		return RoleGoal
	}
	if b == nil || d.Body == sim.World || (b.Mass == 0 && !b.Mocap) {
		return RoleStatic
	}
	return RoleObject
}

// ResolveCamera returns cam in world coordinates: a camera with Body set is
// attached to that body's current pose. It reports false when the body does
// not exist.
func ResolveCamera(m *sim.Model, s *sim.State, cam Camera) (Camera, bool) {
	if cam.Body == "" {
		return cam, true
	}
	b, ok := m.Body(cam.Body)
	if !ok || int(b) >= len(s.Bodies) {
		return cam, false
	}
	bs := s.Bodies[b]
	return cam.Attach(vec(bs.Pos), quat(bs.Rot)), true
}

// containsFold reports whether s contains the lower-case ASCII word k,
// ignoring ASCII case, without allocating.
func containsFold(s, k string) bool {
	for i := 0; i+len(k) <= len(s); i++ {
		ok := true
		for j := 0; j < len(k); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != k[j] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}
