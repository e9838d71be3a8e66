package sim

import "math"

// BodyState is the pose and velocity of one body in the world frame.
type BodyState struct {
	Pos    Vec3 // position of the body frame origin (m)
	Rot    Quat // orientation of the body frame (unit quaternion)
	Vel    Vec3 // linear velocity of the centre of mass (m/s)
	AngVel Vec3 // angular velocity (rad/s)
}

// Warnings counts numerical problems Step survived. A task should end the
// episode when Total grows.
type Warnings struct {
	NaN         int // bodies found non-finite after a step (reset to their last good pose, at rest)
	SpeedCap    int // body-steps where MaxSpeed or MaxAngularSpeed clipped a velocity
	Penetration int // contact-steps deeper than 1 cm (a sign of a blow-up or an overpowered motor)
	BadCtrl     int // non-finite Ctrl values (replaced by the joint's last target)
	ContactCap  int // contact manifolds dropped past Options.MaxContacts
}

// Total returns the sum of all counters.
func (w Warnings) Total() int {
	return w.NaN + w.SpeedCap + w.Penetration + w.BadCtrl + w.ContactCap
}

// Contact is one contact point between two shapes, as seen by the last Step
// (or Step1).
type Contact struct {
	ShapeA, ShapeB ShapeID
	Pos            Vec3    // world point midway between the surfaces (m)
	Normal         Vec3    // unit normal pointing from ShapeA to ShapeB
	Depth          float64 // penetration depth (m); negative for a speculative gap
	NormalForce    float64 // normal force (N) on ShapeB along Normal, over the last substep
	FrictionForce  Vec3    // friction force on ShapeB (N), world frame, over the last substep
}

// State is everything Step changes. m.NewState() sizes it; CopyFrom
// snapshots it. A State belongs to the Model that made it.
type State struct {
	Time     float64     // simulated time (s)
	Bodies   []BodyState // len(m.Bodies), indexed by BodyID
	Ctrl     []float64   // PD targets (m or rad), len(m.NumCtrl); set between steps or between Step1 and Step2
	Warnings Warnings

	mocapPos []Vec3 // mocap targets, indexed by BodyID (unused for other bodies)
	mocapRot []Quat
	lastCtrl []float64

	man      []manifold // contact manifolds of the current step, sorted by shape pair
	oldMan   []manifold // previous step's manifolds (warm-start cache while colliding)
	manIdx   []keyIdx   // man sorted by shape-pair key
	oldIdx   []keyIdx
	contacts []Contact
	pending  bool // Step1 ran and Step2 has not
	ws       workspace
}

// NewState returns a State at the Model's initial poses, velocities and
// controls.
func (m *Model) NewState() *State {
	nb := len(m.Bodies)
	s := &State{
		Bodies:   make([]BodyState, nb),
		Ctrl:     make([]float64, m.NumCtrl),
		lastCtrl: make([]float64, m.NumCtrl),
		mocapPos: make([]Vec3, nb),
		mocapRot: make([]Quat, nb),
	}
	for i := range m.Bodies {
		d := &m.Bodies[i]
		s.Bodies[i] = BodyState{Pos: d.Pos, Rot: d.Rot}
		if d.invMass > 0 {
			s.Bodies[i].Vel, s.Bodies[i].AngVel = d.Vel, d.AngVel
		}
		s.mocapPos[i], s.mocapRot[i] = d.Pos, d.Rot
	}
	for c, j := range m.ctrlJoint {
		s.Ctrl[c] = m.Joints[j].InitialCtrl
		s.lastCtrl[c] = s.Ctrl[c]
	}
	s.ws.init(m)
	return s
}

// Reset puts s back to the Model's initial state, keeping its buffers.
func (s *State) Reset(m *Model) {
	s.checkModel(m)
	s.Time = 0
	s.Warnings = Warnings{}
	for i := range m.Bodies {
		d := &m.Bodies[i]
		s.Bodies[i] = BodyState{Pos: d.Pos, Rot: d.Rot}
		if d.invMass > 0 {
			s.Bodies[i].Vel, s.Bodies[i].AngVel = d.Vel, d.AngVel
		}
		s.mocapPos[i], s.mocapRot[i] = d.Pos, d.Rot
	}
	for c, j := range m.ctrlJoint {
		s.Ctrl[c] = m.Joints[j].InitialCtrl
		s.lastCtrl[c] = s.Ctrl[c]
	}
	s.man = s.man[:0]
	s.manIdx = s.manIdx[:0]
	s.oldMan = s.oldMan[:0]
	s.contacts = s.contacts[:0]
	s.pending = false
	s.ws.staticReady = false
	for i := range s.ws.joints {
		s.ws.joints[i].resetImpulses()
	}
	for i := range s.ws.acts {
		s.ws.acts[i].imp = 0
	}
	s.resetCompounds(-1)
}

