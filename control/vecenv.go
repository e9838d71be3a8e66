package control

import (
	"errors"
	"fmt"
	"sync"
)

// VecEnv steps N environments in parallel, one goroutine per environment,
// and resets finished episodes automatically.
//
// Auto-reset semantics (Gymnasium ≤ 0.29 and Stable-Baselines3): when
// environment i terminates or truncates during Step, VecEnv resets it in
// the same call. Obs[i] then holds the first observation of the new
// episode, Terminated[i]/Truncated[i] describe the episode that ended, and
// Infos[i].FinalObs / Infos[i].FinalValues hold that episode's last
// observation and info, so no final observation is ever lost. A transition
// for replay is therefore (prevObs[i], action[i], Rewards[i], next, …) with
// next = Infos[i].FinalObs when Terminated[i] || Truncated[i], else Obs[i].
//
// Seeding: Reset(seed) starts episode 0 of environment i with
// EpisodeSeed(seed, i, 0); the k-th auto-reset of environment i uses
// EpisodeSeed(seed, i, k). Results are independent of goroutine scheduling.
//
// The slices returned by Reset and Step (Obs, Rewards, Terminated,
// Truncated, Infos) belong to the VecEnv and are overwritten by the next
// call; the per-environment observation slices are fresh each call, so a
// caller may keep obs[i] across calls without copying.
type VecEnv struct {
	envs []Env
	spec Spec
	seed uint64
	eps  []uint64 // episodes started per env

	Obs        [][]float64
	Rewards    []float64
	Terminated []bool
	Truncated  []bool
	Infos      []Info

	// OnEpisodeEnd, when set, is called with i on environment i's worker
	// goroutine after a Step ends one of its episodes and before the
	// auto-reset, so the final state can be inspected (for example copied
	// for rendering s_{t+1}). It may touch environment i only and must not
	// call the VecEnv. Set it before the first Step.
	OnEpisodeEnd func(i int)

	actions [][]float64
	errs    []error

	work   []chan struct{}
	done   sync.WaitGroup
	mode   int // 0 reset, 1 step
	closed bool
}

