package sim

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Builder assembles a Model from plain Go values. The zero value is not
// ready: use NewBuilder. Errors in the descriptions are reported by Build.
type Builder struct {
	Opt       Options
	bodies    []BodyDesc
	shapes    []ShapeDesc
	joints    []JointDesc
	actuators []ActuatorDesc
	exclude   [][2]BodyID
	errs      []error
}

// NewBuilder returns a Builder with DefaultOptions and the World body.
func NewBuilder() *Builder {
	b := &Builder{Opt: DefaultOptions()}
	b.bodies = append(b.bodies, BodyDesc{Name: "world", Rot: Identity()})
	return b
}

// AddBody adds a body and returns its id. Mass 0 makes it static unless
// d.Mocap is set. A zero Rot is taken as the identity.
func (b *Builder) AddBody(d BodyDesc) BodyID {
	b.bodies = append(b.bodies, d)
	return BodyID(len(b.bodies) - 1)
}

// AddShape attaches a shape to body and returns its id. A zero Rot is the
// identity; a zero Friction becomes 1.
func (b *Builder) AddShape(body BodyID, d ShapeDesc) ShapeID {
	d.Body = body
	b.shapes = append(b.shapes, d)
	return ShapeID(len(b.shapes) - 1)
}

// AddJoint adds a joint and returns its id. Motorised joints get Ctrl
// indices in the order they are added.
func (b *Builder) AddJoint(d JointDesc) JointID {
	b.joints = append(b.joints, d)
	return JointID(len(b.joints) - 1)
}

// ExcludePair stops all collisions between the shapes of bodies a and b
// (MuJoCo's <exclude>). Bodies connected by a joint are excluded already.
func (b *Builder) ExcludePair(a, c BodyID) { b.exclude = append(b.exclude, [2]BodyID{a, c}) }

func finiteVec(v Vec3) bool { return v.IsFinite() }

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func fixQuat(q Quat) Quat {
	if q == (Quat{}) {
		return Identity()
	}
	return q.Normalize()
}

// shapeVolume returns the volume (m³) of a colliding shape.
func shapeVolume(s *ShapeDesc) float64 {
	r, h := s.Size.X, s.Size.Y
	switch s.Kind {
	case Box:
		return 8 * s.Size.X * s.Size.Y * s.Size.Z
	case Sphere:
		return 4.0 / 3 * math.Pi * r * r * r
	case Capsule:
		return math.Pi*r*r*2*h + 4.0/3*math.Pi*r*r*r
	case Cylinder:
		return math.Pi * r * r * 2 * h
	}
	return 0
}

// shapeInertia returns the diagonal inertia (kg·m²) of a shape of mass m
// about its centre in its own frame.
func shapeInertia(s *ShapeDesc, m float64) Vec3 {
	r, hh := s.Size.X, s.Size.Y
	switch s.Kind {
	case Box:
		x, y, z := s.Size.X, s.Size.Y, s.Size.Z
		return Vec3{m / 3 * (y*y + z*z), m / 3 * (x*x + z*z), m / 3 * (x*x + y*y)}
	case Sphere:
		i := 0.4 * m * r * r
		return Vec3{i, i, i}
	case Cylinder:
		h := 2 * hh
		ix := m * (3*r*r + h*h) / 12
		return Vec3{ix, ix, m * r * r / 2}
	case Capsule:
		h := 2 * hh
		vc := math.Pi * r * r * h
		vh := 2.0 / 3 * math.Pi * r * r * r
		mc := m * vc / (vc + 2*vh)
		mh := m * vh / (vc + 2*vh)
		iz := mc*r*r/2 + 2*(0.4*mh*r*r)
		ix := mc*(r*r/4+h*h/12) + 2*mh*(0.4*r*r+h*h/4+3*h*r/8)
		return Vec3{ix, ix, iz}
	}
	return Vec3{}
}

// shapeRadius returns a bounding-sphere radius (m) of a shape about its centre.
func shapeBoundRadius(s *ShapeDesc) float64 {
	switch s.Kind {
	case Box:
		return s.Size.Norm()
	case Sphere:
		return s.Size.X
	case Capsule:
		return s.Size.X + s.Size.Y
	case Cylinder:
		return math.Hypot(s.Size.X, s.Size.Y)
	}
	return math.Inf(1)
}

