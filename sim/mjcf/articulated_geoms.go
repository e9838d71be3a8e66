package mjcf

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/convex"
)

// artGeomParams are a geom's contact attributes as written (MuJoCo's
// defaults where absent), for the articulated engine's collision geoms.
type artGeomParams struct {
	condim   int
	friction [3]float64
	margin   float64
	gap      float64
	solref   [2]float64
	solimp   [5]float64
	solmix   float64
	priority int
}

// readArtGeomParams reads a <geom>'s contact attributes (its class
// defaults included) with MuJoCo's defaults.
func readArtGeomParams(a *attrSet) artGeomParams {
	p := artGeomParams{condim: 3, friction: [3]float64{1, 0.005, 0.0001}, solref: [2]float64{0.02, 1},
		solimp: [5]float64{0.9, 0.95, 0.001, 0.5, 2}, solmix: 1}
	if f, ok := a.floats("friction", 1, 3); ok {
		copy(p.friction[:], f)
	}
	if p.friction == [3]float64{} {
		// MuJoCo clamps friction to mjMINMU; the engine reads all zeros
		// as "default"
		p.friction = [3]float64{1e-5, 1e-5, 1e-5}
	}
	p.condim = a.int("condim", 3)
	p.margin = a.float("margin", 0)
	p.gap = a.float("gap", 0)
	if f, ok := a.floats("solref", 2, 2); ok {
		copy(p.solref[:], f)
	}
	if f, ok := a.floats("solimp", 3, 5); ok {
		copy(p.solimp[:], f)
	}
	p.solmix = a.float("solmix", 1)
	p.priority = a.int("priority", 0)
	return p
}

// artKinds maps MJCF geom types to the engine's.
var artKinds = map[string]convex.Kind{"plane": convex.Plane, "sphere": convex.Sphere, "capsule": convex.Capsule,
	"ellipsoid": convex.Ellipsoid, "cylinder": convex.Cylinder, "box": convex.Box, "mesh": convex.Mesh}

// artGeoms builds the engine's collision geoms from the compiled geoms
// that collide (contype or conaffinity nonzero): MuJoCo's sizes, the
// geom frame in the body frame (a mesh's moved to its centroid and
// principal axes, as MuJoCo's compiler does, with its convex hull built
// in that frame).
func (c *compiler) artGeoms(include map[*mgeom]bool) ([]articulated.Geom, map[*mgeom]int) {
	var out []articulated.Geom
	index := map[*mgeom]int{}
	for _, g := range c.geoms {
		if g.contype == 0 && g.conaff == 0 && !include[g] {
			continue
		}
		k, ok := artKinds[g.typ]
		if !ok {
			c.unsupported(g.e, fmt.Sprintf("geom type %q does not collide in the articulated engine", g.typ))
			continue
		}
		pos, rot := g.pos, g.rot
		ag := articulated.Geom{Name: g.name, Type: k, Body: g.body, Size: v3(g.size),
			Contype: g.contype, Conaffinity: g.conaff, Condim: g.art.condim, Friction: g.art.friction,
			Margin: g.art.margin, Gap: g.art.gap, SolRef: g.art.solref, SolImp: g.art.solimp,
			SolMix: g.art.solmix, Priority: g.art.priority}
		if k == convex.Mesh {
			if g.mesh == nil || g.mesh.mesh == nil {
				continue // the asset's error is reported already
			}
			mr := g.meshRot.Normalize()
			pts := make([]convex.Vec3, len(g.mesh.mesh.Vertices))
			for i, v := range g.mesh.mesh.Vertices {
				pts[i] = convex.Vec3(v3(mr.InvRotate(v.Sub(g.meshCOM))))
			}
			h, err := convex.BuildHull(pts, convex.HullOptions{})
			if err != nil {
				c.fail(g.e, "mesh", fmt.Sprintf("%q has no convex hull to collide: %v", g.mesh.name, err))
				continue
			}
			ag.Hull = h
			pos, rot = pos.Add(rot.Rotate(g.meshCOM)), rot.Mul(mr)
		}
		if k == convex.Plane {
			ag.Size = [3]float64{g.size.X, g.size.Y, g.size.Z}
		}
		ag.Pos, ag.Quat = v3(pos), q4(rot.Normalize())
		index[g] = len(out)
		out = append(out, ag)
	}
	return out, index
}

// artPair is a <pair> read, its geoms not yet numbered.
type artPair struct {
	e      *element
	g1, g2 *mgeom
	p      articulated.Pair
}

