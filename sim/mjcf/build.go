package mjcf

import (
	"fmt"
	"math"

	"github.com/vlmrb/vlmrb/sim"
)

// simBody is a sim body being assembled from MJCF bodies.
type simBody struct {
	name    string
	mass    float64
	first   sim.Vec3 // m·com accumulator
	members []int
	pos     sim.Vec3 // world frame: COM and principal axes
	rot     sim.Quat
	inertia sim.Vec3
	share   float64 // fraction of the carrier's mass (chains)
	of      int     // carrier it takes a share of (-1 none)
}

// build assigns sim bodies, computes their mass properties and emits the
// sim model.
func (c *compiler) build(name string, actuators, equality, contact []*element) *Model {
	c.massProps()
	sb := c.assignCarriers()
	if len(c.errs) > 0 {
		return nil
	}
	c.carrierMass(sb)
	if len(c.errs) > 0 {
		return nil
	}
	b := sim.NewBuilder()
	b.Opt.Timestep = c.opts.Timestep
	b.Opt.Gravity = c.opts.Gravity
	// MuJoCo caps no speeds: robot wrists spin at 100+ rad/s under stiff servos
	b.Opt.MaxSpeed, b.Opt.MaxAngularSpeed = 100, 1000
	b.Opt.Substeps = c.opt.Substeps
	if b.Opt.Substeps == 0 {
		b.Opt.Substeps = DefaultSubsteps(b.Opt.Timestep)
	}
	b.Opt.Iterations = c.opt.Iterations
	b.Opt.MaxJointPush = c.opt.MaxJointPush
	b.Opt.JointMassPerStep = !c.opt.SubstepMasses
	ids := make([]sim.BodyID, len(sb))
	for i, s := range sb {
		if i == 0 {
			continue
		}
		ids[i] = b.AddBody(sim.BodyDesc{Name: s.name, Mass: s.mass, Inertia: s.inertia, Pos: s.pos, Rot: s.rot})
	}
	m := &Model{Name: name}
	for bi, mb := range c.bodies {
		car := sb[mb.carrier]
		f := Frame{Body: ids[mb.carrier], Pos: car.rot.InvRotate(mb.wpos.Sub(car.pos)), Rot: car.rot.Conj().Mul(mb.wrot).Normalize()}
		out := Body{Name: mb.name, Parent: mb.parent, Frame: f, Pos: mb.wpos, Rot: mb.wrot,
			Mass: mb.mass, Inertia: mb.inertia, IPos: mb.ipos, IQuat: mb.iquat, LocalPos: mb.pos, LocalRot: mb.rot}
		if bi == 0 {
			out.LocalRot = sim.Identity()
		}
		if mb.free {
			for _, j := range c.joints {
				if j.body == bi {
					out.Joints = append(out.Joints, j.index)
				}
			}
		}
		for _, j := range mb.joints {
			out.Joints = append(out.Joints, j.index)
		}
		m.Bodies = append(m.Bodies, out)
		if bi > 0 {
			if pc := c.bodies[mb.parent].carrier; pc != mb.carrier && pc != 0 {
				b.ExcludePair(ids[pc], ids[mb.carrier])
			}
		}
	}
	c.emitGeoms(b, m)
	c.emitJoints(b, m, sb, ids)
	c.emitSitesCameras(m)
	for _, e := range contact {
		c.contactElem(b, m, e)
	}
	for _, e := range equality {
		c.equalityElem(b, m, e)
	}
	for _, e := range actuators {
		for _, a := range e.children {
			c.actuator(b, m, a)
		}
	}
	if len(c.errs) > 0 {
		return nil
	}
	sm, err := b.Build()
	if err != nil {
		c.errs = append(c.errs, fmt.Errorf("mjcf: the compiled model is invalid: %w", err))
		return nil
	}
	m.Sim = sm
	m.fixActuatorCtrl()
	return m
}

