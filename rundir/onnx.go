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
	"github.com/vlmrb/vlmrb/internal/atomicfile"
	"github.com/vlmrb/vlmrb/onnx"
	"github.com/vlmrb/vlmrb/onnx/policy"
	"github.com/vlmrb/vlmrb/sac"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/tasks/grid"
)

// Metadata keys ExportONNX adds beside package policy's, so that
// EvalONNX repeats the run's own evaluation (the episodes EvalRun uses).
const (
	MetaAlgo          = "vlmrb.algo"
	MetaEvalSeed      = "vlmrb.eval_seed"
	MetaEvalEpisodes  = "vlmrb.eval_episodes"
	MetaEvalEpsilon   = "vlmrb.eval_epsilon"
	MetaReward        = "vlmrb.reward"
	MetaMaxEpisodeLen = "vlmrb.max_episode_len"
	MetaGridView      = "vlmrb.grid_view"
	MetaGridMaxSteps  = "vlmrb.grid_max_steps"
)

// ExportOptions says which checkpoint of a run ExportONNX writes: the
// newest (zero value), the one of env step Step, or the best one.
type ExportOptions struct {
	Step int64
	Best bool
}

// ExportResult describes a written model.
type ExportResult struct {
	RunDir     string `json:"run_dir"`
	Checkpoint string `json:"checkpoint"` // the checkpoint directory exported
	Step       int64  `json:"step"`
	Algo       string `json:"algo"`
	Task       string `json:"task"`
	Path       string `json:"path"`
	Bytes      int64  `json:"bytes"`
}

// ExportONNX writes the policy of a checkpoint of the run at path (a run
// directory or one of its checkpoint directories) to out as an ONNX
// model (package onnx/policy), atomically: a SAC run's deterministic
// actor or a DQN run's Q network, with the task, spaces, run, step and
// evaluation settings in its metadata.
func ExportONNX(path, out string, o ExportOptions) (*ExportResult, error) {
	runDir, step, best := SplitCheckpointPath(path)
	if err := outsideCheckpoints(runDir, out); err != nil {
		return nil, err
	}
	if err := atomicfile.CheckTarget(out); err != nil {
		return nil, &ConfigError{Msg: err.Error()}
	}
	eo := EvalRunOptions{Step: o.Step, Best: o.Best || best}
	if step > 0 && eo.Step == 0 {
		eo.Step = step
	}
	cfg, ac, ab, err := eo.readRunAgent(runDir)
	if err != nil {
		return nil, err
	}
	info := policy.Info{Task: cfg.Task, Run: runDir, Step: ac.Manifest.Step, Extra: []onnx.Prop{
		{Key: MetaAlgo, Value: cfg.ResolvedAlgo()},
		{Key: MetaEvalSeed, Value: strconv.FormatUint(EvalSeed(cfg), 10)},
		{Key: MetaEvalEpisodes, Value: strconv.Itoa(max(cfg.Eval.Episodes, 1))},
	}}
	var m *onnx.Model
	if cfg.ResolvedAlgo() == "dqn" {
		a, err := dqn.Unmarshal(ab)
		if err != nil {
			return nil, fmt.Errorf("load agent from %s: %w", ac.Dir, err)
		}
		view, err := grid.ParseView(cfg.Grid.View)
		if err != nil {
			return nil, &ConfigError{Msg: err.Error()}
		}
		env, err := grid.Make(cfg.Task, grid.Options{View: view, MaxSteps: cfg.Grid.MaxSteps})
		if err != nil {
			return nil, &ConfigError{Msg: err.Error()}
		}
		info.Extra = append(info.Extra,
			onnx.Prop{Key: MetaEvalEpsilon, Value: strconv.FormatFloat(cfg.DQN.EvalEps, 'g', -1, 64)},
			onnx.Prop{Key: MetaGridView, Value: cfg.Grid.View},
			onnx.Prop{Key: MetaGridMaxSteps, Value: strconv.Itoa(cfg.Grid.MaxSteps)})
		if m, err = policy.DQN(a, env.Spec(), info); err != nil {
			return nil, err
		}
	} else {
		a, err := sac.Unmarshal(ab)
		if err != nil {
			return nil, fmt.Errorf("load agent from %s: %w", ac.Dir, err)
		}
		defer a.Close()
		reward, err := tasks.ParseRewardMode(cfg.EnvReward())
		if err != nil {
			return nil, &ConfigError{Msg: err.Error()}
		}
		spec, err := exportSpec(&cfg, reward) // armobject.go: the arm tasks load their model
		if err != nil {
			return nil, err
		}
		info.Extra = append(info.Extra,
			onnx.Prop{Key: MetaReward, Value: cfg.EnvReward()},
			onnx.Prop{Key: MetaMaxEpisodeLen, Value: strconv.Itoa(cfg.MaxEpisodeLen)})
		if cfg.IsArmTask() {
			info.Extra = append(info.Extra, armProps(&cfg)...) // onnxarm.go
		}
		if m, err = policy.SAC(a, spec, info); err != nil {
			return nil, err
		}
	}
	if err := m.WriteFile(out); err != nil {
		return nil, err
	}
	st, err := os.Stat(out)
	if err != nil {
		return nil, err
	}
	return &ExportResult{RunDir: runDir, Checkpoint: ac.Dir, Step: ac.Manifest.Step, Algo: cfg.ResolvedAlgo(),
		Task: cfg.Task, Path: out, Bytes: st.Size()}, nil
}

