package vlmviam

import (
	"context"
	"errors"
	"fmt"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"math"
	"reflect"

	"github.com/golang/geo/r3"
	"go.viam.com/rdk/components/arm"
	"go.viam.com/rdk/components/camera"
	"go.viam.com/rdk/components/gripper"
	"go.viam.com/rdk/components/posetracker"
	"go.viam.com/rdk/referenceframe"
	"go.viam.com/rdk/resource"
	"go.viam.com/rdk/spatialmath"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/tasks"
)

// ErrJointLimit ends an episode: a joint was outside its limits before a
// command, so the arm was stopped instead of moved.
var ErrJointLimit = errors.New("vlmrb: a joint is outside its limits; the arm was stopped")

// LimitCounts counts how often each safety limit acted.
type LimitCounts struct {
	Workspace int `json:"workspace"`  // target clamped into the workspace box
	Step      int `json:"step"`       // target move shortened to max_step_mm
	Joint     int `json:"joint"`      // a joint outside its limits stopped the arm
	NonFinite int `json:"non_finite"` // a non-finite action was replaced by holding still
	// IKFallback counts ticks of the joint control path whose IK found no
	// solution, sent as MoveToPosition instead.
	IKFallback int `json:"ik_fallback"`
}

// Total is the sum of the counts.
func (c LimitCounts) Total() int { return c.Workspace + c.Step + c.Joint + c.NonFinite }

// Rig is the robot side of a control loop: it reads a task observation
// from a Viam arm, gripper and pose tracker, and turns a task action into
// a gripper command and an arm target behind the safety limits. The
// action mapping is the tasks' end-effector delta controller: the target
// integrates ActionScale·a[0:3] from the previous target (not from the
// measured pose), and a[3] > 0 closes the gripper. Limits act before
// anything moves: a non-finite action holds still; the step is shortened
// to MaxStep; the target is clamped into the workspace box; a joint
// outside its limits stops the arm. A Rig is used by one goroutine.
type Rig struct {
	cfg     RigConfig
	arm     arm.Arm
	gripper gripper.Gripper
	poses   posetracker.PoseTracker
	cam     camera.Camera
	model   referenceframe.Model // the arm's kinematics (nil: none)
	missing []string             // optional dependencies viam-server has not given

	safety  control.Safety
	counts  LimitCounts
	target  [3]float64 // commanded target (mm, arm frame)
	orient  spatialmath.Orientation
	curr    [18]float64
	prev    [18]float64
	grip    float64 // last gripper command (−1 open, +1 closed)
	gripSet bool
	// openness reads the gripper's finger gap (nil: estimate from grip)
	openness func(ctx context.Context) (float64, error)
	action   [tasks.ActDim]float64
	goalTask [3]float64 // goal in the task frame (m)

	ik     *IK       // joint control path (nil: MoveToPosition per tick)
	sim    bool      // the arm is vlmrb's sim arm: MoveToPosition with SimControlStep
	joints []float64 // last commanded joints, the next IK seed (nil: read them)

	// frames gives the robot's frame system, to put pose-tracker poses
	// in the arm's base frame (frames.go); nil: none
	frames      func(ctx context.Context) (PoseTransformer, error)
	worldIsBase bool // this episode: "world" is the arm's base (the arm has no frame)
	transformed int  // poses put through the frame system
}

// UseFrameSystem makes the rig put pose-tracker poses reported in other
// frames into the arm's base frame through fs (a robot client of the
// robot: its TransformPose). The policy runner uses viam-server's.
func (r *Rig) UseFrameSystem(fs PoseTransformer) {
	r.frames = func(context.Context) (PoseTransformer, error) { return fs, nil }
}

// Transformed counts the poses the rig put through the frame system.
func (r *Rig) Transformed() int { return r.transformed }

