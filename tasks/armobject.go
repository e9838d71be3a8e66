package tasks

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vlmrb/vlmrb/control"
	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

// Task names of the object tasks over an imported arm with its own gripper
// (MetaWorld's push-v3 and pick-place-v3 on the user's MJCF arm; Menagerie's
// mjx_panda.xml is the reference model).
const (
	ArmPickName = "panda-pick"
	ArmPushName = "panda-push"
)

// Arm object task constants.
const (
	// ArmCubeHalf (m) is the half side of the task's cube (a 5 cm cube).
	ArmCubeHalf = 0.025
	// ArmCubeMass (kg) is the cube's mass.
	ArmCubeMass = 0.1
	// ArmPushSuccess (m) is push-v3's success radius: the cube's centre
	// within 5 cm of the goal, horizontally.
	ArmPushSuccess = 0.05
	// ArmPickSuccess (m) is pick-place-v3's success radius: the cube's
	// centre within 7 cm of the goal, in 3-D.
	ArmPickSuccess = 0.07
	// ArmObjectMaxSteps is the default episode length (control steps of
	// armControlDt: 8 s).
	ArmObjectMaxSteps = 200

	armTableHalfX = 0.3  // m: the table's half extent along x (it is centred on the workspace)
	armTableHalfY = 0.45 // m
	armTableThick = 0.02 // m: half thickness of the table top
	armCubeRange  = 0.1  // m: the cube starts within ±this of the workspace centre in x and y
	armReadyLift  = 0.2  // m: the end effector starts this far above the table
	armIKIters    = 2    // IK iterations per control step
	armReadyIters = 400  // IK iterations that put the arm at the ready pose at Reset
	armOriWeight  = 0.3  // m per rad: weight of the orientation error in the IK
	armLiftTol    = 0.02 // m: the cube counts as lifted this far above its resting height
)

// ArmObjectOptions configure NewArmObject.
type ArmObjectOptions struct {
	// Task is "pick" (pick-place: grasp the cube and hold it at a goal in
	// the air) or "push" (push the cube to a goal on the table).
	Task string
	// Site names the end-effector site, between the fingertips; its z
	// axis points from the hand to the fingertips and the fingers slide
	// along its y axis (default: "gripper", mjx_panda's, else "ee", else
	// the model's only site). A body's name gives the body's origin.
	Site string
	// Grip names the gripper's actuator (default: the one position servo
	// on a slide joint, mjx_panda's actuator8). Its fingers are closed at
	// the end of its ctrlrange where the finger body is nearer the site's
	// axis.
	Grip string
	// Actuators name the arm's position actuators (default: every
	// position servo on a hinge joint, in model order).
	Actuators []string
	// Reward is "dense" or "sparse" (default "dense"; formulas on ArmObject).
	Reward string
	// MaxSteps is the episode length in control steps (default ArmObjectMaxSteps).
	MaxSteps int
	// Keyframe names the arm model's <key> the IK starts from when it puts
	// the arm at the ready pose (empty: "home" if the model has one, else
	// qpos0 clamped into the joint ranges); the middle of the joint ranges
	// and fixed pseudo-random poses are tried after it, the best kept.
	Keyframe string
	// ReadFile reads the model and its include and mesh files (nil:
	// mjcf's bounded reader), as mjcf.Options.ReadFile.
	ReadFile func(name string) ([]byte, error)
}

// ArmObject is panda-pick or panda-push: the user's MJCF arm with its own
// gripper, a table and a 5 cm cube the task adds, behind control.Env on
// the articulated engine.
//
// Scene: the arm model is included, as it is, by an MJCF wrapper the task
// composes in memory (no file is written; the include resolves inside the
// model's folder, by mjcf's include rules). The wrapper adds a table (a
// box whose top is at the height of the arm's base, centred on the
// workspace: 0.5 × the arm's straight-up length in front of the base; a
// visual-only extension reaches under the base) and
// the cube (mass 0.1 kg, friction 1, on a free joint; contype 2
// conaffinity 1, as Menagerie's MJX cube scenes, so that it collides with
// the table and with whatever geom of the arm has conaffinity bit 1 or 2).
// The arm's keyframes are padded with the cube's qpos0.
//
// Control (every 0.04 s): action (dx, dy, dz, g) in [−1, 1]⁴. The
// commanded end-effector position moves by 3 cm × (dx, dy, dz) (kept
// above the table and over it), and the arm's servo targets follow by two
// damped-least-squares IK iterations on position and orientation (the
// site pointing down, fingers opening along world y), plus gravity
// feedforward (ctrl = q* + qfrc_bias/kp, see servo). g drives the
// gripper: its servo target is open at g = −1 and closed at g = +1
// (MetaWorld's convention), linearly between. The cube falling off the
// table ends the episode (terminated).
//
// Observation (24): site position (3), finger opening (1: 0 closed, 1
// open), cube position (3) and quaternion (4: w x y z), goal (3),
// 10 × (cube − site) (3), 10 × (goal − cube) (3), 10 × (commanded − site)
// (3), last grip command g (1).
//
// Rewards, with d_r = ‖cube − site‖, d_g the cube's distance to the goal
// (horizontal for push, 3-D for pick), reach = 1 − tanh(10 d_r), place = 1
// − tanh(10 d_g):
//   - push, dense: 0.25 reach + 0.75 place; 1 on success.
//   - pick, dense: 0.2 reach + 0.3 grasp + 0.5 grasp · place, where grasp
//     is 1 while the cube is held (it touches two or more bodies of the
//     arm, the fingers, and is lifted ≥ 2 cm off the table); 1 on success.
//   - sparse: 1 on success, else 0.
//
// Success: push, d_g ≤ 5 cm (push-v3); pick, d_g ≤ 7 cm (pick-place-v3)
// with the cube held. Info: success, near_object (d_r ≤ 5 cm),
// grasp_success, obj_to_target (d_g), progress (1 − d_g/d_g0).
type ArmObject struct {
	a      *mjcf.Model
	m      *articulated.Model
	d, fk  *articulated.Data
	opts   ArmObjectOptions
	pick   bool
	ee     mjcf.Site
	acts   []int
	qadr   []int
	lo, hi []float64
	target []float64 // the arm's servo targets
	grip   int       // the grip actuator
	gripQ  int       // its joint's qpos address
	gripV  int       // its joint's dof address
	gOpen  float64   // grip ctrl when open
	gShut  float64   // grip ctrl when closed
	gCmd   float64   // last grip command
	cube   int       // the cube's body
	cubeQ  int       // the cube's free joint's qpos address
	cubeV  int
	ready  []float64 // the arm's qpos at the ready pose
	center sim.Vec3  // workspace centre on the table top
	tableZ float64
	down   sim.Quat // the site's orientation the IK holds
	cmd    sim.Vec3 // commanded site position
	goal   sim.Vec3
	dg0    float64
	skip   int
	t      int
	done   bool
	spec   control.Spec
}

