package articulated

import (
	"errors"
	"fmt"
	"math"
)

// JointType is a joint's type, numbered as MuJoCo's mjtJoint.
type JointType int

// The joint types.
const (
	Free  JointType = 0 // 7 qpos (position, quaternion), 6 dofs (world linear, body angular)
	Ball  JointType = 1 // 4 qpos (quaternion), 3 dofs (body angular)
	Slide JointType = 2 // 1 qpos, 1 dof
	Hinge JointType = 3 // 1 qpos, 1 dof
)

// NQ returns the number of qpos coordinates of a joint type.
func (t JointType) NQ() int {
	switch t {
	case Free:
		return 7
	case Ball:
		return 4
	}
	return 1
}

// NV returns the number of dofs of a joint type.
func (t JointType) NV() int {
	switch t {
	case Free:
		return 6
	case Ball:
		return 3
	}
	return 1
}

func (t JointType) String() string {
	switch t {
	case Free:
		return "free"
	case Ball:
		return "ball"
	case Slide:
		return "slide"
	case Hinge:
		return "hinge"
	}
	return fmt.Sprintf("JointType(%d)", int(t))
}

// Integrator selects the time integrator, numbered as MuJoCo's mjtIntegrator.
type Integrator int

// The integrators.
const (
	// Euler is semi-implicit Euler; with Option.Disable's DisableEulerDamp
	// unset, joint damping is integrated implicitly (M + h·diag(damping)).
	Euler Integrator = 0
	// RK4 is MuJoCo's fourth-order Runge–Kutta: four Forward evaluations
	// per step, no implicit damping.
	RK4 Integrator = 1
	// ImplicitFast is MuJoCo's implicitfast: M − h·D with D the symmetric
	// velocity derivative of the passive and actuator forces (here: joint
	// damping and joint-transmission actuators), Coriolis terms omitted.
	ImplicitFast Integrator = 3
	// Implicit is MuJoCo's implicit: as ImplicitFast, plus the Coriolis
	// and centrifugal derivative −∂qfrc_bias/∂qvel (unsymmetric, LU).
	Implicit Integrator = 2
)

// Disable flags: MuJoCo's mjtDisableBit values, for the ones implemented.
const (
	DisableConstraint   = 1 << 0  // all constraints
	DisableEquality     = 1 << 1  // equality constraints
	DisableFrictionLoss = 1 << 2  // joint frictionloss
	DisableLimit        = 1 << 3  // joint limits
	DisableSpring       = 1 << 5  // passive springs
	DisableDamper       = 1 << 6  // passive dampers
	DisableGravity      = 1 << 7  // gravity (and gravcomp)
	DisableClampCtrl    = 1 << 8  // clamping ctrl to ctrlrange
	DisableActuation    = 1 << 11 // actuator forces
	DisableWarmstart    = 1 << 9  // PGS's warm start from the last qacc
	DisableRefSafe      = 1 << 12 // solref timeconst >= 2·timestep
	DisableEulerDamp    = 1 << 15 // implicit joint damping in Euler
)

// Option is the simulation options (MuJoCo's mjOption, the part implemented).
type Option struct {
	Timestep   float64 // s
	Gravity    [3]float64
	Integrator Integrator
	Disable    int // Disable* bits
	// Cone is the friction cone of contacts (MuJoCo's opt.cone).
	Cone Cone
	// Solver is the constraint solver; Iterations and Tolerance bound
	// its iterations as MuJoCo's do (0: MuJoCo's defaults 100 and 1e-8;
	// a negative Tolerance: MuJoCo's 0, no early stop): PGS's sweeps,
	// and Newton's steps, which stop as mj_solNewton's when the cost's
	// improvement or the gradient's norm, scaled by 1/(meaninertia·nv),
	// falls below Tolerance (or the gradient is zero to rounding).
	Solver     Solver
	Iterations int
	Tolerance  float64
	// LSIterations and LSTolerance bound Newton's line search as
	// MuJoCo's ls_iterations and ls_tolerance (0: MuJoCo's defaults 50
	// and 0.01; negative: MuJoCo's 0): it stops at the first point where
	// |φ'(α)| < Tolerance·LSTolerance·‖p‖·meaninertia·nv, or after
	// LSIterations evaluations of φ' (α = 0 and the Newton point α = 1
	// count, as in MuJoCo). With no tolerance it runs to rounding.
	LSIterations int
	LSTolerance  float64
	// CCDIterations and CCDTolerance bound GJK and EPA as MuJoCo's
	// ccd_iterations and ccd_tolerance (0: MuJoCo 3.3.8's defaults 35 and
	// 1e-6 m; a negative CCDTolerance: MuJoCo's 0, EPA to rounding): EPA
	// stops once its depth is known to within CCDTolerance (pairs of
	// boxes and meshes without margin run to rounding, as in MuJoCo);
	// see convex.Collider.
	CCDIterations int
	CCDTolerance  float64
}

