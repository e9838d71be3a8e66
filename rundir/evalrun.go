package rundir

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/dqn"
	"github.com/vlmrb/vlmrb/sac"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/tasks/grid"
)

// EvalRunOptions says which checkpoint of a run EvalRun evaluates, and
// how. The zero value repeats the run's own last evaluation: its newest
// checkpoint, its number of episodes and its evaluation seed.
type EvalRunOptions struct {
	// Best evaluates checkpoints/best (the agent of the run's best
	// evaluation) instead of the newest checkpoint.
	Best bool
	// Step > 0 evaluates the checkpoint of that env step.
	Step int64
	// Episodes (0: the run's eval.episodes).
	Episodes int
	// Seed of the episodes (nil: the run's evaluation seed, EvalSeed).
	Seed *uint64
	// Epsilon of a DQN run's ε-greedy evaluation (nil: the run's
	// dqn.eval_eps).
	Epsilon *float64
	// Task, Reward and MaxEpisodeLen evaluate a SAC run's policy on other
	// episodes ("" and 0: the run's own).
	Task, Reward  string
	MaxEpisodeLen int
	// Engine evaluates a tabletop run's policy on another physics engine
	// (tasks.Options.Engine; "": the run's own).
	Engine string
	// GIF records the first episode (SAC runs; see EvalOptions).
	GIF     string
	GIFSize int
	Camera  string
	Backend string
	Warnf   func(format string, a ...any)
}

// EvalRunResult is an evaluation of one checkpoint of a run.
type EvalRunResult struct {
	*EvalResult
	RunDir     string
	Checkpoint string // the checkpoint directory evaluated
	Step       int64  // its env step
	Task       string
	Seed       uint64   // the episodes' seed
	Skipped    []string // newer checkpoints passed over, and why
	// Transfer is TransferNote when a policy trained on the old engine sim
	// was evaluated on the articulated engine (--engine articulated), else "".
	Transfer string
}

// EvalSeed is the seed of a run's evaluation episodes: every evaluation
// during training, and EvalRun by default, uses these episodes.
func EvalSeed(cfg Config) uint64 { return cfg.Seed ^ EvalSeedSalt }

// SplitCheckpointPath accepts a run directory or one of its checkpoint
// directories (RUN/checkpoints/step-N, RUN/checkpoints/best) and returns
// the run directory with what it names: a step (> 0) or best.
func SplitCheckpointPath(path string) (runDir string, step int64, best bool) {
	clean := filepath.Clean(path)
	base, parent := filepath.Base(clean), filepath.Dir(clean)
	if filepath.Base(parent) != "checkpoints" {
		return path, 0, false
	}
	if base == BestName {
		return filepath.Dir(parent), 0, true
	}
	if s, err := strconv.ParseInt(strings.TrimPrefix(base, ckptPrefix), 10, 64); err == nil && strings.HasPrefix(base, ckptPrefix) {
		return filepath.Dir(parent), s, false
	}
	return path, 0, false
}

// agentCheckpoint finds the checkpoint o names in runDir.
// loadRunConfig reads runDir/config.yaml over DefaultConfig, saying so
// plainly when runDir is no run directory.
func loadRunConfig(runDir string) (Config, error) {
	cfg := DefaultConfig()
	if err := LoadConfigFile(filepath.Join(runDir, "config.yaml"), &cfg); err != nil {
		if os.IsNotExist(statErr(filepath.Join(runDir, "config.yaml"))) {
			return cfg, &ConfigError{Msg: fmt.Sprintf("%s has no config.yaml: is it a run directory written by robot-train train?", runDir)}
		}
		return cfg, err
	}
	return cfg, nil
}

// readRunAgent reads a run's config and the agent bytes of the checkpoint
// o selects.
func (o EvalRunOptions) readRunAgent(runDir string) (Config, *AgentCheckpoint, []byte, error) {
	cfg, err := loadRunConfig(runDir)
	if err != nil {
		return cfg, nil, nil, err
	}
	ac, err := o.agentCheckpoint(runDir)
	if err != nil {
		return cfg, nil, nil, err
	}
	ab, err := ReadPart(ac.Dir, ac.Manifest, "agent.bin", MaxAgentBytes)
	if err != nil {
		return cfg, ac, nil, err
	}
	return cfg, ac, ab, nil
}

func (o EvalRunOptions) agentCheckpoint(runDir string) (*AgentCheckpoint, error) {
	var dir string
	switch {
	case o.Step > 0:
		dir = filepath.Join(CheckpointRoot(runDir), CheckpointName(o.Step))
	case o.Best:
		dir = filepath.Join(CheckpointRoot(runDir), BestName)
	default:
		ac, err := LatestAgentCheckpoint(runDir)
		if err != nil {
			return ac, &ConfigError{Msg: fmt.Sprintf("%v: train longer or let the run reach a checkpoint", err)}
		}
		return ac, nil
	}
	m, err := verifyAgentOnly(dir)
	if err != nil {
		have := "none"
		if steps, lerr := ListCheckpoints(CheckpointRoot(runDir)); lerr == nil && len(steps) > 0 {
			var s []string
			for _, st := range steps {
				s = append(s, strconv.FormatInt(st, 10))
			}
			have = strings.Join(s, ", ")
		}
		if os.IsNotExist(statErr(dir)) {
			return nil, &ConfigError{Msg: fmt.Sprintf("%s has no checkpoint %s (checkpoints at steps: %s; a best one is kept from the first evaluation on)", runDir, filepath.Base(dir), have)}
		}
		return nil, &ConfigError{Msg: fmt.Sprintf("%s: %v", runDir, err)}
	}
	return &AgentCheckpoint{Dir: dir, Manifest: m}, nil
}

