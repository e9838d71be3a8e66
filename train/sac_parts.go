package train

// The SAC runner's evaluation, checkpoint and the hooks that hand
// stored transitions to VLM-RB's scorer and to the learned reward.

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/rundir"
	"github.com/vlmrb/vlmrb/sac"
)

// checkpointFlushTimeout bounds VLM-RM's embedding flush at a checkpoint.
const checkpointFlushTimeout = 20 * time.Second

// runState is the SAC loop's part of a checkpoint (state.json).
type runState struct {
	loopState
	LastUpd       sac.Metrics
	RewardStart   int64 `json:"reward_start_step,omitempty"`      // erlvlm with pretrain none: env step of the first reward fit
	RewardCatchup int64 `json:"reward_catchup_updates,omitempty"` // erlvlm: extra updates granted at the first fit
}

// checkpoint writes agent, replay buffer, RNG, counters and the learned
// reward atomically.
func (r *runner) checkpoint() error {
	st := runState{loopState: r.loopState()}
	if m, ok := r.lastUpd.(sac.Metrics); ok {
		st.LastUpd = m
	}
	var extra []rundir.CheckpointPart
	if r.rm != nil {
		st.RewardStart, st.RewardCatchup = r.rm.schedule()
		// a bounded wait: an unreachable embedding server must not hold up
		// a checkpoint (or Ctrl-C); frames it does not embed stay unset
		ctx, cancel := context.WithTimeout(context.Background(), checkpointFlushTimeout)
		defer cancel()
		extra = append(extra, rundir.CheckpointPart{Name: "reward.bin", Write: writeBytes(func() ([]byte, error) { return r.rm.marshal(ctx) })})
	}
	return r.save(r.agent.MarshalBinary, st, extra...)
}

// restore loads a checkpoint into the freshly built runner.
func (r *runner) restore(dir string, man *rundir.Manifest) error {
	var st runState
	ab, err := r.core.restore(dir, man, &st, &st.loopState)
	if err != nil {
		return err
	}
	agent, err := sac.Unmarshal(ab)
	if err != nil {
		return fmt.Errorf("resume agent: %w", err)
	}
	r.agent.Close()
	r.agent = agent
	if st.HaveUpd {
		r.lastUpd = st.LastUpd
	}
	if r.rm != nil {
		rb, err := rundir.ReadPart(dir, man, "reward.bin", rundir.MaxAgentBytes)
		if err != nil {
			return fmt.Errorf("resume reward model: %w", err)
		}
		if err := r.rm.unmarshal(rb); err != nil {
			return fmt.Errorf("resume reward model (%s): %w", filepath.Join(dir, "reward.bin"), err)
		}
		r.rm.restoreSchedule(st.RewardStart, st.RewardCatchup)
	}
	return nil
}

// evaluate runs the deterministic policy (recording a GIF when asked) and
// the expert-episode checks of the learned reward and the clip scores.
func (r *runner) evaluate(ctx context.Context) (*rundir.EvalResult, map[string]float64, error) {
	if r.armEval != nil {
		return r.evaluateArm(ctx) // armrun.go
	}
	gif := ""
	if r.cfg.Eval.GIF && r.evalCam == nil && r.camErr == nil {
		r.evalCam, r.camErr = rundir.NewSimCamera(r.cfg.VLM.Backend, r.cfg.VLM.Camera, r.cfg.VLM.Theme, r.cfg.Eval.GIFSize, r.cfg.Eval.GIFSize, r.evalEnv)
		if r.camErr != nil {
			r.warnf("no evaluation GIFs: %v", r.camErr)
		}
	}
	if r.evalCam != nil {
		gif = rundir.EvalVideoPath(r.cfg.Out, r.step)
	}
	res, err := rundir.Evaluate(ctx, r.evalEnv, rundir.AgentPolicy(r.agent), rundir.EvalOptions{
		Episodes: r.cfg.Eval.Episodes, Seed: rundir.EvalSeed(r.cfg),
		GIF: gif, Cam: r.evalCam, Warnf: r.warnf,
	})
	if err != nil {
		return nil, nil, err
	}
	if gif != "" {
		if _, err := os.Stat(gif); err == nil {
			r.res.GIFs = append(r.res.GIFs, gif)
		}
	}
	extra := map[string]float64{}
	// the same episodes with the stochastic policy (evalstoch.go)
	sres, err := rundir.EvaluateStochastic(ctx, r.evalEnv, r.agent, r.cfg.Eval.Episodes, rundir.EvalSeed(r.cfg))
	if err != nil {
		return nil, nil, err
	}
	res.Stochastic = sres
	extra["eval/success_rate_stochastic"] = sres.SuccessRate
	extra["eval/mean_reward_stochastic"] = sres.MeanReturn
	if r.rm != nil {
		rho, byStage, err := r.rm.expertRank(ctx, r.evalEnv, r.cfg.Seed^rundir.EvalSeedSalt^0xe4)
		if err != nil {
			r.warnf("reward on an expert episode: %v", err)
		} else if !math.IsNaN(rho) {
			extra["eval/reward_expert_spearman"] = rho
		}
		for k, v := range byStage {
			extra[fmt.Sprintf("eval/reward_expert_stage_%d", k)] = v
		}
	}
	if r.score != nil {
		// the paper's Fig. 3 check: clip scores against the critic's ΔQ
		rho, err := r.scoreValueCorrelation(ctx)
		if err != nil {
			r.warnf("score vs ΔQ on an expert episode: %v", err)
		} else if !math.IsNaN(rho) {
			extra["eval/score_dq_spearman"] = rho
		}
	}
	return res, extra, nil
}

