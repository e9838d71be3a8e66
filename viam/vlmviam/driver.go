package vlmviam

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.viam.com/rdk/referenceframe"

	"github.com/vlmrb/vlmrb/sim/mjcf"
	"github.com/vlmrb/vlmrb/tasks"
)

// driver is one episode's robot side for the policy runner: how the
// episode starts, how an action reaches the arm, how the next observation
// is read, and what the episode's outcome was. rigDriver speaks the
// tabletop tasks' 39 → 4 layout through a Rig; armTaskDriver speaks an
// arm-reach checkpoint's joints. A driver is used by the loop's goroutine
// only.
type driver interface {
	begin(ctx context.Context, seed uint64) ([]float64, error)
	act(ctx context.Context, a []float64) ([3]float64, error)
	observe(ctx context.Context) ([]float64, error)
	actDim() int
	// outcome is the episode's success and end-to-goal distance (mm)
	// where the driver can tell (known false: a real arm on a tabletop task).
	outcome(ctx context.Context) (success bool, distMM float64, known bool)
}

// rigDriver is the tabletop path: the Rig's end-effector delta mapping.
type rigDriver struct {
	rig *Rig
	cfg RunnerConfig
}

func (d *rigDriver) begin(ctx context.Context, seed uint64) ([]float64, error) {
	if d.cfg.SimReset {
		if _, err := d.rig.Arm().DoCommand(ctx, map[string]any{"reset": map[string]any{"seed": strconv.FormatUint(seed, 10)}}); err != nil {
			return nil, fmt.Errorf("sim reset of arm %q: %w", d.cfg.Arm, err)
		}
	}
	return d.rig.Begin(ctx)
}

func (d *rigDriver) act(ctx context.Context, a []float64) ([3]float64, error) {
	return d.rig.Act(ctx, a)
}
func (d *rigDriver) observe(ctx context.Context) ([]float64, error) { return d.rig.Observe(ctx) }
func (d *rigDriver) actDim() int                                    { return tasks.ActDim }

// outcome reads a vlmrb sim arm's episode result (what in-process eval
// scores); other arms cannot say.
func (d *rigDriver) outcome(ctx context.Context) (bool, float64, bool) {
	if !d.cfg.SimReset {
		return false, 0, false
	}
	m, err := d.rig.Arm().DoCommand(ctx, map[string]any{"episodes": true})
	if err != nil {
		return false, 0, false
	}
	cur, ok := m["current"].(map[string]any)
	if !ok {
		return false, 0, false
	}
	s, _ := cur["success"].(bool)
	return s, math.NaN(), true
}

// armTaskDriver runs an arm-reach checkpoint (a policy trained by
// `robot-train train --model ARM.xml`) on a Viam arm's joints. The task
// (tasks.ArmReach over the run's MJCF model) is the task side: Reset
// draws the episode's goal from its seed exactly as in-process eval does,
// Command integrates the action into joint targets (the task's own IK),
// and ObserveAt builds the observation and success from the joints the
// arm reports, by the model's forward kinematics. The arm only moves:
// MoveToJointPositions with {"vlmrb_servo": true} every tick (mjcf-arm
// sets its servo targets and returns; other arms ignore the extra), and
// at the start MoveToJointPositions to the task's start pose, or with
// sim_reset DoCommand {"reset": {"joints": …}} (mjcf-arm: placed at rest,
// as a task Reset does). Joint velocities are the change of the joints
// between ticks over the task's control period, so a tick should last
// one control period of the arm's time (arm-reach: 40 ms; an mjcf-arm at
// speed 2 and rate_hz 50).
type armTaskDriver struct {
	rig   *Rig
	cfg   RunnerConfig
	task  *tasks.ArmReach
	ref   []float64
	slide []bool
	q, qd []float64 // last read joints and velocities (qpos units)
	obs   []float64
	succ  bool
	dist  float64
}

// newArmTaskDriver builds the task side of an arm-reach policy on rig's arm.
func newArmTaskDriver(rig *Rig, cfg RunnerConfig, pol *Policy) (*armTaskDriver, error) {
	c := pol.Config
	model := c.Arm.Model
	if cfg.ArmModel != "" {
		model = cfg.ArmModel
	}
	a, err := mjcf.Load(model, mjcf.Options{})
	if err != nil {
		return nil, invalidArg(`policy-runner: checkpoint %q is task %s on the MJCF arm %q, which does not load here (%v); give its path on this machine as "arm_model"`, pol.Dir, c.Task, model, err)
	}
	o := tasks.ArmReachOptions{Site: c.Arm.Site, Control: c.Arm.Control, Reward: c.EnvReward(),
		MaxSteps: c.MaxEpisodeLen, GoalRange: c.Arm.GoalRange, Keyframe: c.Arm.Keyframe}
	for _, n := range strings.Split(c.Arm.Actuators, ",") {
		if n = strings.TrimSpace(n); n != "" {
			o.Actuators = append(o.Actuators, n)
		}
	}
	t, err := tasks.NewArmReach(a, o)
	if err != nil {
		return nil, invalidArg("policy-runner: checkpoint %q: %v", pol.Dir, err)
	}
	d := &armTaskDriver{rig: rig, cfg: cfg, task: t}
	d.ref, d.slide = t.JointRefs()
	return d, nil
}

