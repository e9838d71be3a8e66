package mjcf

import "github.com/vlmrb/vlmrb/sim"

// Model is an imported MJCF model: the compiled sim.Model and the MJCF
// view of it.
type Model struct {
	Name string
	Sim  *sim.Model
	// Bodies in MJCF order; Bodies[0] is the world.
	Bodies    []Body
	Joints    []Joint
	Actuators []Actuator
	Sites     []Site
	Cameras   []Camera
	// Geoms are all geoms, colliding or visual, with what rendering needs.
	Geoms []Geom
	// Warnings list what was dropped or approximated.
	Warnings []string
}

// Frame is a pose relative to a sim body (its Pos, Rot frame).
type Frame struct {
	Body sim.BodyID
	Pos  sim.Vec3
	Rot  sim.Quat
}

// World returns the frame's world pose in state s.
func (f Frame) World(s *sim.State) (sim.Vec3, sim.Quat) {
	b := &s.Bodies[f.Body]
	return b.Pos.Add(b.Rot.Rotate(f.Pos)), b.Rot.Mul(f.Rot)
}

// Body is one MJCF body.
type Body struct {
	Name   string
	Parent int // index in Model.Bodies; -1 for the world
	// Frame is the body frame on the sim body that carries it.
	Frame Frame
	// Pos, Rot are the body frame's world pose at qpos0.
	Pos sim.Vec3
	Rot sim.Quat
	// Mass (kg), principal Inertia (kg·m²) and the inertial frame (IPos,
	// IQuat in the body frame), as MuJoCo's compiler computes them.
	Mass    float64
	Inertia sim.Vec3
	IPos    sim.Vec3
	IQuat   sim.Quat
}

// Joint is one MJCF joint.
type Joint struct {
	Name string
	Type string // hinge, slide, free
	Body int
	// Sim is the sim joint (-1 for a free joint).
	Sim sim.JointID
	// Ref is MuJoCo's qpos0: the MuJoCo coordinate is q_sim + Ref (rad or m).
	Ref     float64
	Limited bool
	Range   [2]float64
}

// Actuator is one MJCF actuator.
type Actuator struct {
	Name  string
	Type  string // motor, position, velocity, general
	Joint int
	Sim   sim.ActuatorID
	// Ctrl is the actuator's index in sim.State.Ctrl.
	Ctrl        int
	CtrlLimited bool
	CtrlRange   [2]float64
}

// Site is an MJCF site: a named frame (end effectors, targets).
type Site struct {
	Name  string
	Body  int
	Frame Frame
	Type  string
	Size  sim.Vec3
	RGBA  [4]float32
}

// Camera is an MJCF camera: it looks along its frame's −z with +y up.
type Camera struct {
	Name  string
	Body  int
	Frame Frame
	// Fovy is the vertical field of view (degrees).
	Fovy float64
}

// Geom is an MJCF geom as rendering needs it.
type Geom struct {
	Name  string
	Type  string // plane, box, sphere, capsule, cylinder, ellipsoid, mesh
	Body  int
	Frame Frame
	// Size follows sim's conventions (half extents, radius and half length).
	Size sim.Vec3
	RGBA [4]float32
	// Mesh is the loaded mesh of a mesh geom, in the geom frame.
	Mesh *Mesh
	// Shape is the sim shape (-1 when the geom is not one: meshes,
	// ellipsoids).
	Shape sim.ShapeID
	// Collides says the geom collides in sim.
	Collides bool
	Group    int
}

// Mesh is a triangle mesh (m, in the mesh's frame after scale).
type Mesh struct {
	Name      string
	Vertices  []sim.Vec3
	Triangles [][3]int32
}

// Site returns the index of the site named name.
func (m *Model) Site(name string) (int, bool) {
	for i := range m.Sites {
		if m.Sites[i].Name == name {
			return i, true
		}
	}
	return 0, false
}

// Joint returns the index of the joint named name.
func (m *Model) Joint(name string) (int, bool) {
	for i := range m.Joints {
		if m.Joints[i].Name == name {
			return i, true
		}
	}
	return 0, false
}

// BodyPose returns body i's world pose in state s.
func (m *Model) BodyPose(s *sim.State, i int) (sim.Vec3, sim.Quat) {
	return m.Bodies[i].Frame.World(s)
}

// JointPos returns joint i's MuJoCo coordinate (rad or m) in state s.
func (m *Model) JointPos(s *sim.State, i int) float64 {
	j := &m.Joints[i]
	if j.Sim < 0 {
		return 0
	}
	return s.JointPos(m.Sim, j.Sim) + j.Ref
}
