package mjcf

import (
	"fmt"
	"math"

	"github.com/vlmrb/vlmrb/sim"
)

// mbody is an MJCF body during compilation.
type mbody struct {
	e        *element
	name     string
	parent   int
	pos      sim.Vec3 // in the parent frame
	rot      sim.Quat
	wpos     sim.Vec3 // world at qpos0
	wrot     sim.Quat
	joints   []*mjoint
	free     bool
	geoms    []*mgeom
	inertial *inertial
	// mass properties (MuJoCo's)
	mass     float64
	inertia  sim.Vec3
	ipos     sim.Vec3
	iquat    sim.Quat
	gravcomp float64
	mocap    bool // a caller-driven mocap body
}

type inertial struct {
	mass float64
	pos  sim.Vec3
	rot  sim.Quat
	full [6]float64 // xx yy zz xy xz yz in the inertial frame
	e    *element   // the <inertial>, for errors
}

// mjoint is an MJCF hinge or slide joint during compilation.
type mjoint struct {
	e                       *element
	name, typ               string
	body                    int
	pos, axis               sim.Vec3 // body frame
	limited                 bool
	lo, hi                  float64
	ref, springref          float64
	damping, stiffness, arm float64
	index                   int
	actfrcLimited           bool
	actfrcRange             [2]float64
	solref                  [2]float64
	solimp                  [5]float64
	margin                  float64
	floss                   float64
	solreffr                [2]float64
	solimpfr                [5]float64
}

// mgeom is an MJCF geom during compilation.
type mgeom struct {
	e         *element
	name, typ string
	body      int
	pos       sim.Vec3 // body frame
	rot       sim.Quat
	size      sim.Vec3 // half extents, radius, half length
	mass      float64  // kg (from mass or density·volume)
	rgba      [4]float32
	contype   uint32
	conaff    uint32
	mesh      *meshAsset
	group     int
	meshCOM   sim.Vec3 // mesh inertial frame in the geom frame
	meshRot   sim.Quat
	meshI     sim.Vec3      // per unit mass, principal
	art       artGeomParams // as written, for the articulated engine
}

func (c *compiler) worldbody(e *element, main *class) {
	c.bodies = []*mbody{{e: e, name: "world", parent: -1, rot: sim.Identity(), wrot: sim.Identity(), iquat: sim.Identity()}}
	c.jointIdx = map[string]*mjoint{}
	a := c.attrsOf(e, "worldbody", nil)
	a.finish()
	c.bodyChildren(e, 0, main)
}

// bodyChildren compiles the children of body element e (index bi).
func (c *compiler) bodyChildren(e *element, bi int, cls *class) {
	b := c.bodies[bi]
	for _, ch := range e.children {
		switch ch.name {
		case "body":
			c.body(ch, bi, cls)
		case "geom":
			c.geom(ch, bi, c.classFor(ch, cls))
		case "joint":
			c.joint(ch, bi, c.classFor(ch, cls))
		case "freejoint":
			a := c.attrsOf(ch, "freejoint", nil)
			a.ignore("name", "group")
			a.finish()
			c.freeJoint(ch, bi)
		case "site":
			c.sites = append(c.sites, ch)
			c.siteBody = append(c.siteBody, bi)
			c.siteCls = append(c.siteCls, c.classFor(ch, cls))
		case "camera":
			c.cameras = append(c.cameras, ch)
			c.camBod = append(c.camBod, bi)
			c.camCls = append(c.camCls, c.classFor(ch, cls))
		case "inertial":
			if bi == 0 {
				c.fail(ch, "", "the world has no inertial")
				continue
			}
			c.inertialElem(ch, b)
		case "light":
			c.dropped(ch, "lights are the renderer's")
		case "composite", "flexcomp":
			c.unsupported(ch, "composite objects (cloth, ropes, soft bodies) are not in the engine")
		default:
			c.unsupported(ch, "unknown body element")
		}
	}
}

func (c *compiler) body(e *element, parent int, inherited *class) {
	// childclass applies to this body's own elements and its descendants
	childcls := inherited
	if n, ok := e.attr("childclass"); ok {
		if cc, ok := c.classes[n]; ok {
			childcls = cc
		} else {
			c.fail(e, "childclass", fmt.Sprintf("%q is not a defined default class", n))
		}
	}
	a := c.attrsOf(e, "body", nil)
	p := c.bodies[parent]
	b := &mbody{e: e, name: a.str("name", ""), parent: parent, iquat: sim.Identity()}
	b.pos = a.vec3("pos", sim.Vec3{})
	b.rot = a.orientation()
	b.gravcomp = a.float("gravcomp", 0)
	b.mocap = a.bool("mocap", false)
	a.ignore("user")
	a.finish()
	b.wpos = p.wpos.Add(p.wrot.Rotate(b.pos))
	b.wrot = p.wrot.Mul(b.rot).Normalize()
	c.bodies = append(c.bodies, b)
	c.bodyChildren(e, len(c.bodies)-1, childcls)
}

