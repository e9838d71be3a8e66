package mjcf

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"

	"github.com/vlmrb/vlmrb/sim"
	"github.com/vlmrb/vlmrb/sim/articulated"
)

// Model is an MJCF model compiled for the articulated engine
// (sim/articulated): MuJoCo's body tree and qpos layout, one to one.
type Model struct {
	Name  string
	Model *articulated.Model
	// Sites are the model's sites: a frame (Pos, Quat w x y z) on a body
	// (index into Model.Bodies), for end effectors and site equalities.
	Sites []Site
	// Geoms are all the model's geoms and Cameras its cameras, on their
	// bodies, for rendering (articulated_visual.go).
	Geoms   []Geom
	Cameras []Camera
	// Warnings list what was dropped (visual elements, Lenient drops).
	Warnings []string
}

// Load reads the MJCF file at path and compiles it for the
// articulated engine (generalized coordinates, MuJoCo's equations). It
// accepts what that engine implements: hinge, slide, ball and free joints
// with armature, damping, stiffness, springref, actuatorfrcrange, limits
// (range, solreflimit, solimplimit, margin: MuJoCo's soft limits) and
// frictionloss (solreffriction, solimpfriction); body gravcomp; fixed
// tendons (stiffness, damping, springlength, range, margin, solreflimit,
// solimplimit, frictionloss); joint, tendon, connect and weld equalities
// (body or site semantics); motor, position (kp, kv, timeconst), velocity
// and general (fixed or affine gain, none or affine bias; dyntype none,
// integrator, filter or filterexact with dynprm, actlimited, actrange,
// actearly) actuators on hinge and slide joints or fixed tendons with
// gear, ctrlrange and forcerange; <option> timestep, gravity, integrator
// (Euler, implicitfast, implicit, RK4), cone, solver (Newton; CG as
// Newton; PGS with iterations and tolerance); the <flag>s gravity, spring,
// damper, actuation, clampctrl, eulerdamp, limit, equality, frictionloss,
// constraint, refsafe and warmstart; mocap bodies (their frames in
// articulated.Data.MocapPos and MocapQuat, set by the caller); keyframes
// (qpos, qvel, ctrl, act, time, mpos, mquat); colliding geoms
// (plane, sphere, capsule, ellipsoid, cylinder, box, mesh through its
// convex hull) with condim, friction, margin, gap, solref, solimp,
// solmix and priority, <contact><exclude> and <pair>, the flags contact
// and filterparent, <option impratio> and cone (pyramidal or elliptic).
// Spatial tendons through sites (no wrapping geoms or pulleys). What
// would change the physics and is not simulated — wrapping, a pair's
// solreffriction — is an error naming the element,
// attribute and line (Options.Lenient drops it with a
// warning).
func Load(path string, opt Options) (*Model, error) {
	data, err := readCapped(opt.ReadFile, "", path, MaxBytes)
	if err != nil {
		return nil, err
	}
	return parse(data, path, filepath.Dir(path), opt)
}

// Parse is Load on data; include and mesh files
// resolve relative to dir ("" refuses them).
func Parse(data []byte, dir string, opt Options) (*Model, error) {
	return parse(data, "", dir, opt)
}

func parse(data []byte, file, dir string, opt Options) (*Model, error) {
	c, root, err := newCompiler(data, file, dir, opt)
	if err != nil {
		return nil, err
	}
	m := c.compileArticulated(root)
	if len(c.errs) > 0 {
		return nil, errors.Join(c.errs...)
	}
	return m, nil
}

// Site is a site of a Model.
type Site struct {
	Name string
	Body int
	Pos  [3]float64
	Quat [4]float64
}

// Site returns the index of the site named name.
func (a *Model) Site(name string) (int, bool) {
	for i := range a.Sites {
		if a.Sites[i].Name == name && name != "" {
			return i, true
		}
	}
	return 0, false
}

// artSites reads the sites' frames (pos, orientation or fromto).
func (c *compiler) artSites() []Site {
	var out []Site
	for i, e := range c.sites {
		a := c.attrsOf(e, "site", c.siteCls[i])
		s := Site{Name: a.str("name", ""), Body: c.siteBody[i]}
		pos, rot := a.vec3("pos", sim.Vec3{}), a.orientation()
		if ft, ok := a.floats("fromto", 6, 6); ok {
			p0, p1 := sim.V3(ft[0], ft[1], ft[2]), sim.V3(ft[3], ft[4], ft[5])
			if d := p1.Sub(p0); d.Norm() > 0 {
				pos, rot = p0.Add(p1).Scale(0.5), quatBetween(sim.V3(0, 0, 1), d.Normalize())
			}
		}
		s.Pos, s.Quat = v3(pos), q4(rot.Normalize())
		a.ignore("type", "size", "rgba", "group", "material", "user")
		a.finish()
		out = append(out, s)
	}
	return out
}

// artState is the compile state for the articulated model: its options
// and whether <flag contact="disable"/> turned contacts off.
type artState struct {
	opt        articulated.Option
	contactOff bool
}

