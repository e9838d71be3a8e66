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
	var extra []CheckpointPart
	if r.rm != nil {
		st.RewardStart, st.RewardCatchup = r.rm.startStep, r.rm.catchup
		// a bounded wait: an unreachable embedding server must not hold up
		// a checkpoint (or Ctrl-C); frames it does not embed stay unset
		ctx, cancel := context.WithTimeout(context.Background(), checkpointFlushTimeout)
		defer cancel()
		extra = append(extra, CheckpointPart{Name: "reward.bin", Write: writeBytes(func() ([]byte, error) { return r.rm.marshal(ctx) })})
	}
	return r.save(r.agent.MarshalBinary, st, extra...)
}

// restore loads a checkpoint into the freshly built runner.
func (r *runner) restore(dir string, man *Manifest) error {
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
		rb, err := readPart(dir, man, "reward.bin", MaxAgentBytes)
		if err != nil {
			return fmt.Errorf("resume reward model: %w", err)
		}
		if err := r.rm.unmarshal(rb); err != nil {
			return fmt.Errorf("resume reward model (%s): %w", filepath.Join(dir, "reward.bin"), err)
		}
		r.rm.startStep, r.rm.catchup = st.RewardStart, st.RewardCatchup
	}
	return nil
}

// evaluate runs the deterministic policy (recording a GIF when asked) and
// the expert-episode checks of the learned reward and the clip scores.
func (r *runner) evaluate(ctx context.Context) (*EvalResult, map[string]float64, error) {
	gif := ""
	if r.cfg.Eval.GIF && r.evalCam == nil && r.camErr == nil {
		r.evalCam, r.camErr = NewSimCamera(r.cfg.VLM.Backend, r.cfg.VLM.Camera, r.cfg.VLM.Theme, r.cfg.Eval.GIFSize, r.cfg.Eval.GIFSize, r.evalEnv)
		if r.camErr != nil {
			r.warnf("no evaluation GIFs: %v", r.camErr)
		}
	}
	if r.evalCam != nil {
		gif = filepath.Join(r.cfg.Out, "videos", fmt.Sprintf("eval-%09d.gif", r.step))
	}
	res, err := Evaluate(ctx, r.evalEnv, AgentPolicy(r.agent), EvalOptions{
		Episodes: r.cfg.Eval.Episodes, Seed: EvalSeed(r.cfg),
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
	if r.rm != nil {
		rho, byStage, err := r.rm.expertRank(ctx, r.evalEnv, r.cfg.Seed^evalSeedSalt^0xe4)
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
		rho, err := scoreValueCorrelation(ctx, r, r.score, r.cfg.Seed^evalSeedSalt^0xd9, 4)
		if err != nil {
			r.warnf("score vs ΔQ on an expert episode: %v", err)
		} else if !math.IsNaN(rho) {
			extra["eval/score_dq_spearman"] = rho
		}
	}
	return res, extra, nil
}

// scoringHook hands every stored transition to VLM-RB's clipper.
type scoringHook struct {
	NopHook
	r *runner
}

func (h scoringHook) OnStep(e StepEvent) error {
	if e.Recorded { // no live frame belongs to it; insertDemos feeds the clipper itself
		return nil
	}
	h.r.score.push(h.r, e.Env, e.Ref, e.Done)
	return nil
}

// rewardHook renders every stored transition's s_{t+1} for the learned
// reward.
type rewardHook struct {
	NopHook
	r *runner
}

func (h rewardHook) OnStep(e StepEvent) error {
	p, ok := e.Info["progress"]
	if !ok {
		p = math.NaN()
	}
	return h.r.rm.observe(h.r, e.Env, e.Ref, e.Done, p)
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
	cam, err := NewSimCameraWith(cfg.VLM.Backend, cfg.VLM.Camera, cfg.VLM.Theme, cfg.VLM.Width, cfg.VLM.Height, r.envs[0], cfg.VLM.CameraOptions())
	if err != nil {
		return nil, fmt.Errorf("scorer frames: %w", err)
	}
	r.frameCam = cam
	for _, e := range r.envs {
		srcs = append(srcs, cam.Source(e, cfg.VLM.Camera))
	}
	return srcs, nil
}

// sacConfig is the agent's configuration from the run's.
func (c *Config) sacConfig() sac.Config {
	sc := sac.DefaultConfig()
	sc.Gamma, sc.Tau, sc.BatchSize = c.SAC.Gamma, c.SAC.Tau, c.SAC.BatchSize
	sc.LearningStarts = int(c.SAC.LearningStarts)
	sc.PolicyLR, sc.QLR = c.SAC.ActorLR, c.SAC.CriticLR
	sc.PolicyFrequency, sc.TargetNetworkFrequency = c.SAC.PolicyFreq, c.SAC.TargetFreq
	sc.Autotune, sc.Alpha = c.SAC.AutoAlpha, c.SAC.Alpha
	sc.TargetEntropy, sc.AlphaMin, sc.NoEntropyBackup = c.SAC.TargetEntropy, c.SAC.AlphaMin, !c.SAC.EntropyBackup
	sc.Hidden = c.SAC.Hidden
	sc.ReLo = c.Replay == "relo"
	sc.Seed = c.Seed
	sc.Threads = c.SAC.Threads
	return sc
}