// assignCarriers decides which sim body carries each MJCF body: jointless
// bodies are merged into their parent's; a body with k joints gets a chain
// of k sim bodies (the last carries it).
func (c *compiler) assignCarriers() []*simBody {
	sb := []*simBody{{name: "world", rot: sim.Identity(), of: -1}}
	for bi, mb := range c.bodies {
		switch {
		case bi == 0:
			mb.carrier = 0
		case mb.free:
			sb = append(sb, &simBody{name: mb.name, of: -1})
			mb.carrier = len(sb) - 1
		case len(mb.joints) == 0:
			mb.carrier = c.bodies[mb.parent].carrier
		case len(mb.joints) > 1 && c.compoundable(mb):
			// one sim body; its hinges are one compound sim joint
			sb = append(sb, &simBody{name: mb.name, of: -1})
			mb.carrier = len(sb) - 1
			mb.compound = true
		default:
			k := len(mb.joints)
			base := len(sb)
			for i := 0; i < k-1; i++ {
				sb = append(sb, &simBody{name: fmt.Sprintf("%s#%d", mb.name, i), share: c.opt.IntermediateMass, of: base + k - 1})
				mb.chain = append(mb.chain, len(sb)-1)
			}
			sb = append(sb, &simBody{name: mb.name, share: 1 - float64(k-1)*c.opt.IntermediateMass, of: -1})
			mb.chain = append(mb.chain, len(sb)-1)
			mb.carrier = len(sb) - 1
			if k > 1 {
				c.warn(fmt.Sprintf("<body> with several joints: a chain of sim bodies, each intermediate carrying %.0f%% of the mass", 100*c.opt.IntermediateMass))
			}
		}
		sb[mb.carrier].members = append(sb[mb.carrier].members, bi)
	}
	return sb
}

// carrierMass sums the members' mass properties into each sim body and
// gives chain intermediates their share.
func (c *compiler) carrierMass(sb []*simBody) {
	for si, s := range sb {
		if si == 0 || s.of >= 0 {
			continue
		}
		var mass float64
		var com sim.Vec3
		for _, bi := range s.members {
			mb := c.bodies[bi]
			mass += mb.mass
			com = com.AddScaled(mb.wpos.Add(mb.wrot.Rotate(mb.ipos)), mb.mass)
		}
		if !(mass > 0) {
			mb := c.bodies[s.members[0]]
			c.fail(mb.e, "", fmt.Sprintf("body %q moves (it has joints) but has no mass: add geoms with mass or an <inertial>", mb.name))
			continue
		}
		if mass < mjMINVAL {
			e, attr := s.explicit(c)
			c.fail(e, attr, fmt.Sprintf("gives moving body %q (it has joints) a mass of %g kg, below MuJoCo's floor mjMINVAL = %g: give it a real mass", c.bodies[s.members[0]].name, mass, mjMINVAL))
			continue
		}
		com = com.Scale(1 / mass)
		var t sym3
		for _, bi := range s.members {
			mb := c.bodies[bi]
			if mb.mass == 0 {
				continue
			}
			t.add(rotated(mb.wrot.Mul(mb.iquat), mb.inertia))
			t.add(pointInertia(mb.mass, mb.wpos.Add(mb.wrot.Rotate(mb.ipos)).Sub(com)))
		}
		// MuJoCo's armature is rotor inertia on the joint coordinate; in
		// maximal coordinates it is inertia about the joint axis on the
		// moving body (exact for a hinge on a fixed parent)
		for _, bi := range s.members {
			for _, j := range c.bodies[bi].joints {
				if j.arm > 0 && j.typ == "hinge" && c.opt.BodyArmature {
					a := c.bodies[bi].wrot.Rotate(j.axis.Normalize())
					t.add(sym3{j.arm * a.X * a.X, j.arm * a.Y * a.Y, j.arm * a.Z * a.Z, j.arm * a.X * a.Y, j.arm * a.X * a.Z, j.arm * a.Y * a.Z})
				}
			}
		}
		pr, rot := t.principal()
		if e, _ := s.explicit(c); min(pr.X, pr.Y, pr.Z) < mjMINVAL && e.name == "inertial" {
			attr := "diaginertia"
			if _, ok := e.attr("fullinertia"); ok {
				attr = "fullinertia"
			}
			c.fail(e, attr, fmt.Sprintf("gives moving body %q (it has joints) principal moments %.3g %.3g %.3g kg·m², one below MuJoCo's floor mjMINVAL = %g: give it a real inertia", c.bodies[s.members[0]].name, pr.X, pr.Y, pr.Z, mjMINVAL))
			continue
		}
		const minI = 1e-12 // kg·m²: sim needs a positive-definite inertia
		pr = sim.V3(max(pr.X, minI), max(pr.Y, minI), max(pr.Z, minI))
		s.mass, s.pos, s.rot, s.inertia = mass, com, rot, pr
	}
	// shares: intermediates take share·(carrier's total); the carrier keeps the rest
	for _, s := range sb {
		if s.of >= 0 {
			car := sb[s.of]
			s.pos, s.rot = car.pos, car.rot
			s.mass = car.mass * s.share
			s.inertia = car.inertia.Scale(s.share)
		}
	}
	for _, s := range sb {
		if s.of < 0 && s.share > 0 && s.share < 1 {
			s.mass *= s.share
			s.inertia = s.inertia.Scale(s.share)
		}
	}
}