// Build validates the descriptions and returns the Model. It reports every
// problem it finds, joined, and never panics on bad descriptions. The passes
// run in order: options, bodies, shapes (and each body's colliding-shape
// index), mass properties, joints (welds get their defaults), excludes.
func (b *Builder) Build() (*Model, error) {
	var e buildErrs
	m := &Model{
		Opt:        buildOptions(b.Opt, &e),
		Bodies:     slices.Clone(b.bodies),
		Shapes:     slices.Clone(b.shapes),
		Joints:     slices.Clone(b.joints),
		Actuators:  slices.Clone(b.actuators),
		bodyNames:  map[string]int32{},
		shapeNames: map[string]int32{},
		jointNames: map[string]int32{},
	}
	buildBodies(m, &e)
	buildShapes(m, &e)
	buildMass(m, &e)
	buildJoints(m, &e)
	buildCompounds(m, &e)
	buildActuators(m, &e)
	buildExcludes(m, b.exclude, &e)
	if len(e) > 0 {
		return nil, errors.Join(e...)
	}
	return m, nil
}

// buildErrs collects Build's problems.
type buildErrs []error

func (e *buildErrs) bad(format string, a ...any) { *e = append(*e, fmt.Errorf("sim: "+format, a...)) }

// buildOptions fills zero options with DefaultOptions and validates them.
func buildOptions(opt Options, e *buildErrs) Options {
	def := DefaultOptions()
	if opt.Timestep == 0 {
		opt.Timestep = def.Timestep
	}
	setDef := func(p *float64, d float64) {
		if *p == 0 {
			*p = d
		}
	}
	setDef(&opt.ContactHertz, def.ContactHertz)
	setDef(&opt.ContactDampingRatio, def.ContactDampingRatio)
	setDef(&opt.JointHertz, def.JointHertz)
	setDef(&opt.JointDampingRatio, def.JointDampingRatio)
	setDef(&opt.LimitHertz, def.LimitHertz)
	setDef(&opt.LimitDampingRatio, def.LimitDampingRatio)
	setDef(&opt.MaxPushSpeed, def.MaxPushSpeed)
	setDef(&opt.ContactMargin, def.ContactMargin)
	setDef(&opt.LinearSlop, def.LinearSlop)
	setDef(&opt.MaxSpeed, def.MaxSpeed)
	setDef(&opt.MaxAngularSpeed, def.MaxAngularSpeed)
	setDef(&opt.RestitutionThreshold, def.RestitutionThreshold)
	if opt.Substeps == 0 {
		opt.Substeps = def.Substeps
	}
	if opt.MaxContacts == 0 {
		opt.MaxContacts = def.MaxContacts
	}
	if opt.MaxContacts < 1 {
		e.bad("Options.MaxContacts %d must be positive", opt.MaxContacts)
	}
	if opt.Iterations == 0 {
		opt.Iterations = def.Iterations
	}
	if !(opt.Timestep > 0) || !finite(opt.Timestep) {
		e.bad("Options.Timestep %g s must be positive", opt.Timestep)
	}
	if !(opt.MaxJointPush >= 0) || math.IsInf(opt.MaxJointPush, 1) {
		e.bad("Options.MaxJointPush %g must be >= 0 and finite", opt.MaxJointPush)
	}
	if opt.Substeps < 1 || opt.Substeps > maxSubsteps || opt.Iterations < 1 || opt.Iterations > maxSubsteps {
		e.bad("Options.Substeps %d and Iterations %d must be in [1, %d]", opt.Substeps, opt.Iterations, maxSubsteps)
	}
	if !finiteVec(opt.Gravity) {
		e.bad("Options.Gravity %v is not finite", opt.Gravity)
	}
	return opt
}