// EvalONNXOptions overrides what EvalONNX takes from the model's
// metadata; zero values keep the metadata's (a model from elsewhere
// without metadata needs Task).
type EvalONNXOptions struct {
	Task          string
	Reward        string
	MaxEpisodeLen int
	Episodes      int
	Seed          *uint64
	Epsilon       *float64  // grid tasks: ε of ε-greedy evaluation
	Arm           ArmConfig // tasks over an imported arm: non-empty fields replace the metadata's (onnxarm.go)
	GIF           string
	GIFSize       int
	Camera        string
	Backend       string
	Warnf         func(format string, a ...any)
}

// EvalONNXResult is an evaluation of an ONNX policy.
type EvalONNXResult struct {
	*EvalResult
	Task string
	Step int64 // the checkpoint's env step (metadata; 0 if unknown)
	Seed uint64
	Kind string // metadata vlmrb.policy
	// Extra holds the arm tasks' eval/success_any_step and
	// eval/final_distance_m (EvalArm); nil for other tasks.
	Extra map[string]float64
}

// EvalONNX evaluates the ONNX policy at path as EvalRun evaluates a
// checkpoint: on the task, episodes, seed, reward and episode length its
// metadata records (the run's own evaluation settings), so a model
// exported from a checkpoint gives that checkpoint's evaluation.
func EvalONNX(ctx context.Context, path string, o EvalONNXOptions) (*EvalONNXResult, error) {
	p, err := policy.Load(path)
	if err != nil {
		return nil, err
	}
	meta := func(k string) string { v, _ := p.Model.Meta(k); return v }
	res := &EvalONNXResult{Task: p.Task, Step: p.Step, Kind: p.Kind}
	if o.Task != "" {
		res.Task = o.Task
	}
	if res.Task == "" {
		return nil, &ConfigError{Msg: fmt.Sprintf("%s names no task in its metadata (%s): pass --task NAME", path, policy.KeyTask)}
	}
	if o.Arm != (ArmConfig{}) && !isArmTaskName(res.Task) {
		return nil, &ConfigError{Msg: fmt.Sprintf("--model and the arm's flags are for models of tasks %s, %s and %s; %s is a model of %s", tasks.ArmReachName, tasks.ArmPickName, tasks.ArmPushName, path, res.Task)}
	}
	if s, err := strconv.ParseUint(meta(MetaEvalSeed), 10, 64); err == nil {
		res.Seed = s
	}
	if o.Seed != nil {
		res.Seed = *o.Seed
	}
	episodes := o.Episodes
	if episodes <= 0 {
		episodes = 10
		if n, err := strconv.Atoi(meta(MetaEvalEpisodes)); err == nil && n > 0 {
			episodes = n
		}
	}
	switch {
	case grid.IsGrid(res.Task):
		res.EvalResult, err = evalONNXGrid(ctx, p, res, meta, episodes, o)
	case isArmTaskName(res.Task):
		res.EvalResult, res.Extra, err = evalONNXArm(ctx, p, res, meta, episodes, o)
	default:
		res.EvalResult, err = evalONNXTask(ctx, p, res, meta, episodes, o)
	}
	if err == nil && p.Err() != nil {
		err = p.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("evaluate %s: %w", path, err)
	}
	return res, nil
}