// LoadArmObject composes the task's scene around the MJCF arm at path and
// builds the task over it (NewArmObject).
func LoadArmObject(path string, opts ArmObjectOptions) (*ArmObject, error) {
	arm, err := mjcf.Load(path, mjcf.Options{ReadFile: opts.ReadFile})
	if err != nil {
		return nil, err
	}
	scene, err := ArmObjectScene(filepath.Base(path), arm)
	if err != nil {
		return nil, err
	}
	a, err := mjcf.Parse(scene, filepath.Dir(path), mjcf.Options{ReadFile: opts.ReadFile, PadKeyframes: true})
	if err != nil {
		return nil, fmt.Errorf("tasks: %s: composing the scene around %s: %w", armTaskName(opts.Task), path, err)
	}
	return NewArmObject(a, opts)
}

func armTaskName(task string) string {
	if task == "push" {
		return ArmPushName
	}
	return ArmPickName
}

// ArmObjectScene is the MJCF wrapper of the arm object tasks: it includes
// the arm file (a name relative to the model's folder) and adds the table
// and the cube where arm (the same file, loaded alone) puts its workspace.
func ArmObjectScene(file string, arm *mjcf.Model) ([]byte, error) {
	if strings.ContainsAny(file, "\"<>&") {
		return nil, fmt.Errorf("tasks: model file name %q has a character that cannot go in an MJCF attribute", file)
	}
	c, base, err := armWorkspace(arm)
	z := base.Z
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<mujoco model=\"arm object scene\">\n  <include file=%q/>\n  <worldbody>\n", file)
	fmt.Fprintf(&b, "    <geom name=\"vlmrb_table\" type=\"box\" size=\"%g %g %g\" pos=\"%g %g %g\" contype=\"1\" conaffinity=\"1\" condim=\"3\" friction=\"1 0.005 0.0001\" rgba=\"0.55 0.4 0.3 1\"/>\n",
		armTableHalfX, armTableHalfY, armTableThick, c.X, c.Y, z-armTableThick)
	// a visual-only extension of the table under the arm's base (no
	// collision bits, static: it changes nothing of the dynamics)
	if x0, x1 := base.X-0.15, c.X-armTableHalfX; x1 > x0 {
		fmt.Fprintf(&b, "    <geom name=\"vlmrb_mount\" type=\"box\" size=\"%g %g %g\" pos=\"%g %g %g\" contype=\"0\" conaffinity=\"0\" rgba=\"0.55 0.4 0.3 1\"/>\n",
			(x1-x0)/2, 0.15, armTableThick, (x0+x1)/2, base.Y, z-armTableThick)
	}
	fmt.Fprintf(&b, "    <body name=\"vlmrb_cube\" pos=\"%g %g %g\">\n      <freejoint name=\"vlmrb_cube\"/>\n", c.X, c.Y, z+ArmCubeHalf)
	fmt.Fprintf(&b, "      <geom name=\"vlmrb_cube\" type=\"box\" size=\"%g %g %g\" mass=\"%g\" contype=\"2\" conaffinity=\"1\" condim=\"3\" friction=\"1 0.005 0.0001\" rgba=\"0.85 0.15 0.1 1\"/>\n",
		ArmCubeHalf, ArmCubeHalf, ArmCubeHalf, ArmCubeMass)
	b.WriteString("    </body>\n  </worldbody>\n</mujoco>\n")
	return []byte(b.String()), nil
}

