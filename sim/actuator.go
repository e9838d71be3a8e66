package sim

import (
	"math"
)

// ActuatorID indexes Model.Actuators.
type ActuatorID int32

// ActuatorDesc describes an affine joint actuator in MuJoCo's form: with
// length l = Gear·q and velocity l̇ = Gear·q̇ of joint Joint, the actuator
// force is
//
//	f = Gain·u + Bias[0] + Bias[1]·l + Bias[2]·l̇
//
// (u = State.Ctrl[CtrlIndex], clamped to [CtrlLow, CtrlHigh] when
// CtrlLimited; f clamped to [ForceLow, ForceHigh] when ForceLimited) and
// the joint receives Gear·f (N or N·m). MuJoCo's motor is Gain = 1, Bias
// = 0; position is Gain = kp, Bias = (0, −kp, 0); velocity is Gain = kv,
// Bias = (0, 0, −kv). The position and velocity feedback is integrated
// implicitly (like the joint springs), so stiff servos stay stable;
// Bias[1] and Bias[2] must therefore be <= 0 (no positive feedback).
//
// Actuators take Ctrl indices after the motorised joints, in the order
// they are added.
type ActuatorDesc struct {
	Name  string
	Joint JointID
	// Gear is the transmission ratio (1 when zero).
	Gear         float64
	Gain         float64
	Bias         [3]float64
	CtrlLimited  bool
	CtrlLow      float64
	CtrlHigh     float64
	ForceLimited bool
	ForceLow     float64 // N or N·m, before the gear
	ForceHigh    float64
	// CtrlIndex is filled by Build.
	CtrlIndex int
}

// AddActuator adds an actuator and returns its id.
func (b *Builder) AddActuator(d ActuatorDesc) ActuatorID {
	b.actuators = append(b.actuators, d)
	return ActuatorID(len(b.actuators) - 1)
}

// Actuator returns the id of the actuator named name.
func (m *Model) Actuator(name string) (ActuatorID, bool) {
	for i := range m.Actuators {
		if m.Actuators[i].Name == name {
			return ActuatorID(i), true
		}
	}
	return 0, false
}

// buildActuators validates the actuators and assigns their Ctrl indices
// after the motorised joints'.
func buildActuators(m *Model, e *buildErrs) {
	for i := range m.Actuators {
		a := &m.Actuators[i]
		if a.Gear == 0 {
			a.Gear = 1
		}
		if a.Joint < 0 || int(a.Joint) >= len(m.Joints) || m.Joints[a.Joint].Kind == Weld {
			e.bad("actuator %d (%q): joint %d must be an existing prismatic or revolute joint", i, a.Name, a.Joint)
		}
		if !finite(a.Gear) || !finite(a.Gain) || !finite(a.Bias[0]) || !finite(a.Bias[1]) || !finite(a.Bias[2]) ||
			!finite(a.CtrlLow) || !finite(a.CtrlHigh) || !finite(a.ForceLow) || !finite(a.ForceHigh) {
			e.bad("actuator %d (%q): parameters must be finite", i, a.Name)
		}
		if a.Bias[1] > 0 || a.Bias[2] > 0 {
			e.bad("actuator %d (%q): bias %v feeds position or velocity back positively; only Bias[1], Bias[2] <= 0 are supported", i, a.Name, a.Bias)
		}
		if (a.CtrlLimited && a.CtrlLow > a.CtrlHigh) || (a.ForceLimited && a.ForceLow > a.ForceHigh) {
			e.bad("actuator %d (%q): a range has low > high", i, a.Name)
		}
		a.CtrlIndex = m.NumCtrl
		m.NumCtrl++
	}
}

// actSim is the solver's per-actuator working set.
type actSim struct {
	joint    int32
	k, c     float64 // implicit stiffness (N/m or N·m/rad) and damping on the joint
	f0       float64 // constant part of the joint force this step (N or N·m)
	lo, hi   float64 // joint-force limits (N or N·m); lo > hi means none
	imp      float64 // accumulated impulse (N·s or N·m·s)
	limited  bool
	prevCtrl float64
	// per step (substep h): hkc = h·k + c, x = h·hkc, hf0 = h·f0, and the
	// impulse limits loH, hiH (N·s or N·m·s)
	hkc, x, hf0, loH, hiH float64
	// per joint update: imp = c1·(cdot + off) − c2·imp (x ≠ 0)
	c1, c2, off float64
}

