package mjcf

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/vlmrb/vlmrb/sim"
)

// dval is a default attribute value with the element that set it.
type dval struct {
	v  string
	at *element
}

// class is a default class: per element kind (geom, joint, site, camera,
// mesh, material, actuator, equality), the attributes it sets, already
// merged with its parent's.
type class struct {
	name  string
	attrs map[string]map[string]dval
}

func (c *class) child(name string) *class {
	n := &class{name: name, attrs: map[string]map[string]dval{}}
	for k, m := range c.attrs {
		cp := make(map[string]dval, len(m))
		for a, v := range m {
			cp[a] = v
		}
		n.attrs[k] = cp
	}
	return n
}

// attrSet reads one element's attributes with its class's defaults behind
// them, records the first error, and knows which attributes were read so
// that the rest can be reported as unsupported.
type attrSet struct {
	c    *compiler
	e    *element
	kind string
	def  map[string]dval
	used map[string]bool
}

func (c *compiler) attrsOf(e *element, kind string, cls *class) *attrSet {
	a := &attrSet{c: c, e: e, kind: kind, used: map[string]bool{"class": true, "childclass": true}}
	if cls != nil {
		a.def = cls.attrs[kind]
	}
	return a
}

// get returns the value of name from the element or its defaults.
func (a *attrSet) get(name string) (string, *element, bool) {
	a.used[name] = true
	if v, ok := a.e.attr(name); ok {
		return v, a.e, true
	}
	if d, ok := a.def[name]; ok {
		return d.v, d.at, true
	}
	return "", nil, false
}

func (a *attrSet) has(name string) bool {
	_, _, ok := a.get(name)
	return ok
}

func (a *attrSet) str(name, def string) string {
	if v, _, ok := a.get(name); ok {
		return v
	}
	return def
}

// floats parses name as up to max numbers (at least min when present).
func (a *attrSet) floats(name string, minN, maxN int) ([]float64, bool) {
	v, at, ok := a.get(name)
	if !ok {
		return nil, false
	}
	f := strings.Fields(v)
	if len(f) < minN || len(f) > maxN {
		a.c.fail(at, name, fmt.Sprintf("needs %d to %d numbers, got %q", minN, maxN, v))
		return nil, false
	}
	out := make([]float64, len(f))
	for i, s := range f {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			a.c.fail(at, name, fmt.Sprintf("%q is not a finite number", s))
			return nil, false
		}
		out[i] = x
	}
	return out, true
}

func (a *attrSet) float(name string, def float64) float64 {
	if f, ok := a.floats(name, 1, 1); ok {
		return f[0]
	}
	return def
}

func (a *attrSet) vec3(name string, def sim.Vec3) sim.Vec3 {
	if f, ok := a.floats(name, 3, 3); ok {
		return sim.V3(f[0], f[1], f[2])
	}
	return def
}

func (a *attrSet) int(name string, def int) int {
	v, at, ok := a.get(name)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		a.c.fail(at, name, fmt.Sprintf("%q is not an integer", v))
		return def
	}
	return n
}

// tri reads a MuJoCo "false/true/auto" attribute: -1 auto (or absent), 0, 1.
func (a *attrSet) tri(name string) int {
	v, at, ok := a.get(name)
	if !ok {
		return -1
	}
	switch strings.TrimSpace(v) {
	case "true":
		return 1
	case "false":
		return 0
	case "auto":
		return -1
	}
	a.c.fail(at, name, fmt.Sprintf("%q must be true, false or auto", v))
	return -1
}

func (a *attrSet) bool(name string, def bool) bool {
	switch a.tri(name) {
	case 1:
		return true
	case 0:
		return false
	}
	return def
}

// oneOf reads a keyword attribute.
func (a *attrSet) oneOf(name, def string, allowed ...string) string {
	v, at, ok := a.get(name)
	if !ok {
		return def
	}
	v = strings.TrimSpace(v)
	for _, s := range allowed {
		if v == s {
			return v
		}
	}
	a.c.fail(at, name, fmt.Sprintf("%q is not supported (supported: %s)", v, strings.Join(allowed, ", ")))
	return def
}

// warnIf drops approximated attributes with a warning when present.
func (a *attrSet) warnIf(why string, names ...string) {
	for _, n := range names {
		if _, _, ok := a.get(n); ok {
			a.c.warn(fmt.Sprintf("<%s> %s ignored: %s", a.e.name, n, why))
		}
	}
}

// ignore marks attributes that do not matter to the engine.
func (a *attrSet) ignore(names ...string) {
	for _, n := range names {
		a.used[n] = true
	}
}

// finish reports the element's (and its defaults') unread attributes.
func (a *attrSet) finish() {
	for _, at := range a.e.attrs {
		if !a.used[at.Name.Local] {
			a.c.fail(a.e, at.Name.Local, "is not supported by the importer")
		}
	}
	for n, d := range a.def {
		if !a.used[n] {
			a.c.fail(d.at, n, fmt.Sprintf("(default for <%s> %s) is not supported by the importer", a.e.name, a.e.where()))
		}
	}
}