// armWorkspace is the workspace centre (on the table top) and the arm's
// base (its root body's origin) for arm: the table top at the height of the arm's root
// body, the centre 0.5 × the arm's length (root to end-effector site at
// qpos0) in front of it along x.
func armWorkspace(arm *mjcf.Model) (sim.Vec3, sim.Vec3, error) {
	m := arm.Model
	if len(m.Bodies) < 2 {
		return sim.Vec3{}, sim.Vec3{}, fmt.Errorf("tasks: the arm model has no bodies")
	}
	d := articulated.NewData(m)
	articulated.Kinematics(m, d)
	base := d.Xpos[1]
	far := 0.0
	for i := 1; i < len(m.Bodies); i++ {
		p := d.Xpos[i]
		far = max(far, math.Hypot(math.Hypot(p[0]-base[0], p[1]-base[1]), p[2]-base[2]))
	}
	for _, s := range arm.Sites {
		p := d.Xpos[s.Body]
		q := d.Xquat[s.Body]
		w := sim.V3(p[0], p[1], p[2]).Add(sim.Quat{W: q[0], X: q[1], Y: q[2], Z: q[3]}.Rotate(sim.V3(s.Pos[0], s.Pos[1], s.Pos[2])))
		far = max(far, w.Sub(sim.V3(base[0], base[1], base[2])).Norm())
	}
	b := sim.V3(base[0], base[1], base[2])
	if far < 0.1 {
		return sim.Vec3{}, b, fmt.Errorf("tasks: the arm model is %.3f m long at qpos0; the object tasks need an arm at least 0.1 m long", far)
	}
	return sim.V3(base[0]+0.5*far, base[1], base[2]), b, nil
}

// NewArmObject builds the task over a, a scene composed by ArmObjectScene
// (LoadArmObject does both).
func NewArmObject(a *mjcf.Model, opts ArmObjectOptions) (*ArmObject, error) {
	if opts.Task == "" {
		opts.Task = "pick"
	}
	if opts.Reward == "" {
		opts.Reward = "dense"
	}
	if opts.MaxSteps == 0 {
		opts.MaxSteps = ArmObjectMaxSteps
	}
	name := armTaskName(opts.Task)
	if opts.Task != "pick" && opts.Task != "push" {
		return nil, fmt.Errorf("tasks: arm object task %q must be pick or push", opts.Task)
	}
	if opts.Reward != "dense" && opts.Reward != "sparse" {
		return nil, fmt.Errorf("tasks: %s: reward %q must be dense or sparse", name, opts.Reward)
	}
	if opts.MaxSteps < 0 {
		return nil, fmt.Errorf("tasks: %s: max steps %d must be positive", name, opts.MaxSteps)
	}
	m := a.Model
	e := &ArmObject{a: a, m: m, opts: opts, pick: opts.Task == "pick", cube: -1}
	for i := range m.Bodies {
		if m.Bodies[i].Name == "vlmrb_cube" {
			e.cube = i
		}
	}
	if e.cube < 0 {
		return nil, fmt.Errorf("tasks: %s: the model has no body vlmrb_cube: compose the scene with ArmObjectScene (LoadArmObject does)", name)
	}
	for j := range m.Joints {
		if m.Joints[j].Body == e.cube && m.Joints[j].Type == articulated.Free {
			e.cubeQ, e.cubeV = m.QposAdr(j), m.DofAdr(j)
		}
	}
	if err := e.pickSite(name); err != nil {
		return nil, err
	}
	if err := e.pickActuators(name); err != nil {
		return nil, err
	}
	e.d, e.fk = articulated.NewData(m), articulated.NewData(m)
	e.skip = max(1, int(math.Round(armControlDt/m.Opt.Timestep)))
	e.down = sim.Quat{W: 0, X: 0, Y: 1, Z: 0} // π about y: site z down, y along world y
	// the table top and the workspace centre: where the wrapper put the cube
	articulated.Reset(m, e.d)
	cq := e.d.Qpos[e.cubeQ : e.cubeQ+3]
	e.center, e.tableZ = sim.V3(cq[0], cq[1], cq[2]-ArmCubeHalf), cq[2]-ArmCubeHalf
	if err := e.findReady(name); err != nil {
		return nil, err
	}
	e.spec = control.BoxSpec(24, 4, -1, 1)
	e.spec.MaxEpisodeSteps = opts.MaxSteps
	e.spec.ControlDt = float64(e.skip) * m.Opt.Timestep
	e.spec.RewardLow, e.spec.RewardHigh = 0, 1
	return e, nil
}

func (e *ArmObject) pickSite(name string) error {
	site := e.opts.Site
	if site == "" {
		switch {
		case e.hasSite("gripper"):
			site = "gripper"
		case e.hasSite("ee") || len(e.a.Sites) != 1:
			site = "ee"
		default:
			site = e.a.Sites[0].Name
		}
	}
	if i, ok := e.a.Site(site); ok {
		e.ee = e.a.Sites[i]
		return nil
	}
	for i := 1; i < len(e.m.Bodies); i++ {
		if e.m.Bodies[i].Name == site && site != "" {
			e.ee = mjcf.Site{Name: site, Body: i, Quat: [4]float64{1, 0, 0, 0}}
			return nil
		}
	}
	var sites []string
	for _, s := range e.a.Sites {
		sites = append(sites, s.Name)
	}
	return fmt.Errorf("tasks: %s: the model has no site or body %q (its sites: %v); name the end effector between the fingertips with --site", name, site, sites)
}

func (e *ArmObject) hasSite(n string) bool { _, ok := e.a.Site(n); return ok }