// CopyFrom makes s an exact copy of src (same Model), reusing s's buffers:
// stepping both afterwards gives bit-identical results.
func (s *State) CopyFrom(src *State) {
	if len(s.Bodies) != len(src.Bodies) || len(s.Ctrl) != len(src.Ctrl) {
		panic("sim: CopyFrom between States of different Models")
	}
	s.Time = src.Time
	s.Warnings = src.Warnings
	copy(s.Bodies, src.Bodies)
	copy(s.Ctrl, src.Ctrl)
	copy(s.lastCtrl, src.lastCtrl)
	copy(s.mocapPos, src.mocapPos)
	copy(s.mocapRot, src.mocapRot)
	s.man = append(s.man[:0], src.man...)
	s.manIdx = append(s.manIdx[:0], src.manIdx...)
	s.oldMan = s.oldMan[:0]
	s.contacts = append(s.contacts[:0], src.contacts...)
	s.pending = src.pending
	copy(s.ws.joints, src.ws.joints)
	copy(s.ws.acts, src.ws.acts)
	copy(s.ws.compounds, src.ws.compounds)
	s.ws.staticReady = false
}

// Clone returns a new State equal to s.
func (s *State) Clone(m *Model) *State {
	c := m.NewState()
	c.CopyFrom(s)
	return c
}

func (s *State) checkModel(m *Model) {
	if len(s.Bodies) != len(m.Bodies) || len(s.Ctrl) != m.NumCtrl {
		panic("sim: State does not belong to this Model")
	}
}

// SetMocap sets the target pose of mocap body b; the body reaches it at the
// end of the next Step, moving at the implied constant velocity. A zero rot
// keeps the current target orientation. It panics if b is not a mocap body.
func (s *State) SetMocap(b BodyID, pos Vec3, rot Quat) {
	if int(b) >= len(s.mocapPos) || b < 0 {
		panic("sim: SetMocap: body id out of range")
	}
	s.mocapPos[b] = pos
	if rot != (Quat{}) {
		s.mocapRot[b] = rot.Normalize()
	}
}

// Mocap returns the current target pose of mocap body b.
func (s *State) Mocap(b BodyID) (Vec3, Quat) { return s.mocapPos[b], s.mocapRot[b] }

// TeleportMocap places mocap body b (and its target) at pos, rot at once,
// with zero velocity: use it when resetting an episode.
func (s *State) TeleportMocap(b BodyID, pos Vec3, rot Quat) {
	s.SetMocap(b, pos, rot)
	s.Bodies[b].Pos = pos
	s.Bodies[b].Rot = s.mocapRot[b]
	s.Bodies[b].Vel = Vec3{}
	s.Bodies[b].AngVel = Vec3{}
}

// SetBodyPose places body b at pos, rot with zero velocity (for episode
// resets) and forgets its cached contacts.
func (s *State) SetBodyPose(b BodyID, pos Vec3, rot Quat) {
	s.Bodies[b] = BodyState{Pos: pos, Rot: fixQuat(rot)}
	s.man = s.man[:0]
	s.manIdx = s.manIdx[:0]
	s.ws.staticReady = false
	for i := range s.ws.joints {
		if j := &s.ws.joints[i]; j.p == int32(b) || j.c == int32(b) {
			j.resetImpulses()
		}
	}
	s.resetCompounds(b)
}

