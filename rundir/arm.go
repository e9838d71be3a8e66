package rundir

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/sac"
	"github.com/vlmrb/vlmrb/sim/mjcf"
	"github.com/vlmrb/vlmrb/tasks"
)

// ArmConfig is the `arm:` section: the imported arm of task arm-reach.
type ArmConfig struct {
	Model     string  `yaml:"model"`      // MJCF file of the arm
	Site      string  `yaml:"site"`       // end-effector site (empty: "ee", or the model's only site)
	Actuators string  `yaml:"actuators"`  // comma-separated position actuators to drive (empty: every position servo)
	Control   string  `yaml:"control"`    // joint (position-target deltas) | ee (end-effector deltas through IK)
	GoalRange float64 `yaml:"goal_range"` // bound of the random joint offsets whose site position is the goal (rad; 0: 0.8)
	Keyframe  string  `yaml:"keyframe"`   // the model's <key> episodes start from (empty: qpos0)
	Grip      string  `yaml:"grip"`       // panda-pick, panda-push: the gripper's position actuator (empty: the servo on a slide joint)
}

// ApplyArmDefaults sets what task arm-reach trains with unless told
// otherwise: the task, one env, 100-step episodes, end-effector control,
// and 20 evaluation episodes every 10,000 steps (no GIFs: `robot-train
// render --model` films the arm).
func ApplyArmDefaults(c *Config) {
	c.Task = tasks.ArmReachName
	c.NumEnvs, c.MaxEpisodeLen = 1, 100
	c.Arm.Control = "ee"
	c.Eval.Every, c.Eval.Episodes, c.Eval.GIF = 10000, 20, false
}

// IsArmTask reports whether c trains a task over an imported arm:
// arm-reach, panda-pick or panda-push.
func (c *Config) IsArmTask() bool { return c.Task == tasks.ArmReachName || c.IsArmObjectTask() }

// validateArm checks the arm section against the task.
func (c *Config) validateArm(add func(error)) {
	if !c.IsArmTask() {
		if c.Arm.Model != "" {
			add(ConfigErrorf("arm.model %s is for tasks %s, %s and %s (--model with --task reach, pick or push); task %s builds its own scene", c.Arm.Model, tasks.ArmReachName, tasks.ArmPickName, tasks.ArmPushName, c.Task))
		}
		return
	}
	if c.Arm.Model == "" {
		add(ConfigErrorf("task %s needs arm.model: pass --model FILE.xml", c.Task))
	}
	if c.IsArmObjectTask() {
		c.validateArmObject(add) // armobject.go
		return
	}
	if c.Arm.Grip != "" {
		add(ConfigErrorf("arm.grip is for tasks %s and %s; task %s drives no gripper", tasks.ArmPickName, tasks.ArmPushName, c.Task))
	}
	if c.Arm.Control != "" && c.Arm.Control != "joint" && c.Arm.Control != "ee" {
		add(ConfigErrorf("arm.control %q must be joint or ee", c.Arm.Control))
	}
	if c.Arm.GoalRange < 0 {
		add(ConfigErrorf("arm.goal_range must be ≥ 0 (0 = 0.8 rad)"))
	}
	if c.Reward != "dense" && c.Reward != "sparse" {
		add(ConfigErrorf("reward %s needs rendered MetaWorld frames; task %s takes dense or sparse", c.Reward, tasks.ArmReachName))
	}
	if c.Replay == "vlmrb" && c.Scorer != "oracle" {
		add(ConfigErrorf("replay vlmrb on task %s scores with the oracle scorer only (--scorer oracle): the frame scorers film MetaWorld scenes", tasks.ArmReachName))
	}
	if c.DemosPath != "" {
		add(ConfigErrorf("demos_path is not supported on task %s; use demos N (the IK expert)", tasks.ArmReachName))
	}
}

// ArmOptions are the task options of c's arm section.
func (c *Config) ArmOptions() (tasks.ArmReachOptions, error) {
	o := tasks.ArmReachOptions{Site: c.Arm.Site, Control: c.Arm.Control, Reward: c.EnvReward(),
		MaxSteps: c.MaxEpisodeLen, GoalRange: c.Arm.GoalRange, Keyframe: c.Arm.Keyframe}
	for _, a := range strings.Split(c.Arm.Actuators, ",") {
		if a = strings.TrimSpace(a); a != "" {
			o.Actuators = append(o.Actuators, a)
		}
	}
	if o.Reward != "dense" && o.Reward != "sparse" {
		return o, &ConfigError{Msg: fmt.Sprintf("task %s: reward %s (dense or sparse)", tasks.ArmReachName, o.Reward)}
	}
	return o, nil
}

// NewArmEnv loads c's arm for the articulated engine and builds the
// task's env over it: arm-reach, or (armobject.go) panda-pick and
// panda-push in the scene they compose around the arm.
func NewArmEnv(c *Config) (ArmEnv, error) {
	if c.IsArmObjectTask() {
		return newArmObjectEnv(c)
	}
	opts, err := c.ArmOptions()
	if err != nil {
		return nil, err
	}
	m, err := mjcf.Load(c.Arm.Model, mjcf.Options{})
	if err != nil {
		return nil, &ConfigError{Msg: fmt.Sprintf("arm.model: %v", err)}
	}
	e, err := tasks.NewArmReach(m, opts)
	if err != nil {
		return nil, &ConfigError{Msg: err.Error()}
	}
	return e, nil
}

