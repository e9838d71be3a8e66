package tasks

import (
	"github.com/vlmrb/vlmrb/sim"
)

// Scene geometry shared by every task, in MetaWorld's world frame: the table
// top is the plane z = 0 spanning x ∈ [−0.7, 0.7], y ∈ [0.2, 1.0]; the robot
// stands at y < 0.2 looking toward +y. Lengths in m, masses in kg.
const (
	tableHalfX, tableHalfY = 0.7, 0.4
	tableCenterY           = 0.6

	// palm box half extents; the palm is centred on the hand body origin.
	palmHalfX, palmHalfY, palmHalfZ = 0.02, 0.065, 0.01
	// finger boxes: half extents, and the finger centre below the hand origin.
	fingerHalfX, fingerHalfY, fingerHalfZ = 0.012, 0.005, 0.025
	fingerDrop                            = 0.035
	// fingerOpenGap is the distance between the inner finger faces when
	// fully open; gripper_open = clip(gap/fingerOpenGap, 0, 1).
	fingerOpenGap = 0.1
	// fingerTravel is each finger's closing range (m); fully closed leaves
	// a 4 mm gap.
	fingerTravel = 0.048
	// tcpDrop is the tool centre point below the hand origin: between the
	// fingers, 1 cm above their tips (the tips are 6 cm below the hand).
	tcpDrop = 0.045

	handMass   = 1.0
	fingerMass = 0.1
	// gripper drive: a PD servo on each finger whose closed target lies
	// past closure, so a[3] = +1 squeezes with about gripKp·(over-travel),
	// capped at gripMaxForce (N). MetaWorld squeezes with ≈ 400 N; a
	// smaller force suffices with μ = 2 pads and keeps the solver stiff.
	gripKp, gripKd, gripMaxForce = 2000.0, 40.0, 40.0
	fingerOpenTarget             = -0.005
	fingerClosedTarget           = 0.06
	padFriction                  = 2.0
	padTorsion                   = 0.01 // m, MetaWorld condim-4 torsional coefficient scale

	// MetaWorld's hand_low / hand_high for these tasks (mocap box).
	handLowX, handLowY, handLowZ    = -0.5, 0.40, 0.05
	handHighX, handHighY, handHighZ = 0.5, 1.0, 0.5
)

// colours (sRGB 0–255). Named after what the task text says.
var (
	rgbRed    = [3]uint8{220, 40, 40}
	rgbGreen  = [3]uint8{40, 200, 70}
	rgbBlue   = [3]uint8{50, 90, 220}
	rgbYellow = [3]uint8{235, 200, 40}
	// rgbGripper marks the fingers and palm in magenta, a hue no task
	// object, goal, the arm or the room uses, so colour keys (the pixel
	// scorer's, a real camera's marker tape) find the gripper alone; a
	// dark grey gripper matched every shadow and the arm's joints.
	rgbGripper = [3]uint8{180, 50, 170}
	rgbTable   = [3]uint8{190, 150, 110}
	rgbWhite   = [3]uint8{230, 230, 230}
	rgbBrown   = [3]uint8{130, 90, 60}
	rgbBlack   = [3]uint8{25, 25, 25}
)

func rgba(c [3]uint8) [4]float32 {
	return [4]float32{float32(c[0]) / 255, float32(c[1]) / 255, float32(c[2]) / 255, 1}
}

// mocapRot is the fixed hand orientation (identity: fingers hang along −z
// and close along y, as MetaWorld's mocap_quat [1,0,1,0] arranges).
var mocapRot = sim.Identity()

// scene holds the builder and the ids of the parts every task shares.
type scene struct {
	b                *sim.Builder
	handInit         sim.Vec3
	mocap, hand      sim.BodyID
	fingerR, fingerL sim.BodyID
	jointR, jointL   sim.JointID
	table            sim.ShapeID
	palm, padR, padL sim.ShapeID
}

// handParts are the ids of the hand every task shares, resolved by name in
// the engine the Env runs on.
type handParts struct {
	mocap, hand      int
	fingerR, fingerL int
	padR, padL       int
	ctrlR, ctrlL     int
}

func bindHand(b *binder) handParts {
	h := handParts{
		mocap: b.mocap("mocap"), hand: b.body("hand"),
		fingerR: b.body("right finger"), fingerL: b.body("left finger"),
		padR: b.geom("right finger pad"), padL: b.geom("left finger pad"),
	}
	h.ctrlR = b.ctrl(b.joint("right finger slide"), "right finger slide")
	h.ctrlL = b.ctrl(b.joint("left finger slide"), "left finger slide")
	return h
}

