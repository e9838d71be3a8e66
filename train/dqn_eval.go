package train

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/vlmrb/vlmrb/dqn"
	"github.com/vlmrb/vlmrb/rundir"
)

// evaluate runs the greedy policy (ε = dqn.eval_eps) and records a GIF
// when asked.
func (r *dqnRunner) evaluate(ctx context.Context) (*rundir.EvalResult, map[string]float64, error) {
	// evaluation draws its own ε stream so it does not perturb training's
	// (EvalRun draws the same one)
	seed := rundir.EvalSeed(r.cfg)
	pol := rundir.DQNEvalPolicy(r.agent, r.cfg.DQN.EvalEps, rand.New(rand.NewPCG(seed, uint64(r.step))))
	res, err := rundir.EvaluateGrid(ctx, r.evalEnv, pol, r.cfg.Eval.Episodes, seed)
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

func (r *dqnRunner) restore(dir string, man *rundir.Manifest) error {
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
