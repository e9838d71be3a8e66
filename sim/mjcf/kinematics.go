package mjcf

import (
	"fmt"

	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/sim/articulated"
)

// Kinematics computes every body's world frame for the coordinates qpos
// (MuJoCo's layout, Model.NQ numbers) by composing the MJCF body tree:
// each body is its parent's frame times its own static frame, then its
// joints in order, parent side first. A hinge turns by qpos − ref about
// its axis through its anchor, a slide moves by qpos − ref along its axis,
// a ball turns by its quaternion about its anchor, and a free joint sets
// the body's world frame. Mocap bodies stay at their model frames. It
// needs no articulated.Data and steps nothing: for inverse-kinematics
// seeds and as a check of articulated.Forward written apart from it.
// pos and rot must hold len(Model.Bodies) frames.
func (a *Model) Kinematics(qpos []float64, pos []sim.Vec3, rot []sim.Quat) error {
	m := a.Model
	if len(qpos) != m.NQ || len(pos) != len(m.Bodies) || len(rot) != len(m.Bodies) {
		return fmt.Errorf("mjcf: Kinematics got %d qpos and %d, %d frames; the model has %d qpos and %d bodies",
			len(qpos), len(pos), len(rot), m.NQ, len(m.Bodies))
	}
	v := func(x [3]float64) sim.Vec3 { return sim.V3(x[0], x[1], x[2]) }
	q := func(x []float64) sim.Quat { return sim.Quat{W: x[0], X: x[1], Y: x[2], Z: x[3]}.Normalize() }
	pos[0], rot[0] = sim.Vec3{}, sim.Identity()
	for i := 1; i < len(m.Bodies); i++ {
		b := &m.Bodies[i]
		p := pos[b.Parent].Add(rot[b.Parent].Rotate(v(b.Pos)))
		r := rot[b.Parent].Mul(q(b.Quat[:]))
		for j := range m.Joints {
			jt := &m.Joints[j]
			if jt.Body != i {
				continue
			}
			x := qpos[m.QposAdr(j):]
			var turn sim.Quat
			switch jt.Type {
			case articulated.Free:
				p, r = sim.V3(x[0], x[1], x[2]), q(x[3:7])
				continue
			case articulated.Slide:
				p = p.Add(r.Rotate(v(jt.Axis).Scale(x[0] - jt.Ref)))
				continue
			case articulated.Hinge:
				turn = sim.QuatFromAxisAngle(v(jt.Axis), x[0]-jt.Ref)
			default: // ball
				turn = q(x[:4])
			}
			// a hinge or a ball turns about its anchor, which stays put
			anchor := p.Add(r.Rotate(v(jt.Pos)))
			r = r.Mul(turn).Normalize()
			p = anchor.Sub(r.Rotate(v(jt.Pos)))
		}
		pos[i], rot[i] = p, r.Normalize()
	}
	return nil
}