// initActuators fills the actuator working set and each joint's range of
// actuators (they are sorted by joint, stably).
func (w *workspace) initActuators(m *Model) {
	w.acts = w.acts[:0]
	for ji := range m.Joints {
		w.joints[ji].act0 = int32(len(w.acts))
		for ai := range m.Actuators {
			a := &m.Actuators[ai]
			if int(a.Joint) != ji {
				continue
			}
			g := a.Gear
			as := actSim{joint: int32(ji), k: -g * g * a.Bias[1], c: -g * g * a.Bias[2], limited: a.ForceLimited}
			if a.ForceLimited {
				as.lo, as.hi = g*a.ForceLow, g*a.ForceHigh
				if as.lo > as.hi {
					as.lo, as.hi = as.hi, as.lo
				}
			}
			w.acts = append(w.acts, as)
			w.actOf = append(w.actOf, int32(ai))
		}
		w.joints[ji].act1 = int32(len(w.acts))
	}
}

// prepareActuators turns this step's Ctrl into each actuator's constant
// joint force f0 = Gear·(Gain·u + Bias[0]).
func prepareActuators(m *Model, s *State) {
	ws := &s.ws
	h := m.Opt.Timestep / float64(m.Opt.Substeps)
	for k, ai := range ws.actOf {
		a := &m.Actuators[ai]
		u := s.Ctrl[a.CtrlIndex]
		if !finite(u) {
			s.Warnings.BadCtrl++
			u = s.lastCtrl[a.CtrlIndex]
			s.Ctrl[a.CtrlIndex] = u
		}
		if a.CtrlLimited {
			u = max(a.CtrlLow, min(a.CtrlHigh, u))
		}
		s.lastCtrl[a.CtrlIndex] = u
		as := &ws.acts[k]
		as.f0 = a.Gear * (a.Gain*u + a.Bias[0])
		as.hkc = h*as.k + as.c
		as.x = h * as.hkc
		as.hf0 = h * as.f0
		as.loH, as.hiH = as.lo*h, as.hi*h
	}
}

// updateActuators computes the coefficients of joint j's actuator rows
// that depend on the joint's coordinate and effective mass (updateJoints).
func updateActuators(acts []actSim, j *jointSim) {
	for i := j.act0; i < j.act1; i++ {
		a := &acts[i]
		if a.x == 0 {
			continue
		}
		den := j.axMass + a.x
		a.c1 = -j.axMass * a.x / den
		a.c2 = j.axMass / den
		a.off = (a.k*j.q - a.f0) / a.hkc
	}
}

// solveActuators solves the actuator rows of joint j: each is an implicit
// spring-damper with a constant force (Catto's soft step with the force in
// the bias), so the impulse over substep h is
// meff/(meff+x)·(h·f0 − h·k·q − x·q̇) with x = h(hk + c). It returns the
// summed impulse and updates cdot.
func solveActuators(acts []actSim, j *jointSim, cdot *float64) float64 {
	var total float64
	kax := j.invAx
	for i := j.act0; i < j.act1; i++ {
		a := &acts[i]
		var imp float64
		if a.x == 0 {
			imp = a.hf0 - a.imp
		} else {
			imp = a.c1*(*cdot+a.off) - a.c2*a.imp
		}
		nv := a.imp + imp
		if a.limited {
			nv = max(a.loH, min(a.hiH, nv))
		}
		imp = nv - a.imp
		a.imp = nv
		total += imp
		*cdot += imp * kax
	}
	return total
}

// actuatorTotal returns the summed warm-start impulse of joint j's actuators.
func actuatorTotal(acts []actSim, j *jointSim) float64 {
	var t float64
	for i := j.act0; i < j.act1; i++ {
		t += acts[i].imp
	}
	return t
}

// ActuatorForce returns the joint force (N or N·m, after the gear) that
// actuator a applied over the last substep of the last Step.
func (s *State) ActuatorForce(m *Model, a ActuatorID) float64 {
	for k, ai := range s.ws.actOf {
		if ai == int32(a) {
			h := m.Opt.Timestep / float64(m.Opt.Substeps)
			return s.ws.acts[k].imp / h
		}
	}
	return math.NaN()
}