// NewRig resolves the components of cfg in deps and reads the arm's
// kinematic model (its Kinematics, which viam-server serves from the arm's
// kinematics file) for the joint control path.
func NewRig(ctx context.Context, deps resource.Dependencies, cfg RigConfig) (*Rig, error) {
	if _, _, err := cfg.validate(); err != nil {
		return nil, err
	}
	r := &Rig{cfg: cfg, grip: -1}
	var err error
	if r.arm, err = arm.FromDependencies(deps, cfg.Arm); err != nil {
		return nil, fmt.Errorf("arm %q: %w", cfg.Arm, err)
	}
	if cfg.Gripper != "" {
		if r.gripper, err = gripper.FromDependencies(deps, cfg.Gripper); err != nil {
			return nil, fmt.Errorf("gripper %q: %w", cfg.Gripper, err)
		}
	}
	// the pose tracker and the camera are optional dependencies
	// (RigConfig.validate): viam-server builds the runner without them
	// while they are missing and reconfigures it once they are there. A
	// missing pose tracker fails observations with Unavailable (the
	// runner retries episode starts on it); a missing camera records no
	// frames.
	if cfg.PoseTracker != "" {
		if r.poses, err = resource.FromDependencies[posetracker.PoseTracker](deps, posetracker.Named(cfg.PoseTracker)); err != nil {
			r.poses, r.missing = nil, append(r.missing, cfg.PoseTracker)
		}
	}
	if cfg.Camera != "" {
		if r.cam, err = camera.FromDependencies(deps, cfg.Camera); err != nil {
			r.cam, r.missing = nil, append(r.missing, cfg.Camera)
		}
	}
	// an arm without a kinematic model answers Kinematics with an error
	// (rdk: ErrNoModelInformation) or a nil model: the pose path then
	m, kerr := r.arm.Kinematics(ctx)
	if kerr != nil {
		m = nil
	}
	r.model = m
	if cfg.Control == "joints" || (cfg.Control != "pose" && m != nil && len(m.DoF()) >= 4) {
		if kerr != nil {
			return nil, failedPrecondition(`arm %q: "control": "joints" needs the arm's kinematics: %v; use "pose"`, cfg.Arm, kerr)
		}
		if r.ik, err = NewIK(m); err != nil {
			return nil, failedPrecondition(`arm %q: "control": "joints" needs the arm's kinematics: %v; use "pose"`, cfg.Arm, err)
		}
	}
	r.safety.MaxSpeed = cfg.MaxStep // mm per tick, dt = 1
	if cfg.Workspace != nil {
		r.safety.WorkspaceLow, r.safety.WorkspaceHigh = cfg.Workspace.Low, cfg.Workspace.High
	}
	return r, nil
}

// same reports whether o drives the same components with the same
// configuration (a reconfigure that keeps them keeps the rig's state).
func (r *Rig) same(o *Rig) bool {
	return reflect.DeepEqual(r.cfg, o.cfg) && sameRes(r.arm, o.arm) && sameRes(r.gripper, o.gripper) &&
		sameRes(r.poses, o.poses) && sameRes(r.cam, o.cam)
}

// sameRes compares two resources by identity; a resource of a
// non-comparable type is never the same.
func sameRes(a, b any) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}

// Counts returns the limit interventions so far.
func (r *Rig) Counts() LimitCounts {
	c := r.counts
	c.Workspace, c.Step = r.safety.Counts.Workspace, r.safety.Counts.Speed
	return c
}

// Target returns the commanded target (mm, arm frame).
func (r *Rig) Target() [3]float64 { return r.target }

// ControlPath returns "joints" (IK, then MoveToJointPositions) or "pose"
// (MoveToPosition per tick).
func (r *Rig) ControlPath() string {
	if r.ik != nil {
		return "joints"
	}
	return "pose"
}

// Camera returns the rig's camera (nil when none).
func (r *Rig) Camera() camera.Camera { return r.cam }

// Arm returns the rig's arm.
func (r *Rig) Arm() arm.Arm { return r.arm }

// Missing names the optional dependencies (pose tracker, camera) that
// were not available when the rig was built.
func (r *Rig) Missing() []string { return r.missing }

// Model is the arm's kinematic model as the arm reported it when the rig
// was built (nil when it has none).
func (r *Rig) Model() referenceframe.Model { return r.model }

