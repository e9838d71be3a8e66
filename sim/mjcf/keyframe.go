package mjcf

import (
	"fmt"
	"math"

	"github.com/vlmrb/vlmrb/sim"
)

// Keyframe is an MJCF <key>: a named pose and controls of the model, such
// as the "home" pose of Menagerie's arms, whose qpos0 is often a
// stretched-out or singular configuration.
type Keyframe struct {
	Name string
	// Q holds the MuJoCo coordinates of Model.Joints (rad or m); a free
	// joint's entry is 0, its pose is in Free.
	Q []float64
	// Free holds the world pose of each free joint's body (keyed by the
	// joint's index in Model.Joints), from the key's 7 qpos numbers.
	Free map[int]FreePose
	// Ctrl holds the actuators' controls in Model.Actuators order (nil
	// when the key gives none).
	Ctrl []float64
}

// FreePose is a free body's world position and orientation.
type FreePose struct {
	Pos sim.Vec3
	Rot sim.Quat
}

// Keyframe returns the index in m.Keyframes of the key named name.
func (m *Model) Keyframe(name string) (int, bool) {
	for i := range m.Keyframes {
		if m.Keyframes[i].Name == name {
			return i, true
		}
	}
	return 0, false
}

// KeyframeNames lists the keys' names (unnamed keys as #i).
func (m *Model) KeyframeNames() []string {
	out := make([]string, len(m.Keyframes))
	for i, k := range m.Keyframes {
		out[i] = k.Name
		if k.Name == "" {
			out[i] = fmt.Sprintf("#%d", i)
		}
	}
	return out
}

// SetKeyframe puts s in key k's pose at rest (MuJoCo's
// mj_resetDataKeyframe with zero velocities) and its controls into s.Ctrl
// when the key has them. A hinge coordinate beyond (−π, π] reads back
// wrapped by whole turns (sim's hinges count turns from the pose set).
func (m *Model) SetKeyframe(s *sim.State, k int) {
	key := &m.Keyframes[k]
	m.SetPose(s, key.Q, key.Free)
	for i, u := range key.Ctrl {
		s.Ctrl[m.Actuators[i].Ctrl] = u
	}
}

// SetPose puts s at rest in the pose of joint coordinates q (len(Joints))
// with the free bodies at free (nil: their qpos0 poses). Each sim body moves
// with the MJCF body it carries, or, for the intermediate bodies of a
// multi-joint body imported as a chain, with that body after the joints
// up to the one that moves it: S = B_k·B₀⁻¹·S₀ (B_k the MJCF body's pose
// with its first k joints at q, B₀ its pose at qpos0, S₀ the sim body's
// model pose).
func (m *Model) SetPose(s *sim.State, q []float64, free map[int]FreePose) {
	pos := make([]sim.Vec3, len(m.Bodies))
	rot := make([]sim.Quat, len(m.Bodies))
	m.kinematics(q, free, pos, rot)
	type mover struct{ body, k int }
	movers := make([]mover, len(m.Sim.Bodies))
	for i := range movers {
		movers[i].body = -1
	}
	for i := 1; i < len(m.Bodies); i++ {
		b := &m.Bodies[i]
		if f := b.Frame.Body; f != sim.World && movers[f].body < 0 {
			movers[f] = mover{i, len(b.Joints)}
		}
		for k, ji := range b.Joints {
			if sj := m.Joints[ji].Sim; sj >= 0 {
				if c := m.Sim.Joints[sj].Child; c != b.Frame.Body {
					movers[c] = mover{i, k + 1}
				}
			}
		}
	}
	for sb, mv := range movers {
		if mv.body < 0 {
			continue
		}
		b := &m.Bodies[mv.body]
		p, r := pos[mv.body], rot[mv.body]
		if mv.k < len(b.Joints) {
			p, r = m.bodyPose(mv.body, mv.k, q, free, pos[b.Parent], rot[b.Parent])
		}
		// T = B_k·B₀⁻¹ applied to S₀
		t := r.Mul(b.Rot.Conj())
		s0 := &m.Sim.Bodies[sb]
		s.SetBodyPose(sim.BodyID(sb), p.Add(t.Rotate(s0.Pos.Sub(b.Pos))), t.Mul(s0.Rot).Normalize())
	}
}

// keyframes decodes the <key> elements once the joints and actuators are
// known: qpos in MuJoCo's layout (1 number per hinge and slide, 7 per free
// joint, in joint order), ctrl one number per actuator.
func (c *compiler) keyframes(m *Model, keys []*element) {
	main := c.classes["main"]
	nq := 0
	for _, j := range m.Joints {
		nq += qposWidth(j.Type)
	}
	for _, sec := range keys {
		for _, e := range sec.children {
			if e.name != "key" {
				c.unsupported(e, "only <key> belongs in <keyframe>")
				continue
			}
			a := c.attrsOf(e, "key", c.classFor(e, main))
			k := Keyframe{Name: a.str("name", ""), Q: m.QPos0()}
			a.warnIf("a keyframe sets a pose at rest", "qvel", "act", "time", "mpos", "mquat")
			if qp, ok := a.floats("qpos", 0, math.MaxInt32); ok {
				if len(qp) != nq {
					c.fail(e, "qpos", fmt.Sprintf("has %d numbers; the model's joints take %d (1 a hinge or slide, 7 a free joint)", len(qp), nq))
				} else {
					k.decodeQPos(m, qp)
				}
			}
			if ct, ok := a.floats("ctrl", 0, math.MaxInt32); ok {
				if len(ct) != len(m.Actuators) {
					c.fail(e, "ctrl", fmt.Sprintf("has %d numbers; the model has %d actuators", len(ct), len(m.Actuators)))
				} else {
					k.Ctrl = ct
				}
			}
			a.finish()
			m.Keyframes = append(m.Keyframes, k)
		}
	}
}

func qposWidth(typ string) int {
	if typ == "free" {
		return 7
	}
	return 1
}

// decodeQPos splits MuJoCo's qpos vector into Q and Free.
func (k *Keyframe) decodeQPos(m *Model, qp []float64) {
	at := 0
	for i, j := range m.Joints {
		if j.Type == "free" {
			if k.Free == nil {
				k.Free = map[int]FreePose{}
			}
			r := sim.Quat{W: qp[at+3], X: qp[at+4], Y: qp[at+5], Z: qp[at+6]}
			if n := math.Sqrt(r.W*r.W + r.X*r.X + r.Y*r.Y + r.Z*r.Z); n > 0 {
				r = sim.Quat{W: r.W / n, X: r.X / n, Y: r.Y / n, Z: r.Z / n}
			} else {
				r = sim.Identity()
			}
			k.Free[i] = FreePose{Pos: sim.V3(qp[at], qp[at+1], qp[at+2]), Rot: r}
			k.Q[i] = 0
		} else {
			k.Q[i] = qp[at]
		}
		at += qposWidth(j.Type)
	}
}
