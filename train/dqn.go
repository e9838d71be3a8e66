package train

import (
	"context"
	"fmt"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/dqn"
	"github.com/vlmrb/vlmrb/nn"
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/tasks/grid"
	"github.com/vlmrb/vlmrb/vlmprio"
)

// dqnRunner is Double DQN on a grid task: environments stepped in turn,
// n-step returns, and VLM-RB's tile-frame scoring, on the shared loop.
type dqnRunner struct {
	*core

	envs    []*grid.Env
	experts []*grid.Planner // per env, for demo episodes
	evalEnv *grid.Env
	epCount []int // episodes started per env, for EpisodeSeed
	seed    uint64

	agent *dqn.Agent
	dcfg  dqn.Config
	score *scoring // replay vlmrb

	obs  [][]float64
	act  []float64
	nq   []nstepQueue
	info map[string]float64 // the step's info for the hooks (success)
}

// nstepQueue holds an env's last n (obs, action, reward) for n-step
// returns, and each step's info for the diagnostics.
type nstepQueue struct {
	obs  [][]float64
	act  []float64
	rew  []float64
	step []int32
	lab  []stepLabel
	frm  []vlmprio.Observed // o_t of each step, for VLM-RB's clips (empty without scoring)
}

// stepLabel is the info of the state after one step: the diagnostics label
// a stored transition (s_t, a_t, R, s_{t+m}) by its own step t, so the
// progress events are the steps that picked up the key, opened the door and
// reached the goal (grid.Stages), each counted once.
type stepLabel struct{ success, stage, progress float64 }

// setup prepares the run directory, environments, agent and replay,
// restoring a checkpoint when resuming.
func (r *dqnRunner) setup(ctx context.Context) error {
	cfg := &r.cfg
	view, err := grid.ParseView(cfg.Grid.View)
	if err != nil {
		return &rundir.ConfigError{Msg: err.Error()}
	}
	ckptDir, man, err := r.prepareRunDir()
	if err != nil {
		return err
	}
	gopts := grid.Options{View: view, MaxSteps: cfg.Grid.MaxSteps}
	r.envs = make([]*grid.Env, cfg.NumEnvs)
	for i := range r.envs {
		if r.envs[i], err = grid.Make(cfg.Task, gopts); err != nil {
			return &rundir.ConfigError{Msg: err.Error() + " (robot-train tasks lists them)"}
		}
	}
	if r.evalEnv, err = grid.Make(cfg.Task, gopts); err != nil {
		return &rundir.ConfigError{Msg: err.Error()}
	}
	spec := r.evalEnv.Spec()

	// process-global: every network in this process uses it (see Run)
	if err := nn.SetBackend(cfg.BLAS); err != nil {
		return &rundir.ConfigError{Msg: err.Error()}
	}
	if r.agent, err = dqn.New(r.dqnConfig(), spec.ObsDim, spec.Discrete); err != nil {
		return &rundir.ConfigError{Msg: err.Error()}
	}
	r.dcfg = r.agent.Config()

	if r.buf, err = replay.NewBuffer(replay.Config{Capacity: cfg.Buffer.Capacity, ObsDim: spec.ObsDim, ActDim: 1,
		ShareNextObs: cfg.Buffer.ShareNextObs}); err != nil {
		return &rundir.ConfigError{Msg: err.Error()}
	}
	warm := int64(float64(cfg.Buffer.LambdaWarmup) / float64(cfg.DQN.TrainFreq))
	if err := r.initLoop(spec.ObsDim, 1, cfg.DQN.BatchSize, r.totalUpdates(), warm); err != nil {
		return err
	}
	r.title = fmt.Sprintf("%s / dqn / %s", cfg.Task, cfg.Replay)

	r.seed = cfg.Seed
	if man != nil {
		if err := r.restore(ckptDir, man); err != nil {
			return err
		}
		// fresh episodes after a resume (the interrupted ones are not in the checkpoint)
		r.seed = cfg.Seed ^ uint64(man.Step)*0x9e3779b97f4a7c15
	}
	r.hooks = hookList{r.diag}
	if cfg.Replay == "vlmrb" {
		if r.score, err = r.newScoring(ctx); err != nil {
			return err
		}
		r.hooks = append(r.hooks, r.score)
	}

	n := cfg.NumEnvs
	r.obs = make([][]float64, n)
	r.epCount = make([]int, n)
	r.act = []float64{0}
	r.nq = make([]nstepQueue, n)
	r.info = map[string]float64{"success": 0, "stage": 0, "progress": 0}
	for i, e := range r.envs {
		var info control.Info
		r.obs[i], info = e.Reset(control.EpisodeSeed(r.seed, i, 0))
		r.diag.begin(i, info.Values)
		r.epCount[i] = 1
		r.startEpisode(i)
	}
	if err := r.openLog(man); err != nil {
		return err
	}
	if r.out != nil {
		_, _ = fmt.Fprintf(r.out, "training %s (%s view) with DQN and %s replay", cfg.Task, view, cfg.Replay)
		if r.score != nil {
			_, _ = fmt.Fprintf(r.out, ", %s scorer (%s)", cfg.Scorer, r.score.desc)
		}
		r.printStart(ckptDir, man)
	}
	return nil
}

