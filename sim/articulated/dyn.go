package articulated

import "math"

// Activation dynamics (MuJoCo's actuator dyntype; Computation chapter,
// "Actuation model"): an actuator with DynType ≠ DynNone has one
// activation act in Data.Act, and its force is gain·act + bias instead of
// gain·ctrl + bias. Its derivative act_dot is ctrl (DynIntegrator) or
// (ctrl − act)/τ (DynFilter, DynFilterExact; τ = DynPrm[0]), with ctrl
// clamped to ctrlrange. After each step act advances by Euler
// (act + h·act_dot) or, for DynFilterExact, exactly
// (act + act_dot·τ·(1 − e^(−h/τ))), then is clamped to ActRange when
// ActLimited. ActEarly uses that next activation in the force already.

// Dynamics types (MuJoCo's mjtDyn, the ones implemented).
const (
	DynNone        = 0
	DynIntegrator  = 1
	DynFilter      = 2
	DynFilterExact = 3
)

// validateDyn checks actuator i's activation dynamics and gives it its
// activation address.
func (m *Model) validateDyn(i int, a *Actuator, bad func(string, ...any)) {
	if len(m.actAdr) != len(m.Actuators) {
		m.actAdr = make([]int, len(m.Actuators))
	}
	m.actAdr[i] = -1
	if a.DynType == DynNone {
		return
	}
	if a.DynType < DynIntegrator || a.DynType > DynFilterExact {
		bad("actuator %d (%q): dyntype %d: only none (0), integrator (1), filter (2) and filterexact (3) are implemented", i, a.Name, a.DynType)
		return
	}
	if !finite(a.DynPrm[:]...) || !finite(a.ActRange[:]...) || a.DynPrm[0] < 0 {
		bad("actuator %d (%q): dynprm and actrange must be finite, the time constant ≥ 0", i, a.Name)
	}
	if a.ActLimited && !(a.ActRange[0] <= a.ActRange[1]) {
		bad("actuator %d (%q): actrange %v must have lower <= upper", i, a.Name, a.ActRange)
	}
	if m.Opt.Integrator == RK4 {
		bad("actuator %d (%q): activation dynamics with the RK4 integrator are not implemented: use Euler, implicit or implicitfast", i, a.Name)
	}
	m.actAdr[i] = m.NA
	m.NA++
}

// actDot returns act_dot of actuator a with activation act at the
// clamped ctrl.
func actDot(a *Actuator, ctrl, act float64) float64 {
	if a.DynType == DynIntegrator {
		return ctrl
	}
	return (ctrl - act) / max(1e-15, a.DynPrm[0])
}

// nextAct returns the activation after one step of h from act at rate
// dot, clamped (MuJoCo's nextActivation).
func nextAct(a *Actuator, act, dot, h float64) float64 {
	if a.DynType == DynFilterExact {
		tau := max(1e-15, a.DynPrm[0])
		act += dot * tau * (1 - math.Exp(-h/tau))
	} else {
		act += dot * h
	}
	if a.ActLimited {
		act = min(max(act, a.ActRange[0]), a.ActRange[1])
	}
	return act
}

// advanceAct moves every activation one step on (mj_advance).
func advanceAct(m *Model, d *Data) {
	if m.NA == 0 || m.Opt.Disable&DisableActuation != 0 {
		return
	}
	for i := range m.Actuators {
		if k := m.actAdr[i]; k >= 0 {
			d.Act[k] = nextAct(&m.Actuators[i], d.Act[k], d.ActDot[k], m.Opt.Timestep)
		}
	}
}

// actInput is what multiplies actuator i's gain: its activation (the
// next one with ActEarly) or, without dynamics, ctrl. It sets ActDot.
func (d *Data) actInput(m *Model, i int, ctrl float64) float64 {
	k := m.actAdr[i]
	if k < 0 {
		return ctrl
	}
	a := &m.Actuators[i]
	d.ActDot[k] = actDot(a, ctrl, d.Act[k])
	if a.ActEarly {
		return nextAct(a, d.Act[k], d.ActDot[k], m.Opt.Timestep)
	}
	return d.Act[k]
}

// dvInput is the value multiplying the gain's velocity term in the
// implicit integrators' ∂force/∂velocity (mjd_actuator_vel): the unclamped
// ctrl, or the current activation.
func (d *Data) dvInput(m *Model, i int) float64 {
	if k := m.actAdr[i]; k >= 0 {
		return d.Act[k]
	}
	return d.Ctrl[i]
}
