package sim

// BodyID indexes Model.Bodies and State.Bodies. It is stable for the life of
// a Model. Body 0 is World, the static world body.
type BodyID int32

// ShapeID indexes Model.Shapes.
type ShapeID int32

// JointID indexes Model.Joints.
type JointID int32

// World is the static world body every Model has at index 0. Static shapes
// (the table) may be attached to it and joints may use it as a parent.
const World BodyID = 0

// ShapeKind selects a collision primitive.
type ShapeKind uint8

// Shape kinds. Sizes are given in ShapeDesc.Size (m) as in MuJoCo:
//
//	Box:      Size = half extents (x, y, z)
//	Sphere:   Size.X = radius
//	Capsule:  Size.X = radius, Size.Y = half length of the segment along local z
//	Cylinder: Size.X = radius, Size.Y = half height along local z
//	Plane:    half-space below local z = 0 (normal +z); Size.X, Size.Y are the
//	          visual half extents only (0 = infinite); only on static bodies
const (
	Box ShapeKind = iota
	Sphere
	Capsule
	Cylinder
	Plane
)

// String returns the kind's name.
func (k ShapeKind) String() string {
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
	}
	return "unknown"
}

// JointKind selects a joint type.
type JointKind uint8

// Joint kinds.
const (
	// Weld holds the child at a fixed pose relative to the parent through a
	// soft spring-damper (time constant WeldTimeConst, damping ratio
	// WeldDampingRatio), like MuJoCo's weld equality with solref. The
	// MetaWorld hand follows its mocap body through one.
	Weld JointKind = iota
	// Prismatic lets the child slide along Axis; the coordinate is in m.
	Prismatic
	// Revolute lets the child rotate about Axis through the anchor; the
	// coordinate is in rad (right-handed about Axis).
	Revolute
)

// String returns the kind's name.
func (k JointKind) String() string {
	switch k {
	case Weld:
		return "weld"
	case Prismatic:
		return "prismatic"
	case Revolute:
		return "revolute"
	}
	return "unknown"
}

// Options are the global simulation settings. Zero fields take the defaults
// of DefaultOptions when the Model is built.
type Options struct {
	Gravity  Vec3    // m/s² (default 0, 0, -9.81)
	Timestep float64 // s per Step (default 0.0025)
	// Substeps is the number of soft-step substeps per Step (default 4).
	Substeps int
	// Iterations is the number of biased velocity iterations per substep
	// (default 1; the relax pass adds one unbiased iteration).
	Iterations int
	// ContactHertz is the contact stiffness (Hz) of the soft contact
	// constraint; it is capped at a quarter of the substep rate (default 120).
	ContactHertz float64
	// ContactDampingRatio is the contact damping ratio (default 10, Box2D v3).
	ContactDampingRatio float64
	// JointHertz and JointDampingRatio soften the locked rows and limits of
	// prismatic and revolute joints (default 1000 Hz, 1, which the cap at a
	// quarter of the substep rate turns into "as stiff as stays stable":
	// MuJoCo's joints are exact, and soft finger joints let pads tilt and
	// wedge a pushed cube).
	JointHertz, JointDampingRatio float64
	// LimitHertz and LimitDampingRatio soften joint limits (default 60 Hz,
	// 1): a stiffer limit makes a door slammed into it rebound (the hinge
	// and the one-sided limit row fight within a substep), a softer one
	// lets it overshoot; 60 Hz overshoots 0.1° at 3.5 rad/s.
	LimitHertz, LimitDampingRatio float64
	// MaxPushSpeed caps the speed (m/s) at which penetration is resolved
	// (default 0.5).
	MaxPushSpeed float64
	// ContactMargin is the distance (m) at which speculative contacts are
	// created before shapes touch (default 0.002).
	ContactMargin float64
	// LinearSlop is the penetration (m) allowed without position correction,
	// which keeps resting contact quiet (default 0.0001).
	LinearSlop float64
	// MaxSpeed (m/s) and MaxAngularSpeed (rad/s) cap body velocities; a cap
	// that acts is counted in Warnings.SpeedCap (defaults 20 and 200).
	MaxSpeed, MaxAngularSpeed float64
	// RestitutionThreshold is the approach speed (m/s) below which
	// restitution is ignored (default 0.05).
	RestitutionThreshold float64
	// Gyroscopic adds the gyroscopic torque −ω×Iω (implicit, one Newton
	// step per substep), so a spinning asymmetric body conserves angular
	// momentum (the tennis-racket flip). Off by default: tabletop scenes
	// rarely need it and it costs a 3×3 solve per body per substep.
	Gyroscopic bool
	// MaxJointPush caps the speed (m/s) at which the anchor separation of
	// a revolute (or compound) joint is corrected (default 0: no cap). A
	// stiff correction of joints stretched by an impact pushes bodies
	// apart, and against the floor that throws them up: an imported
	// humanoid landing at 2 m/s rebounds 5 cm without a cap, not with
	// 0.2 m/s (bench/RESULTS.md). Too low a cap lets loaded chains sag.
	MaxJointPush float64
	// JointMassPerStep computes the joints' effective masses, and the
	// coefficients of their axis rows that depend on them, once per Step at
	// the step-start poses (as the contacts' are) instead of after every
	// substep's position update; the joints' errors, levers and coordinates
	// still follow every substep. It saves most of a joint update (the 3×3
	// point-constraint inverse and the axis masses) on jointed models and
	// changes their results beyond round-off, so the built-in scenes leave
	// it off (their runs regenerate bit for bit) and sim/mjcf sets it.
	JointMassPerStep bool
	// MaxContacts caps the contact manifolds (shape pairs in contact, up
	// to four points each) one step keeps (default 8192, about 12 MB of
	// solver state with the previous step's). Pairs past it are dropped
	// and counted in Warnings.ContactCap: a model of thousands of
	// overlapping bodies degrades instead of exhausting memory.
	MaxContacts int
}