func (o *Option) lsTolerance() float64 {
	switch {
	case o.LSTolerance < 0:
		return 0
	case o.LSTolerance > 0:
		return o.LSTolerance
	}
	return 0.01
}

func (o *Option) ccdTolerance() float64 {
	switch {
	case o.CCDTolerance < 0:
		return 0
	case o.CCDTolerance > 0:
		return o.CCDTolerance
	}
	return 1e-6
}

func (o *Option) ccdIterations() int {
	if o.CCDIterations > 0 {
		return o.CCDIterations
	}
	return 35
}

func (o *Option) lsIterations() int {
	switch {
	case o.LSIterations < 0:
		return 0
	case o.LSIterations > 0:
		return o.LSIterations
	}
	return 50
}

// Solver selects the constraint solver. Unlike MuJoCo's mjtSolver
// numbering, the zero value is Newton, MuJoCo's default.
type Solver int

// The constraint solvers.
const (
	// Newton minimizes the primal cost by Newton's method with a line
	// search stopped at MuJoCo's ls_tolerance, the iterations by MuJoCo's
	// tolerance test (MuJoCo's Newton and CG both reach this minimizer
	// within their tolerance).
	Newton Solver = 0
	// PGS is MuJoCo's projected Gauss–Seidel on the dual (pgs.go), with
	// its iteration count and tolerance.
	PGS Solver = 1
)

func (o *Option) tolerance() float64 {
	switch {
	case o.Tolerance < 0:
		return 0
	case o.Tolerance > 0:
		return o.Tolerance
	}
	return 1e-8
}

// Cone selects the contact friction cone, numbered as MuJoCo's mjtCone.
type Cone int

// The friction cones.
const (
	// Pyramidal approximates the friction cone by 2·(condim−1) one-sided
	// edge rows (MuJoCo's default).
	Pyramidal Cone = 0
	// Elliptic is the exact second-order cone: condim rows (normal, then
	// the friction directions) solved as one block.
	Elliptic Cone = 1
)

// Gain and bias types of an actuator (mjtGain, mjtBias).
const (
	GainFixed  = 0
	GainAffine = 1
	BiasNone   = 0
	BiasAffine = 1
)

// Actuator is a joint-transmission actuator with no activation dynamics:
// force = gain·ctrl + bias, gain = g0 (+ g1·length + g2·velocity when
// affine), bias = b0 + b1·length + b2·velocity (affine), length = gear·q,
// velocity = gear·q̇, generalized force gear·force on the joint's dof.
type Actuator struct {
	Name         string
	Trn          int // TrnJoint (default) or TrnTendon
	Joint        int // hinge or slide joint (TrnJoint)
	Tendon       int // tendon (TrnTendon)
	Gear         float64
	GainType     int
	GainPrm      [3]float64
	BiasType     int
	BiasPrm      [3]float64
	CtrlLimited  bool
	CtrlRange    [2]float64
	ForceLimited bool
	ForceRange   [2]float64
	// Activation dynamics (dyn.go): DynType (Dyn*), DynPrm[0] the filter's
	// time constant, the activation's clamp, and ActEarly: the force
	// uses the next step's activation.
	DynType    int
	DynPrm     [3]float64
	ActLimited bool
	ActRange   [2]float64
	ActEarly   bool
}

// Key is a keyframe (MuJoCo's <key>): nil slices keep the model defaults.
type Key struct {
	Name string
	Time float64
	Qpos []float64
	Qvel []float64
	Ctrl []float64
	// Mpos and Mquat are the mocap bodies' positions (3 each) and
	// quaternions (4 each, w x y z), in Model.MocapBodies' order; nil keeps
	// the bodies' model frames.
	Mpos, Mquat []float64
	Act         []float64 // one per actuator with activation dynamics
}

