package pendulum

import (
	"math"
	"math/rand/v2"
)

// Constants of Gymnasium's Pendulum-v1 (gymnasium/envs/classic_control/pendulum.py).
const (
	G         = 10.0 // gravity (m/s²), Gymnasium's default g
	Mass      = 1.0  // pendulum mass (kg)
	Length    = 1.0  // pendulum length (m)
	Dt        = 0.05 // control period (s)
	MaxSpeed  = 8.0  // angular speed clip (rad/s)
	MaxTorque = 2.0  // torque clip (N·m)
	MaxSteps  = 200  // TimeLimit of the registered env
	ObsDim    = 3    // cos θ, sin θ, θ̇
	ActDim    = 1    // torque
)

// Env is one pendulum. The zero value is not ready: call Reset first.
type Env struct {
	Theta, ThetaDot float64 // angle from upright (rad) and angular speed (rad/s)
	Steps           int     // steps since Reset
	rng             *rand.Rand
}

// Reset draws θ ~ U(−π, π) and θ̇ ~ U(−1, 1) from a generator seeded
// with seed, writes the observation to obs (len 3) and returns it.
func (e *Env) Reset(seed uint64, obs []float64) []float64 {
	e.rng = rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	e.Theta = (2*e.rng.Float64() - 1) * math.Pi
	e.ThetaDot = 2*e.rng.Float64() - 1
	e.Steps = 0
	return e.Obs(obs)
}

// Obs writes [cos θ, sin θ, θ̇] to dst and returns it.
func (e *Env) Obs(dst []float64) []float64 {
	dst[0], dst[1], dst[2] = math.Cos(e.Theta), math.Sin(e.Theta), e.ThetaDot
	return dst[:3]
}

// Step applies torque u (N·m, clipped to ±MaxTorque) for Dt and returns
// the reward −(θ² + 0.1·θ̇² + 0.001·u²) of the state before the step (θ
// normalised to [−π, π)) and whether the 200-step limit truncated the
// episode. Pendulum-v1 never terminates.
func (e *Env) Step(u float64, obs []float64) (reward float64, truncated bool) {
	u = math.Max(-MaxTorque, math.Min(MaxTorque, u))
	th, thdot := e.Theta, e.ThetaDot
	cost := sq(angleNormalize(th)) + 0.1*sq(thdot) + 0.001*sq(u)
	newThdot := thdot + (3*G/(2*Length)*math.Sin(th)+3.0/(Mass*Length*Length)*u)*Dt
	newThdot = math.Max(-MaxSpeed, math.Min(MaxSpeed, newThdot))
	e.Theta = th + newThdot*Dt
	e.ThetaDot = newThdot
	e.Steps++
	e.Obs(obs)
	return -cost, e.Steps >= MaxSteps
}

func sq(x float64) float64 { return x * x }

// angleNormalize maps x to [−π, π) as Gymnasium's angle_normalize.
func angleNormalize(x float64) float64 {
	return math.Mod(math.Mod(x+math.Pi, 2*math.Pi)+2*math.Pi, 2*math.Pi) - math.Pi
}
