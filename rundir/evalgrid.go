package rundir

import (
	"context"
	"fmt"
	"math"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/tasks/grid"
)

// EvaluateGrid runs episodes of policy on env from seeds
// EpisodeSeed(seed, 0, k) and reports the success rate (the goal reached),
// returns and lengths.
func EvaluateGrid(ctx context.Context, env *grid.Env, policy control.Policy, episodes int, seed uint64) (*EvalResult, error) {
	if episodes <= 0 {
		return nil, fmt.Errorf("evaluate: episodes must be ≥ 1 (got %d)", episodes)
	}
	res := &EvalResult{Episodes: episodes}
	act := []float64{0}
	total := 0
	for k := range episodes {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		obs, _ := env.Reset(control.EpisodeSeed(seed, 0, k))
		if rs, ok := policy.(control.Resetter); ok {
			rs.Reset()
		}
		ret, succ, length := 0.0, false, 0
		for {
			policy.Act(obs, act)
			next, rew, term, trunc, info, err := env.Step(act)
			if err != nil {
				return nil, err
			}
			ret += rew
			length++
			succ = succ || info.Success()
			obs = next
			if term || trunc {
				break
			}
		}
		res.Returns = append(res.Returns, ret)
		res.Successes = append(res.Successes, succ)
		res.MeanReturn += ret
		if succ {
			res.SuccessRate++
		}
		total += length
	}
	n := float64(episodes)
	res.MeanReturn /= n
	res.SuccessRate /= n
	res.MeanLength = float64(total) / n
	for _, x := range res.Returns {
		res.StdReturn += (x - res.MeanReturn) * (x - res.MeanReturn)
	}
	res.StdReturn = math.Sqrt(res.StdReturn / n)
	return res, nil
}