func (c *compiler) compileArticulated(root *element) *Model {
	ra := c.attrsOf(root, "mujoco", nil)
	name := ra.str("model", "")
	ra.finish()
	for _, e := range root.children {
		if e.name == "compiler" {
			c.compilerElem(e)
			// what compilerElem only warns about changes the physics
			for _, n := range []string{"balanceinertia", "alignfree"} {
				if v, ok := e.attr(n); ok && v == "true" {
					c.fail(e, n, "is not applied by the importer: the articulated engine would simulate different inertias or frames")
				}
			}
		}
	}
	main := &class{name: "main", attrs: map[string]map[string]dval{}}
	c.classes["main"] = main
	for _, e := range root.children {
		if e.name == "default" {
			c.defaults(e, main, true)
		}
	}
	for _, e := range root.children {
		if e.name == "asset" {
			c.assets(e)
		}
	}
	st := &artState{opt: articulated.Option{Timestep: 0.002, Gravity: [3]float64{0, 0, -9.81}}}
	var world *element
	var actuators, keys, equalities, tendonSecs, contactSecs []*element
	for _, e := range root.children {
		switch e.name {
		case "compiler", "default", "asset":
		case "option":
			c.artOption(e, st)
		case "worldbody":
			if world == nil {
				world = e
			} else {
				world.children = append(world.children, e.children...)
			}
		case "actuator":
			actuators = append(actuators, e)
		case "keyframe":
			keys = append(keys, e)
		case "contact":
			contactSecs = append(contactSecs, e) // articulated_geoms.go
		case "equality":
			equalities = append(equalities, e)
		case "size", "visual", "statistic", "sensor", "custom":
			c.dropped(e, "does not change the dynamics")
		case "tendon":
			tendonSecs = append(tendonSecs, e)
		default:
			c.unsupported(e, "unknown or unsupported section")
		}
	}
	if world == nil {
		world = &element{name: "worldbody", line: root.line, file: root.file}
	}
	c.worldbody(world, main)
	if len(c.errs) > 0 {
		return nil
	}
	c.massProps()
	c.artSingleGeomFrames()
	bodies := make([]articulated.Body, len(c.bodies))
	var joints []articulated.Joint
	jointOf := map[*mjoint]int{}
	for i, b := range c.bodies {
		ab := articulated.Body{Name: b.name, Parent: b.parent, Pos: v3(b.pos), Quat: q4(b.rot),
			IPos: v3(b.ipos), IQuat: q4(b.iquat), Mass: b.mass, Inertia: v3(b.inertia), Gravcomp: b.gravcomp,
			Mocap: b.mocap}
		bodies[i] = ab
		if i == 0 {
			continue
		}
		if b.mocap && (b.parent != 0 || b.free || len(b.joints) > 0) {
			c.fail(b.e, "mocap", fmt.Sprintf("body %q: a mocap body must be a child of the worldbody without joints (MuJoCo's rule)", b.name))
		}
		if b.free || len(b.joints) > 0 {
			c.checkMovingMass(b)
		}
		if b.free {
			for _, j := range c.joints {
				if j.body == i && j.typ == "free" {
					jointOf[j] = len(joints)
					joints = append(joints, articulated.Joint{Name: j.name, Type: articulated.Free, Body: i,
						Damping: j.damping, Stiffness: j.stiffness, Armature: j.arm})
				}
			}
		}
		for _, j := range b.joints {
			t := articulated.Hinge
			switch j.typ {
			case "slide":
				t = articulated.Slide
			case "ball":
				t = articulated.Ball
			}
			jointOf[j] = len(joints)
			joints = append(joints, articulated.Joint{Name: j.name, Type: t, Body: i, Pos: v3(j.pos), Axis: v3(j.axis),
				Ref: j.ref, SpringRef: j.springref, Stiffness: j.stiffness, Damping: j.damping, Armature: j.arm,
				ActFrcLimited: j.actfrcLimited, ActFrcRange: j.actfrcRange, Limited: j.limited, Range: [2]float64{j.lo, j.hi},
				SolRef: j.solref, SolImp: j.solimp, Margin: j.margin,
				FrictionLoss: j.floss, SolRefFriction: j.solreffr, SolImpFriction: j.solimpfr})
		}
	}
	sites := c.artSites()
	var tendons []articulated.Tendon
	tendonOf := map[string]int{}
	for _, sec := range tendonSecs {
		for _, e := range sec.children {
			if tn, ok := c.artTendon(e, jointOf, sites); ok {
				if tn.Name != "" {
					if _, dup := tendonOf[tn.Name]; dup {
						c.fail(e, "name", fmt.Sprintf("tendon %q is defined twice", tn.Name))
					}
					tendonOf[tn.Name] = len(tendons)
				}
				tendons = append(tendons, tn)
			}
		}
	}
	var acts []articulated.Actuator
	for _, sec := range actuators {
		for _, e := range sec.children {
			if a, ok := c.artActuator(e, jointOf, tendonOf); ok {
				if a.DynType != articulated.DynNone && st.opt.Integrator == articulated.RK4 {
					attr := "dyntype"
					if e.name == "position" {
						attr = "timeconst"
					}
					c.fail(e, attr, "activation dynamics with the RK4 integrator are not in the articulated engine (use Euler, implicit or implicitfast)")
				}
				acts = append(acts, a)
			}
		}
	}
	var eqs []articulated.Equality
	for _, sec := range equalities {
		for _, e := range sec.children {
			if q, ok := c.artEquality(e, jointOf, tendonOf, sites); ok {
				eqs = append(eqs, q)
			}
		}
	}
	if len(c.errs) > 0 {
		return nil
	}
	nq := 0
	for _, j := range joints {
		nq += j.Type.NQ()
	}
	na := 0
	for _, a := range acts {
		if a.DynType != articulated.DynNone {
			na++
		}
	}
	var qpos0 []float64 // MuJoCo's qpos0, for PadKeyframes
	for _, j := range joints {
		switch j.Type {
		case articulated.Free:
			b := bodies[j.Body]
			qpos0 = append(qpos0, b.Pos[0], b.Pos[1], b.Pos[2], b.Quat[0], b.Quat[1], b.Quat[2], b.Quat[3])
		case articulated.Ball:
			qpos0 = append(qpos0, 1, 0, 0, 0)
		default:
			qpos0 = append(qpos0, j.Ref)
		}
	}
	ks := c.artKeys(keys, qpos0, len(acts), na)
	if len(c.errs) > 0 {
		return nil
	}
	m, err := articulated.NewSpec(articulated.Spec{Opt: st.opt, Bodies: bodies, Joints: joints, Actuators: acts,
		Keys: ks, Equalities: eqs, Tendons: tendons})
	if err != nil {
		c.errs = append(c.errs, fmt.Errorf("mjcf: %w", err))
		return nil
	}
	c.artInstallGeoms(m, root, contactSecs) // articulated_geoms.go
	if len(c.errs) > 0 {
		return nil
	}
	geoms, cams := c.artVisuals() // articulated_visual.go
	if len(c.errs) > 0 {
		return nil
	}
	return &Model{Name: name, Model: m, Sites: sites, Geoms: geoms, Cameras: cams, Warnings: c.warnings()}
}