// dqnConfig is the agent's configuration from the run's.
func (r *dqnRunner) dqnConfig() dqn.Config {
	d := r.cfg.DQN
	dc := d.Config
	dc.MaxGradNorm = d.MaxGradNorm
	if d.MaxGradNorm == 0 {
		dc.MaxGradNorm = -1 // 0 disables in the config file; dqn takes a negative value for that
	}
	dc.EpsDecaySteps = int64(d.EpsFraction * float64(max(r.cfg.Steps-d.LearningStarts, 0)))
	dc.Categorical = r.evalEnv.Cardinalities()
	dc.ReLo = r.cfg.Feedback() == rundir.ReLoFeedback
	dc.Seed = r.cfg.Seed
	return dc
}

// totalUpdates is the number of gradient updates the budget implies.
func (r *dqnRunner) totalUpdates() int64 {
	return max(r.cfg.Steps-r.cfg.DQN.LearningStarts, 0) / int64(r.cfg.DQN.TrainFreq)
}

// collect steps every env in turn with an ε-greedy action (uniform random
// before learning starts), resetting finished episodes.
func (r *dqnRunner) collect(ctx context.Context) error {
	eps := r.dcfg.Epsilon(r.step)
	var frames []vlmprio.Observed
	if r.score != nil {
		if err := r.score.writeBack(ctx); err != nil { // scores due under vlm.lag
			return err
		}
		// o_t of every env (each env's state is its own until its step)
		var err error
		if frames, err = r.score.capture(ctx, len(r.envs), r.view); err != nil {
			return err
		}
	}
	for i, e := range r.envs {
		switch {
		case r.demo(i):
			if r.experts == nil {
				r.experts = make([]*grid.Planner, r.cfg.NumEnvs)
			}
			if r.experts[i] == nil || r.experts[i].Env != e {
				r.experts[i] = grid.Expert(e)
			}
			r.act[0] = float64(r.experts[i].Next())
		case r.step < r.cfg.DQN.LearningStarts || r.rng.Float64() < eps:
			r.act[0] = float64(r.rng.IntN(grid.NumActions))
		default:
			r.act[0] = float64(r.agent.Greedy(r.obs[i]))
		}
		a := r.act[0]
		next, rew, term, trunc, info, err := e.Step(r.act)
		if err != nil {
			return fmt.Errorf("env step: %w", err)
		}
		if r.score != nil && term { // o_T: the terminal state closes the episode's clips
			if err := r.score.terminal(ctx, i, r.view); err != nil {
				return err
			}
		}
		lab := stepLabel{b2f(info.Success()), info.Get("stage"), info.Get("progress")}
		if frames != nil {
			r.nq[i].frm = append(r.nq[i].frm, frames[i])
		}
		if err := r.store(i, a, rew, next, term, trunc, lab); err != nil {
			return err
		}
		r.record(i, rew, info.Success(), term || trunc)
		if term || trunc {
			next, info = e.Reset(control.EpisodeSeed(r.seed, i, r.epCount[i]))
			r.diag.begin(i, info.Values)
			r.epCount[i]++
		}
		r.obs[i] = next
	}
	r.step += int64(r.cfg.NumEnvs)
	return nil
}