// Body is one body of the tree. Body 0 is the world.
type Body struct {
	Name   string
	Parent int        // -1 for the world, else a lower index
	Pos    [3]float64 // frame in the parent's frame
	Quat   [4]float64 // w, x, y, z
	// IPos, IQuat are the inertial frame in the body frame; Inertia is the
	// principal inertia (kg·m²) in it.
	IPos     [3]float64
	IQuat    [4]float64
	Mass     float64
	Inertia  [3]float64
	Gravcomp float64 // share of the weight compensated (0..1 usually)
	// Mocap makes the body a mocap body (MJCF mocap="true"): a child of
	// the world without joints whose frame the caller sets each step in
	// Data.MocapPos and Data.MocapQuat (mocap.go).
	Mocap bool
}

// Joint is one joint; a body's joints apply in order, parent side first.
type Joint struct {
	Name      string
	Type      JointType
	Body      int
	Pos, Axis [3]float64 // anchor and unit axis in the body frame
	// Ref is qpos0 for hinge and slide joints (ball and free joints start at
	// the body's frame).
	Ref               float64
	SpringRef         float64 // hinge and slide
	Stiffness         float64
	Damping, Armature float64 // per dof
	ActFrcLimited     bool
	ActFrcRange       [2]float64
	// Limited joints get MuJoCo's soft limit constraint: hinge and slide
	// between Range[0] and Range[1] (rad or m), ball joints within a
	// rotation angle of max(Range) (rad). SolRef (timeconst, dampratio, or
	// direct −stiffness, −damping) and SolImp (dmin, dmax, width, midpoint,
	// power) are MuJoCo's solreflimit and solimplimit (all zero: MuJoCo's
	// defaults 0.02, 1 and 0.9, 0.95, 0.001, 0.5, 2); Margin is the
	// distance at which the limit activates.
	Limited bool
	Range   [2]float64
	SolRef  [2]float64
	SolImp  [5]float64
	Margin  float64
	// FrictionLoss (N·m or N) is dry friction on each of the joint's dofs:
	// MuJoCo's frictionloss constraint rows, with SolRefFriction and
	// SolImpFriction (all zero: MuJoCo's defaults, as SolRef and SolImp).
	FrictionLoss    float64
	SolRefFriction  [2]float64
	SolImpFriction  [5]float64
	qposAdr, dofAdr int
}

// Model is a static articulated model (MuJoCo's mjModel, the part
// implemented). Build it with New.
type Model struct {
	Opt       Option
	Bodies    []Body
	Joints    []Joint
	Actuators []Actuator
	Keys      []Key
	// Equalities are the equality constraints (New's trailing arguments).
	Equalities []Equality
	// Tendons are the fixed tendons (NewSpec).
	Tendons []Tendon
	// Collision holds the collision geoms (SetGeoms; collision.go).
	Collision

	NQ, NV, NU int
	// NA is the number of activations (actuators with DynType ≠ DynNone),
	// actAdr each actuator's index into Data.Act (−1: none).
	NA         int
	actAdr     []int
	Qpos0      []float64
	QposSpring []float64

	// derived
	bodyJntAdr, bodyJntNum []int
	bodyDofAdr, bodyDofNum []int
	bodyRoot               []int
	dofBody, dofJnt        []int
	dofParent              []int
	dofArmature            []float64
	dofDamping             []float64
	jntQposAdr, jntDofAdr  []int
	hasDamping             bool
	// dampDofs: the dofs of the trees (a root dof's descendants) with a
	// damped dof, descending; the Euler step refactors only their rows of
	// M + h·damping, an undamped tree's rows being M's factor already
	dampDofs       []int
	dofsDesc       []int     // NV−1, …, 0: factorLD's order
	dofInvWeight0  []float64 // MuJoCo's dof_invweight0: inverse inertia at qpos0
	meanInertia    float64   // MuJoCo's stat.meaninertia: mean diagonal of M at qpos0
	nLimitRows     int       // the most limit rows at once
	nFrictionRows  int       // frictionloss rows (one per dof)
	nEqRows        int       // equality rows
	nTendonRows    int       // tendon limit and friction rows
	tenJ           []float64 // tendon Jacobians (constant), len(Tendons)×NV
	tenInvWeight0  []float64
	tenLength0     []float64
	tendonDamping  bool
	bodyInvWeight0 [][2]float64
	ancestors      [][]int // per dof: its ancestor dofs nearest first (for the sparse factor)
	ancAdr         []int   // per dof: where its ancestors start in the flat list (len NV+1)
	mCols          [][]int // per dof: M's nonzero columns of its row (ancestors, itself, descendants), ascending

	// MocapBodies lists the mocap bodies in MuJoCo's body_mocapid order;
	// bodyMocap is each body's index in it, -1 for the others (mocap.go).
	MocapBodies []int
	bodyMocap   []int
}