// checkMovingMass applies MuJoCo's compiler rule to a body with joints:
// its mass and every principal inertia at least mjMINVAL (MuJoCo: "mass
// and inertia of moving bodies must be larger than mjMINVAL"). The error
// names the <inertial> that gave them, or the body.
func (c *compiler) checkMovingMass(b *mbody) {
	if b.mass <= 0 {
		c.fail(b.e, "", fmt.Sprintf("body %q moves (it has joints) but has no mass: add geoms with mass or an <inertial>", b.name))
		return
	}
	var in *element
	if b.inertial != nil {
		in = b.inertial.e
	}
	if b.mass < mjMINVAL {
		if in != nil {
			c.fail(in, "mass", fmt.Sprintf("gives moving body %q (it has joints) a mass of %g kg, below MuJoCo's floor mjMINVAL = %g: give it a real mass", b.name, b.mass, mjMINVAL))
		} else {
			c.fail(b.e, "", fmt.Sprintf("body %q moves (it has joints) but its geoms give it a mass of %g kg, below MuJoCo's floor mjMINVAL = %g: give it a real mass", b.name, b.mass, mjMINVAL))
		}
		return
	}
	if i := b.inertia; min(i.X, i.Y, i.Z) < mjMINVAL {
		msg := fmt.Sprintf("principal moments %.3g %.3g %.3g kg·m², one below MuJoCo's floor mjMINVAL = %g: give it a real inertia", i.X, i.Y, i.Z, mjMINVAL)
		if in != nil {
			attr := "diaginertia"
			if _, ok := in.attr("fullinertia"); ok {
				attr = "fullinertia"
			}
			c.fail(in, attr, fmt.Sprintf("gives moving body %q (it has joints) %s", b.name, msg))
		} else {
			c.fail(b.e, "", fmt.Sprintf("body %q moves (it has joints) but has %s", b.name, msg))
		}
	}
}

// bodyByName returns the index of the body named name, or records an
// error on attribute attr of e.
func (c *compiler) bodyByName(e *element, attr, name string) (int, bool) {
	for i, b := range c.bodies {
		if b.name == name {
			return i, true
		}
	}
	c.fail(e, attr, fmt.Sprintf("body %q does not exist", name))
	return 0, false
}

func v3(v sim.Vec3) [3]float64 { return [3]float64{v.X, v.Y, v.Z} }
func q4(q sim.Quat) [4]float64 { return [4]float64{q.W, q.X, q.Y, q.Z} }

