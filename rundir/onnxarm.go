package rundir

// ONNX export and evaluation of the tasks over an imported arm
// (arm-reach, panda-pick, panda-push): the arm section travels in the
// model's metadata so that EvalONNX rebuilds the env the run trained on.

import (
	"context"
	"fmt"
	"strconv"

	"github.com/vlmrb/vlmrb/onnx"
	"github.com/vlmrb/vlmrb/onnx/policy"
)

// Metadata keys of the arm section (ExportONNX writes them for a run on
// an imported arm; arm.model as the run's config names it, relative to
// where the run was started).
const (
	MetaArmModel     = "vlmrb.arm_model"
	MetaArmSite      = "vlmrb.arm_site"
	MetaArmActuators = "vlmrb.arm_actuators"
	MetaArmGrip      = "vlmrb.arm_grip"
	MetaArmKeyframe  = "vlmrb.arm_keyframe"
	MetaArmControl   = "vlmrb.arm_control"
	MetaArmGoalRange = "vlmrb.arm_goal_range"
)

// armProps is c's arm section as model metadata.
func armProps(c *Config) []onnx.Prop {
	a := c.Arm
	return []onnx.Prop{{Key: MetaArmModel, Value: a.Model}, {Key: MetaArmSite, Value: a.Site},
		{Key: MetaArmActuators, Value: a.Actuators}, {Key: MetaArmGrip, Value: a.Grip},
		{Key: MetaArmKeyframe, Value: a.Keyframe}, {Key: MetaArmControl, Value: a.Control},
		{Key: MetaArmGoalRange, Value: strconv.FormatFloat(a.GoalRange, 'g', -1, 64)}}
}

// evalONNXArm evaluates p on its arm task as EvalRun evaluates the run's
// checkpoint (EvalArm: success at the last step): the arm from the
// metadata, each field overridden by a non-empty one of o.Arm (a model
// moved since the export: --model FILE.xml).
func evalONNXArm(ctx context.Context, p *policy.Policy, res *EvalONNXResult, meta func(string) string, episodes int, o EvalONNXOptions) (*EvalResult, map[string]float64, error) {
	if o.GIF != "" {
		return nil, nil, &ConfigError{Msg: fmt.Sprintf("--video is not supported on task %s; robot-train render --model FILE.xml films the arm", res.Task)}
	}
	arm := ArmConfig{Model: meta(MetaArmModel), Site: meta(MetaArmSite), Actuators: meta(MetaArmActuators),
		Grip: meta(MetaArmGrip), Keyframe: meta(MetaArmKeyframe), Control: meta(MetaArmControl)}
	if g, err := strconv.ParseFloat(meta(MetaArmGoalRange), 64); err == nil {
		arm.GoalRange = g
	}
	for _, f := range []struct {
		dst *string
		v   string
	}{{&arm.Model, o.Arm.Model}, {&arm.Site, o.Arm.Site},
		{&arm.Actuators, o.Arm.Actuators}, {&arm.Grip, o.Arm.Grip}, {&arm.Keyframe, o.Arm.Keyframe}, {&arm.Control, o.Arm.Control}} {
		if f.v != "" {
			*f.dst = f.v
		}
	}
	if arm.Model == "" {
		return nil, nil, &ConfigError{Msg: fmt.Sprintf("the model names no arm for task %s in its metadata (%s): pass --model FILE.xml", res.Task, MetaArmModel)}
	}
	rew := o.Reward
	if rew == "" {
		rew = meta(MetaReward)
	}
	maxLen := o.MaxEpisodeLen
	if maxLen == 0 {
		maxLen, _ = strconv.Atoi(meta(MetaMaxEpisodeLen))
	}
	cfg, err := armTaskConfig(res.Task, arm, rew, maxLen)
	if err != nil {
		return nil, nil, err
	}
	env, err := NewArmEnv(&cfg)
	if err != nil && o.Arm.Model == "" {
		return nil, nil, &ConfigError{Msg: fmt.Sprintf("%v (the arm the model's metadata names, relative to where its run was started: pass --model FILE.xml)", err)}
	}
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = env.Close() }()
	spec := env.Spec()
	if p.ObsDim != spec.ObsDim || p.Discrete() || p.OutDim != spec.ActDim {
		return nil, nil, &ConfigError{Msg: fmt.Sprintf("the model (obs %d, %d outputs as %v) does not fit %s over %s (obs %d, act %d)", p.ObsDim, p.OutDim, p.Output, res.Task, arm.Model, spec.ObsDim, spec.ActDim)}
	}
	return EvalArm(ctx, env, p, episodes, res.Seed)
}