var shapeKinds = map[string]sim.ShapeKind{"plane": sim.Plane, "box": sim.Box, "sphere": sim.Sphere, "capsule": sim.Capsule, "cylinder": sim.Cylinder}

func (c *compiler) emitGeoms(b *sim.Builder, m *Model) {
	for _, g := range c.geoms {
		f := m.Bodies[g.body].Frame
		gf := Frame{Body: f.Body, Pos: f.Pos.Add(f.Rot.Rotate(g.pos)), Rot: f.Rot.Mul(g.rot).Normalize()}
		out := Geom{Name: g.name, Type: g.typ, Body: g.body, Frame: gf, Size: g.size, RGBA: g.rgba, Shape: -1, Group: g.group}
		if g.mesh != nil {
			out.Mesh = g.mesh.mesh
		}
		if kind, ok := shapeKinds[g.typ]; ok {
			collides := g.collides
			if kind == sim.Plane && f.Body != sim.World {
				collides = false
			}
			d := sim.ShapeDesc{Name: g.name, Kind: kind, Size: g.size, Pos: gf.Pos, Rot: gf.Rot,
				Friction: g.friction, TorsionalFriction: g.torsion, Color: g.rgba, NoCollide: !collides}
			if collides && (g.contype != 1 || g.conaff != 1) {
				d.ContactType, d.ContactAffinity = g.contype, g.conaff
			}
			if kind == sim.Plane {
				d.Size = sim.V3(g.size.X, g.size.Y, 0)
			}
			out.Shape = b.AddShape(f.Body, d)
			out.Collides = collides
		}
		m.Geoms = append(m.Geoms, out)
	}
}

func (c *compiler) emitJoints(b *sim.Builder, m *Model, sb []*simBody, ids []sim.BodyID) {
	for _, j := range c.joints {
		mb := c.bodies[j.body]
		out := Joint{Name: j.name, Type: j.typ, Body: j.body, Sim: -1, Ref: j.ref, Limited: j.limited, Range: [2]float64{j.lo, j.hi}, Pos: j.pos}
		if j.typ != "free" {
			out.Axis = j.axis.Normalize()
		}
		if j.typ != "free" {
			k := 0
			for i, jj := range mb.joints {
				if jj == j {
					k = i
				}
			}
			parent := ids[c.bodies[mb.parent].carrier]
			child := ids[mb.carrier]
			if !mb.compound {
				child = ids[mb.chain[k]]
				if k > 0 {
					parent = ids[mb.chain[k-1]]
				}
			}
			kind := sim.Revolute
			if j.typ == "slide" {
				kind = sim.Prismatic
			}
			// rotor inertia on the coordinate (a slide's is added mass along it)
			armature := j.arm
			if j.typ == "hinge" && c.opt.BodyArmature {
				armature = 0
			}
			// MuJoCo's parent filter skips bodies welded to the world
			collide := parent == sim.World && (mb.compound || k == len(mb.joints)-1)
			j.sim = b.AddJoint(sim.JointDesc{Name: j.name, Kind: kind, Parent: parent, Child: child, Compound: mb.compound && k > 0, Collide: collide,
				Anchor: mb.wpos.Add(mb.wrot.Rotate(j.pos)), Axis: mb.wrot.Rotate(j.axis.Normalize()),
				Limited: j.limited, Lower: j.lo - j.ref, Upper: j.hi - j.ref,
				Damping: j.damping, Stiffness: j.stiffness, SpringRef: j.springref - j.ref, Armature: armature})
			out.Sim = j.sim
		}
		m.Joints = append(m.Joints, out)
	}
}

