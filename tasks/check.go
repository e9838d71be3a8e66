package tasks

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/vlmrb/vlmrb/control"
)

// Check is an environment checker in the spirit of Stable-Baselines3's
// check_env. It drives env through whole episodes and returns an error
// describing the first violation of the control.Env contract:
//   - the Spec validates and observations have ObsDim finite elements;
//   - Reset(seed) is reproducible: same seed, same observation and the same
//     trajectory under the same actions;
//   - out-of-bounds actions behave exactly like their clipped values;
//   - NaN/Inf actions return control.ErrNonFiniteAction and do not advance
//     the episode;
//   - rewards are finite and inside [RewardLow, RewardHigh] when the spec
//     gives a range; info carries a "success" key;
//   - with a time limit, a random-action episode that does not terminate is
//     truncated exactly at MaxEpisodeSteps, and stepping after the end
//     returns control.ErrNeedsReset.
//
// Check leaves env in an ended episode; call Reset before using it again.
func Check(env control.Env, seed uint64) error {
	spec := env.Spec()
	if err := spec.Validate(); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(seed, 0xc4ec))
	checkObs := func(where string, obs []float64) error {
		if len(obs) != spec.ObsDim {
			return fmt.Errorf("check: %s: observation has length %d, spec says %d", where, len(obs), spec.ObsDim)
		}
		for i, x := range obs {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("check: %s: observation element %d is %g", where, i, x)
			}
		}
		return nil
	}

	// reproducible resets and trajectories
	const probeSteps = 20
	acts := make([][]float64, probeSteps)
	for i := range acts {
		acts[i] = make([]float64, spec.ActDim)
		for j := range acts[i] {
			// deliberately 1.5× the bounds so clipping is exercised
			lo, hi := spec.ActLow[j], spec.ActHigh[j]
			mid, half := (lo+hi)/2, (hi-lo)/2
			acts[i][j] = mid + 1.5*half*(2*rng.Float64()-1)
		}
	}
	clipped := make([][]float64, probeSteps)
	for i := range acts {
		clipped[i] = make([]float64, spec.ActDim)
		if err := spec.ClipAction(clipped[i], acts[i]); err != nil {
			return err
		}
	}
	rollout := func(a [][]float64, nanAt int) ([]float64, error) {
		obs, info := env.Reset(seed)
		if err := checkObs("Reset", obs); err != nil {
			return nil, err
		}
		if _, ok := info.Values["success"]; !ok {
			return nil, errors.New(`check: Reset info lacks the "success" key`)
		}
		traj := append([]float64(nil), obs...)
		bad := make([]float64, spec.ActDim)
		for i := range a {
			if i == nanAt {
				for _, v := range []float64{math.NaN(), math.Inf(1)} {
					copy(bad, a[i])
					bad[rng.IntN(spec.ActDim)] = v
					if _, _, _, _, _, err := env.Step(bad); !errors.Is(err, control.ErrNonFiniteAction) {
						return nil, fmt.Errorf("check: Step with a %g action returned err = %v, want ErrNonFiniteAction", v, err)
					}
				}
			}
			obs, r, term, trunc, info, err := env.Step(a[i])
			if err != nil {
				return nil, fmt.Errorf("check: Step %d: %w", i, err)
			}
			if err := checkObs(fmt.Sprintf("Step %d", i), obs); err != nil {
				return nil, err
			}
			if _, ok := info.Values["success"]; !ok {
				return nil, fmt.Errorf(`check: Step %d info lacks the "success" key`, i)
			}
			traj = append(traj, obs...)
			traj = append(traj, r)
			if term || trunc {
				break
			}
		}
		return traj, nil
	}
	t1, err := rollout(acts, -1)
	if err != nil {
		return err
	}
	t2, err := rollout(acts, -1)
	if err != nil {
		return err
	}
	if i := firstDiff(t1, t2); i >= 0 {
		return fmt.Errorf("check: two rollouts from Reset(%d) with the same actions differ at value %d (%g vs %g)", seed, i, t1[i], t2[i])
	}
	t3, err := rollout(clipped, probeSteps/2)
	if err != nil {
		return err
	}
	if i := firstDiff(t1, t3); i >= 0 {
		return fmt.Errorf("check: out-of-bounds actions and their clipped values (with rejected NaN actions interleaved) give different trajectories at value %d (%g vs %g)", i, t1[i], t3[i])
	}

	// a random episode to the time limit
	obs, _ := env.Reset(seed + 1)
	if err := checkObs("Reset", obs); err != nil {
		return err
	}
	a := make([]float64, spec.ActDim)
	limit := spec.MaxEpisodeSteps
	maxSteps := limit
	if maxSteps == 0 {
		maxSteps = 1000
	}
	for t := 1; t <= maxSteps; t++ {
		spec.SampleAction(a, rng.Float64)
		obs, r, term, trunc, _, err := env.Step(a)
		if err != nil {
			return fmt.Errorf("check: random episode step %d: %w", t, err)
		}
		if err := checkObs(fmt.Sprintf("random step %d", t), obs); err != nil {
			return err
		}
		if math.IsNaN(r) || math.IsInf(r, 0) {
			return fmt.Errorf("check: random step %d: reward is %g", t, r)
		}
		if spec.RewardLow != 0 || spec.RewardHigh != 0 {
			if r < spec.RewardLow || r > spec.RewardHigh {
				return fmt.Errorf("check: random step %d: reward %g outside [%g, %g]", t, r, spec.RewardLow, spec.RewardHigh)
			}
		}
		if trunc && (limit == 0 || t != limit) {
			return fmt.Errorf("check: truncated at step %d, MaxEpisodeSteps is %d", t, limit)
		}
		if term && trunc {
			return fmt.Errorf("check: step %d is both terminated and truncated", t)
		}
		if term || trunc {
			if _, _, _, _, _, err := env.Step(a); !errors.Is(err, control.ErrNeedsReset) {
				return fmt.Errorf("check: Step after the episode ended returned err = %v, want ErrNeedsReset", err)
			}
			return nil
		}
		if limit > 0 && t == limit {
			return fmt.Errorf("check: episode not truncated at MaxEpisodeSteps = %d", limit)
		}
	}
	return nil
}

func firstDiff(a, b []float64) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}