func (c *compiler) inertialElem(e *element, b *mbody) {
	a := c.attrsOf(e, "inertial", nil)
	in := &inertial{mass: a.float("mass", 0), pos: a.vec3("pos", sim.Vec3{}), rot: a.orientation(), e: e}
	if !a.has("pos") {
		c.fail(e, "pos", "is required")
	}
	if !a.has("mass") {
		c.fail(e, "mass", "is required")
	}
	if f, ok := a.floats("diaginertia", 3, 3); ok {
		in.full = [6]float64{f[0], f[1], f[2], 0, 0, 0}
	} else if f, ok := a.floats("fullinertia", 6, 6); ok {
		in.full = [6]float64{f[0], f[1], f[2], f[3], f[4], f[5]}
	} else {
		c.fail(e, "diaginertia", "or fullinertia is required")
	}
	a.finish()
	if in.mass < 0 {
		c.fail(e, "mass", "must be >= 0")
	}
	c.checkInertia(e, in.full)
	b.inertial = in
}

// mjMINVAL is MuJoCo's floor (mjMINVAL, 1e-15) for the mass and every
// principal inertia of a moving body; its compiler refuses smaller ones
// ("mass and inertia of moving bodies must be larger than mjMINVAL").
const mjMINVAL = 1e-15

// checkInertia applies MuJoCo's compiler rules to an explicit inertia
// (diaginertia, or fullinertia with off-diagonal terms): no negative
// moment, a positive-definite matrix, and principal moments A, B, C with
// A + B >= C for every ordering (the triangle inequality every real mass
// distribution satisfies; MuJoCo: "inertia must satisfy A + B >= C").
func (c *compiler) checkInertia(e *element, full [6]float64) {
	attr := "diaginertia"
	if _, ok := e.attr("fullinertia"); ok {
		attr = "fullinertia"
	}
	var pr sim.Vec3
	slack := 0.0
	if full[3] == 0 && full[4] == 0 && full[5] == 0 {
		pr = sim.V3(full[0], full[1], full[2])
		if pr.X < 0 || pr.Y < 0 || pr.Z < 0 {
			c.fail(e, attr, fmt.Sprintf("%g %g %g has a negative moment; inertia must be >= 0", pr.X, pr.Y, pr.Z))
			return
		}
	} else {
		pr, _ = sym3{full[0], full[1], full[2], full[3], full[4], full[5]}.principal()
		if !(pr.X > 0 && pr.Y > 0 && pr.Z > 0) {
			c.fail(e, attr, fmt.Sprintf("is not positive-definite (principal moments %.6g %.6g %.6g)", pr.X, pr.Y, pr.Z))
			return
		}
		// the eigen-decomposition rounds: allow a few ulps of the largest moment
		slack = 1e-12 * max(pr.X, pr.Y, pr.Z)
	}
	if pr.X+pr.Y < pr.Z-slack || pr.X+pr.Z < pr.Y-slack || pr.Y+pr.Z < pr.X-slack {
		c.fail(e, attr, fmt.Sprintf("principal moments %.6g %.6g %.6g violate the triangle inequality A + B >= C, which every real body satisfies (MuJoCo refuses them too)", pr.X, pr.Y, pr.Z))
	}
}

func (c *compiler) freeJoint(e *element, bi int) {
	b := c.bodies[bi]
	if bi == 0 {
		c.fail(e, "", "the world cannot have a joint")
		return
	}
	if b.parent != 0 {
		c.unsupported(e, "a free joint is only supported on a body of the worldbody")
		return
	}
	if b.free || len(b.joints) > 0 {
		c.fail(e, "", "a free joint cannot be combined with other joints")
	}
	b.free = true
	name, _ := e.attr("name")
	c.joints = append(c.joints, &mjoint{e: e, name: name, typ: "free", body: bi, index: len(c.joints)})
}