// buildBodies normalises body rotations, indexes names and validates masses,
// poses and inertias.
func buildBodies(m *Model, e *buildErrs) {
	nb := len(m.Bodies)
	m.bodyCOM = make([]Vec3, nb)
	m.invInertiaBody = make([]Mat3, nb)
	m.inertiaBody = make([]Mat3, nb)
	for i := range m.Bodies {
		d := &m.Bodies[i]
		d.Rot = fixQuat(d.Rot)
		if i == 0 {
			d.Mass, d.Mocap = 0, false
		}
		if d.Name != "" {
			if _, dup := m.bodyNames[d.Name]; dup {
				e.bad("body %d: duplicate name %q", i, d.Name)
			}
			m.bodyNames[d.Name] = int32(i)
		}
		if !finite(d.Mass) || d.Mass < 0 {
			e.bad("body %d (%q): mass %g kg must be finite and >= 0", i, d.Name, d.Mass)
		}
		if !finiteVec(d.Pos) || !finiteVec(d.Vel) || !finiteVec(d.AngVel) || !finiteVec(d.Inertia) || !finiteVec(d.COM) {
			e.bad("body %d (%q): pose, velocity, COM and inertia must be finite", i, d.Name)
		}
		if d.Inertia.X < 0 || d.Inertia.Y < 0 || d.Inertia.Z < 0 {
			e.bad("body %d (%q): inertia %v must be >= 0", i, d.Name, d.Inertia)
		}
		if d.LinearDamping < 0 || d.AngularDamping < 0 {
			e.bad("body %d (%q): damping must be >= 0", i, d.Name)
		}
	}
}

// buildShapes fills shape defaults, validates sizes and builds each body's
// list of colliding shapes (bodyShapes, offsets in bodyShapeStart).
func buildShapes(m *Model, e *buildErrs) {
	nb := len(m.Bodies)
	m.shapeRadius = make([]float64, len(m.Shapes))
	m.bodyShapeStart = make([]int32, nb+1)
	counts := make([]int32, nb)
	for i := range m.Shapes {
		s := &m.Shapes[i]
		s.Rot = fixQuat(s.Rot)
		if s.Friction == 0 {
			s.Friction = defaultFriction
		}
		if s.Name != "" {
			if _, dup := m.shapeNames[s.Name]; dup {
				e.bad("shape %d: duplicate name %q", i, s.Name)
			}
			m.shapeNames[s.Name] = int32(i)
		}
		if s.Body < 0 || int(s.Body) >= nb {
			e.bad("shape %d (%q): body %d does not exist", i, s.Name, s.Body)
			continue
		}
		checkShape(m, i, e)
		m.shapeRadius[i] = shapeBoundRadius(s)
		if s.ContactType != 0 || s.ContactAffinity != 0 {
			m.filtered = true
		}
		if !s.NoCollide {
			counts[s.Body]++
		}
	}
	for i := 0; i < nb; i++ {
		m.bodyShapeStart[i+1] = m.bodyShapeStart[i] + counts[i]
	}
	m.bodyShapes = make([]int32, m.bodyShapeStart[nb])
	fill := slices.Clone(m.bodyShapeStart[:nb])
	for i := range m.Shapes {
		s := &m.Shapes[i]
		if s.NoCollide || s.Body < 0 || int(s.Body) >= nb {
			continue
		}
		m.bodyShapes[fill[s.Body]] = int32(i)
		fill[s.Body]++
	}
}

// checkShape validates the parameters and size of shape i.
func checkShape(m *Model, i int, e *buildErrs) {
	s := &m.Shapes[i]
	if !finiteVec(s.Size) || !finiteVec(s.Pos) || !finite(s.Friction) || s.Friction < 0 ||
		!finite(s.Restitution) || s.Restitution < 0 || s.Restitution > 1 || !finite(s.TorsionalFriction) || s.TorsionalFriction < 0 {
		e.bad("shape %d (%q): size, pose must be finite; friction >= 0; restitution in [0, 1]", i, s.Name)
	}
	switch s.Kind {
	case Box:
		if !(s.Size.X > 0 && s.Size.Y > 0 && s.Size.Z > 0) {
			e.bad("shape %d (%q): box half extents %v must be > 0", i, s.Name, s.Size)
		}
	case Sphere:
		if !(s.Size.X > 0) {
			e.bad("shape %d (%q): sphere radius %g must be > 0", i, s.Name, s.Size.X)
		}
	case Capsule, Cylinder:
		if !(s.Size.X > 0 && s.Size.Y >= 0) || (s.Kind == Cylinder && s.Size.Y == 0) {
			e.bad("shape %d (%q): %v radius %g and half length %g must be > 0", i, s.Name, s.Kind, s.Size.X, s.Size.Y)
		}
	case Plane:
		if !m.IsStatic(s.Body) && !s.NoCollide {
			e.bad("shape %d (%q): a plane must be on a static body", i, s.Name)
		}
	default:
		e.bad("shape %d (%q): unknown kind %d", i, s.Name, s.Kind)
	}
}