func evalONNXGrid(ctx context.Context, p *policy.Policy, res *EvalONNXResult, meta func(string) string, episodes int, o EvalONNXOptions) (*EvalResult, error) {
	view, err := grid.ParseView(meta(MetaGridView))
	if err != nil {
		return nil, &ConfigError{Msg: err.Error()}
	}
	maxSteps, _ := strconv.Atoi(meta(MetaGridMaxSteps))
	env, err := grid.Make(res.Task, grid.Options{View: view, MaxSteps: maxSteps})
	if err != nil {
		return nil, &ConfigError{Msg: err.Error()}
	}
	spec := env.Spec()
	if p.ObsDim != spec.ObsDim || !p.Discrete() || (p.Output == policy.QValues && p.OutDim != spec.Discrete) {
		return nil, &ConfigError{Msg: fmt.Sprintf("the model (obs %d, %d outputs as %v) does not fit %s (obs %d, %d discrete actions)", p.ObsDim, p.OutDim, p.Output, res.Task, spec.ObsDim, spec.Discrete)}
	}
	eps, _ := strconv.ParseFloat(meta(MetaEvalEpsilon), 64)
	if o.Epsilon != nil {
		eps = *o.Epsilon
	}
	// ε-greedy from the stream EvalRun's DQN evaluation draws
	rng := rand.New(rand.NewPCG(res.Seed, uint64(res.Step)))
	pol := control.PolicyFunc(func(obs, dst []float64) {
		if eps > 0 && rng.Float64() < eps {
			dst[0] = float64(rng.IntN(grid.NumActions))
			return
		}
		p.Act(obs, dst)
	})
	return EvaluateGrid(ctx, env, pol, episodes, res.Seed)
}

func evalONNXTask(ctx context.Context, p *policy.Policy, res *EvalONNXResult, meta func(string) string, episodes int, o EvalONNXOptions) (*EvalResult, error) {
	rew := o.Reward
	if rew == "" {
		rew = meta(MetaReward)
	}
	if rew == "" {
		rew = "dense"
	}
	maxLen := o.MaxEpisodeLen
	if maxLen == 0 {
		maxLen, _ = strconv.Atoi(meta(MetaMaxEpisodeLen))
	}
	env, err := tasks.MakeEnv(res.Task, rew, maxLen)
	if err != nil {
		return nil, asConfigError(err)
	}
	defer func() { _ = env.Close() }()
	spec := env.Spec()
	if p.ObsDim != spec.ObsDim || p.Discrete() || p.OutDim != spec.ActDim {
		return nil, &ConfigError{Msg: fmt.Sprintf("the model (obs %d, %d outputs as %v) does not fit %s (obs %d, act %d)", p.ObsDim, p.OutDim, p.Output, res.Task, spec.ObsDim, spec.ActDim)}
	}
	return Evaluate(ctx, env, p, EvalOptions{Episodes: episodes, Seed: res.Seed,
		GIF: o.GIF, GIFSize: o.GIFSize, Camera: o.Camera, Backend: o.Backend, Warnf: o.Warnf})
}

// outsideCheckpoints refuses an output path inside runDir's checkpoints/
// (with links resolved, as far as the path exists): writing there would
// replace or mix with the run's checkpoints (export --onnx
// RUN/checkpoints/step-N/agent.bin destroyed the run's only checkpoint).
func outsideCheckpoints(runDir, out string) error {
	resolve := func(p string) string {
		p, _ = filepath.Abs(p)
		// resolve the longest existing prefix, keep the rest as written
		rest := ""
		for q := p; ; q = filepath.Dir(q) {
			if r, err := filepath.EvalSymlinks(q); err == nil {
				return filepath.Join(r, rest)
			}
			if filepath.Dir(q) == q {
				return p
			}
			rest = filepath.Join(filepath.Base(q), rest)
		}
	}
	ck, o := resolve(CheckpointRoot(runDir)), resolve(out)
	rel, err := filepath.Rel(ck, o)
	if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return &ConfigError{Msg: fmt.Sprintf("--onnx %s is inside the run's checkpoints (%s), which only training writes: write the model elsewhere, e.g. %s", out, CheckpointRoot(runDir), filepath.Join(runDir, "policy.onnx"))}
	}
	return nil
}
