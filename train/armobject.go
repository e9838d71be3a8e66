package train

// Tasks panda-pick and panda-push on train.Run: the object tasks over an
// imported MJCF arm with its own gripper (tasks.ArmObject), in the SAC
// runner beside arm-reach (armrun.go), with frames for the scorer
// rendered from the articulated scene (render.ArtScene).

import (
	"context"
	"fmt"
	"image"
	"strings"
	"sync"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/frame"
	"github.com/vlmrb/vlmrb/render"
	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
	"github.com/vlmrb/vlmrb/tasks"
)

// armEnv is an env over an imported arm: arm-reach or an object task.
type armEnv interface {
	control.Env
	Expert() control.Policy
	Progress() (float64, string)
	Data() *articulated.Data
	Model() *mjcf.Articulated
}

var (
	_ armEnv = (*tasks.ArmReach)(nil)
	_ armEnv = (*tasks.ArmObject)(nil)
)

// isArmObjectTask reports whether c trains panda-pick or panda-push.
func (c *Config) isArmObjectTask() bool {
	return c.Task == tasks.ArmPickName || c.Task == tasks.ArmPushName
}

// armObjectTask is tasks.ArmObjectOptions.Task of c's task.
func (c *Config) armObjectTask() string {
	if c.Task == tasks.ArmPushName {
		return "push"
	}
	return "pick"
}

// validateArmObject checks the arm section for panda-pick and panda-push.
func (c *Config) validateArmObject(add func(error)) {
	if c.Arm.Control != "" && c.Arm.Control != "ee" {
		add(badf("arm.control %q: task %s moves the end effector (ee) and the gripper; joint control is arm-reach's", c.Arm.Control, c.Task))
	}
	if c.Arm.GoalRange != 0 {
		add(badf("arm.goal_range is arm-reach's; task %s draws its goals on and above the table", c.Task))
	}
	if c.Reward != "dense" && c.Reward != "sparse" {
		add(badf("reward %s: task %s takes dense or sparse", c.Reward, c.Task))
	}
	if c.DemosPath != "" {
		add(badf("demos_path is not supported on task %s; use demos N (the IK-plus-grasp expert)", c.Task))
	}
}

// armObjectOptions are the task options of c's arm section.
func (c *Config) armObjectOptions() tasks.ArmObjectOptions {
	o := tasks.ArmObjectOptions{Task: c.armObjectTask(), Site: c.Arm.Site, Grip: c.Arm.Grip, Reward: c.EnvReward(),
		MaxSteps: c.MaxEpisodeLen, Keyframe: c.Arm.Keyframe}
	for _, a := range strings.Split(c.Arm.Actuators, ",") {
		if a = strings.TrimSpace(a); a != "" {
			o.Actuators = append(o.Actuators, a)
		}
	}
	return o
}

// newArmObjectEnv composes c's task scene around its arm and builds the env.
func newArmObjectEnv(c *Config) (armEnv, error) {
	e, err := tasks.LoadArmObject(c.Arm.Model, c.armObjectOptions())
	if err != nil {
		return nil, &ConfigError{Msg: fmt.Sprintf("arm.model: %v", err)}
	}
	return e, nil
}

// armFrameSources renders each arm env's scene for the scorer: one
// renderer (vlm.backend) shared by the envs' sources, a fixed camera per
// env (ArmObjectCamera; for other arm tasks the whole model from the
// front-right above, fixed at the first frame), vlm.width × vlm.height.
func (r *runner) armFrameSources() ([]frame.Source, error) {
	cfg := &r.cfg
	rd, err := render.New(cfg.VLM.Backend, render.Options{})
	if err != nil {
		return nil, fmt.Errorf("scorer frames: %w", err)
	}
	sh := &artShared{rd: rd, users: len(r.arm)}
	srcs := make([]frame.Source, len(r.arm))
	for i, e := range r.arm {
		f := newArtFrames(e.Model(), e.Data(), sh, cfg.VLM.Width, cfg.VLM.Height)
		if o, ok := e.(*tasks.ArmObject); ok {
			c := ArmObjectCamera(o, cfg.VLM.Width, cfg.VLM.Height)
			f.cam = &c
		}
		srcs[i] = f
	}
	return srcs, nil
}

// ArmObjectCamera is the scorer's view of panda-pick and panda-push: from
// the front-right above the workspace (0.7 m out along x, 0.6 m to the
// right, 0.55 m up) looking at a point 12 cm over its centre, 45° tall,
// so the hand, the cube and the goal region fill the frame and the arm
// rises behind them.
func ArmObjectCamera(e *tasks.ArmObject, w, h int) render.Camera {
	c := e.Workspace().Add(sim.V3(-0.12, 0, 0.2))
	eye := c.Add(sim.V3(1.0, -0.9, 0.3))
	cam := render.LookAt(mgl64.Vec3{eye.X, eye.Y, eye.Z}, mgl64.Vec3{c.X, c.Y, c.Z}, mgl64.Vec3{0, 0, 1}, 45, w, h)
	cam.Name, cam.Far = "task", 50
	return cam
}

// artShared is a renderer shared by frame sources, closed with the last.
type artShared struct {
	mu    sync.Mutex
	rd    render.Renderer
	users int
}

// artFrames is a frame.Source that renders an articulated scene's current
// state (the env's Data, read at each Next) from a fixed camera.
type artFrames struct {
	sh     *artShared
	a      *mjcf.Articulated
	d      *articulated.Data
	sc     *render.ArtScene
	cam    *render.Camera
	w, h   int
	seq    uint64
	closed bool
}

// newArtFrames returns a frame source of model a in state d (read at each
// Next; the caller keeps its kinematics current) through sh's renderer,
// w × h, from the default view of render.ArtCamera fixed at the first
// frame.
func newArtFrames(a *mjcf.Articulated, d *articulated.Data, sh *artShared, w, h int) *artFrames {
	return &artFrames{sh: sh, a: a, d: d, sc: render.NewArtScene(a), w: w, h: h}
}

func (s *artFrames) Next(ctx context.Context, dst *frame.Frame) error {
	if s.closed {
		return frame.ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.cam == nil {
		c := render.ArtCamera(s.a, s.d, -1, s.w, s.h)
		s.cam = &c
	}
	dst.Image = frame.EnsureRGBA(dst.Image, image.Rect(0, 0, s.w, s.h))
	s.sh.mu.Lock()
	err := s.sh.rd.Render(s.sc.Update(s.d), *s.cam, dst.Image)
	s.sh.mu.Unlock()
	if err != nil {
		return err
	}
	dst.Depth = nil
	dst.Camera, dst.Seq = "scene", s.seq
	dst.Time = time.Unix(0, 0).Add(time.Duration(s.d.Time * float64(time.Second)))
	s.seq++
	return nil
}

func (s *artFrames) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	s.sh.mu.Lock()
	defer s.sh.mu.Unlock()
	if s.sh.users--; s.sh.users == 0 {
		return s.sh.rd.Close()
	}
	return nil
}

// exportSpec is the env spec an exported policy of run cfg is for: a
// tabletop task's, or for a task over an imported arm (arm-reach,
// panda-pick, panda-push) the spec of its env over the run's arm.model.
func exportSpec(cfg *Config, reward tasks.RewardMode) (control.Spec, error) {
	if cfg.IsArmTask() {
		e, err := newArmEnv(cfg)
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