func (c *compiler) emitSitesCameras(m *Model) {
	for i, e := range c.sites {
		a := c.attrsOf(e, "site", c.siteCls[i])
		s := Site{Name: a.str("name", ""), Body: c.siteBody[i], Type: a.oneOf("type", "sphere", "sphere", "box", "capsule", "cylinder", "ellipsoid")}
		pos, rot := a.vec3("pos", sim.Vec3{}), a.orientation()
		if f, ok := a.floats("size", 1, 3); ok {
			for k, x := range f {
				switch k {
				case 0:
					s.Size.X = x
				case 1:
					s.Size.Y = x
				default:
					s.Size.Z = x
				}
			}
		} else {
			s.Size = sim.V3(0.005, 0.005, 0.005)
		}
		s.RGBA = rgbaOf(a, [4]float32{0.5, 0.5, 0.5, 1})
		a.ignore("group", "material", "user")
		a.finish()
		f := m.Bodies[s.Body].Frame
		s.Frame = Frame{Body: f.Body, Pos: f.Pos.Add(f.Rot.Rotate(pos)), Rot: f.Rot.Mul(rot).Normalize()}
		m.Sites = append(m.Sites, s)
	}
	for i, e := range c.cameras {
		a := c.attrsOf(e, "camera", c.camCls[i])
		cam := Camera{Name: a.str("name", ""), Body: c.camBod[i], Fovy: a.float("fovy", 45)}
		pos, rot := a.vec3("pos", sim.Vec3{}), a.orientation()
		if mode := a.str("mode", "fixed"); mode != "fixed" {
			c.warn(fmt.Sprintf("<camera> mode %q kept fixed to its body", mode))
		}
		a.ignore("target", "ipd", "user", "resolution", "focal", "sensorsize", "principal", "focalpixel", "principalpixel")
		a.finish()
		f := m.Bodies[cam.Body].Frame
		cam.Frame = Frame{Body: f.Body, Pos: f.Pos.Add(f.Rot.Rotate(pos)), Rot: f.Rot.Mul(rot).Normalize()}
		m.Cameras = append(m.Cameras, cam)
	}
}

func (c *compiler) bodyByName(e *element, attr, name string) (int, bool) {
	for i, b := range c.bodies {
		if b.name == name {
			return i, true
		}
	}
	c.fail(e, attr, fmt.Sprintf("body %q does not exist", name))
	return 0, false
}

func (c *compiler) contactElem(b *sim.Builder, m *Model, e *element) {
	for _, ch := range e.children {
		switch ch.name {
		case "exclude":
			a := c.attrsOf(ch, "exclude", nil)
			n1, n2 := a.str("body1", ""), a.str("body2", "")
			a.ignore("name")
			a.finish()
			i1, ok1 := c.bodyByName(ch, "body1", n1)
			i2, ok2 := c.bodyByName(ch, "body2", n2)
			if ok1 && ok2 && m.Bodies[i1].Frame.Body != m.Bodies[i2].Frame.Body {
				b.ExcludePair(m.Bodies[i1].Frame.Body, m.Bodies[i2].Frame.Body)
				for _, i := range []int{i1, i2} {
					if c.bodies[i].carrier != 0 && len(c.bodies[i].joints) > 0 || c.bodies[i].free {
						continue
					}
					c.warn(fmt.Sprintf("<exclude> of a body without joints covers every body merged with it (here %q)", c.bodies[i].name))
				}
			}
		default:
			c.unsupported(ch, "only contact/exclude is supported (explicit pairs are not)")
		}
	}
}

