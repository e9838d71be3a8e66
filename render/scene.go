package render

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Kind is a primitive shape.
type Kind uint8

// Primitive kinds. Sizes follow MuJoCo: Box half extents (x, y, z); Sphere
// radius Size[0]; Capsule and Cylinder radius Size[0] and half length Size[1]
// along the local z axis; Plane half extents Size[0], Size[1] in the local xy
// plane, facing +z.
const (
	Box Kind = iota
	Sphere
	Capsule
	Cylinder
	Plane
	// Ellipsoid has semi-axes Size (x, y, z).
	Ellipsoid
	// Mesh draws Object.Mesh (scaled by nothing; vertices in the object
	// frame, m).
	Mesh
)

// TriMesh is a triangle mesh for Mesh objects. Share one TriMesh between
// objects and frames: renderers cache its GPU-side copy by pointer.
type TriMesh struct {
	Vertices  [][3]float32
	Triangles [][3]uint32
}

func (k Kind) String() string {
	switch k {
	case Box:
		return "box"
	case Sphere:
		return "sphere"
	case Capsule:
		return "capsule"
	case Cylinder:
		return "cylinder"
	case Plane:
		return "plane"
	case Ellipsoid:
		return "ellipsoid"
	case Mesh:
		return "mesh"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Texture is a procedural surface pattern computed per pixel from the
// surface coordinates (m) of each face.
type Texture uint8

// Procedural textures. Each mixes Material.Color and Material.Color2.
const (
	TexNone    Texture = iota
	TexChecker         // squares of side 1/TexScale m
	TexWood            // wavy grain with period about 1/TexScale m
	TexStripes         // diagonal stripes, period 1/TexScale m
)

// Material is how a surface looks. Colours are display RGB in [0, 1].
type Material struct {
	Color     [3]float32
	Color2    [3]float32 // second colour of the texture
	Texture   Texture
	TexScale  float32 // texture periods per m (0 means 10)
	Specular  float32 // Blinn-Phong specular strength in [0, 1]
	Shininess float32 // Blinn-Phong exponent (0 means 32)
}

// Role says what an object is for the themes and for readers of the scene.
type Role uint8

// Roles. Themes swap or hide the appearance of RoleObject, RoleGoal and
// RoleGripper objects and keep RoleStatic ones recognisable as furniture.
const (
	RoleStatic  Role = iota // table, walls, cabinet
	RoleObject              // something the task manipulates
	RoleGoal                // a visual-only goal marker
	RoleGripper             // the robot's gripper
	RoleRobot               // the robot's arm and base (not named in prompts)
)

// Object is one primitive in the world.
type Object struct {
	Name string
	Kind Kind
	Size mgl64.Vec3 // m; meaning per Kind
	Pos  mgl64.Vec3 // m, world frame
	Rot  mgl64.Quat // local-to-world
	Mat  Material
	// Mesh is the geometry of a Mesh object.
	Mesh *TriMesh
	// ID is the segmentation value written for this object (0 is the
	// background). FromModel uses body index + 1, so all geoms of a body share
	// an id.
	ID   int32
	Role Role
	// NoShadow keeps the object out of the shadow map (it casts no shadow
	// and does not widen the shadow frustum); planes never cast shadows.
	NoShadow bool
	// NoReceive draws the object without shadows falling on it, for
	// scenery that no caster's shadow reaches in view (floor, backdrop,
	// legs, the arm): it skips the shadow-map lookup of each of its pixels.
	NoReceive bool
	// cover, set by the scenery on the floor, is the table top above it.
	cover coverRect
}

// coverRect is an opaque horizontal rectangle [x0, x1] × [y0, y1] at height
// z (world, m) above a horizontal plane object: from an eye above z it hides
// a rectangle of the plane, which batch.build leaves out of the plane's
// triangles (under multisampling llvmpipe shades every fragment it
// rasterizes, hidden or not).
type coverRect struct {
	x0, y0, x1, y1, z float64
	ok                bool
}

// Light is a directional or point light.
type Light struct {
	// Dir is the direction the light travels (directional lights).
	Dir mgl64.Vec3
	// Pos is the position (m) of a point light; used when Point is true.
	Pos   mgl64.Vec3
	Point bool
	Color [3]float32
	// Shadow asks for a shadow map from this light (directional lights
	// only; the first such light wins) when the renderer has shadows on.
	Shadow bool
}

// Scene is everything a renderer needs apart from the camera.
type Scene struct {
	Objects    []Object
	Lights     []Light // at most MaxLights are used
	Ambient    [3]float32
	Background [3]float32
}

// MaxLights is the number of lights the shaders evaluate.
const MaxLights = 4

// MaxObjects is the largest number of objects one Scene may hold.
const MaxObjects = 512

// DefaultLights returns a key light from above-front casting shadows and a
// weaker fill light, which read well from the named cameras.
func DefaultLights() []Light {
	return []Light{
		{Dir: mgl64.Vec3{0.3, 0.45, -1}, Color: [3]float32{0.75, 0.75, 0.72}, Shadow: true},
		{Dir: mgl64.Vec3{-0.5, -0.3, -0.6}, Color: [3]float32{0.25, 0.25, 0.28}},
	}
}

// Validate checks the scene for values no backend can draw.
func (sc *Scene) Validate() error {
	if len(sc.Objects) > MaxObjects {
		return fmt.Errorf("render: scene has %d objects, limit %d", len(sc.Objects), MaxObjects)
	}
	for i := range sc.Objects {
		o := &sc.Objects[i]
		for _, v := range [...]float64{o.Size[0], o.Size[1], o.Size[2], o.Pos[0], o.Pos[1], o.Pos[2], o.Rot.W, o.Rot.V[0], o.Rot.V[1], o.Rot.V[2]} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("render: object %d (%q) has a non-finite pose or size", i, o.Name)
			}
		}
		if o.Kind > Mesh {
			return fmt.Errorf("render: object %d (%q) has unknown kind %d", i, o.Name, o.Kind)
		}
		if o.Kind == Mesh && o.Mesh == nil {
			return fmt.Errorf("render: mesh object %d (%q) has no Mesh", i, o.Name)
		}
		if o.Size[0] < 0 || o.Size[1] < 0 || o.Size[2] < 0 {
			return fmt.Errorf("render: object %d (%q) has a negative size", i, o.Name)
		}
	}
	return nil
}

// Find returns the index of the first object called name, or -1.
func (sc *Scene) Find(name string) int {
	for i := range sc.Objects {
		if sc.Objects[i].Name == name {
			return i
		}
	}
	return -1
}

// Solid returns a plain material of the given colour with a little gloss.
func Solid(r, g, b float32) Material {
	return Material{Color: [3]float32{r, g, b}, Specular: 0.25, Shininess: 32}
}

// Wood returns a wood-grain material (for tables).
func Wood() Material {
	return Material{Color: [3]float32{0.66, 0.5, 0.33}, Color2: [3]float32{0.56, 0.41, 0.25},
		Texture: TexWood, TexScale: 8, Specular: 0.1, Shininess: 16}
}

// Checker returns a checker material with squares of side 1/scale m.
func Checker(a, b [3]float32, scale float32) Material {
	return Material{Color: a, Color2: b, Texture: TexChecker, TexScale: scale, Specular: 0.05, Shininess: 16}
}