// store queues env i's step (its frame o_t already queued by collect) for
// n-step returns and adds every transition
// that is complete: (s_t, a_t, Σ_{k<m} γ^k r_{t+k}, s_{t+m}) with m = n,
// or the m < n steps left when the episode ends (terminated: no bootstrap;
// truncated: the learner bootstraps with γⁿ, a small bias at time limits).
func (r *dqnRunner) store(i int, a, rew float64, next []float64, term, trunc bool, lab stepLabel) error {
	q := &r.nq[i]
	q.obs = append(q.obs, r.obs[i])
	q.act = append(q.act, a)
	q.rew = append(q.rew, rew)
	q.step = append(q.step, r.epT[i])
	q.lab = append(q.lab, lab)
	nstep := r.cfg.DQN.NStep
	done := term || trunc
	emit := func() error {
		ret, g := 0.0, 1.0
		for _, v := range q.rew {
			ret += g * v
			g *= r.cfg.DQN.Gamma
		}
		t := replay.Transition{
			Obs: q.obs[0], Action: q.act[:1], Reward: ret, NextObs: next,
			Terminated: term, Truncated: trunc,
			Env: int32(i), Episode: r.epID[i], Step: q.step[0],
		}
		last := done && len(q.rew) == 1
		r.info["success"], r.info["stage"], r.info["progress"] = q.lab[0].success, q.lab[0].stage, q.lab[0].progress
		var o *vlmprio.Observed
		if len(q.frm) > 0 {
			o = &q.frm[0]
			q.frm = q.frm[1:]
		}
		q.obs, q.act, q.rew, q.step, q.lab = q.obs[1:], q.act[1:], q.rew[1:], q.step[1:], q.lab[1:]
		_, err := r.add(r.step, i, t, o, r.info, last)
		return err
	}
	if !done {
		if len(q.rew) == nstep {
			return emit()
		}
		return nil
	}
	for len(q.rew) > 0 {
		if err := emit(); err != nil {
			return err
		}
	}
	r.nq[i] = nstepQueue{}
	return nil
}

// train runs the gradient updates the step count calls for: one per
// train_freq env steps after learning_starts.
func (r *dqnRunner) train(context.Context) error {
	cfg := &r.cfg
	if r.step < cfg.DQN.LearningStarts || r.buf.Len() < cfg.DQN.BatchSize {
		return nil
	}
	return r.update((r.step-cfg.DQN.LearningStarts)/int64(cfg.DQN.TrainFreq), r.obs, dqnUpdater{r.agent})
}

// dqnUpdater is the DQN agent's gradient step for core.update.
type dqnUpdater struct{ *dqn.Agent }

func (dqnUpdater) prepare(*replay.Batch) {}

func (u dqnUpdater) update(b *replay.Batch) (UpdateMetrics, error) { return u.Update(b) }

// values adds the exploration rate and the VLM-RB group to a log row.
func (r *dqnRunner) values(v map[string]float64) {
	v["rollout/exploration"] = r.dcfg.Epsilon(r.step)
	if r.score != nil {
		r.score.metrics(v, r.buf.Len())
	}
}

func (r *dqnRunner) stop() {
	if r.score != nil {
		r.score.stop()
	}
}

func (r *dqnRunner) close() {
	if r.score != nil {
		r.score.close()
	}
	r.closeLog()
}

func (r *dqnRunner) marshalAgent() ([]byte, error) { return r.agent.MarshalBinary() }
