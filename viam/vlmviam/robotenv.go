package vlmviam

import (
	"context"
	"errors"
	"fmt"
	"image"
	"strconv"
	"time"

	"go.viam.com/rdk/components/camera"
	"go.viam.com/rdk/resource"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/tasks"
	"github.com/vlmrb/vlmrb/vlmreward"
)

// Reward turns the camera's view after a step into a reward. A real robot
// has no reward function; RobotEnv takes one from a VLM.
type Reward interface {
	Reward(ctx context.Context, img image.Image) (float64, error)
}

// VLMRMReward is the VLM-RM embedding reward of the camera frame
// (vlmreward.VLMRM over an Embedder such as vlmreward.HTTPEmbedder).
type VLMRMReward struct {
	Embedder vlmreward.Embedder
	RM       *vlmreward.VLMRM
}

// Reward embeds img and returns R = 1 − ½‖P(x − g)‖².
func (v VLMRMReward) Reward(ctx context.Context, img image.Image) (float64, error) {
	e, err := v.Embedder.EmbedImages(ctx, []image.Image{img})
	if err != nil {
		return 0, err
	}
	if len(e) != 1 {
		return 0, fmt.Errorf("vlm-rm: embedder returned %d embeddings for one image", len(e))
	}
	return v.RM.Reward(e[0])
}

// EnvConfig configures a RobotEnv.
type EnvConfig struct {
	RigConfig
	// MaxSteps is the episode length (control steps, > 0).
	MaxSteps int
	// SimReset sends {"reset": {"seed": s}} to the arm at Reset and reads
	// the sim's success back (vlmrb:vlmrb:sim-arm); a real arm is left where it is.
	SimReset bool
	// Reward, when set, gives the reward from the camera after each step
	// (needs Camera); nil gives 0.
	Reward Reward
	// StepTimeout bounds one Reset or Step (default 10 s).
	StepTimeout time.Duration
}

// RobotEnv is a control.Env over a Viam robot: observations from the arm,
// gripper and pose tracker, actions through the Rig's mapping and limits
// (the policy runner's), and the reward from a VLM. Info carries
// "success" when the arm is a vlmrb sim arm (SimReset), and
// "limit_hits". Use it from one goroutine.
type RobotEnv struct {
	cfg  EnvConfig
	rig  *Rig
	spec control.Spec
	t    int
	done bool
	err  error
}

// NewRobotEnv builds an Env over the components in deps (a robot client's
// resources: resource.Dependencies from robot.Robot.ResourceByName).
func NewRobotEnv(ctx context.Context, deps resource.Dependencies, cfg EnvConfig) (*RobotEnv, error) {
	if cfg.MaxSteps <= 0 {
		return nil, fmt.Errorf("robot env: MaxSteps is %d; give a positive episode length", cfg.MaxSteps)
	}
	if cfg.Reward != nil && cfg.Camera == "" {
		return nil, errors.New("robot env: a VLM reward needs a camera")
	}
	rig, err := NewRig(ctx, deps, cfg.RigConfig)
	if err != nil {
		return nil, err
	}
	if cfg.StepTimeout <= 0 {
		cfg.StepTimeout = 10 * time.Second
	}
	spec := control.BoxSpec(tasks.ObsDim, tasks.ActDim, -1, 1)
	spec.MaxEpisodeSteps = cfg.MaxSteps
	return &RobotEnv{cfg: cfg, rig: rig, spec: spec}, nil
}

// Spec returns the tasks' spec with the configured episode length.
func (e *RobotEnv) Spec() control.Spec { return e.spec }

// Rig returns the env's rig (limit counts, target).
func (e *RobotEnv) Rig() *Rig { return e.rig }

// Err returns the error of the last Reset, which control.Env cannot return.
func (e *RobotEnv) Err() error { return e.err }

// Reset starts an episode. A robot error is kept (Err) and returned by the
// next Step; the observation is then zero.
func (e *RobotEnv) Reset(seed uint64) ([]float64, control.Info) {
	ctx, cancel := context.WithTimeout(context.Background(), e.cfg.StepTimeout)
	defer cancel()
	e.t, e.done, e.err = 0, false, nil
	if e.cfg.SimReset {
		if _, err := e.rig.Arm().DoCommand(ctx, map[string]any{"reset": map[string]any{"seed": strconv.FormatUint(seed, 10)}}); err != nil {
			e.err = fmt.Errorf("robot env: sim reset: %w", err)
			return make([]float64, tasks.ObsDim), control.Info{Values: map[string]float64{}}
		}
	}
	obs, err := e.rig.Begin(ctx)
	if err != nil {
		e.err = err
		return make([]float64, tasks.ObsDim), control.Info{Values: map[string]float64{}}
	}
	return obs, control.Info{Values: map[string]float64{"success": 0}}
}

// Step applies a behind the limits and returns the next observation and
// the VLM reward. Episodes truncate at MaxSteps and never terminate.
func (e *RobotEnv) Step(a []float64) ([]float64, float64, bool, bool, control.Info, error) {
	if e.err != nil {
		return nil, 0, false, false, control.Info{}, e.err
	}
	if e.done {
		return nil, 0, false, false, control.Info{}, control.ErrNeedsReset
	}
	for i, v := range a {
		if !finite(v) {
			return nil, 0, false, false, control.Info{}, fmt.Errorf("%w: element %d is %g", control.ErrNonFiniteAction, i, v)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), e.cfg.StepTimeout)
	defer cancel()
	if _, err := e.rig.Act(ctx, a); err != nil {
		e.done = true
		return nil, 0, false, false, control.Info{}, err
	}
	obs, err := e.rig.Observe(ctx)
	if err != nil {
		e.done = true
		return nil, 0, false, false, control.Info{}, err
	}
	e.t++
	info := control.Info{Values: map[string]float64{"limit_hits": float64(e.rig.Counts().Total())}}
	r := 0.0
	if e.cfg.Reward != nil {
		img, err := camera.DecodeImageFromCamera(ctx, e.rig.Camera(), nil, nil)
		if err != nil {
			return nil, 0, false, false, control.Info{}, fmt.Errorf("robot env: camera: %w", err)
		}
		if r, err = e.cfg.Reward.Reward(ctx, img); err != nil {
			return nil, 0, false, false, control.Info{}, fmt.Errorf("robot env: VLM reward: %w", err)
		}
	}
	if e.cfg.SimReset {
		m, err := e.rig.Arm().DoCommand(ctx, map[string]any{"episodes": true})
		if err == nil {
			if cur, ok := m["current"].(map[string]any); ok && cur["success"] == true {
				info.Values["success"] = 1
			}
		}
	}
	trunc := e.t >= e.cfg.MaxSteps
	e.done = trunc
	return obs, r, false, trunc, info, nil
}

// Close stops the arm.
func (e *RobotEnv) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return e.rig.Arm().Stop(ctx, nil)
}