// artOption reads <option> and its <flag> for the articulated engine.
func (c *compiler) artOption(e *element, st *artState) {
	a := c.attrsOf(e, "option", nil)
	st.opt.Timestep = a.float("timestep", st.opt.Timestep)
	if ts := st.opt.Timestep; !(ts > 0 && ts <= MaxTimestep) {
		c.fail(e, "timestep", fmt.Sprintf("%g s must be positive, finite and at most %g s (MuJoCo's default is 0.002)", ts, MaxTimestep))
	}
	g := a.vec3("gravity", sim.V3(st.opt.Gravity[0], st.opt.Gravity[1], st.opt.Gravity[2]))
	if !(g.Norm() <= MaxGravity) {
		c.fail(e, "gravity", fmt.Sprintf("%g %g %g m/s² must be finite and of magnitude at most %g (100 g)", g.X, g.Y, g.Z, MaxGravity))
	}
	st.opt.Gravity = v3(g)
	switch a.oneOf("integrator", "Euler", "Euler", "implicitfast", "RK4", "implicit") {
	case "implicitfast":
		st.opt.Integrator = articulated.ImplicitFast
	case "RK4":
		st.opt.Integrator = articulated.RK4
	case "implicit":
		st.opt.Integrator = articulated.Implicit
	}
	if a.oneOf("cone", "pyramidal", "pyramidal", "elliptic") == "elliptic" {
		st.opt.Cone = articulated.Elliptic
	}
	// PGS is its own solver; CG converges to Newton's minimizer, which
	// the Newton solver iterates towards until mj_solNewton's test
	// (tolerance, iterations below) stops it
	if a.oneOf("solver", "Newton", "Newton", "CG", "PGS") == "PGS" {
		st.opt.Solver = articulated.PGS
	}
	if n := a.int("iterations", 100); n < 1 {
		c.fail(e, "iterations", "must be ≥ 1")
	} else {
		st.opt.Iterations = n
	}
	if x := a.float("tolerance", 1e-8); !(x >= 0) {
		c.fail(e, "tolerance", "must be ≥ 0")
	} else if x == 0 {
		st.opt.Tolerance = -1 // no early stop
	} else {
		st.opt.Tolerance = x
	}
	// solver settings act on constraints, which the engine does not have yet
	if a.int("noslip_iterations", 0) != 0 {
		c.fail(e, "noslip_iterations", "the noslip post-solver is not in the articulated engine")
	}
	// the line search's and EPA's bounds, as MuJoCo's (0 in Option is the
	// default, so MuJoCo's 0 travels as a negative number)
	// (MuJoCo checks neither sign: a negative tolerance, like 0, never
	// stops early)
	if x := a.float("ls_tolerance", 0.01); math.IsNaN(x) {
		c.fail(e, "ls_tolerance", "must be a number")
	} else if x <= 0 {
		st.opt.LSTolerance = -1
	} else {
		st.opt.LSTolerance = x
	}
	if n := a.int("ls_iterations", 50); n <= 0 {
		st.opt.LSIterations = -1 // MuJoCo evaluates the Newton point only
	} else {
		st.opt.LSIterations = n
	}
	if x := a.float("ccd_tolerance", 1e-6); math.IsNaN(x) {
		c.fail(e, "ccd_tolerance", "must be a number")
	} else if x <= 0 {
		st.opt.CCDTolerance = -1 // EPA to rounding
	} else {
		st.opt.CCDTolerance = x
	}
	if n := a.int("ccd_iterations", 35); n < 1 {
		c.fail(e, "ccd_iterations", "must be ≥ 1: with none, GJK and EPA would find no contacts")
	} else {
		st.opt.CCDIterations = n
	}
	a.ignore("noslip_tolerance", "mpr_iterations", "mpr_tolerance",
		"jacobian", "impratio", "o_margin", "o_solref", "o_solimp", "o_friction", "sdf_iterations", "sdf_initpoints",
		"apirate", "magnetic")
	if f, ok := a.floats("wind", 3, 3); ok && (f[0] != 0 || f[1] != 0 || f[2] != 0) {
		c.fail(e, "wind", "(a medium) is not supported")
	}
	for _, n := range []string{"density", "viscosity"} {
		if a.float(n, 0) != 0 {
			c.fail(e, n, "(a medium) is not supported")
		}
	}
	a.finish()
	bits := map[string]int{"gravity": articulated.DisableGravity, "spring": articulated.DisableSpring,
		"damper": articulated.DisableDamper, "actuation": articulated.DisableActuation,
		"clampctrl": articulated.DisableClampCtrl, "eulerdamp": articulated.DisableEulerDamp,
		"limit": articulated.DisableLimit, "frictionloss": articulated.DisableFrictionLoss,
		"equality": articulated.DisableEquality, "constraint": articulated.DisableConstraint, "refsafe": articulated.DisableRefSafe,
		"contact": articulated.DisableContact, "filterparent": articulated.DisableFilterParent,
		"warmstart": articulated.DisableWarmstart}
	// flags that cannot change a model without constraints or contacts
	harmless := map[string]bool{
		"midphase": true, "filterparent": true, "sensor": true,
		"nativeccd": true, "energy": true, "fwdinv": true, "invdiscrete": true, "island": true, "autoreset": true}
	for _, ch := range e.children {
		if ch.name != "flag" {
			c.unsupported(ch, "unknown child of <option>")
			continue
		}
		for _, at := range ch.attrs {
			n, v := at.Name.Local, at.Value
			if v != "enable" && v != "disable" {
				c.fail(ch, n, fmt.Sprintf("%q must be enable or disable", v))
				continue
			}
			switch {
			case bits[n] != 0:
				if n == "contact" {
					st.contactOff = v == "disable"
				}
				if v == "disable" {
					st.opt.Disable |= bits[n]
				} else {
					st.opt.Disable &^= bits[n]
				}
			case n == "contact":
				st.contactOff = v == "disable"
			case harmless[n]:
			default:
				c.fail(ch, n, "is a flag the articulated engine does not implement")
			}
		}
	}
}