func (d *armTaskDriver) actDim() int { return d.task.Spec().ActDim }

// toViam converts task joints (qpos) to Viam inputs (rad from ref, mm).
func (d *armTaskDriver) toViam(q []float64) []referenceframe.Input {
	in := make([]referenceframe.Input, len(q))
	for i, v := range q {
		v -= d.ref[i]
		if d.slide[i] {
			v *= 1000
		}
		in[i] = v
	}
	return in
}

// joints reads the arm's joints as task joints (qpos units).
func (d *armTaskDriver) joints(ctx context.Context) ([]float64, error) {
	in, err := d.rig.Arm().JointPositions(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("arm %q joint positions: %w", d.cfg.Arm, err)
	}
	if len(in) != len(d.ref) {
		return nil, failedPrecondition("policy-runner: arm %q has %d joints; the checkpoint's task drives %d (%v)", d.cfg.Arm, len(in), len(d.ref), d.task.JointNames())
	}
	q := make([]float64, len(in))
	for i, v := range in {
		q[i] = v
		if d.slide[i] {
			q[i] /= 1000
		}
		q[i] += d.ref[i]
	}
	return q, nil
}

func (d *armTaskDriver) begin(ctx context.Context, seed uint64) ([]float64, error) {
	d.task.Reset(seed)
	q0 := d.task.StartJoints()
	if d.cfg.SimReset {
		js := make([]any, len(q0))
		for i, v := range d.toViam(q0) {
			js[i] = v
		}
		if _, err := d.rig.Arm().DoCommand(ctx, map[string]any{"reset": map[string]any{"joints": js}}); err != nil {
			return nil, fmt.Errorf("sim reset of arm %q to the task's start joints: %w", d.cfg.Arm, err)
		}
	} else if err := d.rig.Arm().MoveToJointPositions(ctx, d.toViam(q0), nil); err != nil {
		return nil, fmt.Errorf("arm %q to the task's start joints: %w", d.cfg.Arm, err)
	}
	q, err := d.joints(ctx)
	if err != nil {
		return nil, err
	}
	d.q, d.qd = q, make([]float64, len(q))
	return d.read(q, d.qd)
}

func (d *armTaskDriver) read(q, qd []float64) ([]float64, error) {
	obs, info, err := d.task.ObserveAt(q, qd)
	if err != nil {
		return nil, failedPrecondition("policy-runner: arm %q: %v", d.cfg.Arm, err)
	}
	d.obs, d.succ, d.dist = obs, info.Success(), info.Get("obj_to_target")*1000
	return obs, nil
}

// act turns the action into joint targets and sends them; the target it
// returns is the end effector's commanded position (mm, the model's world
// frame). A non-finite action holds the targets (limit non_finite).
func (d *armTaskDriver) act(ctx context.Context, a []float64) ([3]float64, error) {
	if err := d.rig.checkJoints(ctx); err != nil {
		return d.rig.target, err
	}
	tgt, err := d.task.Command(a)
	if err != nil {
		d.rig.counts.NonFinite++
		tgt = d.task.Targets()
	}
	if err := d.rig.Arm().MoveToJointPositions(ctx, d.toViam(tgt), map[string]any{ServoExtra: true}); err != nil {
		return d.rig.target, fmt.Errorf("arm %q joint move: %w", d.cfg.Arm, err)
	}
	// the commanded site at the new targets, from the last joints read;
	// observation layout: q, 0.1 q̇, 10 lag (n each), site, goal,
	// 10 (goal − site), 10 (commanded site − site)
	o, _, err := d.task.ObserveAt(d.q, d.qd)
	if err != nil {
		return d.rig.target, failedPrecondition("policy-runner: arm %q: %v", d.cfg.Arm, err)
	}
	n := len(d.ref)
	s, c := o[3*n:3*n+3], o[3*n+9:3*n+12]
	d.rig.target = [3]float64{1000 * (s[0] + c[0]/10), 1000 * (s[1] + c[1]/10), 1000 * (s[2] + c[2]/10)}
	return d.rig.target, nil
}

func (d *armTaskDriver) observe(ctx context.Context) ([]float64, error) {
	q, err := d.joints(ctx)
	if err != nil {
		return nil, err
	}
	dt := d.task.ControlDt()
	qd := make([]float64, len(q))
	for i := range q {
		qd[i] = (q[i] - d.q[i]) / dt
	}
	d.q, d.qd = q, qd
	return d.read(q, qd)
}

func (d *armTaskDriver) outcome(context.Context) (bool, float64, bool) {
	return d.succ, d.dist, true
}