// pickActuators finds the arm's servos (hinge joints) and the grip servo
// (slide joint), or the named ones, and which end of the grip's range
// closes the fingers.
func (e *ArmObject) pickActuators(name string) error {
	m := e.m
	isServo := func(a *articulated.Actuator) bool {
		if a.Trn != articulated.TrnJoint || a.GainType != articulated.GainFixed || a.BiasType != articulated.BiasAffine {
			return false
		}
		return a.BiasPrm[0] == 0 && a.BiasPrm[1] < 0 && a.GainPrm[0] == -a.BiasPrm[1] && a.Gear == 1
	}
	names := make([]string, len(m.Actuators))
	for i := range m.Actuators {
		names[i] = m.Actuators[i].Name
	}
	find := func(n string) (int, error) {
		i := slices.Index(names, n)
		if i < 0 || n == "" {
			return 0, fmt.Errorf("tasks: %s: the model has no actuator %q (its actuators: %v)", name, n, names)
		}
		if !isServo(&m.Actuators[i]) {
			return 0, fmt.Errorf("tasks: %s: actuator %q is not a position servo on a joint (gain kp, bias −kp, gear 1)", name, n)
		}
		return i, nil
	}
	e.grip = -1
	if e.opts.Grip != "" {
		i, err := find(e.opts.Grip)
		if err != nil {
			return err
		}
		e.grip = i
	}
	var arm []int
	if len(e.opts.Actuators) > 0 {
		for _, n := range e.opts.Actuators {
			i, err := find(n)
			if err != nil {
				return err
			}
			arm = append(arm, i)
		}
	}
	for i := range m.Actuators {
		a := &m.Actuators[i]
		if !isServo(a) || i == e.grip || slices.Contains(arm, i) {
			continue
		}
		switch m.Joints[a.Joint].Type {
		case articulated.Hinge:
			if len(e.opts.Actuators) == 0 {
				arm = append(arm, i)
			}
		case articulated.Slide:
			if e.opts.Grip == "" {
				if e.grip >= 0 {
					return fmt.Errorf("tasks: %s: actuators %q and %q both drive slide joints; name the gripper's with --grip", name, names[e.grip], a.Name)
				}
				e.grip = i
			}
		}
	}
	if e.grip < 0 {
		return fmt.Errorf("tasks: %s: the model has no position servo on a slide joint to close its gripper (its actuators: %v); name it with --grip", name, names)
	}
	if len(arm) < 3 {
		return fmt.Errorf("tasks: %s: the model has %d position servos on hinge joints; the end-effector IK needs at least 3 (name them with --actuators)", name, len(arm))
	}
	for _, i := range arm {
		a := &m.Actuators[i]
		e.acts = append(e.acts, i)
		e.qadr = append(e.qadr, m.QposAdr(a.Joint))
		lo, hi := math.Inf(-1), math.Inf(1)
		if a.CtrlLimited {
			lo, hi = a.CtrlRange[0], a.CtrlRange[1]
		}
		if j := &m.Joints[a.Joint]; j.Limited {
			lo, hi = max(lo, j.Range[0]), min(hi, j.Range[1])
		}
		e.lo, e.hi = append(e.lo, lo), append(e.hi, hi)
	}
	g := &m.Actuators[e.grip]
	gj := &m.Joints[g.Joint]
	e.gripQ, e.gripV = m.QposAdr(g.Joint), m.DofAdr(g.Joint)
	lo, hi := math.Inf(-1), math.Inf(1)
	if g.CtrlLimited {
		lo, hi = g.CtrlRange[0], g.CtrlRange[1]
	}
	if gj.Limited {
		lo, hi = max(lo, gj.Range[0]), min(hi, gj.Range[1])
	}
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || !(hi > lo) {
		return fmt.Errorf("tasks: %s: grip actuator %q needs a finite ctrlrange or joint range (it has [%g, %g])", name, g.Name, lo, hi)
	}
	// which end closes: the finger body nearer the site's axis
	fk := articulated.NewData(m)
	off := func(q float64) float64 {
		articulated.Reset(m, fk)
		fk.Qpos[e.gripQ] = q
		articulated.Kinematics(m, fk)
		p, r := e.siteFrame(fk)
		f := fk.Xpos[gj.Body]
		v := sim.V3(f[0], f[1], f[2]).Sub(p)
		ax := r.Rotate(sim.V3(0, 0, 1))
		return v.Sub(ax.Scale(v.Dot(ax))).Norm()
	}
	if off(lo) <= off(hi) {
		e.gShut, e.gOpen = lo, hi
	} else {
		e.gShut, e.gOpen = hi, lo
	}
	return nil
}

// findReady solves the IK for the ready pose (the site armReadyLift above
// the workspace centre, pointing down) from the start keyframe, once.
func (e *ArmObject) findReady(name string) error {
	m := e.m
	articulated.Reset(m, e.fk)
	key := e.opts.Keyframe
	if key == "" {
		if _, ok := m.Key("home"); ok {
			key = "home"
		}
	}
	if key != "" {
		k, ok := m.Key(key)
		if !ok {
			var names []string
			for _, k := range m.Keys {
				names = append(names, k.Name)
			}
			return fmt.Errorf("tasks: %s: the model has no keyframe %q (its keyframes: %v)", name, key, names)
		}
		_ = articulated.ResetKey(m, e.fk, k) // k is a valid index
	}
	e.target = make([]float64, len(e.acts))
	e.fk.Qpos[e.gripQ] = e.gOpen
	start := slices.Clone(e.fk.Qpos)
	goal := e.center.Add(sim.V3(0, 0, armReadyLift))
	// starts: the keyframe (or qpos0), the middle of the joint ranges,
	// then fixed pseudo-random poses within them
	rng := rand.New(rand.NewPCG(1, 2))
	bestP, bestR := math.Inf(1), math.Inf(1)
	for try := range 24 {
		for i, a := range e.qadr {
			lo, hi := e.lo[i], e.hi[i]
			if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
				lo, hi = math.Max(lo, -math.Pi), math.Min(hi, math.Pi)
			}
			switch try {
			case 0:
				e.target[i] = clampf(start[a], e.lo[i], e.hi[i])
			case 1:
				e.target[i] = (lo + hi) / 2
			default:
				e.target[i] = lo + (hi-lo)*(0.15+0.7*rng.Float64())
			}
		}
		copy(e.fk.Qpos, start)
		for range armReadyIters {
			e.ikIter(goal, 0.2)
		}
		for i, a := range e.qadr {
			e.fk.Qpos[a] = e.target[i]
		}
		p, r := e.siteFK()
		pe, re := p.Sub(goal).Norm(), rotErr(e.down, r).Norm()
		if pe+0.1*re < bestP+0.1*bestR {
			bestP, bestR = pe, re
			e.ready = slices.Clone(e.target)
		}
		if pe <= 0.002 && re <= 0.02 {
			break
		}
	}
	if bestP > 0.005 || bestR > 0.05 {
		return fmt.Errorf("tasks: %s: the IK cannot put site %q %.2f m above the workspace centre (%.3f, %.3f, %.3f) pointing down (off by %.3f m and %.2f rad at best); start it closer with --keyframe, or name the end-effector site with --site", name, e.ee.Name, armReadyLift, goal.X, goal.Y, goal.Z, bestP, bestR)
	}
	return nil
}

