package train

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/dqn"
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

// evaluate runs the greedy policy (ε = dqn.eval_eps) and records a GIF
// when asked.
func (r *dqnRunner) evaluate(ctx context.Context) (*EvalResult, map[string]float64, error) {
	// evaluation draws its own ε stream so it does not perturb training's
	// (EvalRun draws the same one)
	seed := EvalSeed(r.cfg)
	pol := dqnEvalPolicy(r.agent, r.cfg.DQN.EvalEps, rand.New(rand.NewPCG(seed, uint64(r.step))))
	res, err := EvaluateGrid(ctx, r.evalEnv, pol, r.cfg.Eval.Episodes, seed)
	if err != nil {
		return nil, nil, err
	}
	if r.cfg.Eval.GIF {
		if gif, err := r.evalGIF(); err != nil {
			r.warnf("evaluation GIF: %v", err)
		} else {
			r.res.GIFs = append(r.res.GIFs, gif)
		}
	}
	return res, nil, nil
}

// dqnRunState is the DQN loop's part of a checkpoint.
type dqnRunState struct {
	loopState
	LastUpd dqn.Metrics `json:"last_update"`
}

func (r *dqnRunner) checkpoint() error {
	st := dqnRunState{loopState: r.loopState()}
	if m, ok := r.lastUpd.(dqn.Metrics); ok {
		st.LastUpd = m
	}
	return r.save(r.agent.MarshalBinary, st)
}

func (r *dqnRunner) restore(dir string, man *Manifest) error {
	var st dqnRunState
	ab, err := r.core.restore(dir, man, &st, &st.loopState)
	if err != nil {
		return err
	}
	agent, err := dqn.Unmarshal(ab)
	if err != nil {
		return fmt.Errorf("resume agent: %w", err)
	}
	r.agent = agent
	r.dcfg = agent.Config()
	if st.HaveUpd {
		r.lastUpd = st.LastUpd
	}
	return nil
}