func (c *compiler) equalityElem(b *sim.Builder, m *Model, e *element) {
	main := c.classes["main"]
	for _, ch := range e.children {
		if ch.name != "weld" {
			c.unsupported(ch, "only weld equalities are in the engine")
			continue
		}
		a := c.attrsOf(ch, "equality", c.classFor(ch, main))
		n1, n2 := a.str("body1", ""), a.str("body2", "world")
		active := a.bool("active", true)
		a.warnIf("the engine's weld uses its own softness", "solref", "solimp")
		a.ignore("name")
		if a.has("relpose") {
			c.fail(ch, "relpose", "is not supported: the weld holds the qpos0 relative pose")
		}
		a.finish()
		i1, ok1 := c.bodyByName(ch, "body1", n1)
		i2, ok2 := c.bodyByName(ch, "body2", n2)
		if !ok1 || !ok2 || !active {
			continue
		}
		child, parent := m.Bodies[i1].Frame.Body, m.Bodies[i2].Frame.Body
		if child == parent || child == sim.World {
			c.fail(ch, "body1", "must be a moving body other than body2's")
			continue
		}
		b.AddJoint(sim.JointDesc{Name: "weld:" + n1, Kind: sim.Weld, Parent: parent, Child: child, Anchor: m.Bodies[i1].Pos})
	}
}

func (c *compiler) actuator(b *sim.Builder, m *Model, e *element) {
	main := c.classes["main"]
	a := c.attrsOf(e, "actuator", c.classFor(e, main))
	typ := e.name
	switch typ {
	case "motor", "position", "velocity", "general":
	default:
		a.ignore(attrNames(e)...)
		for k := range a.def {
			a.used[k] = true
		}
		c.unsupported(e, "only motor, position, velocity and general actuators are supported")
		return
	}
	a.used["$type"] = true
	out := Actuator{Name: a.str("name", ""), Type: typ}
	jname, ok := e.attr("joint")
	a.used["joint"] = true
	if !ok {
		if jn, ok2 := e.attr("jointinparent"); ok2 {
			jname, ok = jn, true
			a.used["jointinparent"] = true
		}
	}
	for _, tr := range []string{"tendon", "site", "body", "cranksite", "slidersite", "refsite"} {
		if a.has(tr) {
			a.ignore(attrNames(e)...)
			for k := range a.def {
				a.used[k] = true
			}
			c.unsupported(e, fmt.Sprintf("transmission %q: only joint transmissions are supported", tr))
			return
		}
	}
	j, found := c.jointIdx[jname]
	if !ok || !found || j.typ == "free" {
		c.fail(e, "joint", fmt.Sprintf("%q must name a hinge or slide joint", jname))
		a.ignore(attrNames(e)...)
		for k := range a.def {
			a.used[k] = true
		}
		return
	}
	d := c.actuatorParams(a, e, typ, j)
	d.Name = out.Name
	// a default written for another shortcut may carry its parameters
	for _, k := range []string{"kp", "kv", "gainprm", "biasprm", "biastype", "gaintype", "dyntype", "dynprm"} {
		if _, ok := e.attr(k); !ok {
			a.used[k] = true
		}
	}
	cl := a.tri("ctrllimited")
	if r, ok := a.floats("ctrlrange", 2, 2); ok {
		out.CtrlRange = [2]float64{r[0], r[1]}
		if !(r[0] <= r[1]) {
			c.fail(e, "ctrlrange", fmt.Sprintf("%g %g has lower > upper", r[0], r[1]))
		}
		out.CtrlLimited = cl == 1 || (cl == -1 && c.autolimits)
	} else if cl == 1 {
		c.fail(e, "ctrlrange", "is required when ctrllimited is true")
	}
	fl := a.tri("forcelimited")
	if r, ok := a.floats("forcerange", 2, 2); ok {
		d.ForceLimited = fl == 1 || (fl == -1 && c.autolimits)
		d.ForceLow, d.ForceHigh = r[0], r[1]
		if !(r[0] <= r[1]) {
			c.fail(e, "forcerange", fmt.Sprintf("%g %g has lower > upper", r[0], r[1]))
		}
	}
	if a.has("actlimited") || a.has("actrange") || a.has("lengthrange") {
		a.warnIf("actuator activations and length ranges are not used", "actlimited", "actrange", "lengthrange")
	}
	a.ignore("group", "user", "actdim", "actearly")
	a.finish()
	d.CtrlLimited, d.CtrlLow, d.CtrlHigh = out.CtrlLimited, out.CtrlRange[0], out.CtrlRange[1]
	if d.Bias[1] > 0 || d.Bias[2] > 0 {
		c.fail(e, "biasprm", "positive position or velocity feedback is not supported")
		return
	}
	out.Joint = j.index
	out.Sim = b.AddActuator(d)
	m.Actuators = append(m.Actuators, out)
}

