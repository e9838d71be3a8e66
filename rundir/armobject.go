package rundir

// Tasks panda-pick and panda-push in the run directory's config: the
// object tasks over an imported MJCF arm with its own gripper
// (tasks.ArmObject), beside arm-reach (arm.go). The loop's frame sources
// for them live in train (armobject.go there).

import (
	"fmt"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
	"github.com/vlmrb/vlmrb/tasks"
)

// ArmEnv is an env over an imported arm: arm-reach or an object task.
type ArmEnv interface {
	control.Env
	Expert() control.Policy
	Progress() (float64, string)
	Data() *articulated.Data
	Model() *mjcf.Model
}

var (
	_ ArmEnv = (*tasks.ArmReach)(nil)
	_ ArmEnv = (*tasks.ArmObject)(nil)
)

// IsArmObjectTask reports whether c trains panda-pick or panda-push.
func (c *Config) IsArmObjectTask() bool {
	return c.Task == tasks.ArmPickName || c.Task == tasks.ArmPushName
}

// ArmObjectTask is tasks.ArmObjectOptions.Task of c's task ("pick" or
// "push").
func (c *Config) ArmObjectTask() string {
	if c.Task == tasks.ArmPushName {
		return "push"
	}
	return "pick"
}

// validateArmObject checks the arm section for panda-pick and panda-push.
func (c *Config) validateArmObject(add func(error)) {
	if c.Arm.Control != "" && c.Arm.Control != "ee" {
		add(ConfigErrorf("arm.control %q: task %s moves the end effector (ee) and the gripper; joint control is arm-reach's", c.Arm.Control, c.Task))
	}
	if c.Arm.GoalRange != 0 {
		add(ConfigErrorf("arm.goal_range is arm-reach's; task %s draws its goals on and above the table", c.Task))
	}
	if c.Reward != "dense" && c.Reward != "sparse" {
		add(ConfigErrorf("reward %s: task %s takes dense or sparse", c.Reward, c.Task))
	}
	if c.DemosPath != "" {
		add(ConfigErrorf("demos_path is not supported on task %s; use demos N (the IK-plus-grasp expert)", c.Task))
	}
}

// armObjectOptions are the task options of c's arm section.
func (c *Config) armObjectOptions() tasks.ArmObjectOptions {
	o := tasks.ArmObjectOptions{Task: c.ArmObjectTask(), Site: c.Arm.Site, Grip: c.Arm.Grip, Reward: c.EnvReward(),
		MaxSteps: c.MaxEpisodeLen, Keyframe: c.Arm.Keyframe}
	for _, a := range strings.Split(c.Arm.Actuators, ",") {
		if a = strings.TrimSpace(a); a != "" {
			o.Actuators = append(o.Actuators, a)
		}
	}
	return o
}

// newArmObjectEnv composes c's task scene around its arm and builds the env.
func newArmObjectEnv(c *Config) (ArmEnv, error) {
	e, err := tasks.LoadArmObject(c.Arm.Model, c.armObjectOptions())
	if err != nil {
		return nil, &ConfigError{Msg: fmt.Sprintf("arm.model: %v", err)}
	}
	return e, nil
}

// ArmObjectCamera is the scorer's view of panda-pick and panda-push: from
// the front-right above the workspace (0.7 m out along x, 0.6 m to the
// right, 0.55 m up) looking at a point 12 cm over its centre, 45° tall,
// so the hand, the cube and the goal region fill the frame and the arm
// rises behind them. The loop's frame sources and render --model --task
// both film from it.
func ArmObjectCamera(e *tasks.ArmObject, w, h int) render.Camera {
	c := e.Workspace().Add(sim.V3(-0.12, 0, 0.2))
	eye := c.Add(sim.V3(1.0, -0.9, 0.3))
	cam := render.LookAt(mgl64.Vec3{eye.X, eye.Y, eye.Z}, mgl64.Vec3{c.X, c.Y, c.Z}, mgl64.Vec3{0, 0, 1}, 45, w, h)
	cam.Name, cam.Far = "task", 50
	return cam
}

// exportSpec is the env spec an exported policy of run cfg is for: a
// tabletop task's, or for a task over an imported arm (arm-reach,
// panda-pick, panda-push) the spec of its env over the run's arm.model.
func exportSpec(cfg *Config, reward tasks.RewardMode) (control.Spec, error) {
	if cfg.IsArmTask() {
		e, err := NewArmEnv(cfg)
		if err != nil {
			return control.Spec{}, err
		}
		defer func() { _ = e.Close() }()
		return e.Spec(), nil
	}
	env, err := tasks.Make(cfg.Task, tasks.Options{Reward: reward, MaxSteps: cfg.MaxEpisodeLen})
	if err != nil {
		return control.Spec{}, &ConfigError{Msg: err.Error()}
	}
	defer func() { _ = env.Close() }()
	return env.Spec(), nil
}
