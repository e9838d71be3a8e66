package tasks

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

// ArmReachName is the name `robot-train tasks` lists for the reach task
// over an imported MJCF arm.
const ArmReachName = "arm-reach"

// ArmReach constants.
const (
	// ArmReachSuccess (m) is the end-effector distance to the goal that
	// counts as reached (MetaWorld reach-v2's 5 cm).
	ArmReachSuccess = 0.05
	armJointStep    = 0.05 // rad (or m) of position target per unit joint action and control step
	armEEStep       = 0.03 // m of end-effector target per unit EE action and control step
	armControlDt    = 0.04 // s per control step
	armIKDamping    = 0.05 // damped least squares λ (m)
	armExpertGain   = 0.3  // share of the site error the expert commands per control step
	armExpertLag    = 0.3  // rad (or m) a joint may lag its target before the expert waits for it (arm6's gravity sag: ≤ 0.2)
	// armObsGain scales the goal and servo-lag vectors of the observation
	// (m or rad → dm or 0.1 rad), so that the centimetres that decide
	// success move the policy's inputs by O(0.1), not O(0.01).
	armObsGain = 10
)

// ArmReachOptions configure ArmReach.
type ArmReachOptions struct {
	// Site names the end-effector site (default "ee", else the model's
	// only site); a body's name gives the body's origin, for models
	// without a site at the end effector.
	Site string
	// Actuators name the position actuators to drive (default: every
	// position-servo actuator, in model order).
	Actuators []string
	// Control is "joint" (action: change of each joint's position target)
	// or "ee" (action: end-effector displacement, turned into targets by
	// damped-least-squares IK). Default "joint".
	Control string
	// Reward is "dense" (1 − tanh(5 d), d the distance in m) or "sparse"
	// (1 within ArmReachSuccess). Default "dense".
	Reward string
	// MaxSteps is the episode length in control steps (default 100).
	MaxSteps int
	// GoalRange (rad or m) bounds the random joint offsets from the start
	// pose whose end-effector position becomes the goal (default 0.8), so
	// every goal is reachable.
	GoalRange float64
	// Keyframe names the model's <key> that episodes start from and that
	// goals are drawn around (Menagerie's arms have a "home"); empty: qpos0.
	Keyframe string
}

// ArmReach is a reach task for any MJCF arm with an end-effector site and
// position actuators, behind control.Env, simulated on the articulated
// engine (mjcf.Load, sim/articulated: generalized coordinates,
// MuJoCo's equations): reach a random goal drawn from
// the arm's own workspace. Observation: joint positions, joint velocities
// / 10, 10 × (servo target − joint position), site position, goal,
// 10 × (goal − site), 10 × (commanded site − site), where the commanded site is
// the site's position at the servo targets. The servo targets are the
// controller's state (both action modes integrate them), so without them
// the observation would not be Markov: the arm lags its targets and sags
// below them under gravity by up to ~10 cm on arm6.xml. Info: "success" (d ≤ 5 cm),
// "obj_to_target" (d, m), "progress" (1 − d/d₀).
type ArmReach struct {
	a      *mjcf.Model
	m      *articulated.Model
	d      *articulated.Data
	fk     *articulated.Data // scratch for forward kinematics at other poses
	opts   ArmReachOptions
	ee     mjcf.Site // the end effector: a site of a, or a body's origin
	key    int       // index of Keyframe in m.Keys, or -1 (qpos0)
	acts   []int     // indices into m.Actuators (and d.Ctrl)
	joints []int     // the actuated joints (indices into m.Joints)
	qadr   []int     // their qpos addresses
	dadr   []int     // their dof addresses
	lo, hi []float64
	target []float64 // position targets of the actuated joints
	goal   sim.Vec3
	d0     float64
	skip   int
	t      int
	done   bool
	spec   control.Spec
}