// buildMass lists dynamic and mocap bodies and sets each dynamic body's
// inverse mass, centre of mass and inertia (given, or from its shapes).
func buildMass(m *Model, e *buildErrs) {
	for i := range m.Bodies {
		d := &m.Bodies[i]
		if d.Mocap {
			m.mocap = append(m.mocap, int32(i))
		}
		if d.Mass == 0 || d.Mocap {
			continue
		}
		m.dynamic = append(m.dynamic, int32(i))
		d.invMass = 1 / d.Mass
		if d.Inertia != (Vec3{}) {
			m.bodyCOM[i] = d.COM
			if d.Inertia.X == 0 || d.Inertia.Y == 0 || d.Inertia.Z == 0 {
				e.bad("body %d (%q): inertia %v must have all components > 0", i, d.Name, d.Inertia)
				continue
			}
			m.invInertiaBody[i] = Mat3{1 / d.Inertia.X, 0, 0, 0, 1 / d.Inertia.Y, 0, 0, 0, 1 / d.Inertia.Z}
			m.inertiaBody[i] = Mat3{d.Inertia.X, 0, 0, 0, d.Inertia.Y, 0, 0, 0, d.Inertia.Z}
			continue
		}
		massFromShapes(m, i, e)
	}
}

// massFromShapes spreads body i's mass over its colliding shapes in
// proportion to their volume and sums their inertias about the common
// centre of mass (parallel-axis theorem).
func massFromShapes(m *Model, i int, e *buildErrs) {
	d := &m.Bodies[i]
	var vol float64
	var com Vec3
	for _, si := range m.bodyShapes[m.bodyShapeStart[i]:m.bodyShapeStart[i+1]] {
		v := shapeVolume(&m.Shapes[si])
		vol += v
		com = com.AddScaled(m.Shapes[si].Pos, v)
	}
	if !(vol > 0) {
		e.bad("body %d (%q): mass %g kg but no colliding shapes to compute inertia from; set Inertia", i, d.Name, d.Mass)
		return
	}
	com = com.Scale(1 / vol)
	m.bodyCOM[i] = com
	var in Mat3
	for _, si := range m.bodyShapes[m.bodyShapeStart[i]:m.bodyShapeStart[i+1]] {
		s := &m.Shapes[si]
		ms := d.Mass * shapeVolume(s) / vol
		di := shapeInertia(s, ms)
		loc := Mat3{di.X, 0, 0, 0, di.Y, 0, 0, 0, di.Z}
		r := s.Rot.Mat3()
		w := rotateInertia(&r, &loc)
		addParallelAxis(&w, ms, s.Pos.Sub(com))
		for k := range in {
			in[k] += w[k]
		}
	}
	m.invInertiaBody[i] = inverse(&in)
	m.inertiaBody[i] = in
	if m.invInertiaBody[i] == (Mat3{}) {
		e.bad("body %d (%q): singular inertia", i, d.Name)
	}
}

// addParallelAxis adds the inertia (kg·m²) of point mass ms at offset o.
func addParallelAxis(w *Mat3, ms float64, o Vec3) {
	o2 := o.Norm2()
	w[0] += ms * (o2 - o.X*o.X)
	w[4] += ms * (o2 - o.Y*o.Y)
	w[8] += ms * (o2 - o.Z*o.Z)
	w[1] -= ms * o.X * o.Y
	w[3] -= ms * o.X * o.Y
	w[2] -= ms * o.X * o.Z
	w[6] -= ms * o.X * o.Z
	w[5] -= ms * o.Y * o.Z
	w[7] -= ms * o.Y * o.Z
}

// buildJoints validates the joints, fills weld defaults, stores anchors and
// axes in the bodies' frames, assigns Ctrl indices in joint order and
// excludes each joint's bodies from colliding.
func buildJoints(m *Model, e *buildErrs) {
	for i := range m.Joints {
		j := &m.Joints[i]
		if j.Name != "" {
			if _, dup := m.jointNames[j.Name]; dup {
				e.bad("joint %d: duplicate name %q", i, j.Name)
			}
			m.jointNames[j.Name] = int32(i)
		}
		if !checkJoint(m, i, e) {
			continue
		}
		p, c := &m.Bodies[j.Parent], &m.Bodies[j.Child]
		j.localAnchorP = p.Rot.InvRotate(j.Anchor.Sub(p.Pos))
		j.localAnchorC = c.Rot.InvRotate(j.Anchor.Sub(c.Pos))
		j.localAxisP = p.Rot.InvRotate(j.Axis.Normalize())
		j.relRot = p.Rot.Conj().Mul(c.Rot)
		if j.Motor {
			j.CtrlIndex = m.NumCtrl
			m.NumCtrl++
			m.ctrlJoint = append(m.ctrlJoint, int32(i))
		} else {
			j.CtrlIndex = -1
		}
		if !j.Collide {
			m.exclude = append(m.exclude, pairKey(int32(j.Parent), int32(j.Child)))
		}
	}
}

