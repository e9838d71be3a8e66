package train

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/vlmrb/vlmrb/nn"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"github.com/vlmrb/vlmrb/internal/cputime"
	"github.com/vlmrb/vlmrb/replay"
	"github.com/vlmrb/vlmrb/sac"
	"github.com/vlmrb/vlmrb/sim/mjcf"
	"github.com/vlmrb/vlmrb/tasks"
)

// ArmReachConfig configures RunArmReach: SAC with uniform replay on the
// arm-reach task over an imported MJCF arm.
type ArmReachConfig struct {
	Model string // MJCF file
	Task  tasks.ArmReachOptions
	SAC   sac.Config
	// Steps is the number of env steps; LearningStarts of them take
	// uniform random actions before the first update.
	Steps, LearningStarts int
	// EvalEvery env steps, EvalEpisodes deterministic episodes on seeds
	// disjoint from training's.
	EvalEvery, EvalEpisodes int
	Seed                    uint64
	// Out is the run directory: metrics.jsonl (one line per evaluation),
	// summary.json and agent.bin (the SAC agent).
	Out string
	// Log receives one line per evaluation (nil: silent).
	Log io.Writer
}

// DefaultArmReachConfig returns a budget that learns arm6.xml's reach.
func DefaultArmReachConfig() ArmReachConfig {
	c := sac.DefaultConfig()
	c.LearningStarts = 2000
	return ArmReachConfig{SAC: c, Steps: 30000, LearningStarts: 2000, EvalEvery: 5000, EvalEpisodes: 20, Seed: 1}
}

// ArmReachEval is one evaluation of RunArmReach.
type ArmReachEval struct {
	Step        int     `json:"step"`
	SuccessRate float64 `json:"success_rate"` // episodes within 5 cm at their last step
	MeanDist    float64 `json:"final_distance_m"`
	Return      float64 `json:"mean_return"`
	CPUSeconds  float64 `json:"cpu_s"`
	WallSeconds float64 `json:"wall_s"`
}

// ArmReachResult is what RunArmReach returns (and writes to summary.json).
type ArmReachResult struct {
	Model   string         `json:"model"`
	Control string         `json:"control"`
	Reward  string         `json:"reward"`
	Steps   int            `json:"steps"`
	Seed    uint64         `json:"seed"`
	Evals   []ArmReachEval `json:"evals"`
	Expert  float64        `json:"expert_success_rate"`
}

