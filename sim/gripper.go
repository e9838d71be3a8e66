package sim

// GripperConfig describes a MetaWorld-like parallel gripper: a free "hand"
// body welded (softly) to a mocap body, and two fingers on prismatic joints
// driven by PD position motors. Zero fields take the defaults of
// DefaultGripper, which match ../shared/research/anchors/tabletop.xml.
type GripperConfig struct {
	// Prefix is prepended to every body, shape and joint name (e.g. "" gives
	// "mocap", "hand", "palm", "lfinger", "lpad", "lf", ...).
	Prefix string
	// Pos is the initial hand (and mocap) position (m). The gripper points
	// down (-z) and its fingers close along the world y axis.
	Pos Vec3
	// HandMass and FingerMass (kg): 1 and 0.05.
	HandMass, FingerMass float64
	// PalmHalf (m): half extents of the palm box (0.02, 0.06, 0.01).
	PalmHalf Vec3
	// PadHalf (m): half extents of each finger pad box (0.01, 0.005, 0.03).
	PadHalf Vec3
	// FingerY (m): |y| of each pad centre when open (0.045); FingerZ (m):
	// pad centre below the hand origin (0.04).
	FingerY, FingerZ float64
	// Stroke (m): finger travel from open (0) to closed (0.04); each pad
	// moves toward the centre by its joint coordinate.
	Stroke float64
	// Kp (N/m) and Kd (N·s/m): the finger PD gains (200, 0); MaxForce (N)
	// limits the motor (0 = unlimited); Damping (N·s/m) is the joint
	// damping (2).
	Kp, Kd, MaxForce, Damping float64
	// PadFriction μ (1.5) and PadTorsion (m, 0.005) of the pads.
	PadFriction, PadTorsion float64
	// WeldTimeConst (s): the hand-to-mocap weld time constant (0.02, MuJoCo
	// solref 0.02 1 as in MetaWorld).
	WeldTimeConst float64
	// Colors of the palm and pads (RGBA).
	PalmColor, PadColor [4]float32
}

// DefaultGripper returns the gripper of the tabletop benchmark scene.
func DefaultGripper() GripperConfig {
	return GripperConfig{
		Pos:           Vec3{0, 0, 0.2},
		HandMass:      1,
		FingerMass:    0.05,
		PalmHalf:      Vec3{0.02, 0.06, 0.01},
		PadHalf:       Vec3{0.01, 0.005, 0.03},
		FingerY:       0.045,
		FingerZ:       0.04,
		Stroke:        0.04,
		Kp:            200,
		Damping:       2,
		PadFriction:   1.5,
		PadTorsion:    0.005,
		WeldTimeConst: 0.02,
		PalmColor:     [4]float32{0.3, 0.3, 0.35, 1},
		PadColor:      [4]float32{0.8, 0.8, 0.8, 1},
	}
}

// Gripper holds the ids of a gripper added by AddGripper.
type Gripper struct {
	Mocap, Hand, LeftFinger, RightFinger BodyID
	Palm, LeftPad, RightPad              ShapeID
	Weld, LeftJoint, RightJoint          JointID
	// LeftCtrl and RightCtrl index State.Ctrl: the finger targets (m),
	// 0 = open, Stroke = closed.
	LeftCtrl, RightCtrl int
	Stroke              float64
}