func (c *compiler) joint(e *element, bi int, cls *class) {
	a := c.attrsOf(e, "joint", cls)
	typ := a.oneOf("type", "hinge", "hinge", "slide", "free", "ball")
	if typ == "free" {
		c.artFreeJoint(a)
		a.ignore("name", "pos", "axis", "damping", "stiffness", "armature", "limited", "range", "group",
			"solreflimit", "solimplimit", "margin", "ref", "springref", "frictionloss", "solref", "solimp", "user")
		a.finish()
		c.freeJoint(e, bi)
		return
	}
	if bi == 0 {
		c.fail(e, "", "the world cannot have a joint")
		return
	}
	b := c.bodies[bi]
	if b.free {
		c.fail(e, "", "a free joint cannot be combined with other joints")
	}
	j := &mjoint{e: e, name: a.str("name", ""), typ: typ, body: bi, index: len(c.joints)}
	j.pos = a.vec3("pos", sim.Vec3{})
	j.axis = a.vec3("axis", sim.V3(0, 0, 1))
	if j.axis.Norm() == 0 {
		c.fail(e, "axis", "is zero")
	}
	ang := func(x float64) float64 {
		if typ == "hinge" {
			return c.angle(x)
		}
		return x
	}
	lim := a.tri("limited")
	if r, ok := a.floats("range", 2, 2); ok {
		j.lo, j.hi = ang(r[0]), ang(r[1])
		j.limited = lim == 1 || (lim == -1 && c.autolimits)
	} else if lim == 1 {
		c.fail(e, "range", "is required when limited is true")
	}
	if j.limited && j.lo > j.hi {
		c.fail(e, "range", "has lower > upper")
	}
	j.ref = ang(a.float("ref", 0))
	j.springref = ang(a.float("springref", 0))
	j.damping = a.float("damping", 0)
	j.stiffness = a.float("stiffness", 0)
	j.arm = a.float("armature", 0)
	if j.damping < 0 || j.stiffness < 0 || j.arm < 0 {
		c.fail(e, "damping", "damping, stiffness and armature must be >= 0")
	}
	c.artJoint(a, j)
	a.ignore("group", "user", "actuatorfrclimited", "actuatorfrcrange")
	a.finish()
	if j.name != "" {
		if _, dup := c.jointIdx[j.name]; dup {
			c.fail(e, "name", fmt.Sprintf("joint %q is defined twice", j.name))
		}
		c.jointIdx[j.name] = j
	}
	b.joints = append(b.joints, j)
	c.joints = append(c.joints, j)
}

func attrNames(e *element) []string {
	var n []string
	for _, a := range e.attrs {
		n = append(n, a.Name.Local)
	}
	return n
}

func (c *compiler) geom(e *element, bi int, cls *class) {
	a := c.attrsOf(e, "geom", cls)
	g := &mgeom{e: e, name: a.str("name", ""), body: bi}
	g.typ = a.oneOf("type", "sphere", "plane", "box", "sphere", "capsule", "cylinder", "ellipsoid", "mesh")
	g.pos = a.vec3("pos", sim.Vec3{})
	g.rot = a.orientation()
	c.geomSize(a, g)
	g.rgba = [4]float32{0.5, 0.5, 0.5, 1}
	if mat := a.str("material", ""); mat != "" {
		if rgba, ok := c.materials[mat]; ok {
			g.rgba = rgba
		} else {
			c.warn(fmt.Sprintf("%s: material %q is not defined", e.where(), mat))
		}
	}
	g.rgba = rgbaOf(a, g.rgba)
	c.geomContact(a, g)
	g.art = readArtGeomParams(a) // articulated_geoms.go
	a.ignore("user", "fitscale", "fluidshape", "fluidcoef")
	density := a.float("density", 1000)
	if g.typ == "mesh" {
		name := a.str("mesh", "")
		ma, ok := c.meshes[name]
		if !ok {
			c.fail(e, "mesh", fmt.Sprintf("%q is not a defined mesh asset", name))
		} else {
			g.mesh = ma
			if ma.mesh != nil {
				g.meshCOM, g.meshRot, g.meshI = ma.com, ma.rot, ma.unitI
			}
		}
	} else if a.has("mesh") {
		c.warn(fmt.Sprintf("%s: mesh ignored on a %s geom", e.where(), g.typ))
	}
	if a.has("hfield") {
		c.fail(e, "hfield", "height fields are not supported")
	}
	vol := geomVolume(g)
	if a.has("mass") {
		g.mass = a.float("mass", 0)
	} else {
		g.mass = density * vol
	}
	a.finish()
	if g.mass < 0 || !(vol >= 0) {
		c.fail(e, "mass", "mass and density must be >= 0")
	}
	c.checkSize(g)
	if g.typ == "plane" && bi != 0 && (g.contype != 0 || g.conaff != 0) {
		c.warn(fmt.Sprintf("%s: a plane on a body: it is static in the engine only on the world", e.where()))
	}
	c.bodies[bi].geoms = append(c.bodies[bi].geoms, g)
	c.geoms = append(c.geoms, g)
}