// RunArmReach trains SAC on arm-reach and evaluates it as it goes.
func RunArmReach(ctx context.Context, cfg ArmReachConfig) (*ArmReachResult, error) {
	if cfg.Steps <= 0 || cfg.EvalEvery <= 0 || cfg.EvalEpisodes <= 0 {
		return nil, &ConfigError{Msg: "arm-reach: steps, eval-every and eval-episodes must be > 0"}
	}
	if err := nn.SetBackend("auto"); err != nil {
		return nil, err
	}
	m, err := mjcf.Load(cfg.Model, mjcf.Options{})
	if err != nil {
		return nil, err
	}
	env, err := tasks.NewArmReach(m, cfg.Task)
	if err != nil {
		return nil, &ConfigError{Msg: err.Error()}
	}
	evalEnv, _ := tasks.NewArmReach(m, cfg.Task)
	if cfg.Out != "" {
		if err := os.MkdirAll(cfg.Out, 0o755); err != nil {
			return nil, err
		}
	}
	spec := env.Spec()
	scfg := cfg.SAC
	scfg.Seed = cfg.Seed
	agent, err := sac.New(scfg, spec.ObsDim, spec.ActDim)
	if err != nil {
		return nil, &ConfigError{Msg: err.Error()}
	}
	buf, err := replay.NewBuffer(replay.Config{Capacity: max(cfg.Steps, 1000), ObsDim: spec.ObsDim, ActDim: spec.ActDim})
	if err != nil {
		return nil, err
	}
	sampler := replay.NewUniform(buf)
	bs := agent.Config().BatchSize
	batch := replay.NewBatch(bs, spec.ObsDim, spec.ActDim)
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5eed))
	res := &ArmReachResult{Model: filepath.Base(cfg.Model), Control: cfg.Task.Control, Reward: cfg.Task.Reward, Steps: cfg.Steps, Seed: cfg.Seed}
	res.Expert = evalArmReach(evalEnv, tasks.ArmReachExpert(evalEnv), cfg.EvalEpisodes, cfg.Seed).SuccessRate
	var log []byte
	cpu0, t0 := cputime.Process(), time.Now()
	episode := int64(0)
	obs, _ := env.Reset(cfg.Seed<<20 | uint64(episode))
	act := make([]float64, spec.ActDim)
	for t := 1; t <= cfg.Steps; t++ {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if t <= cfg.LearningStarts {
			for i := range act {
				act[i] = 2*rng.Float64() - 1
			}
		} else {
			agent.Act(act, obs, false)
		}
		next, r, term, trunc, _, err := env.Step(act)
		if err != nil {
			return res, err
		}
		buf.Add(replay.Transition{Obs: obs, Action: act, Reward: r, NextObs: next, Terminated: term, Truncated: trunc, Episode: episode})
		obs = next
		if term || trunc {
			episode++
			obs, _ = env.Reset(cfg.Seed<<20 | uint64(episode))
		}
		if t > cfg.LearningStarts && buf.Sampleable() >= bs && sampler.Sample(batch, rng) {
			if _, err := agent.Update(batch); err != nil {
				return res, fmt.Errorf("arm-reach: SAC update at step %d: %w", t, err)
			}
		}
		if t%cfg.EvalEvery == 0 || t == cfg.Steps {
			ev := evalArmReach(evalEnv, sac.Policy{Agent: agent, Deterministic: true}, cfg.EvalEpisodes, cfg.Seed^0xe7a1)
			ev.Step = t
			ev.CPUSeconds, ev.WallSeconds = (cputime.Process() - cpu0).Seconds(), time.Since(t0).Seconds()
			res.Evals = append(res.Evals, ev)
			line, _ := json.Marshal(ev)
			log = append(append(log, line...), '\n')
			if cfg.Log != nil {
				_, _ = fmt.Fprintf(cfg.Log, "step %d: success %.2f, final distance %.3f m, return %.1f (cpu %.0f s)\n", t, ev.SuccessRate, ev.MeanDist, ev.Return, ev.CPUSeconds)
			}
			if cfg.Out != "" {
				if err := atomicfile.WriteBytes(filepath.Join(cfg.Out, "metrics.jsonl"), log); err != nil {
					return res, err
				}
			}
		}
	}
	if cfg.Out != "" {
		sum, _ := json.MarshalIndent(res, "", "  ")
		if err := atomicfile.WriteBytes(filepath.Join(cfg.Out, "summary.json"), append(sum, '\n')); err != nil {
			return res, err
		}
		if err := agent.Save(filepath.Join(cfg.Out, "agent.bin")); err != nil {
			return res, err
		}
	}
	return res, nil
}

// evalArmReach runs n episodes of pol and measures success at the last
// step (within 5 cm), the final distance and the return.
func evalArmReach(env *tasks.ArmReach, pol control.Policy, n int, seed uint64) ArmReachEval {
	var ev ArmReachEval
	act := make([]float64, env.Spec().ActDim)
	for ep := 0; ep < n; ep++ {
		obs, _ := env.Reset(seed<<24 ^ uint64(ep) ^ 0xeeee)
		var info control.Info
		for {
			pol.Act(obs, act)
			var r float64
			var trunc, term bool
			var err error
			obs, r, term, trunc, info, err = env.Step(act)
			if err != nil {
				break
			}
			ev.Return += r
			if term || trunc {
				break
			}
		}
		if info.Success() {
			ev.SuccessRate++
		}
		ev.MeanDist += info.Get("obj_to_target")
	}
	ev.SuccessRate /= float64(n)
	ev.MeanDist /= float64(n)
	ev.Return /= float64(n)
	return ev
}