// actuatorParams reads the gear and the gain and bias of one actuator
// shortcut (motor, position, velocity) or a general actuator.
func (c *compiler) actuatorParams(a *attrSet, e *element, typ string, j *mjoint) sim.ActuatorDesc {
	gear := 1.0
	if g, ok := a.floats("gear", 1, 6); ok {
		gear = g[0]
		for _, x := range g[1:] {
			if x != 0 {
				c.fail(e, "gear", "only the first component applies to a joint")
			}
		}
	}
	d := sim.ActuatorDesc{Joint: j.sim, Gear: gear}
	switch typ {
	case "motor":
		d.Gain = 1
	case "position":
		kp := a.float("kp", 1)
		d.Gain, d.Bias = kp, [3]float64{0, -kp, 0}
		if a.has("kv") {
			c.fail(e, "kv", "is not in MuJoCo 2.2.2's position actuator; use a general actuator")
		}
	case "velocity":
		kv := a.float("kv", 1)
		d.Gain, d.Bias = kv, [3]float64{0, 0, -kv}
	case "general":
		a.oneOf("dyntype", "none", "none")
		a.oneOf("gaintype", "fixed", "fixed")
		bt := a.oneOf("biastype", "none", "none", "affine")
		gp := []float64{1}
		if f, ok := a.floats("gainprm", 1, 10); ok {
			gp = f
		}
		d.Gain = gp[0]
		if bt == "affine" {
			if f, ok := a.floats("biasprm", 1, 10); ok {
				copy(d.Bias[:], f)
			}
		} else {
			a.used["biasprm"] = true
		}
		a.ignore("dynprm")
	}
	return d
}

// fixActuatorCtrl fills Actuator.Ctrl from the built model.
func (m *Model) fixActuatorCtrl() {
	for i := range m.Actuators {
		m.Actuators[i].Ctrl = m.Sim.Actuators[m.Actuators[i].Sim].CtrlIndex
	}
}

// compoundable reports whether body mb's joints can be one compound sim
// joint: 2 or 3 hinges with independent axes (sim.JointDesc.Compound),
// unless Options.Chain asks for the chain of sim bodies.
func (c *compiler) compoundable(mb *mbody) bool {
	if c.opt.Chain || len(mb.joints) > 3 {
		return false
	}
	var w []sim.Vec3
	for _, j := range mb.joints {
		if j.typ != "hinge" {
			return false
		}
		w = append(w, j.axis.Normalize())
	}
	if len(w) == 2 {
		return w[0].Cross(w[1]).Norm() > 1e-6
	}
	return math.Abs(w[0].Dot(w[1].Cross(w[2]))) > 1e-6
}

// explicit returns the element to blame for the mass properties of s:
// the first <inertial> of its MJCF bodies (with attribute "mass"), or
// else its first body (no attribute).
func (s *simBody) explicit(c *compiler) (*element, string) {
	for _, bi := range s.members {
		if in := c.bodies[bi].inertial; in != nil && in.e != nil {
			return in.e, "mass"
		}
	}
	return c.bodies[s.members[0]].e, ""
}