// siteFrame is the site's world position and orientation in data x.
func (e *ArmObject) siteFrame(x *articulated.Data) (sim.Vec3, sim.Quat) {
	p, q := x.Xpos[e.ee.Body], x.Xquat[e.ee.Body]
	rot := sim.Quat{W: q[0], X: q[1], Y: q[2], Z: q[3]}
	sq := sim.Quat{W: e.ee.Quat[0], X: e.ee.Quat[1], Y: e.ee.Quat[2], Z: e.ee.Quat[3]}
	return sim.V3(p[0], p[1], p[2]).Add(rot.Rotate(sim.V3(e.ee.Pos[0], e.ee.Pos[1], e.ee.Pos[2]))), rot.Mul(sq)
}

func (e *ArmObject) siteFK() (sim.Vec3, sim.Quat) {
	articulated.Kinematics(e.m, e.fk)
	return e.siteFrame(e.fk)
}

// targetPose puts e.fk.Qpos at the current pose with the arm's joints at
// their targets.
func (e *ArmObject) targetPose() {
	copy(e.fk.Qpos, e.d.Qpos)
	for i, a := range e.qadr {
		e.fk.Qpos[a] = e.target[i]
	}
}

// rotErr is the rotation vector taking r to want (world frame).
func rotErr(want, r sim.Quat) sim.Vec3 {
	q := want.Mul(r.Conj()).Normalize()
	if q.W < 0 {
		q = sim.Quat{W: -q.W, X: -q.X, Y: -q.Y, Z: -q.Z}
	}
	v := sim.V3(q.X, q.Y, q.Z)
	s := v.Norm()
	if s < 1e-12 {
		return v.Scale(2)
	}
	return v.Scale(2 * math.Atan2(s, q.W) / s)
}

// ikIter moves the targets one damped-least-squares iteration toward the
// site at p with orientation e.down: Δq = Jᵀ(JJᵀ + λ²I)⁻¹ err over the 6
// rows (position, armOriWeight × rotation), J by central differences of
// the forward kinematics at the targets (e.fk.Qpos, which it leaves
// there). A step longer than maxStep (rad) is scaled down.
func (e *ArmObject) ikIter(p sim.Vec3, maxStep float64) {
	n := len(e.qadr)
	for i, a := range e.qadr {
		e.fk.Qpos[a] = e.target[i]
	}
	x, r := e.siteFK()
	const h = 1e-5
	jac := make([][6]float64, n)
	for i, a := range e.qadr {
		q := e.fk.Qpos[a]
		e.fk.Qpos[a] = q + h
		xp, rp := e.siteFK()
		e.fk.Qpos[a] = q - h
		xm, rm := e.siteFK()
		e.fk.Qpos[a] = q
		dp := xp.Sub(xm).Scale(1 / (2 * h))
		dr := rotErr(rp, rm).Scale(armOriWeight / (2 * h))
		jac[i] = [6]float64{dp.X, dp.Y, dp.Z, dr.X, dr.Y, dr.Z}
	}
	ep, er := p.Sub(x), rotErr(e.down, r).Scale(armOriWeight)
	err := [6]float64{ep.X, ep.Y, ep.Z, er.X, er.Y, er.Z}
	var a [36]float64
	for i := range jac {
		for r := range 6 {
			for k := range 6 {
				a[6*r+k] += jac[i][r] * jac[i][k]
			}
		}
	}
	for r := range 6 {
		a[7*r] += armIKDamping * armIKDamping
	}
	y, ok := solve6(a, err)
	if !ok {
		return
	}
	dq := make([]float64, n)
	big := 0.0
	for i := range jac {
		for r := range 6 {
			dq[i] += jac[i][r] * y[r]
		}
		big = max(big, math.Abs(dq[i]))
	}
	s := 1.0
	if big > maxStep {
		s = maxStep / big
	}
	for i := range dq {
		e.target[i] = clampf(e.target[i]+s*dq[i], e.lo[i], e.hi[i])
	}
}

// solve6 solves a·x = b (6×6, Gaussian elimination with partial pivoting).
func solve6(a [36]float64, b [6]float64) ([6]float64, bool) {
	for c := range 6 {
		p := c
		for r := c + 1; r < 6; r++ {
			if math.Abs(a[6*r+c]) > math.Abs(a[6*p+c]) {
				p = r
			}
		}
		if a[6*p+c] == 0 || math.IsNaN(a[6*p+c]) {
			return b, false
		}
		if p != c {
			for k := range 6 {
				a[6*c+k], a[6*p+k] = a[6*p+k], a[6*c+k]
			}
			b[c], b[p] = b[p], b[c]
		}
		for r := c + 1; r < 6; r++ {
			f := a[6*r+c] / a[6*c+c]
			for k := c; k < 6; k++ {
				a[6*r+k] -= f * a[6*c+k]
			}
			b[r] -= f * b[c]
		}
	}
	var x [6]float64
	for r := 5; r >= 0; r-- {
		s := b[r]
		for k := r + 1; k < 6; k++ {
			s -= a[6*r+k] * x[k]
		}
		x[r] = s / a[6*r+r]
	}
	return x, true
}