// DefaultOptions returns the defaults described on Options.
func DefaultOptions() Options {
	return Options{
		Gravity:              Vec3{0, 0, -9.81},
		Timestep:             0.0025,
		Substeps:             4,
		Iterations:           1,
		ContactHertz:         120,
		ContactDampingRatio:  10,
		JointHertz:           1000,
		JointDampingRatio:    1,
		LimitHertz:           60,
		LimitDampingRatio:    1,
		MaxPushSpeed:         0.5,
		MaxContacts:          8192,
		ContactMargin:        0.002,
		LinearSlop:           0.0001,
		MaxSpeed:             20,
		MaxAngularSpeed:      200,
		RestitutionThreshold: 0.05,
	}
}

// BodyDesc describes a rigid body.
type BodyDesc struct {
	Name string
	// Mass (kg); 0 makes the body static unless Mocap is set.
	Mass float64
	// Inertia is the diagonal of the inertia tensor (kg·m²) about the centre
	// of mass in the body frame. Zero means "compute it from the shapes",
	// spreading Mass over the colliding shapes in proportion to their volume.
	Inertia Vec3
	// COM is the centre of mass in the body frame (m). When Inertia is zero
	// it is computed from the shapes and this field is ignored.
	COM Vec3
	// Pos and Rot are the initial pose of the body frame in the world.
	Pos Vec3
	Rot Quat
	// Vel (m/s, of the centre of mass) and AngVel (rad/s) are the initial
	// velocities in the world frame.
	Vel, AngVel Vec3
	// Mocap makes the body kinematic: it has infinite mass and follows the
	// target set by State.SetMocap, reaching it at the end of each Step.
	Mocap bool
	// LinearDamping (1/s) and AngularDamping (1/s) slow the body like air drag.
	LinearDamping, AngularDamping float64
	// GravityOff disables gravity for this body.
	GravityOff bool

	// Filled by Build: the body's shapes are Shapes[FirstShape :
	// FirstShape+NumShapes] when they were added contiguously; use
	// ShapesOf for the general case.
	invMass float64
}

// ShapeDesc describes a collision (or visual-only) shape attached to a body.
type ShapeDesc struct {
	Name string
	Kind ShapeKind
	// Size in m, see the ShapeKind constants.
	Size Vec3
	// Pos and Rot are the pose of the shape in its body's frame.
	Pos Vec3
	Rot Quat
	// Friction is the sliding friction coefficient μ; a contact uses the
	// larger of its two shapes' values, as MuJoCo does (default 1 when
	// zero; use a tiny positive value for "frictionless").
	Friction float64
	// TorsionalFriction (m) limits the torque about a contact normal to
	// TorsionalFriction × normal force (MuJoCo condim 4's second friction
	// coefficient; larger of the two shapes).
	TorsionalFriction float64
	// Restitution e in [0, 1]: bounce speed ratio (larger of the two shapes).
	Restitution float64
	// Color is the RGBA colour for the renderer; sim ignores it.
	Color [4]float32
	// NoCollide makes the shape visual-only (markers, goal sites): it takes
	// part in neither collision nor mass.
	NoCollide bool
	// ContactType and ContactAffinity are MuJoCo's contype and conaffinity
	// bitmasks: shapes a and b may collide when (type_a & affinity_b) |
	// (type_b & affinity_a) is non-zero. Both zero (the default) means 1
	// and 1, so every such shape collides with every other.
	ContactType, ContactAffinity uint32

	// Body is the owning body (filled by Builder.AddShape).
	Body BodyID
}