// artJoint reads a hinge, slide or ball joint's articulated-only
// attributes and refuses what the engine does not simulate.
func (c *compiler) artJoint(a *attrSet, j *mjoint) {
	lim := a.tri("actuatorfrclimited")
	if r, ok := a.floats("actuatorfrcrange", 2, 2); ok {
		j.actfrcLimited = lim == 1 || (lim == -1 && c.autolimits)
		j.actfrcRange = [2]float64{r[0], r[1]}
		if j.actfrcLimited && r[0] > r[1] {
			c.fail(j.e, "actuatorfrcrange", "has lower > upper")
		}
	} else if lim == 1 {
		c.fail(j.e, "actuatorfrcrange", "is required when actuatorfrclimited is true")
	}
	j.solref, j.solimp = c.solParams(j.e, a, "solreflimit", "solimplimit")
	j.margin = a.float("margin", 0)
	j.floss = a.float("frictionloss", 0)
	if j.floss < 0 {
		c.fail(j.e, "frictionloss", "must be >= 0")
	}
	j.solreffr, j.solimpfr = c.solParams(j.e, a, "solreffriction", "solimpfriction")
	if j.typ == "ball" {
		j.axis = sim.V3(0, 0, 1)
		if j.limited {
			// a ball's range is (0, angle): read in the compiler's angle unit
			r, _ := a.floats("range", 2, 2)
			j.lo, j.hi = c.angle(r[0]), c.angle(r[1])
			if j.lo != 0 {
				c.fail(j.e, "range", "a ball joint's range must be (0, angle)")
			}
		}
	}
}

// artFreeJoint reads a free joint's damping, stiffness and armature.
func (c *compiler) artFreeJoint(a *attrSet) {
	for _, n := range []string{"damping", "stiffness", "armature", "frictionloss"} {
		if a.float(n, 0) != 0 {
			c.fail(a.e, n, "on a free joint is not supported by the articulated engine")
		}
	}
}

// artActuator reads one actuator for the articulated engine.
func (c *compiler) artActuator(e *element, jointOf map[*mjoint]int, tendonOf map[string]int) (articulated.Actuator, bool) {
	main := c.classes["main"]
	a := c.attrsOf(e, "actuator", c.classFor(e, main))
	var out articulated.Actuator
	typ := e.name
	switch typ {
	case "motor", "position", "velocity", "general":
	default:
		a.ignore(attrNames(e)...)
		for k := range a.def {
			a.used[k] = true
		}
		c.unsupported(e, "only motor, position, velocity and general actuators are in the articulated engine")
		return out, false
	}
	a.used["$type"] = true
	out.Name = a.str("name", "")
	for _, tr := range []string{"site", "body", "cranksite", "slidersite", "refsite"} {
		if a.has(tr) {
			c.unsupported(e, fmt.Sprintf("transmission %q: only joint and fixed-tendon transmissions are in the articulated engine", tr))
			return out, false
		}
	}
	if tname := a.str("tendon", ""); tname != "" {
		t, found := tendonOf[tname]
		if !found || a.has("joint") {
			c.fail(e, "tendon", fmt.Sprintf("%q must name a fixed tendon (and no joint be given)", tname))
			a.ignore(attrNames(e)...)
			for k := range a.def {
				a.used[k] = true
			}
			return out, false
		}
		out.Trn, out.Tendon = articulated.TrnTendon, t
	} else {
		// jointinparent is joint for hinges and slides (it differs only
		// for ball and free joints, which take no actuators here)
		attr := "joint"
		if a.has("jointinparent") && !a.has("joint") {
			attr = "jointinparent"
		}
		a.used["jointinparent"] = true
		jname := a.str(attr, "")
		j, found := c.jointIdx[jname]
		if !found || (j.typ != "hinge" && j.typ != "slide") {
			c.fail(e, attr, fmt.Sprintf("%q must name a hinge or slide joint", jname))
			a.ignore(attrNames(e)...)
			for k := range a.def {
				a.used[k] = true
			}
			return out, false
		}
		out.Joint = jointOf[j]
	}
	out.Gear = 1
	if g, ok := a.floats("gear", 1, 6); ok {
		out.Gear = g[0]
		for _, x := range g[1:] {
			if x != 0 {
				c.fail(e, "gear", "only the first component applies to a hinge or slide joint")
			}
		}
	}
	// a default written for another shortcut may carry its parameters
	for _, k := range []string{"kp", "kv", "gainprm", "biasprm", "biastype", "gaintype", "dyntype", "dynprm", "timeconst"} {
		if _, ok := e.attr(k); !ok {
			a.used[k] = true
		}
	}
	switch typ {
	case "motor":
		out.GainPrm[0] = 1
	case "position":
		kp, kv := a.float("kp", 1), a.float("kv", 0)
		out.GainPrm[0] = kp
		out.BiasType, out.BiasPrm = articulated.BiasAffine, [3]float64{0, -kp, -kv}
		if tc := a.float("timeconst", 0); tc > 0 {
			// MuJoCo: a position servo with a time constant filters its
			// ctrl exactly (dyntype filterexact)
			out.DynType, out.DynPrm[0] = articulated.DynFilterExact, tc
		} else if tc < 0 {
			c.fail(e, "timeconst", "must be ≥ 0")
		}
	case "velocity":
		kv := a.float("kv", 1)
		out.GainPrm[0] = kv
		out.BiasType, out.BiasPrm = articulated.BiasAffine, [3]float64{0, 0, -kv}
	case "general":
		switch a.oneOf("dyntype", "none", "none", "integrator", "filter", "filterexact") {
		case "integrator":
			out.DynType = articulated.DynIntegrator
		case "filter":
			out.DynType = articulated.DynFilter
		case "filterexact":
			out.DynType = articulated.DynFilterExact
		}
		out.DynPrm[0] = 1 // MuJoCo's default dynprm
		if f, ok := a.floats("dynprm", 1, 10); ok {
			out.DynPrm[0] = f[0]
			for _, x := range f[1:] {
				if x != 0 && out.DynType != articulated.DynNone {
					c.fail(e, "dynprm", "only the first parameter (the time constant) is used by integrator and filter dynamics")
				}
			}
		}
		if a.oneOf("gaintype", "fixed", "fixed", "affine") == "affine" {
			out.GainType = articulated.GainAffine
		}
		out.GainPrm[0] = 1
		if f, ok := a.floats("gainprm", 1, 10); ok {
			clear(out.GainPrm[:])
			copy(out.GainPrm[:], f)
			for _, x := range f[min(3, len(f)):] {
				if x != 0 {
					c.fail(e, "gainprm", "only the first 3 parameters are used by fixed and affine gains")
				}
			}
		}
		if a.oneOf("biastype", "none", "none", "affine") == "affine" {
			out.BiasType = articulated.BiasAffine
		}
		if f, ok := a.floats("biasprm", 1, 10); ok {
			copy(out.BiasPrm[:], f)
			for _, x := range f[min(3, len(f)):] {
				if x != 0 {
					c.fail(e, "biasprm", "only the first 3 parameters are used by an affine bias")
				}
			}
		}
	}
	// an inverted range is refused (MuJoCo 3.3.8 loads it, and clamps
	// into an empty interval)
	cl := a.tri("ctrllimited")
	if r, ok := a.floats("ctrlrange", 2, 2); ok {
		out.CtrlRange = [2]float64{r[0], r[1]}
		out.CtrlLimited = cl == 1 || (cl == -1 && c.autolimits)
		if out.CtrlLimited && r[0] > r[1] {
			c.fail(e, "ctrlrange", fmt.Sprintf("%g %g has lower > upper", r[0], r[1]))
		}
	} else if cl == 1 {
		c.fail(e, "ctrlrange", "is required when ctrllimited is true")
	}
	fl := a.tri("forcelimited")
	if r, ok := a.floats("forcerange", 2, 2); ok {
		out.ForceRange = [2]float64{r[0], r[1]}
		out.ForceLimited = fl == 1 || (fl == -1 && c.autolimits)
		if out.ForceLimited && r[0] > r[1] {
			c.fail(e, "forcerange", fmt.Sprintf("%g %g has lower > upper", r[0], r[1]))
		}
	} else if fl == 1 {
		c.fail(e, "forcerange", "is required when forcelimited is true")
	}
	al := a.tri("actlimited")
	if r, ok := a.floats("actrange", 2, 2); ok {
		out.ActRange = [2]float64{r[0], r[1]}
		out.ActLimited = al == 1 || (al == -1 && c.autolimits)
	} else if al == 1 {
		c.fail(e, "actrange", "is required when actlimited is true")
	}
	out.ActEarly = a.bool("actearly", false)
	want := 0
	if out.DynType != articulated.DynNone {
		want = 1
	}
	if n := a.int("actdim", -1); n != -1 && n != want {
		c.fail(e, "actdim", fmt.Sprintf("%d: this actuator has %d activation(s); only MuJoCo's automatic actdim is in the articulated engine", n, want))
	}
	a.warnIf("length ranges are not used without muscles", "lengthrange")
	a.ignore("group", "user")
	a.finish()
	return out, true
}

