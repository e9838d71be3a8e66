package vlmviam

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/vlmrb/vlmrb/tasks"
)

// unknownKeys rejects attribute keys a model does not know (typos would
// otherwise be ignored silently).
func unknownKeys(extra map[string]any, known ...string) error {
	if len(extra) == 0 {
		return nil
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return fmt.Errorf("unknown attribute %q; this model takes %s", keys[0], strings.Join(known, ", "))
}

func finite(vs ...float64) bool {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// Box is an axis-aligned box (mm, arm frame).
type Box struct {
	Low  [3]float64 `json:"low"`
	High [3]float64 `json:"high"`
}

func (b *Box) validate(name string) error {
	if b == nil {
		return nil
	}
	for i := range 3 {
		if !finite(b.Low[i], b.High[i]) || !(b.Low[i] < b.High[i]) {
			return fmt.Errorf("%q: low %v must be below high %v on every axis (mm, finite)", name, b.Low, b.High)
		}
	}
	return nil
}

// RigConfig names the robot side of the loop and its safety limits; the
// policy runner and the robot Env share it.
type RigConfig struct {
	// Arm is the arm the actions move (required).
	Arm string `json:"arm"`
	// Gripper receives a[3] (optional).
	Gripper string `json:"gripper,omitempty"`
	// GripperMode: "binary" (default: a[3] > 0 Grab, else Open, called
	// when the command changes) or "proportional" (DoCommand {"set": a[3]}
	// every tick, for grippers that take one, such as vlmrb:vlmrb:sim-gripper).
	GripperMode string `json:"gripper_mode,omitempty"`
	// Camera records frames (optional).
	Camera string `json:"camera,omitempty"`
	// PoseTracker gives object and goal poses (optional; bodies object0,
	// object1 and goal, see BodyObject0).
	PoseTracker string `json:"pose_tracker,omitempty"`
	// Goal is a fixed goal position (mm, arm frame) used when no pose
	// tracker reports one.
	Goal *[3]float64 `json:"goal_mm,omitempty"`
	// TaskOffset maps the arm frame to the task frame:
	// task position (m) = (arm position (mm) − TaskOffset) / 1000.
	TaskOffset [3]float64 `json:"task_offset_mm,omitempty"`
	// ActionScale is the target displacement per unit action (mm; 10, as
	// in the tasks).
	ActionScale float64 `json:"action_scale_mm,omitempty"`
	// Workspace is the box the commanded target must stay inside (mm, arm
	// frame; none when absent).
	Workspace *Box `json:"workspace_mm,omitempty"`
	// MaxStep caps the target's move per tick (mm; 0 = none).
	MaxStep float64 `json:"max_step_mm,omitempty"`
	// JointLimits bounds each joint as [min, max] in the API's units
	// (degrees for revolute joints, mm for prismatic); the arm's own
	// kinematic limits always apply. Checked before every command; a joint
	// outside stops the arm and ends the episode.
	JointLimits [][2]float64 `json:"joint_limits,omitempty"`
	// Control is how targets reach the arm: "joints" (IK on the arm's own
	// kinematics, ModelFrame, then MoveToJointPositions: no motion plan
	// per tick), "pose" (MoveToPosition every tick: most arms plan a
	// motion for each) or "auto" (default: joints for arms with 4 or more
	// joints, pose otherwise, such as vlmrb's 3-joint sim hand).
	Control string `json:"control,omitempty"`
}

func (c *RigConfig) validate() ([]string, []string, error) {
	if c.Arm == "" {
		return nil, nil, fmt.Errorf(`"arm" is required: the name of the arm component to drive`)
	}
	// required: the arm and the gripper the actions drive; optional (rdk's
	// optional dependencies, v0.75+): the camera, only recorded, and the
	// pose tracker, which the runner waits for at each episode start
	// (NotFound / Unavailable retries) while viam-server has not given it.
	required := []string{c.Arm}
	if c.Gripper != "" && c.Gripper != c.Arm {
		required = append(required, c.Gripper)
	}
	var optional []string
	for _, d := range []string{c.Camera, c.PoseTracker} {
		if d != "" && !slices.Contains(required, d) && !slices.Contains(optional, d) {
			optional = append(optional, d)
		}
	}
	switch c.Control {
	case "", "auto", "joints", "pose":
	default:
		return nil, nil, fmt.Errorf(`"control" is %q; use "auto", "joints" or "pose"`, c.Control)
	}
	switch c.GripperMode {
	case "", "binary", "proportional":
	default:
		return nil, nil, fmt.Errorf(`"gripper_mode" is %q; use "binary" or "proportional"`, c.GripperMode)
	}
	if c.GripperMode == "proportional" && c.Gripper == "" {
		return nil, nil, fmt.Errorf(`"gripper_mode" "proportional" needs a "gripper"`)
	}
	if c.ActionScale < 0 || !finite(c.ActionScale) {
		return nil, nil, fmt.Errorf(`"action_scale_mm" is %g; use a positive number of mm per unit action or 0 for 10`, c.ActionScale)
	}
	if c.MaxStep < 0 || !finite(c.MaxStep) {
		return nil, nil, fmt.Errorf(`"max_step_mm" is %g; use a positive number or 0 for no limit`, c.MaxStep)
	}
	if !finite(c.TaskOffset[:]...) {
		return nil, nil, fmt.Errorf(`"task_offset_mm" %v is not finite`, c.TaskOffset)
	}
	if c.Goal != nil && !finite(c.Goal[:]...) {
		return nil, nil, fmt.Errorf(`"goal_mm" %v is not finite`, *c.Goal)
	}
	if err := c.Workspace.validate("workspace_mm"); err != nil {
		return nil, nil, err
	}
	for i, l := range c.JointLimits {
		if !finite(l[0], l[1]) || !(l[0] < l[1]) {
			return nil, nil, fmt.Errorf(`"joint_limits"[%d] is %v; use [min, max] with min < max`, i, l)
		}
	}
	return required, optional, nil
}

func (c *RigConfig) scale() float64 {
	if c.ActionScale == 0 {
		return 10
	}
	return c.ActionScale
}

// The control rate's bounds (rate_hz; 0 means as fast as possible).
const (
	MinRateHz = 0.1
	MaxRateHz = 1000.0
)

// RunnerConfig configures vlmrb:vlmrb:policy-runner.
type RunnerConfig struct {
	RigConfig `json:",squash"`
	// Checkpoint is a vlmrb run directory (the output of robot-train
	// train); its newest verified checkpoint is loaded.
	Checkpoint string `json:"checkpoint"`
	// RateHz is the control rate (ticks/s; 0 = as fast as the robot
	// answers).
	RateHz float64 `json:"rate_hz,omitempty"`
	// MaxSteps per episode (0: the run's episode length).
	MaxSteps int `json:"max_steps,omitempty"`
	// SimReset: at every episode start send DoCommand {"reset": {"seed":
	// s}} to the arm (vlmrb:vlmrb:sim-arm takes it), seeds as in robot-train eval.
	SimReset bool `json:"sim_reset,omitempty"`
	// Engine, with SimReset, is the engine a checkpoint trained on the
	// tabletop's removed old engine sim runs on in vlmrb's simulated
	// world: "articulated" runs it there as a transfer; unset refuses it
	// (Policy.CheckEngine, robot-train eval --engine's rule).
	Engine string `json:"engine,omitempty"`
	// RecordDir, when set, records each episode there (RecordFrames).
	RecordDir string `json:"record_dir,omitempty"`
	// AutoStart starts episodes as soon as the service is configured.
	AutoStart bool `json:"auto_start,omitempty"`
	// Episodes to run per start (0: until stopped).
	Episodes int `json:"episodes,omitempty"`
	// Seed is the base episode seed (episode k: control.EpisodeSeed(Seed, 0, k)).
	Seed uint64 `json:"seed,omitempty"`
	// ArmModel is the MJCF file of an arm-reach checkpoint's arm on this
	// machine (empty: the run's arm.model, as it was given at training).
	ArmModel string `json:"arm_model,omitempty"`

	Attributes map[string]any `json:"-"`
}

var runnerKeys = []string{"arm", "gripper", "gripper_mode", "camera", "pose_tracker", "goal_mm", "task_offset_mm", "action_scale_mm",
	"workspace_mm", "max_step_mm", "joint_limits", "control", "checkpoint", "rate_hz", "max_steps", "sim_reset", "engine", "record_dir", "auto_start", "episodes", "seed", "arm_model"}

// Validate checks the attributes and names the components the runner
// depends on.
func (c *RunnerConfig) Validate(path string) ([]string, []string, error) {
	if err := unknownKeys(c.Attributes, runnerKeys...); err != nil {
		return nil, nil, err
	}
	if c.Checkpoint == "" {
		return nil, nil, fmt.Errorf(`"checkpoint" is required: a vlmrb run directory (robot-train train --out DIR)`)
	}
	// below MinRateHz the tick period would be hours (and at ~1e-9 Hz it
	// overflows time.Duration)
	if !finite(c.RateHz) || c.RateHz < 0 || c.RateHz > MaxRateHz || (c.RateHz > 0 && c.RateHz < MinRateHz) {
		return nil, nil, fmt.Errorf(`"rate_hz" is %g; use 0 (as fast as the robot answers) or %g to %g ticks per second`, c.RateHz, MinRateHz, MaxRateHz)
	}
	if c.MaxSteps < 0 || c.Episodes < 0 {
		return nil, nil, fmt.Errorf(`"max_steps" (%d) and "episodes" (%d) must not be negative`, c.MaxSteps, c.Episodes)
	}
	if err := checkEngineKey(c.Engine, c.SimReset, `"engine"`, `"sim_reset": true`); err != nil {
		return nil, nil, err
	}
	return c.RigConfig.validate()
}

// checkEngineKey refuses an engine other than "" and articulated, and an
// engine without the simulated world (a real robot has no engine); key
// and sim name the caller's words for the engine and the simulated world.
func checkEngineKey(engine string, simWorld bool, key, sim string) error {
	if err := tasks.CheckEngine(engine); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	if engine != "" && !simWorld {
		return fmt.Errorf("%s is %q but applies only with %s (vlmrb's simulated world); a real robot has no engine: leave it unset", key, engine, sim)
	}
	return nil
}