// JointDesc describes a joint between a parent and a child body.
type JointDesc struct {
	Name string
	Kind JointKind
	// Parent and Child are the connected bodies; Parent may be World or a
	// mocap body. The child moves relative to the parent.
	Parent, Child BodyID
	// Anchor is the joint origin in the world frame at the bodies' initial
	// poses (m). The joint coordinate is 0 at the initial poses.
	Anchor Vec3
	// Axis is the slide or hinge direction in the world frame at the
	// initial poses (any non-zero length; ignored for Weld).
	Axis Vec3
	// Limited enables the position limits [Lower, Upper] (m or rad).
	Limited      bool
	Lower, Upper float64
	// Damping (N·s/m or N·m·s/rad) resists joint velocity.
	Damping float64
	// Armature (kg·m² or kg) is rotor inertia on the joint coordinate
	// (MuJoCo's armature): the coordinate's acceleration is resisted by
	// Armature·q̈ whatever the bodies do, unlike inertia added to the
	// child body, which also resists the parent's motion.
	Armature float64
	// Stiffness (N/m or N·m/rad) pulls the coordinate toward SpringRef.
	Stiffness, SpringRef float64
	// Motor enables a PD position servo driven by State.Ctrl[CtrlIndex]:
	// force = Kp·(ctrl − q) − Kd·q̇, limited to ±MaxForce (N or N·m;
	// 0 = unlimited). CtrlIndex is assigned by Build in joint order.
	Motor       bool
	Kp, Kd      float64
	MaxForce    float64
	CtrlIndex   int
	CtrlLow     float64 // ctrl values are clamped to [CtrlLow, CtrlHigh] when CtrlLow < CtrlHigh
	CtrlHigh    float64
	InitialCtrl float64 // the value NewState puts in Ctrl[CtrlIndex]
	// WeldTimeConst (s, default 0.02) and WeldDampingRatio (default 1)
	// soften a Weld like MuJoCo's solref.
	WeldTimeConst, WeldDampingRatio float64
	// WeldTorqueScale (default 5, MetaWorld's reset_mocap_welds value)
	// stiffens the weld's rotational part: its time constant is
	// WeldTimeConst / WeldTorqueScale, so a light hand keeps its orientation
	// under the lever-arm torques of grasping and pushing.
	WeldTorqueScale float64
	// Compound makes this Revolute joint the next hinge of the joint before
	// it in Model.Joints (a Revolute joint, plain or compound, between the
	// same Parent and Child): the child turns about this axis after the
	// earlier hinges, whose rotations carry this joint's anchor and axis,
	// like the several hinge joints of one MuJoCo body. A group of 2 or 3
	// hinges with non-parallel axes is solved as one joint (6 − k locked
	// rows) with no intermediate bodies; each member keeps its own
	// coordinate (JointPos), limits, spring, damping and actuators. Anchor
	// and Axis are given at the initial poses like every joint's; PD motors
	// (Motor) are not supported on grouped joints.
	Compound bool
	// Collide lets Parent's and Child's shapes collide with each other
	// (by default a joint excludes its pair). MuJoCo's parent filter
	// exempts bodies welded to the world: an imported robot's base
	// collides with its first link.
	Collide bool

	// Filled by Build: the anchor and axis in each body's frame (relative to
	// the body origin) and the initial relative rotation.
	localAnchorP, localAnchorC Vec3
	localAxisP                 Vec3
	relRot                     Quat // conj(qP)·qC at the initial poses
}

// Model is the static description of a scene. Step never mutates it; share
// it across goroutines. Build it with a Builder.
type Model struct {
	Opt    Options
	Bodies []BodyDesc
	Shapes []ShapeDesc
	Joints []JointDesc
	// Actuators are the affine joint actuators (MuJoCo's motor, position,
	// velocity and general actuators on joints).
	Actuators []ActuatorDesc
	// NumCtrl is len(State.Ctrl): the motorised joints, then the actuators.
	NumCtrl int
	// filtered says some shape sets ContactType or ContactAffinity.
	filtered bool

	bodyNames, shapeNames, jointNames map[string]int32
	// exclude holds body pairs (lo<<32 | hi) that never collide: bodies
	// connected by a joint and pairs added with Builder.ExcludePair.
	exclude []uint64
	// bodyCOM is the centre of mass of each body in its frame (m).
	bodyCOM []Vec3
	// invInertiaBody is the inverse inertia about the COM in the body frame.
	invInertiaBody []Mat3
	// inertiaBody is the inertia about the COM in the body frame (kg·m²).
	inertiaBody []Mat3
	// dynamic lists the non-static, non-mocap bodies; mocap lists mocap bodies.
	dynamic, mocap []int32
	// shapeRadius is a bounding radius of each shape about its centre (m).
	shapeRadius []float64
	// bodyShapes lists each body's colliding shape ids, offsets in
	// bodyShapeStart (len(Bodies)+1).
	bodyShapes     []int32
	bodyShapeStart []int32
	// jointCtrl maps ctrl index -> joint.
	ctrlJoint []int32
}

// Body returns the id of the body named name.
func (m *Model) Body(name string) (BodyID, bool) {
	i, ok := m.bodyNames[name]
	return BodyID(i), ok
}

// Shape returns the id of the shape named name.
func (m *Model) Shape(name string) (ShapeID, bool) {
	i, ok := m.shapeNames[name]
	return ShapeID(i), ok
}

// Joint returns the id of the joint named name.
func (m *Model) Joint(name string) (JointID, bool) {
	i, ok := m.jointNames[name]
	return JointID(i), ok
}

// IsStatic reports whether body b has infinite mass and never moves (World
// and Mass-0 bodies; mocap bodies move and are not static).
func (m *Model) IsStatic(b BodyID) bool {
	d := &m.Bodies[b]
	return d.Mass == 0 && !d.Mocap
}
