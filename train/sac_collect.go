package train

import (
	"context"
	"fmt"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/sac"
	"github.com/vlmrb/vlmrb/vlmprio"
)

// collect takes one step in every env: uniform random actions until
// learning starts, then the stochastic policy; the scripted expert in the
// first cfg.Demos episodes.
func (r *runner) collect(ctx context.Context) error {
	cfg := &r.cfg
	n, A := cfg.NumEnvs, r.spec.ActDim
	var frames []vlmprio.Observed
	if r.score != nil {
		if err := r.score.writeBack(ctx); err != nil { // scores due under vlm.lag
			return err
		}
		// o_t: frames and progress of the states the actions are taken in
		var err error
		if frames, err = r.score.capture(ctx, n, r.view); err != nil {
			return err
		}
	}
	if r.step < cfg.SAC.LearningStarts {
		for i := range r.actions {
			for j := range r.actions[i] {
				r.actions[i][j] = 2*r.rng.Float64() - 1
			}
		}
	} else {
		for i, o := range r.obs {
			for j, v := range o {
				r.obsF32[i*r.spec.ObsDim+j] = float32(v)
			}
		}
		r.agent.ActBatch(r.actF32, r.obsF32, n, false)
		for i := range r.actions {
			for j := range r.actions[i] {
				r.actions[i][j] = float64(r.actF32[i*A+j])
			}
		}
	}
	for i := range n {
		if r.demo(i) {
			r.expertAction(i)
		}
	}
	next, rew, term, trunc, infos, err := r.vec.Step(r.scaleActions())
	if err != nil {
		return fmt.Errorf("env step: %w", err)
	}
	for i := range n {
		nobs, vals := next[i], infos[i].Values
		done := term[i] || trunc[i]
		if done {
			nobs, vals = infos[i].FinalObs, infos[i].FinalValues
		}
		var o *vlmprio.Observed
		if frames != nil {
			o = &frames[i]
		}
		if _, err := r.add(r.step, i, replay.Transition{
			Obs: r.obs[i], Action: r.actions[i], Reward: rew[i], NextObs: nobs,
			Terminated: term[i], Truncated: trunc[i],
			Env: int32(i), Episode: r.epID[i], Step: r.epT[i],
		}, o, vals, done); err != nil {
			return err
		}
		r.record(i, rew[i], vals["success"] != 0, done)
		r.obs[i] = next[i]
	}
	r.step += int64(n)
	if err := r.vlm.err(); err != nil {
		return err
	}
	if r.rm != nil {
		return r.rm.afterStep(ctx, r.step)
	}
	return nil
}

// expertAction sets env i's action to its scripted expert's (a fresh
// expert per demo episode), mapped from the env's bounds to the agent's
// [−1, 1] and clamped there, so that what replay stores is what the env
// executes.
func (r *runner) expertAction(i int) {
	if r.experts == nil {
		r.experts, r.expEp = make([]control.Policy, r.cfg.NumEnvs), make([]int64, r.cfg.NumEnvs)
	}
	if r.experts[i] == nil || r.expEp[i] != r.epID[i] {
		r.experts[i], r.expEp[i] = r.expert(i), r.epID[i]
	}
	a := r.actions[i]
	r.experts[i].Act(r.obs[i], a)
	lo, hi := r.spec.ActLow, r.spec.ActHigh
	for j, v := range a {
		if lo != nil && hi != nil && hi[j] > lo[j] {
			v = 2*(v-lo[j])/(hi[j]-lo[j]) - 1
		}
		a[j] = min(max(v, -1), 1)
	}
}

// scaleActions maps the agent's [−1, 1] actions to the env's bounds,
// leaving r.actions (what replay stores) in the agent's space.
func (r *runner) scaleActions() [][]float64 {
	lo, hi := r.spec.ActLow, r.spec.ActHigh
	for i, a := range r.actions {
		for j, v := range a {
			if lo != nil && hi != nil {
				v = lo[j] + (v+1)/2*(hi[j]-lo[j])
			}
			r.scaled[i][j] = v
		}
	}
	return r.scaled
}

// train runs the gradient updates the step count calls for: UpdatesPerStep
// per env step after learning starts (and, with a learned reward, after
// the reward exists, plus its catch-up updates).
func (r *runner) train(context.Context) error {
	cfg := &r.cfg
	if r.step < cfg.SAC.LearningStarts || r.buf.Len() < cfg.SAC.BatchSize {
		return nil
	}
	start := cfg.SAC.LearningStarts
	var extra int64
	if r.rm != nil {
		rmStart, rmExtra, refit, ok := r.rm.updatePlan(cfg.RM.Catchup)
		if !ok {
			return nil
		}
		start, extra = max(start, rmStart), rmExtra
		if refit && cfg.RM.ResetCritic { // the reward just changed under the agent (PEBBLE)
			r.agent.ResetCritics()
		}
	}
	target := int64(float64(r.step-start+int64(cfg.NumEnvs))*cfg.SAC.UpdatesPerStep) + extra
	return r.update(target, r.obs, sacUpdater{r.agent, r})
}

// sacUpdater is the SAC agent's gradient step for core.update.
type sacUpdater struct {
	*sac.Agent
	r *runner
}

func (u sacUpdater) prepare(b *replay.Batch) {
	if u.r.rm != nil {
		u.r.rm.apply(b, u.r.rng)
	}
}

func (u sacUpdater) update(b *replay.Batch) (UpdateMetrics, error) { return u.Update(b) }
