package control

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// ErrNonFiniteAction is returned by Env.Step when an action contains NaN or
// ±Inf. The environment does not advance.
var ErrNonFiniteAction = errors.New("control: action contains NaN or Inf")

// ErrNeedsReset is returned by Env.Step when the episode has already ended
// (terminated or truncated) or Reset was never called. Call Reset first.
var ErrNeedsReset = errors.New("control: episode has ended or was never started; call Reset")

// Env is a Gymnasium-style environment.
//
// Reset starts a new episode whose randomisation is fully determined by
// seed, and returns the first observation. Step applies one action (clipped
// to Spec().ActLow/ActHigh) and returns the next observation, the reward,
// whether the episode reached a terminal state (no bootstrapping through it)
// and whether it was cut by the time limit (bootstrap through it), and
// diagnostics. Returned slices and Info are freshly allocated and owned by
// the caller. Close releases resources; it is safe to call more than once.
type Env interface {
	Spec() Spec
	Reset(seed uint64) (obs []float64, info Info)
	Step(action []float64) (obs []float64, reward float64, terminated, truncated bool, info Info, err error)
	Close() error
}

// Policy maps an observation to an action. Learned agents and scripted
// experts both implement it. Act writes len(dst) = action dimension values
// into dst. A Policy with per-episode memory also implements Resetter.
type Policy interface {
	Act(obs, dst []float64)
}

// Resetter is implemented by policies that keep per-episode state; call
// Reset at the start of every episode.
type Resetter interface {
	Reset()
}

// PolicyFunc adapts a function to the Policy interface.
type PolicyFunc func(obs, dst []float64)

// Act calls f(obs, dst).
func (f PolicyFunc) Act(obs, dst []float64) { f(obs, dst) }

// Info carries per-step diagnostics, like Gymnasium's info dict.
//
// Values holds scalars under MetaWorld's keys where they apply: "success"
// (1 when the task is solved at this step, else 0), "grasp_success",
// "near_object", "grasp_reward", "in_place_reward", "obj_to_target",
// "unscaled_reward", plus "progress" (privileged progress in [0,1]),
// "stage" (index of the highest task stage reached) and, when the simulator
// failed numerically and the episode was cut short, "sim_unstable" = 1.
// FinalObs and FinalValues are set only by VecEnv on the step where it
// auto-reset the environment: they hold the last observation and info of
// the episode that just ended (Gymnasium's info["final_observation"]).
type Info struct {
	Values      map[string]float64
	FinalObs    []float64
	FinalValues map[string]float64
}

// Get returns Values[key], or 0 when absent.
func (i Info) Get(key string) float64 { return i.Values[key] }

// Success reports whether Values["success"] is set (non-zero).
func (i Info) Success() bool { return i.Values["success"] != 0 }

// Keys returns the keys of Values in sorted order.
func (i Info) Keys() []string {
	k := make([]string, 0, len(i.Values))
	for key := range i.Values {
		k = append(k, key)
	}
	sort.Strings(k)
	return k
}

// Spec describes an environment's observation and action spaces.
type Spec struct {
	// ObsDim is the observation length. ObsLow/ObsHigh are per-element
	// bounds (±Inf where unbounded), len ObsDim, or nil when unbounded.
	ObsDim          int
	ObsLow, ObsHigh []float64
	// ActDim is the action length; ActLow/ActHigh (len ActDim) bound it.
	ActDim          int
	ActLow, ActHigh []float64
	// MaxEpisodeSteps is the time limit in control steps (0 = none).
	MaxEpisodeSteps int
	// ControlDt is the simulated time per control step (s).
	ControlDt float64
	// RewardLow/RewardHigh bound the per-step reward (Gymnasium's
	// reward_range); both 0 means unknown.
	RewardLow, RewardHigh float64
	// Discrete is the number of actions of a discrete action space
	// (Gymnasium's Discrete(n)); 0 means a continuous Box. A discrete
	// spec has ActDim 1 and bounds [0, Discrete−1]: action[0] holds the
	// action index as a float, rounded to the nearest integer after
	// clipping (see DiscreteSpec and Spec.ActionIndex).
	Discrete int
}