// evalArmRun is robot-train eval of a checkpoint of a task over an
// imported arm (EvalArm).
func evalArmRun(ctx context.Context, cfg *Config, agent *sac.Agent, episodes int, seed uint64) (*EvalResult, error) {
	env, err := NewArmEnv(cfg)
	if err != nil {
		return nil, err
	}
	defer func() { _ = env.Close() }()
	res, _, err := EvalArm(ctx, env, AgentPolicy(agent), episodes, seed)
	return res, err
}

// EvalArmPolicy is robot-train eval --policy expert|random --model: the
// scripted policy on task arm-reach over arm, scored like a run's
// evaluations (EvalArm: success at the last step; the extras are
// eval/success_any_step and eval/final_distance_m). It lets a user check
// an imported arm's IK expert before training on it. reward is dense or
// sparse (empty: dense), maxSteps the episode length (0: arm-reach's 100).
func EvalArmPolicy(ctx context.Context, arm ArmConfig, reward string, maxSteps int, policy string, episodes int, seed uint64) (*EvalResult, map[string]float64, error) {
	return EvalArmTaskPolicy(ctx, tasks.ArmReachName, arm, reward, maxSteps, policy, episodes, seed)
}

// EvalArmTaskPolicy is EvalArmPolicy on task (arm-reach, panda-pick or
// panda-push; maxSteps 0: the task's own episode length).
func EvalArmTaskPolicy(ctx context.Context, task string, arm ArmConfig, reward string, maxSteps int, policy string, episodes int, seed uint64) (*EvalResult, map[string]float64, error) {
	cfg, err := armTaskConfig(task, arm, reward, maxSteps)
	if err != nil {
		return nil, nil, err
	}
	env, err := NewArmEnv(&cfg)
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = env.Close() }()
	var pol control.Policy
	switch policy {
	case "expert":
		pol = env.Expert()
	case "random":
		pol = control.RandomPolicy(seed)
	default:
		return nil, nil, &ConfigError{Msg: fmt.Sprintf("--policy %q is not one of expert|random", policy)}
	}
	return EvalArm(ctx, env, pol, episodes, seed)
}

// armTaskConfig is the validated config of task (arm-reach, panda-pick or
// panda-push) over arm, as train --model would run it: reward dense or
// sparse (empty: dense), maxSteps the episode length (0: the task's own).
// A caller's flags are its edge: this is their one validation.
func armTaskConfig(task string, arm ArmConfig, reward string, maxSteps int) (Config, error) {
	cfg := DefaultConfig()
	ApplyArmDefaults(&cfg)
	cfg.Task = task
	if cfg.IsArmObjectTask() {
		cfg.MaxEpisodeLen = tasks.ArmObjectMaxSteps
	}
	ctl := cfg.Arm.Control
	cfg.Arm = arm
	if cfg.Arm.Control == "" {
		cfg.Arm.Control = ctl
	}
	if reward != "" {
		cfg.Reward = reward
	}
	if maxSteps > 0 {
		cfg.MaxEpisodeLen = maxSteps
	}
	v, err := cfg.Validated()
	return v.Config(), err
}

// EvalArm runs n episodes of pol on env, episode k from
// control.EpisodeSeed(seed, 0, k). An episode succeeds when the site is
// within 5 cm of the goal at its LAST step (holding the goal: stricter
// than the any-step convention of Evaluate, which eval/success_any_step
// reports); eval/final_distance_m is the mean distance then.
func EvalArm(ctx context.Context, env ArmEnv, pol control.Policy, n int, seed uint64) (*EvalResult, map[string]float64, error) {
	res := &EvalResult{Episodes: n}
	act := make([]float64, env.Spec().ActDim)
	anyStep, dist, steps := 0, 0.0, 0
	for k := range n {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		obs, _ := env.Reset(control.EpisodeSeed(seed, 0, k))
		ret, reached := 0.0, false
		var info control.Info
		for {
			pol.Act(obs, act)
			next, rew, term, trunc, inf, err := env.Step(act)
			if err != nil {
				return nil, nil, fmt.Errorf("evaluate: episode %d: %w", k, err)
			}
			obs, info, ret, steps = next, inf, ret+rew, steps+1
			reached = reached || info.Success()
			if term || trunc {
				break
			}
		}
		if reached {
			anyStep++
		}
		dist += info.Get("obj_to_target")
		res.Returns, res.Successes = append(res.Returns, ret), append(res.Successes, info.Success())
	}
	succ := 0
	for i, ret := range res.Returns {
		res.MeanReturn += ret / float64(n)
		if res.Successes[i] {
			succ++
		}
	}
	for _, ret := range res.Returns {
		res.StdReturn += (ret - res.MeanReturn) * (ret - res.MeanReturn) / float64(n)
	}
	res.StdReturn = math.Sqrt(res.StdReturn)
	res.SuccessRate, res.MeanLength = float64(succ)/float64(n), float64(steps)/float64(n)
	return res, map[string]float64{"eval/success_any_step": float64(anyStep) / float64(n),
		"eval/final_distance_m": dist / float64(n)}, nil
}