// Begin starts an episode: the target becomes the measured end pose, the
// gripper opens, and the first observation is returned (its previous frame
// equals its current one, as at a task's Reset).
func (r *Rig) Begin(ctx context.Context) ([]float64, error) {
	p, err := r.arm.EndPosition(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("arm %q end position: %w", r.cfg.Arm, err)
	}
	pt := p.Point()
	r.target = [3]float64{pt.X, pt.Y, pt.Z}
	r.orient = p.Orientation()
	r.joints = nil // the first tick seeds IK with the measured joints
	r.worldIsBase = false
	if m, err := r.arm.DoCommand(ctx, map[string]any{SimProbe: true}); err == nil {
		r.sim, _ = m[SimProbe].(bool)
	}
	r.grip, r.gripSet = -1, false
	if r.gripper != nil {
		if r.cfg.GripperMode == "proportional" {
			if _, err := r.gripper.DoCommand(ctx, map[string]any{"set": -1.0}); err != nil {
				return nil, fmt.Errorf("gripper %q: %w", r.cfg.Gripper, err)
			}
		} else if err := r.gripper.Open(ctx, nil); err != nil {
			return nil, fmt.Errorf("gripper %q open: %w", r.cfg.Gripper, err)
		}
		r.gripSet = true
		r.openness = nil
		if _, err := r.gripper.DoCommand(ctx, map[string]any{"openness": true}); err == nil {
			g := r.gripper
			r.openness = func(ctx context.Context) (float64, error) {
				m, err := g.DoCommand(ctx, map[string]any{"openness": true})
				if err != nil {
					return 0, err
				}
				v, ok := m["openness"].(float64)
				if !ok {
					return 0, fmt.Errorf("gripper answered openness %v, want a number", m["openness"])
				}
				return v, nil
			}
		}
	}
	if err := r.frame(ctx, p, r.curr[:]); err != nil {
		return nil, err
	}
	r.prev = r.curr
	return r.obs(), nil
}

// Observe reads the next observation.
func (r *Rig) Observe(ctx context.Context) ([]float64, error) {
	p, err := r.arm.EndPosition(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("arm %q end position: %w", r.cfg.Arm, err)
	}
	r.prev = r.curr
	if err := r.frame(ctx, p, r.curr[:]); err != nil {
		return nil, err
	}
	return r.obs(), nil
}

func (r *Rig) toTask(dst []float64, p r3.Vector) {
	dst[0] = (p.X - r.cfg.TaskOffset[0]) / 1000
	dst[1] = (p.Y - r.cfg.TaskOffset[1]) / 1000
	dst[2] = (p.Z - r.cfg.TaskOffset[2]) / 1000
}

// frame fills one 18-element observation frame (the tasks' layout).
func (r *Rig) frame(ctx context.Context, hand spatialmath.Pose, dst []float64) error {
	clear(dst)
	r.toTask(dst[0:3], hand.Point())
	switch {
	case r.openness != nil:
		v, err := r.openness(ctx)
		if err != nil {
			return fmt.Errorf("gripper %q openness: %w", r.cfg.Gripper, err)
		}
		dst[3] = v
	case r.gripper != nil:
		dst[3] = (1 - r.grip) / 2 // estimate: open 1, closed 0
	}
	if r.cfg.Goal != nil {
		r.toTask(r.goalTask[:], r3.Vector{X: r.cfg.Goal[0], Y: r.cfg.Goal[1], Z: r.cfg.Goal[2]})
	}
	if r.poses == nil && r.cfg.PoseTracker != "" {
		return status.Error(codes.Unavailable, fmt.Sprintf("pose tracker %q is not available: viam-server has not given it to the runner yet (an optional dependency); check that it is configured and healthy", r.cfg.PoseTracker))
	}
	if r.poses != nil {
		ps, err := r.poses.Poses(ctx, []string{BodyObject0, BodyObject1, BodyGoal}, nil)
		if err != nil {
			return fmt.Errorf("pose tracker %q: %w", r.cfg.PoseTracker, err)
		}
		who := fmt.Sprintf("pose tracker %q", r.cfg.PoseTracker)
		for i, name := range []string{BodyObject0, BodyObject1} {
			if p, ok := ps[name]; ok && p != nil {
				pose, err := r.inArmFrame(ctx, who, p)
				if err != nil {
					return err
				}
				o := dst[4+7*i : 11+7*i]
				r.toTask(o[0:3], pose.Point())
				q := pose.Orientation().Quaternion()
				o[3], o[4], o[5], o[6] = q.Imag, q.Jmag, q.Kmag, q.Real
			}
		}
		if p, ok := ps[BodyGoal]; ok && p != nil {
			pose, err := r.inArmFrame(ctx, who, p)
			if err != nil {
				return err
			}
			r.toTask(r.goalTask[:], pose.Point())
		}
	}
	return nil
}

func (r *Rig) obs() []float64 {
	o := make([]float64, tasks.ObsDim)
	copy(o[0:18], r.curr[:])
	copy(o[18:36], r.prev[:])
	copy(o[36:39], r.goalTask[:])
	return o
}