// NewArmReach builds the reach task over a (mjcf.Load).
func NewArmReach(a *mjcf.Model, opts ArmReachOptions) (*ArmReach, error) {
	if opts.Control == "" {
		opts.Control = "joint"
	}
	if opts.Reward == "" {
		opts.Reward = "dense"
	}
	if opts.MaxSteps == 0 {
		opts.MaxSteps = 100
	}
	if opts.GoalRange == 0 {
		opts.GoalRange = 0.8
	}
	if opts.Control != "joint" && opts.Control != "ee" {
		return nil, fmt.Errorf("tasks: arm-reach: control %q must be joint or ee", opts.Control)
	}
	if opts.Reward != "dense" && opts.Reward != "sparse" {
		return nil, fmt.Errorf("tasks: arm-reach: reward %q must be dense or sparse", opts.Reward)
	}
	m := a.Model
	e := &ArmReach{a: a, m: m, opts: opts}
	if err := e.pickSite(); err != nil {
		return nil, err
	}
	e.key = -1
	if opts.Keyframe != "" {
		k, ok := m.Key(opts.Keyframe)
		if !ok {
			names := make([]string, len(m.Keys))
			for i, k := range m.Keys {
				names[i] = k.Name
				if k.Name == "" {
					names[i] = fmt.Sprintf("#%d", i)
				}
			}
			return nil, fmt.Errorf("tasks: arm-reach: the model has no keyframe %q (its keyframes: %v)", opts.Keyframe, names)
		}
		e.key = k
	}
	if err := e.pickActuators(); err != nil {
		return nil, err
	}
	e.d, e.fk = articulated.NewData(m), articulated.NewData(m)
	e.target = make([]float64, len(e.acts))
	e.skip = max(1, int(math.Round(armControlDt/m.Opt.Timestep)))
	n := len(e.acts)
	actDim := n
	if opts.Control == "ee" {
		actDim = 3
	}
	e.spec = control.BoxSpec(3*n+12, actDim, -1, 1)
	e.spec.MaxEpisodeSteps = opts.MaxSteps
	e.spec.ControlDt = float64(e.skip) * m.Opt.Timestep
	e.spec.RewardLow, e.spec.RewardHigh = 0, 1
	return e, nil
}

func (e *ArmReach) pickSite() error {
	name := e.opts.Site
	if name == "" {
		if _, ok := e.a.Site("ee"); ok || len(e.a.Sites) != 1 {
			name = "ee"
		} else {
			name = e.a.Sites[0].Name
		}
	}
	if i, ok := e.a.Site(name); ok {
		e.ee = e.a.Sites[i]
		return nil
	}
	for i := 1; i < len(e.m.Bodies); i++ {
		if e.m.Bodies[i].Name == name && name != "" {
			e.ee = mjcf.Site{Name: name, Body: i, Quat: [4]float64{1, 0, 0, 0}}
			return nil
		}
	}
	var sites, bodies []string
	for _, s := range e.a.Sites {
		sites = append(sites, s.Name)
	}
	for _, b := range e.m.Bodies[1:] {
		bodies = append(bodies, b.Name)
	}
	return fmt.Errorf("tasks: arm-reach: the model has no site or body %q (its sites: %v; its bodies: %v); name the end effector with --site, a site or a body (its origin)", name, sites, bodies)
}

// pickActuators finds the position servos on hinge or slide joints:
// MuJoCo's <position> is gain kp, bias (0, −kp, −kv), gear 1.
func (e *ArmReach) pickActuators() error {
	isServo := func(a *articulated.Actuator) bool {
		if a.Trn != articulated.TrnJoint || a.GainType != articulated.GainFixed || a.BiasType != articulated.BiasAffine {
			return false
		}
		if t := e.m.Joints[a.Joint].Type; t != articulated.Hinge && t != articulated.Slide {
			return false
		}
		return a.BiasPrm[0] == 0 && a.BiasPrm[1] < 0 && a.GainPrm[0] == -a.BiasPrm[1] && a.Gear == 1
	}
	names := make([]string, len(e.m.Actuators))
	for i := range e.m.Actuators {
		names[i] = e.m.Actuators[i].Name
	}
	for _, n := range e.opts.Actuators {
		if !slices.Contains(names, n) {
			return fmt.Errorf("tasks: arm-reach: the model has no actuator %q (its actuators: %v)", n, names)
		}
	}
	for i := range e.m.Actuators {
		a := &e.m.Actuators[i]
		if len(e.opts.Actuators) > 0 && !slices.Contains(e.opts.Actuators, a.Name) {
			continue
		}
		if !isServo(a) {
			if len(e.opts.Actuators) > 0 {
				return fmt.Errorf("tasks: arm-reach: actuator %q is not a position servo on a hinge or slide joint (gain kp, bias −kp, gear 1)", a.Name)
			}
			continue
		}
		e.acts = append(e.acts, i)
		e.joints = append(e.joints, a.Joint)
		e.qadr, e.dadr = append(e.qadr, e.m.QposAdr(a.Joint)), append(e.dadr, e.m.DofAdr(a.Joint))
		lo, hi := math.Inf(-1), math.Inf(1)
		if a.CtrlLimited {
			lo, hi = a.CtrlRange[0], a.CtrlRange[1]
		}
		if j := &e.m.Joints[a.Joint]; j.Limited {
			lo, hi = max(lo, j.Range[0]), min(hi, j.Range[1])
		}
		e.lo, e.hi = append(e.lo, lo), append(e.hi, hi)
	}
	if len(e.acts) == 0 {
		return fmt.Errorf("tasks: arm-reach: the model has no position-servo actuators to drive (its actuators: %v; name servos with --actuators)", names)
	}
	return nil
}