// newScene builds the table and the mocap-welded two-finger hand at
// handInit, on a table with a square hole (sweep-into) when hole is set.
// Tasks add their objects to sc.b.
func newScene(handInit sim.Vec3, hole bool) *scene {
	b := sim.NewBuilder()
	sc := &scene{b: b, handInit: handInit}
	if hole {
		sc.table = addHoleTable(b)
	} else {
		sc.table = b.AddShape(sim.World, sim.ShapeDesc{
			Name: "table", Kind: sim.Plane, Size: sim.V3(tableHalfX, tableHalfY, 0),
			Pos: sim.V3(0, tableCenterY, 0), Friction: 1, Color: rgba(rgbTable),
		})
	}
	sc.mocap = b.AddBody(sim.BodyDesc{Name: "mocap", Mocap: true, Pos: handInit, Rot: mocapRot})
	sc.hand = b.AddBody(sim.BodyDesc{Name: "hand", Mass: handMass, Pos: handInit, Rot: mocapRot, GravityOff: true})
	sc.palm = b.AddShape(sc.hand, sim.ShapeDesc{
		Name: "gripper palm", Kind: sim.Box, Size: sim.V3(palmHalfX, palmHalfY, palmHalfZ),
		Friction: 1, Color: rgba(rgbGripper),
	})
	// a visual wrist so the renderer shows an arm-like gripper
	b.AddShape(sc.hand, sim.ShapeDesc{
		Name: "gripper wrist", Kind: sim.Cylinder, Size: sim.V3(0.018, 0.04, 0),
		Pos: sim.V3(0, 0, palmHalfZ+0.04), NoCollide: true, Color: rgba(rgbGripper),
	})
	b.AddJoint(sim.JointDesc{Name: "hand weld", Kind: sim.Weld, Parent: sc.mocap, Child: sc.hand, Anchor: handInit,
		WeldTimeConst: 0.02, WeldDampingRatio: 1})
	finger := func(name string, side float64) (sim.BodyID, sim.JointID, sim.ShapeID) {
		pos := handInit.Add(sim.V3(0, side*(fingerOpenGap/2+fingerHalfY), -fingerDrop))
		f := b.AddBody(sim.BodyDesc{Name: name, Mass: fingerMass, Pos: pos, Rot: mocapRot, GravityOff: true})
		pad := b.AddShape(f, sim.ShapeDesc{
			Name: name + " pad", Kind: sim.Box, Size: sim.V3(fingerHalfX, fingerHalfY, fingerHalfZ),
			Friction: padFriction, TorsionalFriction: padTorsion, Color: rgba(rgbGripper),
		})
		// closing moves each finger toward the centre: axis −side·y
		j := b.AddJoint(sim.JointDesc{
			Name: name + " slide", Kind: sim.Prismatic, Parent: sc.hand, Child: f, Anchor: pos, Axis: sim.V3(0, -side, 0),
			Limited: true, Lower: 0, Upper: fingerTravel, Damping: 5,
			Motor: true, Kp: gripKp, Kd: gripKd, MaxForce: gripMaxForce, InitialCtrl: fingerOpenTarget,
		})
		return f, j, pad
	}
	sc.fingerR, sc.jointR, sc.padR = finger("right finger", -1)
	sc.fingerL, sc.jointL, sc.padL = finger("left finger", +1)
	b.ExcludePair(sc.fingerR, sc.fingerL)
	return sc
}

// quatXYZW writes q as (x, y, z, w), MetaWorld's (scipy) observation order.
func quatXYZW(dst []float64, q sim.Quat) {
	dst[0], dst[1], dst[2], dst[3] = q.X, q.Y, q.Z, q.W
}

func putVec(dst []float64, v sim.Vec3) { dst[0], dst[1], dst[2] = v.X, v.Y, v.Z }

// The sweep-into table (MetaWorld basic_scene_b): a 5 cm thick top with a
// square hole of half width holeHalf centred at holeCenter, over a pit floor.
const (
	holeHalf   = 0.08
	holeDepth  = 0.05
	tableThick = 0.05
)

var holeCenter = sim.V3(0, 0.84, 0)

// addHoleTable builds the table top from four boxes around the hole and a
// black pit floor; it returns the front box, named "table".
func addHoleTable(b *sim.Builder) sim.ShapeID {
	x0, x1 := -tableHalfX, tableHalfX
	y0, y1 := tableCenterY-tableHalfY, tableCenterY+tableHalfY
	hx0, hx1 := holeCenter.X-holeHalf, holeCenter.X+holeHalf
	hy0, hy1 := holeCenter.Y-holeHalf, holeCenter.Y+holeHalf
	box := func(name string, ax, bx, ay, by float64) sim.ShapeID {
		return b.AddShape(sim.World, sim.ShapeDesc{
			Name: name, Kind: sim.Box, Size: sim.V3((bx-ax)/2, (by-ay)/2, tableThick/2),
			Pos: sim.V3((ax+bx)/2, (ay+by)/2, -tableThick/2), Friction: 1, Color: rgba(rgbTable),
		})
	}
	front := box("table", x0, x1, y0, hy0)
	box("table back", x0, x1, hy1, y1)
	box("table left", x0, hx0, hy0, hy1)
	box("table right", hx1, x1, hy0, hy1)
	b.AddShape(sim.World, sim.ShapeDesc{
		Name: "black hole", Kind: sim.Plane, Size: sim.V3(holeHalf, holeHalf, 0),
		Pos: sim.V3(holeCenter.X, holeCenter.Y, -holeDepth), Friction: 1, Color: rgba(rgbBlack),
	})
	return front
}