// DiscreteSpec returns a Spec with obsDim unbounded observations and a
// discrete action space of n actions (ActDim 1, bounds [0, n−1]).
func DiscreteSpec(obsDim, n int) Spec {
	s := BoxSpec(obsDim, 1, 0, float64(n-1))
	s.Discrete = n
	return s
}

// ActionIndex returns the discrete action that action (len 1, already
// clipped by ClipAction) selects: action[0] rounded to the nearest
// integer, clamped to [0, Discrete−1]. It panics on a continuous spec.
func (s Spec) ActionIndex(action []float64) int {
	if s.Discrete <= 0 {
		panic("control: ActionIndex on a continuous action spec")
	}
	k := int(math.Round(action[0]))
	return min(max(k, 0), s.Discrete-1)
}

// BoxSpec returns a Spec with obsDim unbounded observations and actDim
// actions bounded to [lo, hi].
func BoxSpec(obsDim, actDim int, lo, hi float64) Spec {
	s := Spec{ObsDim: obsDim, ActDim: actDim, ActLow: make([]float64, actDim), ActHigh: make([]float64, actDim)}
	for i := range actDim {
		s.ActLow[i], s.ActHigh[i] = lo, hi
	}
	return s
}

// Validate reports whether the spec is self-consistent.
func (s Spec) Validate() error {
	if s.ObsDim <= 0 || s.ActDim <= 0 {
		return fmt.Errorf("control: spec needs positive ObsDim and ActDim, got %d and %d", s.ObsDim, s.ActDim)
	}
	if len(s.ActLow) != s.ActDim || len(s.ActHigh) != s.ActDim {
		return fmt.Errorf("control: ActLow/ActHigh have lengths %d/%d, want ActDim %d", len(s.ActLow), len(s.ActHigh), s.ActDim)
	}
	for i := range s.ActDim {
		if !(s.ActLow[i] <= s.ActHigh[i]) || math.IsInf(s.ActLow[i], 0) || math.IsInf(s.ActHigh[i], 0) {
			return fmt.Errorf("control: action bound %d is [%g, %g]; bounds must be finite with low <= high", i, s.ActLow[i], s.ActHigh[i])
		}
	}
	if s.ObsLow != nil && len(s.ObsLow) != s.ObsDim || s.ObsHigh != nil && len(s.ObsHigh) != s.ObsDim {
		return fmt.Errorf("control: ObsLow/ObsHigh lengths must equal ObsDim %d", s.ObsDim)
	}
	if s.MaxEpisodeSteps < 0 {
		return fmt.Errorf("control: MaxEpisodeSteps %d is negative", s.MaxEpisodeSteps)
	}
	if s.Discrete < 0 {
		return fmt.Errorf("control: Discrete %d is negative", s.Discrete)
	}
	if s.Discrete > 0 && (s.ActDim != 1 || s.ActLow[0] != 0 || s.ActHigh[0] != float64(s.Discrete-1)) {
		return fmt.Errorf("control: a discrete spec of %d actions needs ActDim 1 and bounds [0, %d], got ActDim %d", s.Discrete, s.Discrete-1, s.ActDim)
	}
	return nil
}

// ClipAction writes action clipped to the spec's bounds into dst and
// returns ErrNonFiniteAction (leaving dst unspecified) if any element is NaN
// or ±Inf. It panics if len(action) or len(dst) differs from ActDim.
func (s Spec) ClipAction(dst, action []float64) error {
	if len(action) != s.ActDim || len(dst) != s.ActDim {
		panic(fmt.Sprintf("control: action length %d (dst %d), want %d", len(action), len(dst), s.ActDim))
	}
	for i, a := range action {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return fmt.Errorf("%w: element %d is %g", ErrNonFiniteAction, i, a)
		}
		dst[i] = min(max(a, s.ActLow[i]), s.ActHigh[i])
	}
	return nil
}

// SampleAction writes a uniform random action inside the bounds into dst,
// drawing uniform [0,1) numbers from u. For a discrete spec it writes a
// uniformly drawn action index.
func (s Spec) SampleAction(dst []float64, u func() float64) {
	if s.Discrete > 0 {
		dst[0] = float64(min(int(u()*float64(s.Discrete)), s.Discrete-1))
		return
	}
	for i := range s.ActDim {
		dst[i] = s.ActLow[i] + u()*(s.ActHigh[i]-s.ActLow[i])
	}
}