// Meta returns the task's static description.
func (e *ArmObject) Meta() Meta { return ArmObjectMeta(e.opts.Task) }

// ArmObjectMeta is the static description of panda-pick (task "pick") or
// panda-push ("push").
func ArmObjectMeta(task string) Meta {
	if task == "push" {
		return Meta{Name: ArmPushName, Description: "push the red cube to the goal on the table with the arm's gripper",
			Family: "push", Stages: []string{"reach", "push"}, SuccessRadius: ArmPushSuccess}
	}
	return Meta{Name: ArmPickName, Description: "pick up the red cube with the arm's gripper and hold it at the goal",
		Family: "pick_place", Stages: []string{"reach", "grasp", "place"}, SuccessRadius: ArmPickSuccess}
}

// Spec implements control.Env.
func (e *ArmObject) Spec() control.Spec { return e.spec }

// Close implements control.Env.
func (e *ArmObject) Close() error { return nil }

// Model returns the composed scene.
func (e *ArmObject) Model() *mjcf.Model { return e.a }

// Data returns the engine's state.
func (e *ArmObject) Data() *articulated.Data { return e.d }

// Goal returns the episode's goal (m, world).
func (e *ArmObject) Goal() sim.Vec3 { return e.goal }

// SitePos returns the end effector's position now.
func (e *ArmObject) SitePos() sim.Vec3 { p, _ := e.siteFrame(e.d); return p }

// CubePos returns the cube's centre now.
func (e *ArmObject) CubePos() sim.Vec3 {
	q := e.d.Qpos[e.cubeQ:]
	return sim.V3(q[0], q[1], q[2])
}

// Workspace returns the workspace centre on the table top (m, world): the
// cube starts within ±10 cm of it.
func (e *ArmObject) Workspace() sim.Vec3 { return e.center }

// TableZ returns the table top's height (m).
func (e *ArmObject) TableZ() float64 { return e.tableZ }

// FingerOpening returns the grip joint's opening in [0, 1] (0 closed).
func (e *ArmObject) FingerOpening() float64 {
	return clampf((e.d.Qpos[e.gripQ]-e.gShut)/(e.gOpen-e.gShut), 0, 1)
}

// Reset implements control.Env: the arm at the ready pose with its gripper
// open, the cube at rest on the table within ±10 cm of the workspace
// centre, and a goal: for push, on the table 10–20 cm from the cube; for
// pick, 10–25 cm above the table within ±10 cm of the centre (push goals
// stay within 12 cm of the centre in x and 20 cm in y).
func (e *ArmObject) Reset(seed uint64) ([]float64, control.Info) {
	rng := rand.New(rand.NewPCG(seed, 0xc0be))
	articulated.Reset(e.m, e.d)
	copy(e.target, e.ready)
	for i, a := range e.qadr {
		e.d.Qpos[a] = e.ready[i]
	}
	e.d.Qpos[e.gripQ] = e.gOpen
	e.d.Ctrl[e.grip] = e.gOpen
	e.gCmd = -1
	// a joint coupled to the grip joint (mjx_panda's second finger) starts
	// where the coupling puts it: qpos0 plus the grip joint's offset
	for _, q := range e.m.Equalities {
		if q.Type != articulated.EqJoint || q.Inactive || q.Obj1 < 0 || q.Obj2 < 0 {
			continue
		}
		a1, a2 := e.m.QposAdr(q.Obj1), e.m.QposAdr(q.Obj2)
		q10, q20 := e.m.Qpos0[a1], e.m.Qpos0[a2]
		c0, c1 := q.PolyCoef[0], q.PolyCoef[1]
		switch {
		case a1 == e.gripQ && c1 != 0: // q1 − q1₀ = c0 + c1 (q2 − q2₀), linear
			e.d.Qpos[a2] = q20 + (e.gOpen-q10-c0)/c1
		case a2 == e.gripQ:
			e.d.Qpos[a1] = q10 + c0 + c1*(e.gOpen-q20)
		}
	}
	c := e.center.Add(sim.V3(armCubeRange*(2*rng.Float64()-1), armCubeRange*(2*rng.Float64()-1), ArmCubeHalf))
	cq := e.d.Qpos[e.cubeQ:]
	cq[0], cq[1], cq[2], cq[3], cq[4], cq[5], cq[6] = c.X, c.Y, c.Z, 1, 0, 0, 0
	if e.pick {
		e.goal = e.center.Add(sim.V3(armCubeRange*(2*rng.Float64()-1), armCubeRange*(2*rng.Float64()-1), 0.1+0.15*rng.Float64()))
	} else {
		for {
			th, r := 2*math.Pi*rng.Float64(), 0.1+0.1*rng.Float64()
			g := c.Add(sim.V3(r*math.Cos(th), r*math.Sin(th), -ArmCubeHalf))
			if math.Abs(g.X-e.center.X) <= 0.12 && math.Abs(g.Y-e.center.Y) <= 0.2 {
				e.goal = g.Add(sim.V3(0, 0, ArmCubeHalf))
				break
			}
		}
	}
	e.servo()
	articulated.Kinematics(e.m, e.d)
	e.cmd = e.SitePos()
	e.t, e.done = 0, false
	e.dg0 = math.Max(e.goalDist(), 1e-6)
	obs, info, _ := e.observe()
	return obs, info
}