func (r *runner) marshalAgent() ([]byte, error) { return r.agent.MarshalBinary() }

// frameSources opens the scorer's camera of every env: Options.Frames, or
// the sim camera (vlm.camera, vlm.width×vlm.height, vlm.theme) bound to
// each env.
func (r *runner) frameSources() ([]frame.Source, error) {
	cfg := &r.cfg
	srcs := make([]frame.Source, 0, cfg.NumEnvs)
	if r.opts.Frames != nil {
		for i := range cfg.NumEnvs {
			src, err := r.opts.Frames(i)
			if err != nil {
				for _, s := range srcs {
					_ = s.Close()
				}
				return nil, fmt.Errorf("scorer frames of env %d: %w", i, err)
			}
			srcs = append(srcs, src)
		}
		return srcs, nil
	}
	if r.arm != nil {
		return r.armFrameSources() // armobject.go
	}
	cam, err := rundir.NewSimCameraWith(cfg.VLM.Backend, cfg.VLM.Camera, cfg.VLM.Theme, cfg.VLM.Width, cfg.VLM.Height, r.envs[0], cfg.VLM.CameraOptions())
	if err != nil {
		return nil, fmt.Errorf("scorer frames: %w", err)
	}
	r.frameCam = cam
	for _, e := range r.envs {
		srcs = append(srcs, cam.Source(e, cfg.VLM.Camera))
	}
	return srcs, nil
}

// newScoring sets up VLM-RB's clip scoring: the configured scorer (an
// OpenAI server's failures counted by the outage record) and, for every
// scorer but the oracle, the envs' cameras.
func (r *runner) newScoring(ctx context.Context) (*scoring, error) {
	cfg := &r.cfg
	scorer := r.opts.Scorer
	if scorer == nil {
		var err error
		if scorer, err = rundir.NewScorer(cfg.Scorer, r.meta, cfg.VLM); err != nil {
			return nil, err
		}
		if cfg.Scorer == "openai" {
			scorer = outageScorer{scorer, r.vlm}
		}
	}
	su := scoringSetup{scorer: scorer, sink: r.smp.vlmrb, task: r.meta.Description, family: r.meta.Family,
		desc: "privileged progress, no frames"}
	if cfg.Scorer != "oracle" {
		var err error
		if su.srcs, err = r.frameSources(); err != nil {
			return nil, err
		}
		su.desc = "frames from the run's own sources"
		if r.frameCam != nil {
			su.desc = fmt.Sprintf("%s camera %dx%d, %s", cfg.VLM.Camera, cfg.VLM.Width, cfg.VLM.Height, r.frameCam.Describe())
		}
	}
	return newScoring(ctx, cfg, su), nil
}

// view is env i's privileged progress and simulated time, for the scorer.
func (r *runner) view(i int) (float64, time.Duration) {
	p, t := r.progress(i)
	return p, time.Duration(t * float64(time.Second))
}

// scoreValueCorrelation is the Fig. 3 check of the run's scorer and
// critics (diag.go); NaN on task arm-reach and when the scorer's frames
// come from Options.Frames (there is no simulated expert to film).
func (r *runner) scoreValueCorrelation(ctx context.Context) (float64, error) {
	if r.arm != nil || (r.opts.Frames != nil && r.cfg.Scorer != "oracle") {
		return math.NaN(), nil
	}
	online, _ := r.agent.Critics()
	return scoreValueCorrelation(ctx, fig3Setup{cfg: &r.cfg, meta: r.meta, cam: r.frameCam, scorer: r.score.scorer, critics: online},
		r.cfg.Seed^rundir.EvalSeedSalt^0xd9, 4)
}