// Act applies one action (len 4, the tasks' layout) behind the limits and
// returns the target it commanded (mm, arm frame). ErrJointLimit means the
// arm was stopped instead.
func (r *Rig) Act(ctx context.Context, a []float64) ([3]float64, error) {
	if len(a) != tasks.ActDim {
		return r.target, fmt.Errorf("vlmrb: action has %d elements, want %d", len(a), tasks.ActDim)
	}
	act := r.action[:]
	hold := false
	for i, v := range a {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			hold = true
			break
		}
		act[i] = min(max(v, -1), 1)
	}
	if hold {
		r.counts.NonFinite++
		act[0], act[1], act[2], act[3] = 0, 0, 0, r.grip
	}
	// joint limits, on the measured joints, before anything moves
	if err := r.checkJoints(ctx); err != nil {
		return r.target, err
	}
	s := r.cfg.scale()
	want := [3]float64{r.target[0] + s*act[0], r.target[1] + s*act[1], r.target[2] + s*act[2]}
	target := r.safety.Target(r.target, want, 1)
	if r.gripper != nil {
		if err := r.setGripper(ctx, act[3]); err != nil {
			return r.target, err
		}
	}
	pose := spatialmath.NewPose(r3.Vector{X: target[0], Y: target[1], Z: target[2]}, r.orient)
	if err := r.moveTo(ctx, pose); err != nil {
		return r.target, err
	}
	r.target = target
	return target, nil
}

// moveTo sends the arm to pose: through IK and MoveToJointPositions on the
// joint path, else (or when IK finds no solution) MoveToPosition.
func (r *Rig) moveTo(ctx context.Context, pose spatialmath.Pose) error {
	if r.ik != nil {
		seed := r.joints
		if seed == nil {
			in, err := r.arm.JointPositions(ctx, nil)
			if err != nil {
				return fmt.Errorf("arm %q joint positions: %w", r.cfg.Arm, err)
			}
			seed = copyInputs(in)
		}
		q, _, _, err := r.ik.Solve(seed, pose)
		if err == nil {
			if err := r.arm.MoveToJointPositions(ctx, copyInputs(q), nil); err != nil {
				r.joints = nil
				return fmt.Errorf("arm %q joint move: %w", r.cfg.Arm, err)
			}
			r.joints = q
			return nil
		}
		r.counts.IKFallback++
		r.joints = nil
	}
	var extra map[string]any
	if r.sim {
		extra = map[string]any{SimControlStep: true}
	}
	if err := r.arm.MoveToPosition(ctx, pose, extra); err != nil {
		return fmt.Errorf("arm %q move: %w", r.cfg.Arm, err)
	}
	return nil
}

func (r *Rig) setGripper(ctx context.Context, g float64) error {
	if r.cfg.GripperMode == "proportional" {
		r.grip = g
		_, err := r.gripper.DoCommand(ctx, map[string]any{"set": g})
		if err != nil {
			return fmt.Errorf("gripper %q set: %w", r.cfg.Gripper, err)
		}
		return nil
	}
	closed := g > 0
	if r.gripSet && closed == (r.grip > 0) {
		return nil
	}
	r.gripSet = true
	if closed {
		r.grip = 1
		if _, err := r.gripper.Grab(ctx, nil); err != nil {
			return fmt.Errorf("gripper %q grab: %w", r.cfg.Gripper, err)
		}
		return nil
	}
	r.grip = -1
	if err := r.gripper.Open(ctx, nil); err != nil {
		return fmt.Errorf("gripper %q open: %w", r.cfg.Gripper, err)
	}
	return nil
}

func (r *Rig) checkJoints(ctx context.Context) error {
	if len(r.cfg.JointLimits) == 0 {
		return nil
	}
	in, err := r.arm.JointPositions(ctx, nil)
	if err != nil {
		return fmt.Errorf("arm %q joint positions: %w", r.cfg.Arm, err)
	}
	vals := copyInputs(in)
	if m := r.model; m != nil {
		if jp, err := referenceframe.JointPositionsFromInputs(m, in); err == nil {
			vals = jp.Values // degrees for revolute joints, mm for prismatic
		}
	}
	for i, l := range r.cfg.JointLimits {
		if i >= len(vals) {
			break
		}
		if vals[i] < l[0] || vals[i] > l[1] {
			r.counts.Joint++
			_ = r.arm.Stop(ctx, nil)
			return fmt.Errorf("%w (joint %d at %.3g, limits [%g, %g])", ErrJointLimit, i, vals[i], l[0], l[1])
		}
	}
	return nil
}
