package rundir

// Record on the tasks over an imported MJCF arm (arm-reach, panda-pick,
// panda-push): the env that train --model trains on, filmed by the
// scorer's view in training.

import (
	"fmt"
	"image"

	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/tasks"
)

// isArmTaskName reports whether task is one over an imported arm.
func isArmTaskName(task string) bool { return (&Config{Task: task}).IsArmTask() }

// openArmRecord opens o's task over o.Arm (validated as train --model
// would run it) and its task camera.
func openArmRecord(o *RecordOptions, src *recordSource) error {
	if !isArmTaskName(o.Task) {
		return &ConfigError{Msg: fmt.Sprintf("--model records tasks %s, %s and %s (--task reach, pick or push), not %q", tasks.ArmReachName, tasks.ArmPickName, tasks.ArmPushName, o.Task)}
	}
	if o.Arm.Model == "" {
		return &ConfigError{Msg: fmt.Sprintf("task %s needs the arm: pass --model FILE.xml", o.Task)}
	}
	cfg, err := armTaskConfig(o.Task, o.Arm, o.Reward, o.MaxEpisodeLen)
	if err != nil {
		return err
	}
	env, err := NewArmEnv(&cfg)
	if err != nil {
		return err
	}
	o.MaxEpisodeLen = cfg.MaxEpisodeLen
	meta := tasks.ArmReachMeta()
	obj, isObj := env.(*tasks.ArmObject)
	if isObj {
		meta = obj.Meta()
	}
	src.env, src.robot = env, "vlmrb-mjcf-arm"
	src.describe = func() string { return meta.Description }
	if isObj {
		src.stateNames, src.actNames = tasks.ArmObjectObsNames(), tasks.ArmObjectActNames()
	}
	for _, name := range o.Cameras {
		if name != render.TaskCamera {
			return &ConfigError{Msg: fmt.Sprintf("--cameras %q: task %s over an imported arm is filmed from the scorer's view only (--cameras %s, or \"\" for none)", name, o.Task, render.TaskCamera)}
		}
		rd, err := render.New(o.Backend, render.Options{})
		if err != nil {
			return err
		}
		c := &artRecordCam{rd: rd, env: env, sc: render.NewModelScene(env.Model()), w: o.Width, h: o.Height}
		if isObj {
			cam := ArmObjectCamera(obj, o.Width, o.Height)
			c.cam = &cam
		}
		src.addCam(c, name, o.Width, o.Height)
	}
	return nil
}

// artRecordCam films an arm env's articulated scene: panda-pick and
// panda-push from ArmObjectCamera, arm-reach from render.ModelCamera's
// default view fixed at the first frame (as the loop's scorer frames).
type artRecordCam struct {
	rd   render.Renderer
	env  ArmEnv
	sc   *render.ModelScene
	cam  *render.Camera
	w, h int
}

func (c *artRecordCam) film(dst *image.RGBA) error {
	if c.cam == nil {
		cam := render.ModelCamera(c.env.Model(), c.env.Data(), -1, c.w, c.h)
		c.cam = &cam
	}
	return c.rd.Render(c.sc.Update(c.env.Data()), *c.cam, dst)
}

func (c *artRecordCam) Describe() string { return c.rd.Info().String() }

func (c *artRecordCam) Close() error { return c.rd.Close() }