func (e *ArmObject) goalDist() float64 {
	v := e.CubePos().Sub(e.goal)
	if !e.pick {
		v.Z = 0
	}
	return v.Norm()
}

// Step implements control.Env.
func (e *ArmObject) Step(action []float64) ([]float64, float64, bool, bool, control.Info, error) {
	if e.done || e.t >= e.opts.MaxSteps {
		return nil, 0, false, false, control.Info{}, control.ErrNeedsReset
	}
	if len(action) != 4 {
		return nil, 0, false, false, control.Info{}, fmt.Errorf("tasks: %s: action has %d values, want 4 (dx, dy, dz, grip)", armTaskName(e.opts.Task), len(action))
	}
	for _, a := range action {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return nil, 0, false, false, control.Info{}, control.ErrNonFiniteAction
		}
	}
	d := sim.V3(clampf(action[0], -1, 1), clampf(action[1], -1, 1), clampf(action[2], -1, 1)).Scale(armEEStep)
	c := e.cmd.Add(d)
	c.X = clampf(c.X, e.center.X-armTableHalfX, e.center.X+armTableHalfX)
	c.Y = clampf(c.Y, e.center.Y-armTableHalfY, e.center.Y+armTableHalfY)
	c.Z = clampf(c.Z, e.tableZ+0.005, e.tableZ+0.45)
	e.cmd = c
	for range armIKIters {
		e.ikIter(c, 0.2)
	}
	e.gCmd = clampf(action[3], -1, 1)
	e.servo()
	w0 := e.d.Warnings.BadQpos + e.d.Warnings.BadQvel + e.d.Warnings.BadQacc
	for range e.skip {
		articulated.Step(e.m, e.d)
	}
	articulated.Kinematics(e.m, e.d)
	e.t++
	obs, info, r := e.observe()
	truncated := e.t >= e.opts.MaxSteps
	if wn := e.d.Warnings; wn.BadQpos+wn.BadQvel+wn.BadQacc > w0 {
		info.Values["sim_unstable"] = 1
		truncated = true
	}
	// the cube off the table ends the episode, a failure
	terminated := e.CubePos().Z < e.tableZ-0.1
	e.done = truncated || terminated
	return obs, r, terminated, truncated && !terminated, info, nil
}

// servo sets the arm's servo controls to the IK targets plus gravity
// feedforward, and the grip's to the grip command: a position servo holds
// q where kp (ctrl − q) balances the generalized gravity force, so ctrl =
// q* + qfrc_bias(q*, 0)/kp puts the arm at rest at q*, the commanded site
// where the IK put it, instead of sagging below it (mjx_panda: by 3 cm).
func (e *ArmObject) servo() {
	e.targetPose()
	clear(e.fk.Qvel)
	articulated.Forward(e.m, e.fk)
	for i, a := range e.acts {
		act := &e.m.Actuators[a]
		c := e.target[i] + e.fk.QfrcBias[e.m.DofAdr(act.Joint)]/act.GainPrm[0]
		if act.CtrlLimited {
			c = clampf(c, act.CtrlRange[0], act.CtrlRange[1])
		}
		e.d.Ctrl[a] = c
	}
	e.d.Ctrl[e.grip] = e.gOpen + (e.gShut-e.gOpen)*(e.gCmd+1)/2
}

// held reports whether the arm holds the cube: the cube touches geoms of
// two or more different bodies of the arm (the fingers) and is lifted
// armLiftTol off the table.
func (e *ArmObject) held() bool {
	return e.CubePos().Z >= e.tableZ+ArmCubeHalf+armLiftTol && e.fingerContacts() >= 2
}

// fingerContacts counts the bodies other than the world (the table) whose
// geoms touch the cube (contacts of the last step's Forward, penetrating or
// touching).
func (e *ArmObject) fingerContacts() int {
	var bodies [4]int
	n := 0
	for _, c := range e.d.Contacts {
		if c.Dist > 0 {
			continue
		}
		b1, b2 := e.m.Geoms[c.Geom1].Body, e.m.Geoms[c.Geom2].Body
		other := -1
		switch {
		case b1 == e.cube:
			other = b2
		case b2 == e.cube:
			other = b1
		}
		if other <= 0 || slices.Contains(bodies[:n], other) {
			continue
		}
		bodies[n] = other
		if n++; n == len(bodies) {
			break
		}
	}
	return n
}

// observe returns the observation, the info and the reward of the state.
func (e *ArmObject) observe() ([]float64, control.Info, float64) {
	p := e.SitePos()
	c := e.CubePos()
	q := e.d.Qpos[e.cubeQ+3 : e.cubeQ+7]
	g := e.goal
	dr := c.Sub(p).Norm()
	dg := e.goalDist()
	reach, place := 1-math.Tanh(10*dr), 1-math.Tanh(10*dg)
	held := e.held()
	grasp := 0.0
	if held {
		grasp = 1
	}
	var succ bool
	var r float64
	if e.pick {
		succ = dg <= ArmPickSuccess && held
		r = 0.2*reach + 0.3*grasp + 0.5*grasp*place
	} else {
		succ = dg <= ArmPushSuccess
		r = 0.25*reach + 0.75*place
	}
	s := 0.0
	if succ {
		s, r = 1, 1
	}
	if e.opts.Reward == "sparse" {
		r = s
	}
	near := 0.0
	if dr <= 0.05 {
		near = 1
	}
	rc, rg, rm := c.Sub(p).Scale(armObsGain), g.Sub(c).Scale(armObsGain), e.cmd.Sub(p).Scale(armObsGain)
	obs := []float64{p.X, p.Y, p.Z, e.FingerOpening(), c.X, c.Y, c.Z, q[0], q[1], q[2], q[3], g.X, g.Y, g.Z,
		rc.X, rc.Y, rc.Z, rg.X, rg.Y, rg.Z, rm.X, rm.Y, rm.Z, e.gCmd}
	info := control.Info{Values: map[string]float64{"success": s, "near_object": near, "grasp_success": grasp,
		"obj_to_target": dg, "progress": clampf(1-dg/e.dg0, 0, 1)}}
	return obs, info, r
}