func statErr(path string) error {
	_, err := os.Stat(path)
	return err
}

// EvalRun evaluates a checkpoint of the run at path (a run directory or one
// of its checkpoint directories) the way the run's own evaluations did:
// the same task, reward, episode length, episodes and seed, so the newest
// checkpoint of a finished run reproduces its final evaluation exactly.
func EvalRun(ctx context.Context, path string, o EvalRunOptions) (*EvalRunResult, error) {
	runDir, step, best := SplitCheckpointPath(path)
	if step > 0 && o.Step == 0 {
		o.Step = step
	}
	o.Best = o.Best || best
	cfg, ac, ab, err := o.readRunAgent(runDir)
	if err != nil {
		return nil, err
	}
	res := &EvalRunResult{RunDir: runDir, Checkpoint: ac.Dir, Step: ac.Manifest.Step, Task: cfg.Task,
		Seed: EvalSeed(cfg), Skipped: ac.Skipped}
	if OldEngine(&cfg) {
		if o.Engine == "" {
			return nil, OldEngineError(runDir, "evaluate")
		}
		res.Transfer = TransferNote
	}
	if o.Engine != "" {
		cfg.Engine = o.Engine
		if err := cfg.validate(); err != nil {
			return nil, err
		}
	}
	if o.Task != "" || o.Reward != "" || o.MaxEpisodeLen != 0 {
		if cfg.ResolvedAlgo() == "dqn" {
			return nil, &ConfigError{Msg: "a DQN run is evaluated on its own task and episodes (no task, reward or episode-length override)"}
		}
		if o.Task != "" {
			if cfg.IsArmTask() {
				return nil, &ConfigError{Msg: "a run on an imported arm is evaluated on its own arm and task (no task override)"}
			}
			if _, err := tasks.Describe(o.Task); err != nil {
				return nil, asConfigError(err)
			}
			cfg.Task, res.Task = o.Task, o.Task
		}
		if o.Reward != "" {
			if _, err := tasks.ParseRewardMode(o.Reward); err != nil {
				return nil, &ConfigError{Msg: err.Error()}
			}
			cfg.Reward = o.Reward
		}
		if o.MaxEpisodeLen != 0 {
			cfg.MaxEpisodeLen = o.MaxEpisodeLen
		}
	}
	if o.Seed != nil {
		res.Seed = *o.Seed
	}
	episodes := o.Episodes
	if episodes <= 0 {
		episodes = max(cfg.Eval.Episodes, 1)
	}
	if cfg.ResolvedAlgo() == "dqn" {
		res.EvalResult, err = evalDQNRun(ctx, cfg, ab, ac.Manifest.Step, episodes, res.Seed, o.Epsilon)
	} else {
		res.EvalResult, err = evalSACRun(ctx, cfg, ab, episodes, res.Seed, o)
	}
	if err != nil {
		return nil, fmt.Errorf("evaluate %s: %w", ac.Dir, err)
	}
	return res, nil
}

func evalSACRun(ctx context.Context, cfg Config, agentBin []byte, episodes int, seed uint64, o EvalRunOptions) (*EvalResult, error) {
	agent, err := sac.Unmarshal(agentBin)
	if err != nil {
		return nil, err
	}
	defer agent.Close()
	if cfg.IsArmTask() { // armrun.go
		return evalArmRun(ctx, &cfg, agent, episodes, seed)
	}
	reward, err := tasks.ParseRewardMode(cfg.EnvReward())
	if err != nil {
		return nil, err
	}
	env, err := tasks.Make(cfg.Task, cfg.TaskOptions(reward))
	if err != nil {
		return nil, err
	}
	defer func() { _ = env.Close() }()
	res, err := Evaluate(ctx, env, AgentPolicy(agent), EvalOptions{Episodes: episodes, Seed: seed,
		GIF: o.GIF, GIFSize: o.GIFSize, Camera: o.Camera, Backend: o.Backend, Warnf: o.Warnf})
	if err != nil {
		return nil, err
	}
	// the same episodes with the stochastic policy, as the run's evaluations (evalstoch.go)
	if res.Stochastic, err = EvaluateStochastic(ctx, env, agent, episodes, seed); err != nil {
		return nil, err
	}
	return res, nil
}

// evalDQNRun is the DQN runner's evaluation: greedy, or ε-greedy from the
// stream training's evaluation at that step drew.
func evalDQNRun(ctx context.Context, cfg Config, agentBin []byte, step int64, episodes int, seed uint64, eps *float64) (*EvalResult, error) {
	agent, err := dqn.Unmarshal(agentBin)
	if err != nil {
		return nil, err
	}
	view, err := grid.ParseView(cfg.Grid.View)
	if err != nil {
		return nil, err
	}
	env, err := grid.Make(cfg.Task, grid.Options{View: view, MaxSteps: cfg.Grid.MaxSteps})
	if err != nil {
		return nil, err
	}
	e := cfg.DQN.EvalEps
	if eps != nil {
		e = *eps
	}
	return EvaluateGrid(ctx, env, DQNEvalPolicy(agent, e, rand.New(rand.NewPCG(seed, uint64(step)))), episodes, seed)
}

// DQNEvalPolicy is greedy with probability 1−eps, else a random action
// from rng.
func DQNEvalPolicy(a *dqn.Agent, eps float64, rng *rand.Rand) control.Policy {
	return control.PolicyFunc(func(obs, dst []float64) {
		if eps > 0 && rng.Float64() < eps {
			dst[0] = float64(rng.IntN(grid.NumActions))
			return
		}
		dst[0] = float64(a.Greedy(obs))
	})
}

// EvalSeedSalt separates evaluation episode seeds from training ones; every
// evaluation uses the same episodes, so curves compare like with like.
const EvalSeedSalt = 0x5eed_e7a1