// EpisodeSeed returns the seed of episode k of environment i in a VecEnv
// reset with base seed (a SplitMix64 hash of the three).
func EpisodeSeed(base uint64, i, k int) uint64 {
	x := base ^ 0x9e3779b97f4a7c15*uint64(i+1) ^ 0xbf58476d1ce4e5b9*uint64(k+1)
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// NewVecEnv makes n environments with make(i) and starts one worker
// goroutine per environment. All environments must share one Spec shape.
// On error every environment made so far is closed.
func NewVecEnv(n int, make_ func(i int) (Env, error)) (*VecEnv, error) {
	if n <= 0 {
		return nil, fmt.Errorf("control: NewVecEnv needs n >= 1, got %d", n)
	}
	v := &VecEnv{
		envs: make([]Env, 0, n), eps: make([]uint64, n),
		Obs: make([][]float64, n), Rewards: make([]float64, n),
		Terminated: make([]bool, n), Truncated: make([]bool, n), Infos: make([]Info, n),
		actions: make([][]float64, n), errs: make([]error, n), work: make([]chan struct{}, n),
	}
	for i := range n {
		e, err := make_(i)
		if err != nil {
			for _, e := range v.envs {
				_ = e.Close() // best effort: the constructor error is what matters
			}
			return nil, fmt.Errorf("control: making env %d: %w", i, err)
		}
		v.envs = append(v.envs, e)
	}
	v.spec = v.envs[0].Spec()
	for i, e := range v.envs[1:] {
		s := e.Spec()
		if s.ObsDim != v.spec.ObsDim || s.ActDim != v.spec.ActDim {
			_ = v.closeEnvs()
			return nil, fmt.Errorf("control: env %d has obs/act dims %d/%d, env 0 has %d/%d", i+1, s.ObsDim, s.ActDim, v.spec.ObsDim, v.spec.ActDim)
		}
	}
	for i := range v.actions {
		v.actions[i] = make([]float64, v.spec.ActDim)
	}
	for i := range n {
		v.work[i] = make(chan struct{})
		go v.worker(i)
	}
	return v, nil
}

// Len returns the number of environments.
func (v *VecEnv) Len() int { return len(v.envs) }

// Spec returns the spec of the first environment (all share its shape).
func (v *VecEnv) Spec() Spec { return v.spec }

// Env returns environment i, for rendering or inspection. Do not step it
// directly while the VecEnv is in use.
func (v *VecEnv) Env(i int) Env { return v.envs[i] }

func (v *VecEnv) worker(i int) {
	for range v.work[i] {
		if v.mode == 0 {
			v.resetOne(i)
		} else {
			v.stepOne(i)
		}
		v.done.Done()
	}
}

func (v *VecEnv) resetOne(i int) {
	obs, info := v.envs[i].Reset(EpisodeSeed(v.seed, i, int(v.eps[i])))
	v.eps[i]++
	v.Obs[i], v.Infos[i] = obs, info
	v.Rewards[i], v.Terminated[i], v.Truncated[i] = 0, false, false
	v.errs[i] = nil
}

func (v *VecEnv) stepOne(i int) {
	obs, r, term, trunc, info, err := v.envs[i].Step(v.actions[i])
	v.errs[i] = err
	if err != nil {
		// the env did not advance: keep its observation, clear the rest
		v.Rewards[i], v.Terminated[i], v.Truncated[i], v.Infos[i] = 0, false, false, Info{}
		return
	}
	v.Rewards[i], v.Terminated[i], v.Truncated[i] = r, term, trunc
	if term || trunc {
		finalObs, finalValues := obs, info.Values
		if v.OnEpisodeEnd != nil {
			v.OnEpisodeEnd(i)
		}
		obs, info = v.envs[i].Reset(EpisodeSeed(v.seed, i, int(v.eps[i])))
		v.eps[i]++
		info.FinalObs, info.FinalValues = finalObs, finalValues
	}
	v.Obs[i], v.Infos[i] = obs, info
}

func (v *VecEnv) run(mode int) {
	if v.closed {
		panic("control: VecEnv used after Close")
	}
	v.mode = mode
	v.done.Add(len(v.envs))
	for _, c := range v.work {
		c <- struct{}{}
	}
	v.done.Wait()
}

// Reset resets every environment with episode seeds derived from seed and
// returns the first observations.
func (v *VecEnv) Reset(seed uint64) ([][]float64, []Info) {
	v.seed = seed
	for i := range v.eps {
		v.eps[i] = 0
	}
	v.run(0)
	return v.Obs, v.Infos
}

// ResetFrom is Reset with environment i starting at episode first[i] of
// its seed sequence instead of 0: the episodes before it are taken to have
// happened elsewhere (a training run whose first episodes were replaced
// by recorded demonstrations of those same seeds).
func (v *VecEnv) ResetFrom(seed uint64, first []int) ([][]float64, []Info) {
	if len(first) != len(v.envs) {
		panic(fmt.Sprintf("control: VecEnv.ResetFrom got %d offsets for %d envs", len(first), len(v.envs)))
	}
	v.seed = seed
	for i, k := range first {
		if k < 0 {
			panic(fmt.Sprintf("control: VecEnv.ResetFrom offset %d of env %d is negative", k, i))
		}
		v.eps[i] = uint64(k)
	}
	v.run(0)
	return v.Obs, v.Infos
}

// Step applies actions[i] to environment i in parallel and auto-resets
// finished episodes (see the type comment). actions must have Len() rows of
// ActDim values; they are copied before the workers start. If any
// environment returns an error (for example ErrNonFiniteAction) the errors
// are joined and returned; the environments that did not fail have still
// stepped, and a failed one keeps its observation with reward 0, both flags
// false and an empty Info.
func (v *VecEnv) Step(actions [][]float64) (obs [][]float64, rewards []float64, terminated, truncated []bool, infos []Info, err error) {
	if len(actions) != len(v.envs) {
		panic(fmt.Sprintf("control: VecEnv.Step got %d actions for %d envs", len(actions), len(v.envs)))
	}
	for i, a := range actions {
		if len(a) != v.spec.ActDim {
			panic(fmt.Sprintf("control: VecEnv.Step action %d has length %d, want %d", i, len(a), v.spec.ActDim))
		}
		copy(v.actions[i], a)
	}
	v.run(1)
	var errs []error
	for i, e := range v.errs {
		if e != nil {
			errs = append(errs, fmt.Errorf("env %d: %w", i, e))
		}
	}
	return v.Obs, v.Rewards, v.Terminated, v.Truncated, v.Infos, errors.Join(errs...)
}

// Close stops the workers and closes every environment.
func (v *VecEnv) Close() error {
	if v.closed {
		return nil
	}
	v.closed = true
	for _, c := range v.work {
		close(c)
	}
	return v.closeEnvs()
}

func (v *VecEnv) closeEnvs() error {
	var errs []error
	for _, e := range v.envs {
		if err := e.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