// ArmReachMeta is the static description of the arm-reach task (what
// Lookup returns for the registered tasks): the reach family, one stage,
// success within ArmReachSuccess.
func ArmReachMeta() Meta {
	return Meta{Name: ArmReachName, Description: "move the arm's end effector to the goal", Family: "reach",
		Stages: []string{"reach"}, SuccessRadius: ArmReachSuccess}
}

// Progress returns privileged progress 1 − d/d₀ in [0, 1] (d the site's
// distance to the goal, d₀ at Reset) and the stage name.
func (e *ArmReach) Progress() (float64, string) {
	return clampf(1-e.sitePos().Sub(e.goal).Norm()/e.d0, 0, 1), "reach"
}

// Expert returns the task's IK expert (ArmReachExpert).
func (e *ArmReach) Expert() control.Policy { return ArmReachExpert(e) }

// Spec implements control.Env.
func (e *ArmReach) Spec() control.Spec { return e.spec }

// Close implements control.Env.
func (e *ArmReach) Close() error { return nil }

// Model returns the imported model.
func (e *ArmReach) Model() *mjcf.Model { return e.a }

// Data returns the engine's state (owned by the env; its kinematics are
// those of its Qpos after Reset and Step).
func (e *ArmReach) Data() *articulated.Data { return e.d }

// SitePos returns the end effector's world position now.
func (e *ArmReach) SitePos() sim.Vec3 { return e.sitePos() }

// Goal returns the episode's goal position (m, world).
func (e *ArmReach) Goal() sim.Vec3 { return e.goal }

// Reset implements control.Env: the arm at rest at its start pose (qpos0,
// or the Keyframe) with its servos holding it, and a goal at the
// end-effector position of a random joint configuration within GoalRange
// of the start pose and the joint limits.
func (e *ArmReach) Reset(seed uint64) ([]float64, control.Info) {
	rng := rand.New(rand.NewPCG(seed, 0xa7e1))
	articulated.Reset(e.m, e.d)
	if e.key >= 0 {
		_ = articulated.ResetKey(e.m, e.d, e.key) // e.key is a valid index
		clear(e.d.Qvel)                           // at rest: the keyframe gives the pose only
	}
	q0 := slices.Clone(e.d.Qpos)
	for i := range e.joints {
		e.target[i] = clampf(q0[e.qadr[i]], e.lo[i], e.hi[i])
		e.d.Ctrl[e.acts[i]] = e.target[i]
	}
	floor := e.m.Bodies[1].Pos[2]
	copy(e.fk.Qpos, q0)
	for try := 0; try < 100; try++ {
		for i, a := range e.qadr {
			e.fk.Qpos[a] = clampf(q0[a]+e.opts.GoalRange*(2*rng.Float64()-1), e.lo[i], e.hi[i])
		}
		e.goal = e.siteFK()
		if e.goal.Z > floor+0.05 {
			break
		}
	}
	articulated.Kinematics(e.m, e.d)
	e.t, e.done = 0, false
	e.d0 = math.Max(e.sitePos().Sub(e.goal).Norm(), 1e-6)
	obs, info := e.observe()
	return obs, info
}

