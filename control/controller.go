package control

import (
	"fmt"

	"github.com/vlmrb/vlmrb/sim"
)

// EEDelta is MetaWorld's end-effector delta controller for a mocap-driven
// hand with a two-finger gripper. An action a ∈ [−1,1]⁴ moves the mocap
// target by Scale·a[0:3] (m; MetaWorld: 1/100, so ≤ 1 cm per control step)
// from its previous target — it integrates the target, not the measured
// hand position — clamps it to [Low, High], and sets every finger motor's PD
// target by interpolating FingerOpen (a[3] = −1) to FingerClosed (a[3] = +1).
// Placing FingerClosed past the closed joint limit turns the position servo
// into a steady squeeze, as MetaWorld's ±1 m targets do.
//
// EEDelta computes targets; the engine's adapter (tasks' articulated
// physics) writes them into its mocap body and finger servos and advances
// FrameSkip physics steps (MetaWorld: 5 × 2.5 ms = one 80 Hz control step).
type EEDelta struct {
	Mocap                    int       // the mocap body's index in the engine
	Rot                      sim.Quat  // fixed mocap orientation
	Scale                    float64   // m of target motion per unit action (0.01)
	Low, High                sim.Vec3  // mocap target box (m)
	Fingers                  []int     // indices of the finger servos' controls
	FingerOpen, FingerClosed []float64 // PD targets (m) at a[3] = −1 and +1, per finger
	FrameSkip                int       // simulator steps per control step (5)
	// Safety, when non-nil, filters the target (speed and workspace limits,
	// dt = FrameSkip·Timestep) after the box clamp.
	Safety *Safety

	target sim.Vec3
}

// SetTarget makes p the target (at reset: the mocap body's position).
func (c *EEDelta) SetTarget(p sim.Vec3) { c.target = p }

// Target returns the current mocap target (m).
func (c *EEDelta) Target() sim.Vec3 { return c.target }

// Next advances the target for action a (which must already be clipped to
// [−1,1] and finite) and returns it: the previous target plus
// Scale·a[0:3], clamped to [Low, High], then filtered by Safety with
// dt = FrameSkip·timestep. The engine's adapter writes it, and
// FingerTarget's values, into its mocap body and finger servos.
func (c *EEDelta) Next(a []float64, timestep float64) sim.Vec3 {
	if len(a) != 4 {
		panic(fmt.Sprintf("control: EEDelta action has length %d, want 4", len(a)))
	}
	want := c.target.Add(sim.V3(a[0], a[1], a[2]).Scale(c.Scale))
	want = sim.V3(min(max(want.X, c.Low.X), c.High.X), min(max(want.Y, c.Low.Y), c.High.Y), min(max(want.Z, c.Low.Z), c.High.Z))
	if c.Safety != nil {
		dt := float64(max(c.FrameSkip, 1)) * timestep
		p := c.Safety.Target([3]float64{c.target.X, c.target.Y, c.target.Z}, [3]float64{want.X, want.Y, want.Z}, dt)
		want = sim.V3(p[0], p[1], p[2])
	}
	c.target = want
	return want
}

// FingerTarget is finger i's PD target (m) for gripper action grip
// (a[3]): FingerOpen at −1 to FingerClosed at +1, linearly.
func (c *EEDelta) FingerTarget(i int, grip float64) float64 {
	g := (min(max(grip, -1), 1) + 1) / 2
	return (1-g)*c.FingerOpen[i] + g*c.FingerClosed[i]
}
