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

// quatXYZW writes q as (x, y, z, w), MetaWorld's (scipy) observation order.
func quatXYZW(dst []float64, q sim.Quat) {
	dst[0], dst[1], dst[2], dst[3] = q.X, q.Y, q.Z, q.W
}

func putVec(dst []float64, v sim.Vec3) { dst[0], dst[1], dst[2] = v.X, v.Y, v.Z }

// The sweep-into table (MetaWorld basic_scene_b, sweep-into.xml): a 5 cm
// thick top with a square hole of half width holeHalf centred at
// holeCenter, over a pit floor 5 cm down.
const holeHalf = 0.08

var holeCenter = sim.V3(0, 0.84, 0)