// siteAt is the site's world position in data x (its kinematics current).
func (e *ArmReach) siteAt(x *articulated.Data) sim.Vec3 {
	p, q := x.Xpos[e.ee.Body], x.Xquat[e.ee.Body]
	rot := sim.Quat{W: q[0], X: q[1], Y: q[2], Z: q[3]}
	return sim.V3(p[0], p[1], p[2]).Add(rot.Rotate(sim.V3(e.ee.Pos[0], e.ee.Pos[1], e.ee.Pos[2])))
}

// siteFK is the site's world position at the pose e.fk.Qpos.
func (e *ArmReach) siteFK() sim.Vec3 {
	articulated.Kinematics(e.m, e.fk)
	return e.siteAt(e.fk)
}

func (e *ArmReach) sitePos() sim.Vec3 { return e.siteAt(e.d) }

func clampf(x, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, x)) }

// Step implements control.Env.
func (e *ArmReach) Step(action []float64) ([]float64, float64, bool, bool, control.Info, error) {
	if e.done || e.t >= e.opts.MaxSteps {
		return nil, 0, false, false, control.Info{}, control.ErrNeedsReset
	}
	if len(action) != e.spec.ActDim {
		panic(fmt.Sprintf("tasks: arm-reach: action has %d values, want %d", len(action), e.spec.ActDim))
	}
	for _, a := range action {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return nil, 0, false, false, control.Info{}, control.ErrNonFiniteAction
		}
	}
	e.applyAction(action)
	for i := range e.target {
		e.d.Ctrl[e.acts[i]] = e.target[i]
	}
	w0 := e.d.Warnings.BadQpos + e.d.Warnings.BadQvel + e.d.Warnings.BadQacc
	for k := 0; k < e.skip; k++ {
		articulated.Step(e.m, e.d)
	}
	articulated.Kinematics(e.m, e.d) // Step leaves the frames of the pose before its last integration
	e.t++
	obs, info := e.observe()
	d := info.Values["obj_to_target"]
	r := 1 - math.Tanh(5*d)
	if e.opts.Reward == "sparse" {
		r = info.Values["success"]
	}
	truncated := e.t >= e.opts.MaxSteps
	if wn := e.d.Warnings; wn.BadQpos+wn.BadQvel+wn.BadQacc > w0 {
		info.Values["sim_unstable"] = 1
		truncated = true
	}
	e.done = truncated
	return obs, r, false, truncated, info, nil
}

// targetSite returns where the site would be at the position targets (the
// commanded pose; the real arm sags below it under gravity).
func (e *ArmReach) targetSite() sim.Vec3 {
	e.targetPose()
	return e.siteFK()
}

// targetPose puts e.fk.Qpos at the current pose with the actuated joints
// at their targets.
func (e *ArmReach) targetPose() {
	copy(e.fk.Qpos, e.d.Qpos)
	for i, a := range e.qadr {
		e.fk.Qpos[a] = e.target[i]
	}
}

// ikStep moves the targets one damped-least-squares step toward putting
// the site at p: Δq = Jᵀ(JJᵀ + λ²I)⁻¹ (p − x(q)), J by central
// differences of the forward kinematics at the current targets.
func (e *ArmReach) ikStep(p sim.Vec3) {
	e.targetPose()
	x := e.siteFK()
	n := len(e.joints)
	jac := make([]sim.Vec3, n)
	const h = 1e-5
	for i, a := range e.qadr {
		q := e.fk.Qpos[a]
		e.fk.Qpos[a] = q + h
		xp := e.siteFK()
		e.fk.Qpos[a] = q - h
		xm := e.siteFK()
		e.fk.Qpos[a] = q
		jac[i] = xp.Sub(xm).Scale(1 / (2 * h))
	}
	var a [9]float64 // JJᵀ + λ²I
	for i := range jac {
		c := [3]float64{jac[i].X, jac[i].Y, jac[i].Z}
		for r := 0; r < 3; r++ {
			for k := 0; k < 3; k++ {
				a[3*r+k] += c[r] * c[k]
			}
		}
	}
	for r := 0; r < 3; r++ {
		a[4*r] += armIKDamping * armIKDamping
	}
	err := p.Sub(x)
	y, ok := solve3(a, [3]float64{err.X, err.Y, err.Z})
	if !ok {
		return
	}
	yv := sim.V3(y[0], y[1], y[2])
	for i := range e.joints {
		e.target[i] = clampf(e.target[i]+jac[i].Dot(yv), e.lo[i], e.hi[i])
	}
}