// artKeys reads <key> elements in MuJoCo's qpos layout.
func (c *compiler) artKeys(keys []*element, qpos0 []float64, nu, na int) []articulated.Key {
	nq := len(qpos0)
	main := c.classes["main"]
	var out []articulated.Key
	for _, sec := range keys {
		for _, e := range sec.children {
			if e.name != "key" {
				c.unsupported(e, "only <key> belongs in <keyframe>")
				continue
			}
			a := c.attrsOf(e, "key", c.classFor(e, main))
			k := articulated.Key{Name: a.str("name", ""), Time: a.float("time", 0)}
			read := func(attr string, n int, what string) []float64 {
				f, ok := a.floats(attr, 0, math.MaxInt32)
				if !ok {
					return nil
				}
				if len(f) < n && c.opt.PadKeyframes {
					pad := make([]float64, n-len(f))
					if attr == "qpos" {
						copy(pad, qpos0[len(f):])
					}
					return append(f, pad...)
				}
				if len(f) != n {
					c.fail(e, attr, fmt.Sprintf("has %d numbers; the model has %d %s", len(f), n, what))
					return nil
				}
				return f
			}
			k.Qpos = read("qpos", nq, "qpos coordinates (1 a hinge or slide, 4 a ball, 7 a free joint)")

			nv := 0
			for _, j := range c.joints {
				switch j.typ {
				case "free":
					nv += 6
				case "ball":
					nv += 3
				default:
					nv++
				}
			}
			k.Qvel = read("qvel", nv, "dofs")
			k.Ctrl = read("ctrl", nu, "actuators")
			k.Act = read("act", na, "activations (one per actuator with activation dynamics)")
			nmocap := 0
			for _, b := range c.bodies {
				if b.mocap {
					nmocap++
				}
			}
			k.Mpos = read("mpos", 3*nmocap, "mocap position coordinates (3 per mocap body)")
			k.Mquat = read("mquat", 4*nmocap, "mocap quaternion coordinates (4 per mocap body)")
			a.finish()
			out = append(out, k)
		}
	}
	return out
}