// QposAdr returns joint j's first qpos index.
func (m *Model) QposAdr(j int) int { return m.jntQposAdr[j] }

// DofAdr returns joint j's first dof index.
func (m *Model) DofAdr(j int) int { return m.jntDofAdr[j] }

func finite(x ...float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// New validates and compiles a model: bodies[0] must be the world, each
// body's parent must precede it, each body's joints must be contiguous and
// in order, quaternions are normalized. It returns an error naming what is
// wrong.
func New(opt Option, bodies []Body, joints []Joint, acts []Actuator, keys []Key, eqs ...Equality) (*Model, error) {
	return newModel(Spec{Opt: opt, Bodies: bodies, Joints: joints, Actuators: acts, Keys: keys, Equalities: eqs})
}

func newModel(s Spec) (*Model, error) {
	opt, bodies, joints, acts, keys := s.Opt, s.Bodies, s.Joints, s.Actuators, s.Keys
	m := &Model{Opt: opt, Bodies: append([]Body(nil), bodies...), Joints: append([]Joint(nil), joints...),
		Actuators: append([]Actuator(nil), acts...), Equalities: append([]Equality(nil), s.Equalities...),
		Tendons: append([]Tendon(nil), s.Tendons...)}
	var errs []error
	bad := func(f string, a ...any) { errs = append(errs, fmt.Errorf("articulated: "+f, a...)) }
	if !(opt.Timestep > 0) || !finite(opt.Timestep) {
		bad("timestep %g must be > 0", opt.Timestep)
	}
	if !finite(opt.Gravity[:]...) {
		bad("gravity %v must be finite", opt.Gravity)
	}
	if opt.Integrator != Euler && opt.Integrator != ImplicitFast && opt.Integrator != Implicit && opt.Integrator != RK4 {
		bad("integrator %d: only Euler (0), RK4 (1), Implicit (2) and ImplicitFast (3) are implemented", opt.Integrator)
	}
	if opt.Cone != Pyramidal && opt.Cone != Elliptic {
		bad("cone %d: only Pyramidal (0) and Elliptic (1) exist", opt.Cone)
	}
	if opt.Solver != Newton && opt.Solver != PGS {
		bad("solver %d: only Newton (0) and PGS (1) are implemented", opt.Solver)
	}
	if !finite(opt.LSTolerance) || !finite(opt.CCDTolerance) {
		bad("ls_tolerance %g and ccd_tolerance %g must be finite (0: MuJoCo's defaults)", opt.LSTolerance, opt.CCDTolerance)
	}
	if opt.CCDIterations < 0 {
		bad("ccd_iterations %d must be ≥ 1 (0: MuJoCo's default 35)", opt.CCDIterations)
	}
	if opt.Iterations < 0 || !finite(opt.Tolerance) {
		bad("iterations %d must be ≥ 0 and tolerance %g finite (0: MuJoCo's defaults)", opt.Iterations, opt.Tolerance)
	}
	if len(m.Bodies) == 0 || m.Bodies[0].Parent != -1 {
		return nil, errors.New("articulated: body 0 must be the world, with Parent -1")
	}
	nb := len(m.Bodies)
	m.bodyJntAdr, m.bodyJntNum = make([]int, nb), make([]int, nb)
	m.bodyDofAdr, m.bodyDofNum = make([]int, nb), make([]int, nb)
	m.bodyRoot = make([]int, nb)
	for i := range m.Bodies {
		b := &m.Bodies[i]
		if i > 0 && (b.Parent < 0 || b.Parent >= i) {
			bad("body %d (%q): parent %d must be an earlier body", i, b.Name, b.Parent)
			continue
		}
		if !finite(b.Pos[:]...) || !finite(b.Quat[:]...) || !finite(b.IPos[:]...) || !finite(b.IQuat[:]...) || !finite(b.Mass, b.Gravcomp) || !finite(b.Inertia[:]...) {
			bad("body %d (%q): a non-finite pose or mass", i, b.Name)
			continue
		}
		if i == 0 {
			b.Quat, b.IQuat = [4]float64{1, 0, 0, 0}, [4]float64{1, 0, 0, 0}
		}
		var ok bool
		if b.Quat, ok = normQuat(b.Quat); !ok && i > 0 {
			bad("body %d (%q): quat is zero", i, b.Name)
		}
		if b.IQuat, ok = normQuat(b.IQuat); !ok && i > 0 {
			bad("body %d (%q): inertial quat is zero", i, b.Name)
		}
		if b.Mass < 0 || b.Inertia[0] < 0 || b.Inertia[1] < 0 || b.Inertia[2] < 0 {
			bad("body %d (%q): mass and inertia must be >= 0", i, b.Name)
		}
		if i > 0 {
			if b.Parent == 0 {
				m.bodyRoot[i] = i
			} else {
				m.bodyRoot[i] = m.bodyRoot[b.Parent]
			}
		}
		m.bodyJntAdr[i] = -1
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	// joints: contiguous per body, bodies in increasing order
	m.jntQposAdr, m.jntDofAdr = make([]int, len(m.Joints)), make([]int, len(m.Joints))
	prevBody := 0
	for j := range m.Joints {
		jt := &m.Joints[j]
		if jt.Body <= 0 || jt.Body >= nb {
			bad("joint %d (%q): body %d must be a body other than the world", j, jt.Name, jt.Body)
			continue
		}
		if jt.Body < prevBody {
			bad("joint %d (%q): joints must be ordered by body", j, jt.Name)
			continue
		}
		prevBody = jt.Body
		if jt.Type < Free || jt.Type > Hinge {
			bad("joint %d (%q): type %d is not free, ball, slide or hinge", j, jt.Name, jt.Type)
			continue
		}
		if !finite(jt.Pos[:]...) || !finite(jt.Axis[:]...) || !finite(jt.Ref, jt.SpringRef, jt.Stiffness, jt.Damping, jt.Armature) {
			bad("joint %d (%q): a non-finite parameter", j, jt.Name)
			continue
		}
		if jt.Stiffness < 0 || jt.Damping < 0 || jt.Armature < 0 {
			bad("joint %d (%q): stiffness, damping and armature must be >= 0", j, jt.Name)
		}
		if jt.ActFrcLimited && !(jt.ActFrcRange[0] <= jt.ActFrcRange[1]) {
			bad("joint %d (%q): actuatorfrcrange %v must have lower <= upper", j, jt.Name, jt.ActFrcRange)
		}
		if jt.SolRef == [2]float64{} {
			jt.SolRef = [2]float64{0.02, 1}
		}
		if jt.SolImp == [5]float64{} {
			jt.SolImp = [5]float64{0.9, 0.95, 0.001, 0.5, 2}
		}
		if jt.SolRefFriction == [2]float64{} {
			jt.SolRefFriction = [2]float64{0.02, 1}
		}
		if jt.SolImpFriction == [5]float64{} {
			jt.SolImpFriction = [5]float64{0.9, 0.95, 0.001, 0.5, 2}
		}
		if !finite(jt.FrictionLoss) || jt.FrictionLoss < 0 || !finite(jt.SolRefFriction[:]...) || !finite(jt.SolImpFriction[:]...) {
			bad("joint %d (%q): frictionloss %g must be finite and >= 0 (and its solref, solimp finite)", j, jt.Name, jt.FrictionLoss)
		} else if jt.FrictionLoss > 0 {
			m.nFrictionRows += jt.Type.NV()
			if (jt.SolRefFriction[0] > 0) != (jt.SolRefFriction[1] > 0) {
				bad("joint %d (%q): solreffriction %v mixes the standard and direct formats", j, jt.Name, jt.SolRefFriction)
			}
		}
		if jt.Limited {
			switch {
			case jt.Type == Free:
				bad("joint %d (%q): a free joint cannot be limited", j, jt.Name)
			case !finite(jt.Range[:]...) || !finite(jt.SolRef[:]...) || !finite(jt.SolImp[:]...) || !finite(jt.Margin):
				bad("joint %d (%q): a non-finite range, solref, solimp or margin", j, jt.Name)
			case jt.Type != Ball && jt.Range[0] > jt.Range[1]:
				bad("joint %d (%q): range %v has lower > upper", j, jt.Name, jt.Range)
			case jt.Type == Ball && jt.Range[0] != 0:
				bad("joint %d (%q): a ball joint's range must be (0, angle), got %v", j, jt.Name, jt.Range)
			case (jt.SolRef[0] > 0) != (jt.SolRef[1] > 0):
				bad("joint %d (%q): solref %v mixes the standard (positive) and direct (negative) formats", j, jt.Name, jt.SolRef)
			}
			if jt.Type == Ball {
				m.nLimitRows++
			} else {
				m.nLimitRows += 2
			}
		}
		if jt.Type == Hinge || jt.Type == Slide {
			n := norm3(jt.Axis)
			if n == 0 {
				bad("joint %d (%q): axis is zero", j, jt.Name)
				continue
			}
			jt.Axis = scale3(jt.Axis, 1/n)
		}
		if jt.Type == Free && (m.Bodies[jt.Body].Parent != 0) {
			bad("joint %d (%q): a free joint must be on a child of the world", j, jt.Name)
		}
		b := jt.Body
		if m.bodyJntAdr[b] < 0 {
			m.bodyJntAdr[b] = j
		} else if m.bodyJntAdr[b]+m.bodyJntNum[b] != j {
			bad("joint %d (%q): a body's joints must be contiguous", j, jt.Name)
		}
		if jt.Type == Free && m.bodyJntNum[b] > 0 || m.bodyJntNum[b] > 0 && m.Joints[m.bodyJntAdr[b]].Type == Free {
			bad("joint %d (%q): a free joint must be its body's only joint", j, jt.Name)
		}
		m.bodyJntNum[b]++
		m.jntQposAdr[j], m.jntDofAdr[j] = m.NQ, m.NV
		jt.qposAdr, jt.dofAdr = m.NQ, m.NV
		m.NQ += jt.Type.NQ()
		m.NV += jt.Type.NV()
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	for b := range m.bodyJntAdr {
		if m.bodyJntAdr[b] < 0 {
			m.bodyJntAdr[b] = 0
		}
	}
	// dofs
	m.dofBody, m.dofJnt, m.dofParent = make([]int, m.NV), make([]int, m.NV), make([]int, m.NV)
	m.dofArmature, m.dofDamping = make([]float64, m.NV), make([]float64, m.NV)
	lastDof := make([]int, nb) // last dof of each body or its nearest ancestor with dofs; -1 none
	lastDof[0] = -1
	for i := 1; i < nb; i++ {
		last := lastDof[m.Bodies[i].Parent]
		m.bodyDofAdr[i] = -1
		for j := m.bodyJntAdr[i]; j < m.bodyJntAdr[i]+m.bodyJntNum[i]; j++ {
			jt := &m.Joints[j]
			for k := 0; k < jt.Type.NV(); k++ {
				d := m.jntDofAdr[j] + k
				if m.bodyDofAdr[i] < 0 {
					m.bodyDofAdr[i] = d
				}
				m.bodyDofNum[i]++
				m.dofBody[d], m.dofJnt[d], m.dofParent[d] = i, j, last
				m.dofArmature[d], m.dofDamping[d] = jt.Armature, jt.Damping
				if jt.Damping > 0 {
					m.hasDamping = true
				}
				last = d
			}
		}
		if m.bodyDofAdr[i] < 0 {
			m.bodyDofAdr[i] = 0
		}
		lastDof[i] = last
	}
	// one backing array: the lists are contiguous in memory
	var flat []int
	adr := make([]int, m.NV+1)
	for d := range m.NV {
		adr[d] = len(flat)
		for p := m.dofParent[d]; p >= 0; p = m.dofParent[p] {
			flat = append(flat, p)
		}
	}
	adr[m.NV] = len(flat)
	m.ancestors, m.ancAdr = make([][]int, m.NV), adr
	for d := range m.NV {
		m.ancestors[d] = flat[adr[d]:adr[d+1]:adr[d+1]]
	}
	// M's sparsity: row d is nonzero at d's ancestors and descendants
	m.mCols = make([][]int, m.NV)
	for d := range m.NV {
		anc := m.ancestors[d]
		for k := len(anc) - 1; k >= 0; k-- {
			m.mCols[d] = append(m.mCols[d], anc[k])
		}
		m.mCols[d] = append(m.mCols[d], d)
	}
	for d := range m.NV {
		for _, a := range m.ancestors[d] {
			m.mCols[a] = append(m.mCols[a], d)
		}
	}
	// qpos0 and the spring reference
	m.Qpos0, m.QposSpring = make([]float64, m.NQ), make([]float64, m.NQ)
	for j := range m.Joints {
		jt := &m.Joints[j]
		a := m.jntQposAdr[j]
		switch jt.Type {
		case Hinge, Slide:
			m.Qpos0[a], m.QposSpring[a] = jt.Ref, jt.SpringRef
		case Ball:
			copy(m.Qpos0[a:a+4], []float64{1, 0, 0, 0})
			copy(m.QposSpring[a:a+4], m.Qpos0[a:a+4])
		case Free:
			b := &m.Bodies[jt.Body]
			copy(m.Qpos0[a:a+3], b.Pos[:])
			copy(m.Qpos0[a+3:a+7], b.Quat[:])
			copy(m.QposSpring[a:a+7], m.Qpos0[a:a+7])
		}
	}
	// actuators
	m.NU = len(m.Actuators)
	for i := range m.Actuators {
		a := &m.Actuators[i]
		if a.Trn == TrnTendon {
			if a.Tendon < 0 || a.Tendon >= len(m.Tendons) {
				bad("actuator %d (%q): tendon %d does not exist", i, a.Name, a.Tendon)
				continue
			}
		} else if a.Trn != TrnJoint {
			bad("actuator %d (%q): transmission %d: only joint (0) and tendon (3) are implemented", i, a.Name, a.Trn)
			continue
		} else if a.Joint < 0 || a.Joint >= len(m.Joints) || (m.Joints[a.Joint].Type != Hinge && m.Joints[a.Joint].Type != Slide) {
			bad("actuator %d (%q): joint %d must be a hinge or slide joint", i, a.Name, a.Joint)
			continue
		}
		if !finite(a.Gear) || !finite(a.GainPrm[:]...) || !finite(a.BiasPrm[:]...) || !finite(a.CtrlRange[:]...) || !finite(a.ForceRange[:]...) {
			bad("actuator %d (%q): a non-finite parameter", i, a.Name)
		}
		if a.GainType != GainFixed && a.GainType != GainAffine || a.BiasType != BiasNone && a.BiasType != BiasAffine {
			bad("actuator %d (%q): only fixed/affine gains and none/affine biases are implemented", i, a.Name)
		}
		if a.CtrlLimited && !(a.CtrlRange[0] <= a.CtrlRange[1]) {
			bad("actuator %d (%q): ctrlrange %v must have lower <= upper", i, a.Name, a.CtrlRange)
		}
		if a.ForceLimited && !(a.ForceRange[0] <= a.ForceRange[1]) {
			bad("actuator %d (%q): forcerange %v must have lower <= upper", i, a.Name, a.ForceRange)
		}
		m.validateDyn(i, a, bad) // dyn.go
	}
	m.validateMocap(bad) // mocap.go
	for i, k := range keys {
		if k.Act != nil && len(k.Act) != m.NA || !finite(k.Act...) {
			bad("key %d (%q): act needs %d finite values, one per actuator with activation dynamics (got %d)", i, k.Name, m.NA, len(k.Act))
			continue
		}
		if k.Qpos != nil && len(k.Qpos) != m.NQ || k.Qvel != nil && len(k.Qvel) != m.NV || k.Ctrl != nil && len(k.Ctrl) != m.NU {
			bad("key %d (%q): qpos, qvel and ctrl need %d, %d and %d values (got %d, %d, %d)", i, k.Name,
				m.NQ, m.NV, m.NU, len(k.Qpos), len(k.Qvel), len(k.Ctrl))
			continue
		}
		if !finite(k.Qpos...) || !finite(k.Qvel...) || !finite(k.Ctrl...) || !finite(k.Time) {
			bad("key %d (%q): a non-finite value", i, k.Name)
			continue
		}
		key := Key{Name: k.Name, Time: k.Time, Qpos: append([]float64(nil), k.Qpos...),
			Qvel: append([]float64(nil), k.Qvel...), Ctrl: append([]float64(nil), k.Ctrl...), Act: append([]float64(nil), k.Act...)}
		if !m.mocapKey(i, &k, &key, bad) { // mocap.go
			continue
		}
		if key.Qpos != nil {
			// quaternions are normalized, as MuJoCo's compiler does
			for j := range m.Joints {
				a := m.jntQposAdr[j]
				switch m.Joints[j].Type {
				case Free:
					a += 3
				case Ball:
				default:
					continue
				}
				q, _ := normQuat([4]float64{key.Qpos[a], key.Qpos[a+1], key.Qpos[a+2], key.Qpos[a+3]})
				copy(key.Qpos[a:a+4], q[:])
			}
		}
		m.Keys = append(m.Keys, key)
	}
	m.validateEqualities(bad)
	m.validateTendons(bad)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	m.setDampDofs() // before setConst: factorLD reads dofsDesc
	m.setConst()
	return m, nil
}

// setDampDofs lists dampDofs.
func (m *Model) setDampDofs() {
	root := make([]int, m.NV)
	damped := make([]bool, m.NV)
	for k := range m.NV {
		root[k] = k
		if p := m.dofParent[k]; p >= 0 {
			root[k] = root[p] // a parent dof comes first
		}
		if m.dofDamping[k] != 0 {
			damped[root[k]] = true
		}
	}
	m.dampDofs, m.dofsDesc = m.dampDofs[:0], m.dofsDesc[:0]
	for k := m.NV - 1; k >= 0; k-- {
		m.dofsDesc = append(m.dofsDesc, k)
		if damped[root[k]] {
			m.dampDofs = append(m.dampDofs, k)
		}
	}
}

// setConst computes dof_invweight0 as MuJoCo's mj_setConst: the diagonal
// of M⁻¹ at qpos0 (averaged over a ball's or a free joint's rotations and
// translations), or 1/mass for a "simple" leaf body moved by axis-aligned
// slides only.
func (m *Model) setConst() {
	m.dofInvWeight0 = make([]float64, m.NV)
	if m.NV == 0 {
		// nothing moves: every body's invweight0 is 0, as MuJoCo's
		// body_invweight0 of a static body (an equality between static
		// bodies reads it)
		m.bodyInvWeight0 = make([][2]float64, len(m.Bodies))
		return
	}
	d := NewData(m)
	kinematics(m, d)
	comPos(m, d)
	crbMass(m, d)
	factorInto(m, d, 0, nil)
	for k := range m.NV {
		m.meanInertia += d.QM[k*m.NV+k] / float64(m.NV)
	}
	hasChild := make([]bool, len(m.Bodies))
	for i := 1; i < len(m.Bodies); i++ {
		hasChild[m.Bodies[i].Parent] = true
	}
	x := make([]float64, m.NV)
	inv := func(k int) float64 {
		clear(x)
		x[k] = 1
		solveLD(m, d.qLD, x)
		return x[k]
	}
	m.setEqualityConst(d, hasChild)
	m.setTendonConst(d)
	for j := range m.Joints {
		jt := &m.Joints[j]
		da := m.jntDofAdr[j]
		if m.simpleSlides(jt.Body, hasChild) {
			m.dofInvWeight0[da] = 1 / max(1e-15, m.Bodies[jt.Body].Mass)
			continue
		}
		switch jt.Type {
		case Free:
			t := (inv(da) + inv(da+1) + inv(da+2)) / 3
			r := (inv(da+3) + inv(da+4) + inv(da+5)) / 3
			for k := range 3 {
				m.dofInvWeight0[da+k], m.dofInvWeight0[da+3+k] = t, r
			}
		case Ball:
			r := (inv(da) + inv(da+1) + inv(da+2)) / 3
			for k := range 3 {
				m.dofInvWeight0[da+k] = r
			}
		default:
			m.dofInvWeight0[da] = inv(da)
		}
	}
}

// simpleSlides reports MuJoCo's body_simple == 2: a leaf body whose
// inertial frame is its frame, a child of the world (or of a world child
// without dofs), moved only by axis-aligned slides anchored at its origin.
func (m *Model) simpleSlides(b int, hasChild []bool) bool {
	body := &m.Bodies[b]
	if hasChild[b] || body.IPos != [3]float64{} || body.IQuat != [4]float64{1, 0, 0, 0} {
		return false
	}
	p := body.Parent
	if p != 0 && (m.Bodies[p].Parent != 0 || m.bodyDofNum[p] != 0) {
		return false
	}
	if m.bodyJntNum[b] == 0 {
		return false
	}
	for j := m.bodyJntAdr[b]; j < m.bodyJntAdr[b]+m.bodyJntNum[b]; j++ {
		jt := &m.Joints[j]
		if jt.Type != Slide || jt.Pos != [3]float64{} {
			return false
		}
		n := 0
		for _, a := range jt.Axis {
			if math.Abs(a) > 1e-14 {
				n++
			}
		}
		if n != 1 {
			return false
		}
	}
	return true
}

// Key returns the index of the keyframe named name.
func (m *Model) Key(name string) (int, bool) {
	for i := range m.Keys {
		if m.Keys[i].Name == name {
			return i, true
		}
	}
	return 0, false
}