// solve3 solves the 3×3 system a·x = b (Cramer's rule).
func solve3(a [9]float64, b [3]float64) ([3]float64, bool) {
	det := a[0]*(a[4]*a[8]-a[5]*a[7]) - a[1]*(a[3]*a[8]-a[5]*a[6]) + a[2]*(a[3]*a[7]-a[4]*a[6])
	if det == 0 || math.IsNaN(det) {
		return [3]float64{}, false
	}
	var x [3]float64
	for c := 0; c < 3; c++ {
		m := a
		for r := 0; r < 3; r++ {
			m[3*r+c] = b[r]
		}
		x[c] = (m[0]*(m[4]*m[8]-m[5]*m[7]) - m[1]*(m[3]*m[8]-m[5]*m[6]) + m[2]*(m[3]*m[7]-m[4]*m[6])) / det
	}
	return x, true
}

func (e *ArmReach) observe() ([]float64, control.Info) {
	obs := make([]float64, 0, e.spec.ObsDim)
	for _, a := range e.qadr {
		obs = append(obs, e.d.Qpos[a])
	}
	for _, a := range e.dadr {
		obs = append(obs, 0.1*e.d.Qvel[a])
	}
	for i, a := range e.qadr {
		obs = append(obs, armObsGain*(e.target[i]-e.d.Qpos[a]))
	}
	p := e.sitePos()
	g := e.goal
	c := e.targetSite().Sub(p).Scale(armObsGain)
	r := g.Sub(p).Scale(armObsGain)
	obs = append(obs, p.X, p.Y, p.Z, g.X, g.Y, g.Z, r.X, r.Y, r.Z, c.X, c.Y, c.Z)
	d := p.Sub(g).Norm()
	succ := 0.0
	if d <= ArmReachSuccess {
		succ = 1
	}
	return obs, control.Info{Values: map[string]float64{"success": succ, "obj_to_target": d, "near_object": succ,
		"progress": clampf(1-d/e.d0, 0, 1)}}
}

// ArmReachExpert is the scripted expert of ArmReach: in "ee" control it
// moves the commanded site straight at the goal; in "joint" control it steps the
// targets along the damped-least-squares IK solution toward the goal.
func ArmReachExpert(e *ArmReach) control.Policy {
	return control.PolicyFunc(func(obs, dst []float64) {
		n := len(e.joints)
		// integral action on the site error: the servos lag their targets
		// and sag under gravity, so the commanded pose moves a fraction of
		// the remaining error per step and settles where the arm reaches
		dx := sim.V3(obs[3*n+6], obs[3*n+7], obs[3*n+8]).Scale(armExpertGain / armObsGain)
		// anti-windup: a slow arm (UR5e's damped, force-limited joints
		// follow at ≈ 0.5 rad/s) falls behind its targets, and integrating
		// the error then winds the targets up into configurations the arm
		// never reaches (an end-effector action cannot unwind them: it moves
		// the commanded site, not the redundant joints). So the expert
		// waits while any joint lags its target by more than armExpertLag.
		for i := range n {
			if math.Abs(obs[2*n+i]/armObsGain) > armExpertLag {
				dx = sim.Vec3{}
				break
			}
		}
		if e.opts.Control == "ee" {
			v := dx.Scale(1 / armEEStep)
			dst[0], dst[1], dst[2] = clampf(v.X, -1, 1), clampf(v.Y, -1, 1), clampf(v.Z, -1, 1)
			return
		}
		saved := slices.Clone(e.target)
		step := dx
		if l := step.Norm(); l > armEEStep {
			step = step.Scale(armEEStep / l)
		}
		e.ikStep(e.targetSite().Add(step))
		for i := range dst {
			dst[i] = clampf((e.target[i]-saved[i])/armJointStep, -1, 1)
		}
		copy(e.target, saved)
	})
}
