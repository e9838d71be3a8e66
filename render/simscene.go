package render

import (
	"github.com/go-gl/mathgl/mgl64"

	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

// Style says how FromModel turns a model's geoms into objects. The zero value
// (or a nil *Style) is usable: colours from the geoms' rgba, a wooden table
// where a table plane has no colour, DefaultLights and roles guessed from
// names.
type Style struct {
	Theme      Theme
	Lights     []Light    // nil: DefaultLights()
	Ambient    [3]float32 // zero: 0.3 grey
	Background [3]float32 // zero: pale blue
	// Materials overrides the material of geoms by geom name.
	Materials map[string]Material
	// Roles overrides the role of geoms by geom name, then body name.
	Roles map[string]Role
	// IDs overrides the segmentation id of geoms by geom name (to tell
	// apart static geoms, which all belong to the world body).
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

// FromModel returns a new Scene for model a at d's poses; see UpdateFromModel.
func FromModel(a *mjcf.Model, d *articulated.Data, st *Style) *Scene {
	sc := &Scene{}
	sc.UpdateFromModel(a, d, st)
	return sc
}

// UpdateFromModel rebuilds sc for the MJCF model a (compiled for the
// articulated engine) at the poses of d, whose kinematics must be current,
// reusing its storage: one object per geom (visual-only geoms included;
// MuJoCo's hidden groups 3 and above and fully transparent geoms left
// out) at its world pose, in its rgba colour, with segmentation id = body
// index + 1 (the world's geoms get 1), then applies st.Theme. It does not
// allocate once sc has held a scene of the same size.
func (sc *Scene) UpdateFromModel(a *mjcf.Model, d *articulated.Data, st *Style) {
	if st == nil {
		st = &zeroStyle
	}
	sc.Objects = sc.Objects[:0]
	for i := range a.Geoms {
		g := &a.Geoms[i]
		kind, ok := mjcfKinds[g.Type]
		if !ok || kind == Mesh || g.Group >= 3 || g.RGBA[3] == 0 {
			continue
		}
		pos, rot := GeomPose(d, g)
		o := Object{Name: g.Name, Kind: kind, Size: vec(g.Size), Pos: vec(pos), Rot: quat(rot), ID: int32(g.Body) + 1}
		if kind == Plane {
			o.Size[2] = 0
		}
		if id, ok := st.IDs[g.Name]; ok {
			o.ID = id
		}
		o.Role = guessRole(a, i, st)
		if mat, ok := st.Materials[g.Name]; ok {
			o.Mat = mat
		} else {
			o.Mat = defaultMaterial(g)
		}
		sc.Objects = append(sc.Objects, o)
		if len(sc.Objects) == MaxObjects {
			break
		}
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
		sc.addScenery(a, d)
	}
	sc.ApplyTheme(st.Theme)
	if st.Scenery {
		// after the theme: pads take the themed goal colour, paled
		if lo, hi, _, ok := tableBounds(a, d); ok {
			sc.addGoalPads(lo, hi, n)
		}
	}
}

// mjcfDefaultRGBA is MuJoCo's geom colour when the file gives none.
var mjcfDefaultRGBA = [4]float32{0.5, 0.5, 0.5, 1}

func defaultMaterial(g *mjcf.Geom) Material {
	c := g.RGBA
	if g.Type == "plane" && c == mjcfDefaultRGBA {
		if containsFold(g.Name, "table") {
			return Wood()
		}
		return Checker([3]float32{0.6, 0.6, 0.6}, [3]float32{0.5, 0.5, 0.5}, 5)
	}
	mt := Solid(c[0], c[1], c[2])
	if g.Type == "plane" {
		mt.Specular = 0.05
	}
	return mt
}

// guessRole is geom i's role: st.Roles by geom name, then body name; else
// goal or gripper by the names' words; a geom that collides with nothing
// (contype and conaffinity 0) is a goal marker; the world's geoms, and
// those of bodies welded to it (no joint and no mocap body on the way to
// the world), are static; the rest are objects.
func guessRole(a *mjcf.Model, i int, st *Style) Role {
	g := &a.Geoms[i]
	if r, ok := st.Roles[g.Name]; ok {
		return r
	}
	m := a.Model
	bname := ""
	if g.Body >= 0 && g.Body < len(m.Bodies) {
		bname = m.Bodies[g.Body].Name
		if r, ok := st.Roles[bname]; ok {
			return r
		}
	}
	has := func(keys ...string) bool {
		for _, k := range keys {
			if containsFold(g.Name, k) || containsFold(bname, k) {
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
	if len(m.Geoms) == len(a.Geoms) && m.Geoms[i].Contype == 0 && m.Geoms[i].Conaffinity == 0 {
		return RoleGoal
	}
	if !movable(m, g.Body) {
		return RoleStatic
	}
	return RoleObject
}

// movable reports whether body b can move: it or a body between it and the
// world has a joint or is a mocap body.
func movable(m *articulated.Model, b int) bool {
	for b > 0 && b < len(m.Bodies) {
		if m.Bodies[b].Mocap {
			return true
		}
		for j := range m.Joints {
			if m.Joints[j].Body == b {
				return true
			}
		}
		b = m.Bodies[b].Parent
	}
	return false
}

// artBody returns the index of the body named name in a.
func artBody(a *mjcf.Model, name string) (int, bool) {
	for i := range a.Model.Bodies {
		if a.Model.Bodies[i].Name == name {
			return i, true
		}
	}
	return -1, false
}

// ResolveCamera returns cam in world coordinates: a camera with Body set is
// attached to that body's current pose in d. It reports false when a has
// no body of that name.
func ResolveCamera(a *mjcf.Model, d *articulated.Data, cam Camera) (Camera, bool) {
	if cam.Body == "" {
		return cam, true
	}
	b, ok := artBody(a, cam.Body)
	if !ok || b >= len(d.Xpos) {
		return cam, false
	}
	p, q := BodyPose(d, b)
	return cam.Attach(vec(p), quat(q)), true
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