// orientation reads MuJoCo's alternative orientation attributes.
func (a *attrSet) orientation() sim.Quat {
	c := a.c
	n := 0
	q := sim.Identity()
	if f, ok := a.floats("quat", 4, 4); ok {
		n++
		q = sim.Quat{W: f[0], X: f[1], Y: f[2], Z: f[3]}
		if q.W*q.W+q.X*q.X+q.Y*q.Y+q.Z*q.Z == 0 {
			c.fail(a.e, "quat", "is zero")
			q = sim.Identity()
		}
		q = q.Normalize()
	}
	if f, ok := a.floats("axisangle", 4, 4); ok {
		n++
		ax := sim.V3(f[0], f[1], f[2])
		if ax.Norm() == 0 {
			c.fail(a.e, "axisangle", "has a zero axis")
		} else {
			q = sim.QuatFromAxisAngle(ax, c.angle(f[3]))
		}
	}
	if f, ok := a.floats("euler", 3, 3); ok {
		n++
		q = c.euler(f)
	}
	if f, ok := a.floats("xyaxes", 6, 6); ok {
		n++
		x := sim.V3(f[0], f[1], f[2]).Normalize()
		y := sim.V3(f[3], f[4], f[5])
		y = y.Sub(x.Scale(x.Dot(y))).Normalize()
		z := x.Cross(y)
		if x == (sim.Vec3{}) || y == (sim.Vec3{}) {
			c.fail(a.e, "xyaxes", "axes are zero or parallel")
		} else {
			q = quatFromMat(x, y, z)
		}
	}
	if f, ok := a.floats("zaxis", 3, 3); ok {
		n++
		z := sim.V3(f[0], f[1], f[2])
		if z.Norm() == 0 {
			c.fail(a.e, "zaxis", "is zero")
		} else {
			q = quatBetween(sim.V3(0, 0, 1), z.Normalize())
		}
	}
	if n > 1 {
		c.fail(a.e, "quat", "more than one of quat, axisangle, euler, xyaxes, zaxis is given")
	}
	return q
}

// angle converts an angle attribute to rad under compiler/angle.
func (c *compiler) angle(x float64) float64 {
	if c.degrees {
		return x * math.Pi / 180
	}
	return x
}

// euler composes rotations about the compiler's eulerseq axes: lowercase
// letters rotate about the moving frame's axes (intrinsic), uppercase
// about the fixed frame's (extrinsic), as MuJoCo does.
func (c *compiler) euler(f []float64) sim.Quat {
	q := sim.Identity()
	for i, ch := range c.eulerseq {
		var ax sim.Vec3
		switch ch {
		case 'x', 'X':
			ax = sim.V3(1, 0, 0)
		case 'y', 'Y':
			ax = sim.V3(0, 1, 0)
		default:
			ax = sim.V3(0, 0, 1)
		}
		r := sim.QuatFromAxisAngle(ax, c.angle(f[i]))
		if ch >= 'a' {
			q = q.Mul(r)
		} else {
			q = r.Mul(q)
		}
	}
	return q
}

// quatFromMat returns the rotation whose columns are x, y, z (Shepperd).
func quatFromMat(x, y, z sim.Vec3) sim.Quat {
	m00, m01, m02 := x.X, y.X, z.X
	m10, m11, m12 := x.Y, y.Y, z.Y
	m20, m21, m22 := x.Z, y.Z, z.Z
	tr := m00 + m11 + m22
	var q sim.Quat
	switch {
	case tr > 0:
		s := math.Sqrt(tr+1) * 2
		q = sim.Quat{W: s / 4, X: (m21 - m12) / s, Y: (m02 - m20) / s, Z: (m10 - m01) / s}
	case m00 > m11 && m00 > m22:
		s := math.Sqrt(1+m00-m11-m22) * 2
		q = sim.Quat{W: (m21 - m12) / s, X: s / 4, Y: (m01 + m10) / s, Z: (m02 + m20) / s}
	case m11 > m22:
		s := math.Sqrt(1+m11-m00-m22) * 2
		q = sim.Quat{W: (m02 - m20) / s, X: (m01 + m10) / s, Y: s / 4, Z: (m12 + m21) / s}
	default:
		s := math.Sqrt(1+m22-m00-m11) * 2
		q = sim.Quat{W: (m10 - m01) / s, X: (m02 + m20) / s, Y: (m12 + m21) / s, Z: s / 4}
	}
	if q.W < 0 {
		q = sim.Quat{W: -q.W, X: -q.X, Y: -q.Y, Z: -q.Z}
	}
	return q.Normalize()
}

// quatBetween returns the smallest rotation taking unit a to unit b
// (MuJoCo's mju_quatZ2Vec for a = z).
func quatBetween(a, b sim.Vec3) sim.Quat {
	ax := a.Cross(b)
	s := ax.Norm()
	d := a.Dot(b)
	if s < 1e-14 {
		if d > 0 {
			return sim.Identity()
		}
		return sim.Quat{X: 1} // 180° about x
	}
	return sim.QuatFromAxisAngle(ax.Scale(1/s), math.Atan2(s, d))
}