// artEquality reads a joint, tendon, connect or weld equality.
func (c *compiler) artEquality(e *element, jointOf map[*mjoint]int, tendonOf map[string]int, sites []Site) (articulated.Equality, bool) {
	main := c.classes["main"]
	a := c.attrsOf(e, "equality", c.classFor(e, main))
	out := articulated.Equality{Name: a.str("name", ""), Obj2: -1}
	switch e.name {
	case "joint", "connect", "weld", "tendon":
	default:
		a.ignore(attrNames(e)...)
		for k := range a.def {
			a.used[k] = true
		}
		c.unsupported(e, "only joint, tendon, connect and weld equalities are in the articulated engine")
		return out, false
	}
	out.Inactive = !a.bool("active", true)
	out.SolRef, out.SolImp = c.solParams(e, a, "solref", "solimp")
	ok := true
	switch e.name {
	case "joint":
		out.Type = articulated.EqJoint
		joint := func(attr string) int {
			name := a.str(attr, "")
			if name == "" {
				return -1
			}
			j, found := c.jointIdx[name]
			if !found || (j.typ != "hinge" && j.typ != "slide") {
				c.fail(e, attr, fmt.Sprintf("%q must name a hinge or slide joint", name))
				ok = false
				return -1
			}
			return jointOf[j]
		}
		out.Obj1, out.Obj2 = joint("joint1"), joint("joint2")
		if out.Obj1 < 0 && ok {
			c.fail(e, "joint1", "is required")
			ok = false
		}
		out.PolyCoef = [5]float64{0, 1, 0, 0, 0}
		if f, found := a.floats("polycoef", 1, 5); found {
			out.PolyCoef = [5]float64{}
			copy(out.PolyCoef[:], f)
		}
	case "tendon":
		out.Type = articulated.EqTendon
		tendon := func(attr string) int {
			name := a.str(attr, "")
			if name == "" {
				return -1
			}
			t, found := tendonOf[name]
			if !found {
				c.fail(e, attr, fmt.Sprintf("%q must name a fixed tendon", name))
				ok = false
				return -1
			}
			return t
		}
		out.Obj1, out.Obj2 = tendon("tendon1"), tendon("tendon2")
		if out.Obj1 < 0 && ok {
			c.fail(e, "tendon1", "is required")
			ok = false
		}
		out.PolyCoef = [5]float64{0, 1, 0, 0, 0}
		if f, found := a.floats("polycoef", 1, 5); found {
			out.PolyCoef = [5]float64{}
			copy(out.PolyCoef[:], f)
		}
	case "connect", "weld":
		out.Type = articulated.EqConnect
		if e.name == "weld" {
			out.Type = articulated.EqWeld
			out.TorqueScale = a.float("torquescale", 1)
			if f, found := a.floats("relpose", 7, 7); found && (f[3] != 0 || f[4] != 0 || f[5] != 0 || f[6] != 0) {
				c.fail(e, "relpose", "is not supported: the weld holds the qpos0 relative pose")
				ok = false
			}
		}
		if a.has("site1") || a.has("site2") {
			// site semantics: the sites' origins (and, for a weld, frames)
			out.Sites = true
			for k, attr := range []string{"site1", "site2"} {
				name := a.str(attr, "")
				si := -1
				for i := range sites {
					if sites[i].Name == name && name != "" {
						si = i
					}
				}
				if si < 0 {
					c.fail(e, attr, fmt.Sprintf("%q must name a site (site1 and site2 are both required)", name))
					ok = false
					continue
				}
				out.SitePos[k], out.SiteQuat[k] = sites[si].Pos, sites[si].Quat
				if k == 0 {
					out.Obj1 = sites[si].Body
				} else {
					out.Obj2 = sites[si].Body
				}
			}
			for _, n := range []string{"body1", "body2", "anchor", "relpose"} {
				if a.has(n) {
					c.fail(e, n, "cannot be combined with site1 and site2")
					ok = false
				}
			}
			if ok && out.Obj1 == out.Obj2 {
				c.fail(e, "site2", "must be on another body than site1")
				ok = false
			}
			a.ignore("anchor", "relpose")
			a.finish()
			return out, ok
		}
		b1, found := c.bodyByName(e, "body1", a.str("body1", ""))
		ok = ok && found
		out.Obj1 = b1
		out.Obj2 = 0
		if n := a.str("body2", ""); n != "" {
			b2, found := c.bodyByName(e, "body2", n)
			ok = ok && found
			out.Obj2 = b2
		}
		if f, found := a.floats("anchor", 3, 3); found {
			out.Anchor = [3]float64{f[0], f[1], f[2]}
		} else if e.name == "connect" {
			c.fail(e, "anchor", "is required")
			ok = false
		}
		if ok && out.Obj1 == out.Obj2 {
			c.fail(e, "body2", "must differ from body1")
			ok = false
		}
	}
	a.ignore("class")
	a.finish()
	return out, ok
}

