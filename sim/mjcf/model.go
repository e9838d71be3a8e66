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
	// Keyframes are the model's <key> poses (SetKeyframe).
	Keyframes []Keyframe
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
	// LocalPos, LocalRot are the body frame in its parent's frame, and
	// Joints its joints (indices into Model.Joints, parent side first).
	LocalPos sim.Vec3
	LocalRot sim.Quat
	Joints   []int
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
	// Pos and Axis are the joint's anchor and unit axis in its body's frame.
	Pos, Axis sim.Vec3
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

// BodySite returns a site at the origin of the body named name, for a
// model that has no site where one is wanted (Menagerie's UR5e has none at
// its flange); it is not added to m.Sites.
func (m *Model) BodySite(name string) (Site, bool) {
	for i := range m.Bodies {
		if m.Bodies[i].Name == name && name != "" {
			return Site{Name: name, Body: i, Frame: m.Bodies[i].Frame, Type: "sphere"}, true
		}
	}
	return Site{}, false
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

// Kinematics returns every body's world pose for the MuJoCo joint
// coordinates q (len(Joints), rad or m; free joints keep their qpos0 pose):
// forward kinematics of the body tree, for inverse kinematics and resets.
func (m *Model) Kinematics(q []float64, pos []sim.Vec3, rot []sim.Quat) {
	m.kinematics(q, nil, pos, rot)
}

// kinematics is Kinematics with the free joints' bodies at free (by joint
// index; those missing at their qpos0 poses).
func (m *Model) kinematics(q []float64, free map[int]FreePose, pos []sim.Vec3, rot []sim.Quat) {
	if len(q) != len(m.Joints) || len(pos) != len(m.Bodies) || len(rot) != len(m.Bodies) {
		panic("mjcf: Kinematics needs len(q) = len(Joints) and len(pos) = len(rot) = len(Bodies)")
	}
	pos[0], rot[0] = sim.Vec3{}, sim.Identity()
	for i := 1; i < len(m.Bodies); i++ {
		b := &m.Bodies[i]
		if b.Parent < 0 {
			continue
		}
		pos[i], rot[i] = m.bodyPose(i, len(b.Joints), q, free, pos[b.Parent], rot[b.Parent])
	}
}

// bodyPose returns body i's world pose with its first k joints at q (the
// rest at their refs), its parent at (pp, pr).
func (m *Model) bodyPose(i, k int, q []float64, free map[int]FreePose, pp sim.Vec3, pr sim.Quat) (sim.Vec3, sim.Quat) {
	b := &m.Bodies[i]
	p, r := pp.Add(pr.Rotate(b.LocalPos)), pr.Mul(b.LocalRot)
	for _, ji := range b.Joints[:k] {
		j := &m.Joints[ji]
		switch j.Type {
		case "hinge":
			// rotate about the axis through the anchor
			dq := sim.QuatFromAxisAngle(j.Axis, q[ji]-j.Ref)
			a := r.Rotate(j.Pos)
			r = r.Mul(dq)
			p = p.Add(a).Sub(r.Rotate(j.Pos))
		case "slide":
			p = p.Add(r.Rotate(j.Axis.Scale(q[ji] - j.Ref)))
		case "free":
			p, r = b.Pos, b.Rot
			if f, ok := free[ji]; ok {
				p, r = f.Pos, f.Rot
			}
		}
	}
	return p, r.Normalize()
}

// SitePos returns site i's world position for joint coordinates q, with
// scratch pose storage from Kinematics (len(Bodies) each).
func (m *Model) SitePos(i int, q []float64, pos []sim.Vec3, rot []sim.Quat) sim.Vec3 {
	return m.SiteFK(&m.Sites[i], q, pos, rot)
}

// SiteFK is SitePos for a site that need not be one of m.Sites (BodySite).
func (m *Model) SiteFK(s *Site, q []float64, pos []sim.Vec3, rot []sim.Quat) sim.Vec3 {
	m.Kinematics(q, pos, rot)
	b := &m.Bodies[s.Body]
	// the site's pose in its body frame: Frame composed with the inverse
	// of the body's Frame (both on the same sim body)
	local := b.Frame.Rot.InvRotate(s.Frame.Pos.Sub(b.Frame.Pos))
	return pos[s.Body].Add(rot[s.Body].Rotate(local))
}

// QPos0 returns the MuJoCo coordinates of the model pose (the joints'
// refs).
func (m *Model) QPos0() []float64 {
	q := make([]float64, len(m.Joints))
	for i := range m.Joints {
		q[i] = m.Joints[i].Ref
	}
	return q
}

// JointPos returns joint i's MuJoCo coordinate (rad or m) in state s.
func (m *Model) JointPos(s *sim.State, i int) float64 {
	j := &m.Joints[i]
	if j.Sim < 0 {
		return 0
	}
	return s.JointPos(m.Sim, j.Sim) + j.Ref
}