// checkJoint validates joint i and fills its weld defaults; false means its
// bodies do not exist and the joint cannot be prepared.
func checkJoint(m *Model, i int, e *buildErrs) bool {
	j := &m.Joints[i]
	nb := len(m.Bodies)
	if j.Parent < 0 || int(j.Parent) >= nb || j.Child < 0 || int(j.Child) >= nb || j.Parent == j.Child {
		e.bad("joint %d (%q): parent %d and child %d must be distinct existing bodies", i, j.Name, j.Parent, j.Child)
		return false
	}
	if m.Bodies[j.Child].invMass == 0 {
		e.bad("joint %d (%q): child body %d must be dynamic (mass > 0, not mocap)", i, j.Name, j.Child)
	}
	if !finiteVec(j.Anchor) || !finiteVec(j.Axis) || !finite(j.Lower) || !finite(j.Upper) ||
		!finite(j.Damping) || !finite(j.Stiffness) || !finite(j.SpringRef) || !finite(j.Kp) || !finite(j.Kd) || !finite(j.MaxForce) {
		e.bad("joint %d (%q): parameters must be finite", i, j.Name)
	}
	if j.Damping < 0 || j.Stiffness < 0 || j.Kp < 0 || j.Kd < 0 || j.MaxForce < 0 || !(j.Armature >= 0) || math.IsInf(j.Armature, 1) {
		e.bad("joint %d (%q): damping, stiffness, armature, gains and force limit must be >= 0 and finite", i, j.Name)
	}
	if j.Kind == Weld {
		j.Armature = 0
	}
	if j.Limited && j.Lower > j.Upper {
		e.bad("joint %d (%q): lower limit %g > upper %g", i, j.Name, j.Lower, j.Upper)
	}
	if j.Kind != Weld && j.Axis.Norm() == 0 {
		e.bad("joint %d (%q): %v joint needs a non-zero axis", i, j.Name, j.Kind)
	}
	if j.Kind > Revolute {
		e.bad("joint %d (%q): unknown kind %d", i, j.Name, j.Kind)
	}
	if j.Kind == Weld {
		if j.WeldTimeConst == 0 {
			j.WeldTimeConst = defaultWeldTimeConst
		}
		if j.WeldDampingRatio == 0 {
			j.WeldDampingRatio = defaultWeldDampingRatio
		}
		if j.WeldTorqueScale == 0 {
			j.WeldTorqueScale = defaultWeldTorqueScale
		}
		if !(j.WeldTimeConst > 0) || !(j.WeldDampingRatio > 0) || !(j.WeldTorqueScale > 0) {
			e.bad("joint %d (%q): weld time constant and damping ratio must be > 0", i, j.Name)
		}
		j.Motor, j.Limited = false, false
	}
	return true
}

// buildExcludes adds the Builder's exclude pairs to the joints' and sorts
// them for the binary search of excluded.
func buildExcludes(m *Model, pairs [][2]BodyID, e *buildErrs) {
	nb := len(m.Bodies)
	for _, p := range pairs {
		if p[0] < 0 || int(p[0]) >= nb || p[1] < 0 || int(p[1]) >= nb {
			e.bad("exclude pair %v: body does not exist", p)
			continue
		}
		m.exclude = append(m.exclude, pairKey(int32(p[0]), int32(p[1])))
	}
	slices.Sort(m.exclude)
	m.exclude = slices.Compact(m.exclude)
}

// pairKey packs an unordered pair of non-negative ids into a sortable key.
func pairKey(a, b int32) uint64 {
	if a > b {
		a, b = b, a
	}
	return uint64(a)<<32 | uint64(uint32(b))
}

// excluded reports whether bodies a and b never collide.
func (m *Model) excluded(a, b int32) bool {
	k := pairKey(a, b)
	ex := m.exclude
	lo, hi := 0, len(ex)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if ex[mid] < k {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo < len(ex) && ex[lo] == k
}