// Progress returns privileged progress 1 − d_g/d_g0 and the stage.
func (e *ArmObject) Progress() (float64, string) {
	p := clampf(1-e.goalDist()/e.dg0, 0, 1)
	switch {
	case !e.pick && e.CubePos().Sub(e.SitePos()).Norm() > 0.06:
		return p, "reach"
	case !e.pick:
		return p, "push"
	case e.held():
		return p, "place"
	case e.CubePos().Sub(e.SitePos()).Norm() <= 0.02:
		return p, "grasp"
	}
	return p, "reach"
}

// Expert returns the task's scripted IK-plus-grasp expert (ArmObjectExpert).
func (e *ArmObject) Expert() control.Policy { return ArmObjectExpert(e) }

// ArmObjectExpert is the scripted expert of panda-pick and panda-push, a
// function of the observation only (so it is a policy, and recorded
// demonstrations are consistent with it).
//
// Pick: over the cube (within 1 cm horizontally) at 8 cm above it with the
// gripper open; descend to the cube's centre; close; once the fingers stop
// on the cube, carry it to the goal (closed); if the cube slips out, start
// over. Push: fingers closed; go 5.5 cm behind the cube on the line from
// the goal through the cube, high, then down to 2 cm above the table;
// then push along the line toward the goal, re-aiming every step, and hold
// the cube at the goal.
func ArmObjectExpert(e *ArmObject) control.Policy {
	return control.PolicyFunc(func(obs, dst []float64) {
		p := sim.V3(obs[0], obs[1], obs[2])
		open := obs[3]
		c := sim.V3(obs[4], obs[5], obs[6])
		g := sim.V3(obs[11], obs[12], obs[13])
		cmdOff := sim.V3(obs[20], obs[21], obs[22]).Scale(1.0 / armObsGain)
		var want sim.Vec3
		grip, speed := -1.0, 1.0
		if e.pick {
			rel := c.Sub(p)
			hxy := math.Hypot(rel.X, rel.Y)
			lifted := c.Z >= e.tableZ+ArmCubeHalf+0.01
			// the fingers stopped on the cube: opening at the cube's width
			shut := open <= (2*ArmCubeHalf)/(2*math.Abs(e.gOpen-e.gShut))+0.08
			switch {
			case rel.Norm() <= 0.03 && (shut || lifted) && obs[23] > 0:
				want, grip = g, 1 // holding: carry to the goal
			case hxy <= 0.012 && math.Abs(rel.Z) <= 0.012:
				want, grip = p, 1 // at the cube: close
			case hxy <= 0.01 || (hxy <= 0.025 && p.Z <= c.Z+0.1):
				// over it: descend at half speed (a fast descent swings
				// the hand sideways), centring as it goes
				want, speed = c, 0.5
			case p.Z < c.Z+0.06:
				want = sim.V3(p.X, p.Y, c.Z+0.08) // too low to move over: rise
			default:
				want = c.Add(sim.V3(0, 0, 0.08))
			}
		} else {
			grip = 1
			u := g.Sub(c)
			u.Z = 0
			dist := u.Norm()
			if dist > 1e-6 {
				u = u.Scale(1 / dist)
			}
			low := e.tableZ + 0.02
			behind := c.Sub(u.Scale(ArmCubeHalf + 0.03))
			behind.Z = low
			off := p.Sub(behind)
			off.Z = 0
			along := p.Sub(c)
			along.Z = 0
			switch {
			case off.Norm() <= 0.02 && p.Z <= low+0.02:
				// behind it and low: push on toward the goal
				want, speed = behind.Add(u.Scale(math.Min(0.03, dist))), 0.5
			case off.Norm() <= 0.01 || (off.Norm() <= 0.025 && p.Z <= low+0.1):
				want, speed = behind, 0.5 // above the push point: descend
			case p.Z < low+0.06 && along.Norm() < 0.09:
				want = sim.V3(p.X, p.Y, low+0.1) // near the cube and low: rise first
			default:
				want = behind.Add(sim.V3(0, 0, 0.08))
				if p.Z >= low+0.06 && off.Norm() <= 0.02 {
					want = behind
				}
			}
		}
		// move the command to the goal, a step at most (the command, not
		// the site: the servos lag the command while the arm moves, and
		// chasing the site's error would overshoot)
		dx := want.Sub(p).Sub(cmdOff)
		v := dx.Scale(1 / armEEStep)
		if l := math.Max(math.Abs(v.X), math.Max(math.Abs(v.Y), math.Abs(v.Z))); l > speed {
			v = v.Scale(speed / l)
		}
		dst[0], dst[1], dst[2], dst[3] = clampf(v.X, -1, 1), clampf(v.Y, -1, 1), clampf(v.Z, -1, 1), grip
	})
}