// artTendon reads a fixed tendon, or a spatial one whose path is sites
// only (wrapping geoms and pulleys are refused).
func (c *compiler) artTendon(e *element, jointOf map[*mjoint]int, sites []Site) (articulated.Tendon, bool) {
	main := c.classes["main"]
	var out articulated.Tendon
	if e.name != "fixed" && e.name != "spatial" {
		c.unsupported(e, "only fixed and spatial tendons are in the articulated engine")
		return out, false
	}
	a := c.attrsOf(e, "tendon", c.classFor(e, main))
	out.Name = a.str("name", "")
	out.Stiffness, out.Damping = a.float("stiffness", 0), a.float("damping", 0)
	out.SpringLength = [2]float64{-1, -1}
	if f, ok := a.floats("springlength", 1, 2); ok {
		out.SpringLength = [2]float64{f[0], f[0]}
		if len(f) == 2 {
			out.SpringLength[1] = f[1]
		}
	}
	lim := a.tri("limited")
	if r, ok := a.floats("range", 2, 2); ok {
		out.Range = [2]float64{r[0], r[1]}
		out.Limited = lim == 1 || (lim == -1 && c.autolimits)
	} else if lim == 1 {
		c.fail(e, "range", "is required when limited is true")
	}
	out.SolRef, out.SolImp = c.solParams(e, a, "solreflimit", "solimplimit")
	out.Margin = a.float("margin", 0)
	out.FrictionLoss = a.float("frictionloss", 0)
	out.SolRefFriction, out.SolImpFriction = c.solParams(e, a, "solreffriction", "solimpfriction")
	if a.float("armature", 0) != 0 {
		c.fail(e, "armature", "tendon armature is not in the articulated engine")
	}
	a.ignore("group", "rgba", "width", "material", "user", "class", "actuatorfrclimited", "actuatorfrcrange")
	if a.has("actuatorfrcrange") {
		c.fail(e, "actuatorfrcrange", "on a tendon is not in the articulated engine")
	}
	a.finish()
	if e.name == "spatial" {
		return c.artSpatialPath(e, out, sites)
	}
	ok := true
	for _, ch := range e.children {
		if ch.name != "joint" {
			c.unsupported(ch, "a fixed tendon holds only <joint> elements")
			ok = false
			continue
		}
		ja := c.attrsOf(ch, "joint", nil)
		name := ja.str("joint", "")
		coef := ja.float("coef", 1)
		if !ja.has("coef") {
			c.fail(ch, "coef", "is required (as in MuJoCo)")
		}
		ja.finish()
		j, found := c.jointIdx[name]
		if !found || (j.typ != "hinge" && j.typ != "slide") {
			c.fail(ch, "joint", fmt.Sprintf("%q must name a hinge or slide joint", name))
			ok = false
			continue
		}
		out.Joints = append(out.Joints, jointOf[j])
		out.Coefs = append(out.Coefs, coef)
	}
	if len(out.Joints) == 0 && ok {
		c.fail(e, "", "a fixed tendon needs at least one <joint>")
		ok = false
	}
	return out, ok
}

// artSingleGeomFrames gives a body whose mass comes from one geom that
// geom's frame as its inertial frame, as MuJoCo's compiler does
// (massProps takes principal axes in its own order: the same tensor,
// but MuJoCo's "simple body" test, and so its constraint regularizer,
// looks at the frame).
func (c *compiler) artSingleGeomFrames() {
	if c.boundMass != 0 || c.boundInertia != 0 || c.settotalmass > 0 || c.inertiaFromGeom == 0 {
		return
	}
	for _, b := range c.bodies[1:] {
		if b.inertial != nil && c.inertiaFromGeom != 1 {
			continue
		}
		var only *mgeom
		n := 0
		for _, g := range b.geoms {
			if g.typ == "plane" || g.mass == 0 {
				continue
			}
			only = g
			n++
		}
		if n != 1 || only.typ == "mesh" {
			continue
		}
		b.ipos, b.iquat, b.inertia = only.pos, only.rot.Normalize(), geomInertia(only)
	}
}

// solParams reads a constraint's solref-style attribute ref (MuJoCo's
// default 0.02 1; both positive is the standard format, both non-positive
// the direct one, a mix is an error) and solimp-style attribute imp (1 to
// 5 numbers over MuJoCo's default 0.9 0.95 0.001 0.5 2).
func (c *compiler) solParams(e *element, a *attrSet, ref, imp string) ([2]float64, [5]float64) {
	sr := [2]float64{0.02, 1}
	if f, ok := a.floats(ref, 2, 2); ok {
		sr = [2]float64{f[0], f[1]}
		if (f[0] > 0) != (f[1] > 0) {
			c.fail(e, ref, "mixes the standard (positive) and direct (negative) formats")
		}
	}
	si := [5]float64{0.9, 0.95, 0.001, 0.5, 2}
	if f, ok := a.floats(imp, 1, 5); ok {
		copy(si[:], f)
	}
	return sr, si
}

// artSpatialPath reads a spatial tendon's path of <site>s.
func (c *compiler) artSpatialPath(e *element, out articulated.Tendon, sites []Site) (articulated.Tendon, bool) {
	byName := map[string]Site{}
	for _, s := range sites {
		if s.Name != "" {
			byName[s.Name] = s
		}
	}
	ok := true
	for _, ch := range e.children {
		if ch.name != "site" {
			c.unsupported(ch, "a spatial tendon's path in the articulated engine holds only <site>s (no wrapping <geom> or <pulley>)")
			ok = false
			continue
		}
		sa := c.attrsOf(ch, "site", nil)
		name := sa.str("site", "")
		sa.finish()
		s, found := byName[name]
		if !found {
			c.fail(ch, "site", fmt.Sprintf("%q is not a named site", name))
			ok = false
			continue
		}
		out.Path = append(out.Path, articulated.TendonPoint{Body: s.Body, Pos: s.Pos})
	}
	if len(out.Path) < 2 && ok {
		c.fail(e, "", "a spatial tendon needs at least two <site>s")
		ok = false
	}
	return out, ok
}