// geomSize reads size and fromto (which also sets the pose) as half
// extents, radius and half length.
func (c *compiler) geomSize(a *attrSet, g *mgeom) {
	e := g.e
	size, _ := a.floats("size", 1, 3)
	sz := func(i int) float64 {
		if i < len(size) {
			return size[i]
		}
		return 0
	}
	if ft, ok := a.floats("fromto", 6, 6); ok {
		if a.has("pos") || a.has("quat") || a.has("euler") || a.has("axisangle") || a.has("xyaxes") || a.has("zaxis") {
			c.warn("<geom> fromto overrides pos and orientation")
		}
		p0, p1 := sim.V3(ft[0], ft[1], ft[2]), sim.V3(ft[3], ft[4], ft[5])
		d := p1.Sub(p0)
		if d.Norm() == 0 {
			c.fail(e, "fromto", "has zero length")
		}
		g.pos = p0.Add(p1).Scale(0.5)
		g.rot = quatBetween(sim.V3(0, 0, 1), d.Normalize())
		hl := d.Norm() / 2
		switch g.typ {
		case "capsule", "cylinder":
			g.size = sim.V3(sz(0), hl, 0)
		case "box", "ellipsoid":
			g.size = sim.V3(sz(0), sz(1), hl)
		default:
			c.fail(e, "fromto", fmt.Sprintf("is not valid for a %s", g.typ))
		}
	} else {
		switch g.typ {
		case "box", "ellipsoid":
			g.size = sim.V3(sz(0), sz(1), sz(2))
		case "sphere":
			g.size = sim.V3(sz(0), 0, 0)
		case "capsule", "cylinder":
			g.size = sim.V3(sz(0), sz(1), 0)
		case "plane":
			g.size = sim.V3(sz(0), sz(1), sz(2))
		}
	}
}

// geomContact checks condim and reads contype, conaffinity and group
// (readArtGeomParams reads the rest of the contact attributes).
func (c *compiler) geomContact(a *attrSet, g *mgeom) {
	switch condim := a.int("condim", 3); condim {
	case 1, 3, 4, 6:
	default:
		c.fail(g.e, "condim", fmt.Sprintf("%d must be 1, 3, 4 or 6", condim))
	}
	g.contype = uint32(a.int("contype", 1))
	g.conaff = uint32(a.int("conaffinity", 1))
	g.group = a.int("group", 0)
}

func (c *compiler) checkSize(g *mgeom) {
	s := g.size
	ok := true
	switch g.typ {
	case "box", "ellipsoid":
		ok = s.X > 0 && s.Y > 0 && s.Z > 0
	case "sphere":
		ok = s.X > 0
	case "capsule", "cylinder":
		ok = s.X > 0 && s.Y > 0
	case "plane":
		ok = s.X >= 0 && s.Y >= 0
	}
	if !ok {
		c.fail(g.e, "size", fmt.Sprintf("%v is not a valid %s size", [3]float64{s.X, s.Y, s.Z}, g.typ))
	}
}

// geomVolume returns the geom's volume (m³; 0 for planes).
func geomVolume(g *mgeom) float64 {
	s := g.size
	switch g.typ {
	case "box":
		return 8 * s.X * s.Y * s.Z
	case "sphere":
		return 4.0 / 3 * math.Pi * s.X * s.X * s.X
	case "capsule":
		return math.Pi*s.X*s.X*2*s.Y + 4.0/3*math.Pi*s.X*s.X*s.X
	case "cylinder":
		return math.Pi * s.X * s.X * 2 * s.Y
	case "ellipsoid":
		return 4.0 / 3 * math.Pi * s.X * s.Y * s.Z
	case "mesh":
		if g.mesh != nil && g.mesh.mesh != nil {
			return g.mesh.volume
		}
	}
	return 0
}

// geomInertia returns the principal inertia (kg·m²) of geom g about its
// centre in the geom frame (for meshes: in the mesh's inertial frame).
func geomInertia(g *mgeom) sim.Vec3 {
	m, s := g.mass, g.size
	switch g.typ {
	case "box":
		x, y, z := 2*s.X, 2*s.Y, 2*s.Z
		return sim.V3(m*(y*y+z*z)/12, m*(x*x+z*z)/12, m*(x*x+y*y)/12)
	case "sphere":
		i := 0.4 * m * s.X * s.X
		return sim.V3(i, i, i)
	case "ellipsoid":
		a, b, cc := s.X, s.Y, s.Z
		return sim.V3(m*(b*b+cc*cc)/5, m*(a*a+cc*cc)/5, m*(a*a+b*b)/5)
	case "cylinder":
		r, h := s.X, 2*s.Y
		ix := m * (3*r*r + h*h) / 12
		return sim.V3(ix, ix, m*r*r/2)
	case "capsule":
		r, h := s.X, 2*s.Y
		vc := math.Pi * r * r * h
		vs := 4.0 / 3 * math.Pi * r * r * r
		mc := m * vc / (vc + vs)
		ms := m * vs / (vc + vs)
		iz := mc*r*r/2 + ms*0.4*r*r
		ix := mc*(3*r*r+h*h)/12 + ms*(0.4*r*r+h*h/4+3*h*r/8)
		return sim.V3(ix, ix, iz)
	case "mesh":
		return g.meshI.Scale(m)
	}
	return sim.Vec3{}
}