// AddGripper adds a gripper to b and returns its ids. Move it with
// State.SetMocap(g.Mocap, pos, Quat{}) and open or close it with
// g.Command(s, x) (x in [0, 1], 1 = closed) or by writing
// s.Ctrl[g.LeftCtrl] and s.Ctrl[g.RightCtrl] (m, 0..Stroke).
func AddGripper(b *Builder, c GripperConfig) Gripper {
	d := DefaultGripper()
	def := func(p *float64, v float64) {
		if *p == 0 {
			*p = v
		}
	}
	def(&c.HandMass, d.HandMass)
	def(&c.FingerMass, d.FingerMass)
	def(&c.FingerY, d.FingerY)
	def(&c.FingerZ, d.FingerZ)
	def(&c.Stroke, d.Stroke)
	def(&c.Kp, d.Kp)
	def(&c.Damping, d.Damping)
	def(&c.PadFriction, d.PadFriction)
	def(&c.PadTorsion, d.PadTorsion)
	def(&c.WeldTimeConst, d.WeldTimeConst)
	if c.PalmHalf == (Vec3{}) {
		c.PalmHalf = d.PalmHalf
	}
	if c.PadHalf == (Vec3{}) {
		c.PadHalf = d.PadHalf
	}
	if c.PalmColor == ([4]float32{}) {
		c.PalmColor = d.PalmColor
	}
	if c.PadColor == ([4]float32{}) {
		c.PadColor = d.PadColor
	}
	p := c.Prefix
	var g Gripper
	g.Stroke = c.Stroke
	g.Mocap = b.AddBody(BodyDesc{Name: p + "mocap", Pos: c.Pos, Mocap: true})
	g.Hand = b.AddBody(BodyDesc{Name: p + "hand", Pos: c.Pos, Mass: c.HandMass})
	g.Palm = b.AddShape(g.Hand, ShapeDesc{Name: p + "palm", Kind: Box, Size: c.PalmHalf, Color: c.PalmColor})
	lpos := c.Pos.Add(Vec3{0, c.FingerY, -c.FingerZ})
	rpos := c.Pos.Add(Vec3{0, -c.FingerY, -c.FingerZ})
	g.LeftFinger = b.AddBody(BodyDesc{Name: p + "lfinger", Pos: lpos, Mass: c.FingerMass})
	g.RightFinger = b.AddBody(BodyDesc{Name: p + "rfinger", Pos: rpos, Mass: c.FingerMass})
	pad := ShapeDesc{Kind: Box, Size: c.PadHalf, Friction: c.PadFriction, TorsionalFriction: c.PadTorsion, Color: c.PadColor}
	pad.Name = p + "lpad"
	g.LeftPad = b.AddShape(g.LeftFinger, pad)
	pad.Name = p + "rpad"
	g.RightPad = b.AddShape(g.RightFinger, pad)
	// the wrist is stiff in rotation (a robot arm holds the hand's
	// orientation far more firmly than its position): the weld's angular
	// rows run as stiff as the solver allows
	g.Weld = b.AddJoint(JointDesc{Name: p + "grip_weld", Kind: Weld, Parent: g.Mocap, Child: g.Hand,
		Anchor: c.Pos, WeldTimeConst: c.WeldTimeConst, WeldTorqueScale: 1000})
	nctrl := 0
	for i := range b.joints {
		if b.joints[i].Motor && b.joints[i].Kind != Weld {
			nctrl++
		}
	}
	finger := JointDesc{Kind: Prismatic, Parent: g.Hand, Limited: true, Lower: 0, Upper: c.Stroke,
		Damping: c.Damping, Motor: true, Kp: c.Kp, Kd: c.Kd, MaxForce: c.MaxForce, CtrlLow: 0, CtrlHigh: c.Stroke}
	finger.Name, finger.Child, finger.Anchor, finger.Axis = p+"lf", g.LeftFinger, lpos, Vec3{0, -1, 0}
	g.LeftJoint = b.AddJoint(finger)
	g.LeftCtrl = nctrl
	finger.Name, finger.Child, finger.Anchor, finger.Axis = p+"rf", g.RightFinger, rpos, Vec3{0, 1, 0}
	g.RightJoint = b.AddJoint(finger)
	g.RightCtrl = nctrl + 1
	b.ExcludePair(g.LeftFinger, g.RightFinger)
	b.ExcludePair(g.Mocap, g.Hand)
	b.ExcludePair(g.Mocap, g.LeftFinger)
	b.ExcludePair(g.Mocap, g.RightFinger)
	return g
}

// Command sets both finger targets: x = 0 open, 1 closed (clamped).
func (g Gripper) Command(s *State, x float64) {
	x = max(0, min(1, x))
	s.Ctrl[g.LeftCtrl] = x * g.Stroke
	s.Ctrl[g.RightCtrl] = x * g.Stroke
}

// Closure returns the mean finger coordinate as a fraction of the stroke
// (0 = open, 1 = closed).
func (g Gripper) Closure(m *Model, s *State) float64 {
	return (s.JointPos(m, g.LeftJoint) + s.JointPos(m, g.RightJoint)) / (2 * g.Stroke)
}

// Reset places hand, mocap and fingers at pos (gripper pointing down) with
// the fingers at closure x (0 open .. 1 closed), at rest, and sets the
// finger targets to x.
func (g Gripper) Reset(m *Model, s *State, pos Vec3, x float64) {
	g.ResetPose(m, s, pos, Identity(), x)
}

// ResetPose is Reset with a hand orientation rot (relative to the built
// pose; e.g. a rotation about z turns the closing direction).
func (g Gripper) ResetPose(m *Model, s *State, pos Vec3, rot Quat, x float64) {
	x = max(0, min(1, x))
	rot = fixQuat(rot)
	s.TeleportMocap(g.Mocap, pos, rot)
	s.SetBodyPose(g.Hand, pos, rot)
	hand := m.Bodies[g.Hand].Pos
	q := x * g.Stroke
	for _, f := range [2]struct {
		body  BodyID
		joint JointID
	}{{g.LeftFinger, g.LeftJoint}, {g.RightFinger, g.RightJoint}} {
		jd := &m.Joints[f.joint]
		off := m.Bodies[f.body].Pos.Sub(hand).AddScaled(jd.Axis.Normalize(), q)
		s.SetBodyPose(f.body, pos.Add(rot.Rotate(off)), rot)
	}
	g.Command(s, x)
}
