package tasks

import (
	"fmt"
	"math"
	"slices"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/sim/articulated"
)

// The methods below let ArmReach be the task side of a real (or remote)
// arm: the robot's own servos hold the targets and its own encoders give
// the joints, while the task keeps what only it knows — the goal of the
// episode's seed, the servo targets the actions integrate, and the
// observation and success that follow from a joint state. Reset still
// starts an episode (it draws the goal); the robot is then put at
// StartJoints, Command turns each action into targets for the robot, and
// ObserveAt turns the joints the robot reports into the observation Step
// would have returned for that state. Step itself is unchanged.

// JointNames returns the actuated joints' names in actuator order (the
// order of StartJoints, Command's targets and ObserveAt's q).
func (e *ArmReach) JointNames() []string {
	out := make([]string, len(e.joints))
	for i, j := range e.joints {
		out[i] = e.m.Joints[j].Name
	}
	return out
}

// JointRefs returns each actuated joint's MJCF ref (the qpos of the
// model's own pose, where a robot's encoders usually read zero) and
// whether it is a slide (m) rather than a hinge (rad), in actuator order.
func (e *ArmReach) JointRefs() (ref []float64, slide []bool) {
	for _, j := range e.joints {
		ref = append(ref, e.m.Joints[j].Ref)
		slide = append(slide, e.m.Joints[j].Type == articulated.Slide)
	}
	return ref, slide
}

// StartJoints returns the actuated joints' positions at Reset (the start
// pose: qpos0 or the keyframe), in actuator order.
func (e *ArmReach) StartJoints() []float64 {
	out := make([]float64, len(e.qadr))
	for i, a := range e.qadr {
		out[i] = e.d.Qpos[a]
	}
	return out
}

// Targets returns the servo targets in actuator order.
func (e *ArmReach) Targets() []float64 { return slices.Clone(e.target) }

// ControlDt returns the task's control period (s): the time one Step
// simulates, which a robot's tick should last for the observation's
// velocities to mean what they meant in training.
func (e *ArmReach) ControlDt() float64 { return e.spec.ControlDt }

// Command applies one action to the servo targets exactly as Step does
// (joint deltas, or an end-effector displacement through one damped
// least-squares step at the current targets), clamped to the joint
// ranges, without simulating, and returns the new targets in actuator
// order. A non-finite action is control.ErrNonFiniteAction and changes
// nothing.
func (e *ArmReach) Command(action []float64) ([]float64, error) {
	if len(action) != e.spec.ActDim {
		return nil, fmt.Errorf("tasks: arm-reach: action has %d values, want %d", len(action), e.spec.ActDim)
	}
	for _, a := range action {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return nil, control.ErrNonFiniteAction
		}
	}
	e.applyAction(action)
	return e.Targets(), nil
}

// applyAction moves the servo targets by one action (Step and Command).
func (e *ArmReach) applyAction(action []float64) {
	if e.opts.Control == "joint" {
		for i := range e.target {
			e.target[i] = clampf(e.target[i]+armJointStep*clampf(action[i], -1, 1), e.lo[i], e.hi[i])
		}
		return
	}
	d := sim.V3(clampf(action[0], -1, 1), clampf(action[1], -1, 1), clampf(action[2], -1, 1)).Scale(armEEStep)
	e.ikStep(e.targetSite().Add(d))
}

// ObserveAt puts the actuated joints at q with velocities qvel (actuator
// order; rad or m, rad/s or m/s: a robot's measured state) and returns
// the observation and info Step returns for that state: joints,
// velocities, servo lag, end effector, goal, and success within
// ArmReachSuccess of the goal by the model's forward kinematics.
func (e *ArmReach) ObserveAt(q, qvel []float64) ([]float64, control.Info, error) {
	if len(q) != len(e.qadr) || len(qvel) != len(e.dadr) {
		return nil, control.Info{}, fmt.Errorf("tasks: arm-reach: %d joint positions and %d velocities for %d actuated joints %v", len(q), len(qvel), len(e.qadr), e.JointNames())
	}
	for i, a := range e.qadr {
		if !finiteAll(q[i], qvel[i]) {
			return nil, control.Info{}, fmt.Errorf("tasks: arm-reach: joint %s state (%g, %g) is not finite", e.m.Joints[e.joints[i]].Name, q[i], qvel[i])
		}
		e.d.Qpos[a] = q[i]
		e.d.Qvel[e.dadr[i]] = qvel[i]
	}
	articulated.Kinematics(e.m, e.d)
	obs, info := e.observe()
	return obs, info, nil
}

func finiteAll(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