// JointPos returns the coordinate of joint j: m for Prismatic, rad for
// Revolute, 0 for Weld. A Revolute coordinate is continuous, like MuJoCo's
// hinge qpos: it counts the turns made since the pose was set (Reset,
// SetBodyPose), which put it in (−π, π].
func (s *State) JointPos(m *Model, j JointID) float64 {
	jd := &m.Joints[j]
	p, c := &s.Bodies[jd.Parent], &s.Bodies[jd.Child]
	if s.ws.joints[j].grouped {
		q, _ := s.compoundPos(m, j)
		return q
	}
	switch jd.Kind {
	case Prismatic:
		ap := p.Pos.Add(p.Rot.Rotate(jd.localAnchorP))
		ac := c.Pos.Add(c.Rot.Rotate(jd.localAnchorC))
		return ac.Sub(ap).Dot(p.Rot.Rotate(jd.localAxisP))
	case Revolute:
		r := p.Rot.Conj().Mul(c.Rot).Mul(jd.relRot.Conj())
		sa := r.X*jd.localAxisP.X + r.Y*jd.localAxisP.Y + r.Z*jd.localAxisP.Z
		w := wrapAngle(2 * math.Atan2(sa, r.W))
		if js := &s.ws.joints[j]; js.qSet && math.Abs(js.q-w) > math.Pi {
			// the turn nearest the last joint update's coordinate
			w += 2 * math.Pi * math.Round((js.q-w)/(2*math.Pi))
		}
		return w
	}
	return 0
}

// JointVel returns the velocity of joint j's coordinate (m/s or rad/s).
func (s *State) JointVel(m *Model, j JointID) float64 {
	jd := &m.Joints[j]
	p, c := &s.Bodies[jd.Parent], &s.Bodies[jd.Child]
	if s.ws.joints[j].grouped {
		_, b := s.compoundPos(m, j)
		return c.AngVel.Sub(p.AngVel).Dot(b)
	}
	axis := p.Rot.Rotate(jd.localAxisP)
	switch jd.Kind {
	case Prismatic:
		ap := p.Pos.Add(p.Rot.Rotate(jd.localAnchorP))
		ac := c.Pos.Add(c.Rot.Rotate(jd.localAnchorC))
		comP := p.Pos.Add(p.Rot.Rotate(m.bodyCOM[jd.Parent]))
		comC := c.Pos.Add(c.Rot.Rotate(m.bodyCOM[jd.Child]))
		vp := p.Vel.Add(p.AngVel.Cross(ap.Sub(comP)))
		vc := c.Vel.Add(c.AngVel.Cross(ac.Sub(comC)))
		return vc.Sub(vp).Dot(axis) + ac.Sub(ap).Dot(p.AngVel.Cross(axis))
	case Revolute:
		return c.AngVel.Sub(p.AngVel).Dot(axis)
	}
	return 0
}

// ShapePose returns the world pose of shape sh.
func (s *State) ShapePose(m *Model, sh ShapeID) (Vec3, Quat) {
	d := &m.Shapes[sh]
	b := &s.Bodies[d.Body]
	return b.Pos.Add(b.Rot.Rotate(d.Pos)), b.Rot.Mul(d.Rot)
}

// COM returns the world position of body b's centre of mass (m).
func (s *State) COM(m *Model, b BodyID) Vec3 {
	return s.Bodies[b].Pos.Add(s.Bodies[b].Rot.Rotate(m.bodyCOM[b]))
}

// PointVel returns the world velocity (m/s) of the material point of body b
// that is at world position p.
func (s *State) PointVel(m *Model, b BodyID, p Vec3) Vec3 {
	bs := &s.Bodies[b]
	return bs.Vel.Add(bs.AngVel.Cross(p.Sub(s.COM(m, b))))
}

// Contacts returns the touching contact points of the last Step (or Step1),
// valid until the next call that steps s. The slice is owned by s.
func (s *State) Contacts() []Contact { return s.contacts }

// InContact reports whether shapes a and b touched in the last Step.
func (s *State) InContact(a, b ShapeID) bool {
	for i := range s.contacts {
		c := &s.contacts[i]
		if (c.ShapeA == a && c.ShapeB == b) || (c.ShapeA == b && c.ShapeB == a) {
			return true
		}
	}
	return false
}

// BodiesInContact reports whether any shapes of bodies a and b touched in
// the last Step.
func (s *State) BodiesInContact(m *Model, a, b BodyID) bool {
	for i := range s.contacts {
		c := &s.contacts[i]
		ba, bb := m.Shapes[c.ShapeA].Body, m.Shapes[c.ShapeB].Body
		if (ba == a && bb == b) || (ba == b && bb == a) {
			return true
		}
	}
	return false
}

func wrapAngle(a float64) float64 {
	for a > math.Pi {
		a -= 2 * math.Pi
	}
	for a <= -math.Pi {
		a += 2 * math.Pi
	}
	return a
}