// artPairElem reads a <pair>: its geoms and parameters (MuJoCo's pair
// defaults where absent, through articulated.Pair's zero values).
func (c *compiler) artPairElem(e *element, geomOf map[string]*mgeom) (artPair, bool) {
	a := c.attrsOf(e, "pair", c.classFor(e, c.classes["main"]))
	n1, n2 := a.str("geom1", ""), a.str("geom2", "")
	ap := artPair{e: e}
	ap.p.Condim = a.int("condim", 3)
	if f, ok := a.floats("friction", 1, 5); ok {
		ap.p.Friction = [5]float64{1, 1, 0.005, 0.0001, 0.0001}
		copy(ap.p.Friction[:], f)
		if ap.p.Friction == [5]float64{} {
			ap.p.Friction = [5]float64{1e-5, 1e-5, 1e-5, 1e-5, 1e-5} // mjMINMU, not "default"
		}
	}
	if f, ok := a.floats("solref", 2, 2); ok {
		copy(ap.p.SolRef[:], f)
	}
	if f, ok := a.floats("solimp", 3, 5); ok {
		ap.p.SolImp = [5]float64{0.9, 0.95, 0.001, 0.5, 2}
		copy(ap.p.SolImp[:], f)
	}
	ap.p.Margin = a.float("margin", 0)
	ap.p.Gap = a.float("gap", 0)
	if f, ok := a.floats("solreffriction", 2, 2); ok && (f[0] != 0 || f[1] != 0) {
		c.fail(e, "solreffriction", "is not in the articulated engine (only elliptic cones use it)")
	}
	a.ignore("name")
	a.finish()
	ok := true
	for _, n := range [2]struct {
		attr, name string
		dst        **mgeom
	}{{"geom1", n1, &ap.g1}, {"geom2", n2, &ap.g2}} {
		g, found := geomOf[n.name]
		if !found {
			c.fail(e, n.attr, fmt.Sprintf("%q is not a named geom", n.name))
			ok = false
			continue
		}
		*n.dst = g
	}
	if ok && ap.g1 == ap.g2 {
		c.fail(e, "geom2", fmt.Sprintf("%q is geom1 too: a pair needs two geoms", n2))
		ok = false
	}
	return ap, ok
}

// artContact reads a <contact> section: <exclude body1 body2> and <pair>.
func (c *compiler) artContact(e *element, geomOf map[string]*mgeom) ([]articulated.Exclude, []artPair) {
	bodyOf := map[string]int{}
	for i, b := range c.bodies {
		if b.name != "" {
			bodyOf[b.name] = i
		}
	}
	var out []articulated.Exclude
	var pairs []artPair
	for _, ch := range e.children {
		switch ch.name {
		case "exclude":
			a := c.attrsOf(ch, "exclude", nil)
			n1, n2 := a.str("body1", ""), a.str("body2", "")
			a.ignore("name")
			a.finish()
			b1, ok1 := bodyOf[n1]
			b2, ok2 := bodyOf[n2]
			if !ok1 {
				c.fail(ch, "body1", fmt.Sprintf("%q is not a body", n1))
			}
			if !ok2 {
				c.fail(ch, "body2", fmt.Sprintf("%q is not a body", n2))
			}
			if ok1 && ok2 {
				out = append(out, articulated.Exclude{Body1: b1, Body2: b2})
			}
		case "pair":
			if p, ok := c.artPairElem(ch, geomOf); ok {
				pairs = append(pairs, p)
			}
		default:
			c.unsupported(ch, "unknown child of <contact>")
		}
	}
	return out, pairs
}

// artInstallGeoms gives m its collision geoms when contacts are on, and
// reads <option impratio> (the cone is read with the other options).
func (c *compiler) artInstallGeoms(m *articulated.Model, root *element, contactSecs []*element) {
	for _, e := range root.children {
		if e.name != "option" {
			continue
		}
		if v, ok := e.attr("impratio"); ok {
			x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || !(x > 0) || math.IsInf(x, 0) {
				c.fail(e, "impratio", fmt.Sprintf("%q must be a number > 0", v))
			} else {
				m.ImpRatio = x
			}
		}
	}
	geomOf := map[string]*mgeom{}
	for _, g := range c.geoms {
		if g.name != "" {
			geomOf[g.name] = g
		}
	}
	var excl []articulated.Exclude
	var aps []artPair
	for _, e := range contactSecs {
		ex, ps := c.artContact(e, geomOf)
		excl, aps = append(excl, ex...), append(aps, ps...)
	}
	include := map[*mgeom]bool{}
	for _, p := range aps {
		include[p.g1], include[p.g2] = true, true
	}
	geoms, index := c.artGeoms(include)
	if len(c.errs) > 0 || m.Opt.Disable&articulated.DisableContact != 0 {
		return
	}
	pairs := make([]articulated.Pair, 0, len(aps))
	for _, ap := range aps {
		p := ap.p
		i1, ok1 := index[ap.g1]
		i2, ok2 := index[ap.g2]
		if !ok1 || !ok2 {
			c.fail(ap.e, "", "a geom of this pair does not collide (its mesh did not load)")
			continue
		}
		p.Geom1, p.Geom2 = i1, i2
		pairs = append(pairs, p)
	}
	if err := m.SetCollision(geoms, excl, pairs); err != nil {
		c.errs = append(c.errs, fmt.Errorf("mjcf: %w", err))
	}
}
