package articulated

// Collision detection as MuJoCo's mj_collision (issue 47, steps 1–2):
// geoms on bodies, the static filters of its broad phase, a bounding
// sphere test per step and sim/convex's narrow phase, contacts with
// MuJoCo's parameter mixing. Forward fills Data.Contacts
// (mjData.contact); contact.go turns them into constraint rows.

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/vlmrb/vlmrb/sim/convex"
)

// More disable flags (mjtDisableBit): collision detection, and the filter
// that keeps a body from colliding with its parent.
const (
	DisableContact      = 1 << 4
	DisableFilterParent = 1 << 9
)

// DefaultMaxContacts caps the contacts kept per Forward when
// Collision.MaxContacts is zero and the pairs could produce more.
const DefaultMaxContacts = 4096

// Geom is a collision geom (MuJoCo's geom_* arrays for one geom).
type Geom struct {
	Name string
	// Type is a convex.Kind: MuJoCo's mjtGeom numbers (plane 0, sphere 2,
	// capsule 3, ellipsoid 4, cylinder 5, box 6, mesh 7).
	Type convex.Kind
	Body int
	// Size has MuJoCo's geom_size meaning for Type (half-sizes, radius and
	// half-length; plane sizes are only drawn).
	Size [3]float64
	// Pos, Quat (w, x, y, z) are the geom frame in the body frame. For a
	// mesh it is MuJoCo's: the mesh moved to its centroid and principal
	// axes, and Hull is built in it.
	Pos  [3]float64
	Quat [4]float64
	Hull *convex.Hull // Mesh only
	// Contype and Conaffinity are the bitmasks: a pair collides when
	// contype1&conaffinity2 or contype2&conaffinity1 is nonzero.
	Contype, Conaffinity uint32
	// Condim is 1, 3, 4 or 6; zero means 3.
	Condim int
	// Friction is sliding, torsional and rolling (MuJoCo's default
	// 1, 0.005, 0.0001 when all zero; contacts clamp each to 1e-5,
	// mjMINMU, so 1e-5 is MuJoCo's friction="0 0 0").
	Friction [3]float64
	// Margin and Gap (m): contacts are generated within Margin and active
	// within Margin − Gap.
	Margin, Gap float64
	// SolRef, SolImp, SolMix and Priority are mixed per pair as
	// mj_contactParam does (all zero: MuJoCo's defaults 0.02 1,
	// 0.9 0.95 0.001 0.5 2, solmix 1).
	SolRef   [2]float64
	SolImp   [5]float64
	SolMix   float64
	Priority int
}

// Exclude removes a body pair from collision (MJCF <contact><exclude>).
type Exclude struct{ Body1, Body2 int }

// Pair is an explicit geom pair (MJCF <contact><pair>): it collides
// whatever the bitmasks and body filters say, with its own parameters
// (zero values: MuJoCo's pair defaults condim 3, friction 1 1 0.005
// 0.0001 0.0001, solref 0.02 1, solimp 0.9 0.95 0.001 0.5 2), and the
// same two geoms are then not collided as a dynamic pair.
type Pair struct {
	Geom1, Geom2 int
	Condim       int
	Friction     [5]float64
	SolRef       [2]float64
	SolImp       [5]float64
	Margin, Gap  float64
}

// Collision is the model's collision part, embedded in Model: geoms,
// excluded body pairs and the contact budget. Set it with SetGeoms before
// NewData.
type Collision struct {
	Geoms    []Geom
	Excludes []Exclude
	Pairs    []Pair
	// MaxContacts is the most contacts Forward keeps; the rest are
	// dropped and counted in Data.Warnings.Contacts. Zero: the most the
	// candidate pairs can produce, capped at DefaultMaxContacts.
	MaxContacts int
	// ImpRatio is MuJoCo's impratio: the ratio of frictional to normal
	// constraint impedance (zero: 1).
	ImpRatio float64

	shapes  []convex.Shape
	geomMat [][9]float64 // geom frame in the body frame
	// geomStatic marks geoms whose world frame never changes
	geomStatic []bool
	rbound     []float64
	// aabb is each geom's half-extent box about its origin in its own
	// frame (MuJoCo's geom_aabb, centred), for the box filter
	aabb  [][3]float64
	pairs []geomPair
	// pairGroups are the runs of two or more pairs between the same two
	// bodies that a body-level sphere test can skip together
	pairGroups []pairGroup
}

// pairGroup is a run pairs[start:end] of candidate pairs between bodies
// b1 and b2, none of them with a plane: when the bodies' origins are
// farther apart than r, every pair's own bounding-sphere test
// (boundFiltered) would reject it, so the run is skipped. r is the sum of
// the bodies' radii (each the largest |geom position| + rbound over the
// run's geoms on it) and the run's largest margin + gap, widened by a
// relative 1e-9 so that rounding never skips a pair the geom test keeps.
type pairGroup struct {
	start, end int
	b1, b2     int
	r          float64
}

// makePairGroups finds the runs of pairs between the same two bodies
// (candidatePairs sorts them by body pair).
func (m *Model) makePairGroups() []pairGroup {
	var out []pairGroup
	for s := 0; s < len(m.pairs); {
		e := s + 1
		for e < len(m.pairs) && m.pairs[e].bodyLo == m.pairs[s].bodyLo && m.pairs[e].bodyHi == m.pairs[s].bodyHi {
			e++
		}
		g := pairGroup{start: s, end: e, b1: m.pairs[s].bodyLo, b2: m.pairs[s].bodyHi}
		ok := e-s >= 2 && g.b1 != g.b2
		var r1, r2, bound float64
		for k := s; k < e && ok; k++ {
			p := &m.pairs[k]
			bound = max(bound, p.margin+p.gap)
			for _, gi := range [2]int{p.g1, p.g2} {
				geom := &m.Geoms[gi]
				rb := m.rbound[gi]
				if geom.Type == convex.Plane || math.IsInf(rb, 0) || math.IsNaN(rb) {
					ok = false
					break
				}
				x := norm3(vec3(geom.Pos)) + rb
				if geom.Body == g.b1 {
					r1 = max(r1, x)
				} else {
					r2 = max(r2, x)
				}
			}
		}
		if g.r = (r1 + r2 + bound) * (1 + 1e-9); ok && !math.IsInf(g.r, 0) && !math.IsNaN(g.r) {
			out = append(out, g)
		}
		s = e
	}
	return out
}

// geomPair is a candidate pair that passed every static filter, with its
// mixed contact parameters.
type geomPair struct {
	g1, g2         int // g1's type ≤ g2's, as mj_collideGeoms orders them
	margin, gap    float64
	condim         int
	friction       [5]float64
	solref         [2]float64
	solimp         [5]float64
	maxCon         int
	bodyLo, bodyHi int
}

// Contact is one contact (mjContact): geoms, signed distance (negative in
// penetration), position midway between the surfaces, frame (row 0 the
// normal from Geom1 to Geom2), and the mixed parameters.
type Contact struct {
	Geom1, Geom2  int
	Dist          float64
	Pos           [3]float64
	Frame         [9]float64
	IncludeMargin float64
	Condim        int
	Friction      [5]float64
	SolRef        [2]float64
	SolImp        [5]float64
}

// contactData is the collision part of Data.
type contactData struct {
	// GeomXpos, GeomXmat are the geoms' world frames of the last Forward.
	GeomXpos [][3]float64
	GeomXmat [][9]float64
	// geomExt is each geom's world axis-aligned half-extent (from its
	// local box and GeomXmat); planes' are unused.
	geomExt [][3]float64
	// Contacts are the contacts of the last Forward (mjData.contact).
	Contacts []Contact
	collider convex.Collider
	conBuf   []convex.Contact
	conJac   []float64 // 12·NV: the two bodies' point Jacobians
	// staticFrames: the frames of Model.geomStatic's geoms are computed
	staticFrames bool
}

var defaultSolRef = [2]float64{0.02, 1}
var defaultSolImp = [5]float64{0.9, 0.95, 0.001, 0.5, 2}

// SetGeoms validates and installs the collision geoms and excluded body
// pairs of m, replacing earlier ones; call it before NewData. It returns
// an error naming each bad geom.
func (m *Model) SetGeoms(geoms []Geom, excludes []Exclude) error {
	return m.SetCollision(geoms, excludes, nil)
}

// SetCollision is SetGeoms with explicit geom pairs.
func (m *Model) SetCollision(geoms []Geom, excludes []Exclude, pairs []Pair) error {
	var errs []error
	bad := func(f string, a ...any) { errs = append(errs, fmt.Errorf("articulated: "+f, a...)) }
	gs := append([]Geom(nil), geoms...)
	nb := len(m.Bodies)
	shapes := make([]convex.Shape, len(gs))
	mats := make([][9]float64, len(gs))
	rb := make([]float64, len(gs))
	box := make([][3]float64, len(gs))
	for i := range gs {
		g := &gs[i]
		where := fmt.Sprintf("geom %d (%q)", i, g.Name)
		if g.Body < 0 || g.Body >= nb {
			bad("%s: body %d does not exist (the model has %d)", where, g.Body, nb)
			continue
		}
		switch g.Type {
		case convex.Plane, convex.Sphere, convex.Capsule, convex.Ellipsoid, convex.Cylinder, convex.Box, convex.Mesh:
		default:
			bad("%s: type %v is not a collision geom type (plane, sphere, capsule, ellipsoid, cylinder, box, mesh)", where, g.Type)
			continue
		}
		if g.Type == convex.Plane && m.weldOf(g.Body) != 0 {
			bad("%s: a plane must be on the world or a body welded to it (MuJoCo's planes are static)", where)
		}
		if g.Condim == 0 {
			g.Condim = 3
		}
		if g.Condim != 1 && g.Condim != 3 && g.Condim != 4 && g.Condim != 6 {
			bad("%s: condim %d must be 1, 3, 4 or 6", where, g.Condim)
		}
		if g.Friction == [3]float64{} {
			g.Friction = [3]float64{1, 0.005, 0.0001}
		}
		if !finite(g.Friction[:]...) || g.Friction[0] < 0 || g.Friction[1] < 0 || g.Friction[2] < 0 {
			bad("%s: friction %v must be finite and ≥ 0", where, g.Friction)
		}
		if !finite(g.Margin, g.Gap) || g.Margin < 0 || g.Gap < 0 {
			bad("%s: margin %g and gap %g must be finite and ≥ 0 (m)", where, g.Margin, g.Gap)
		}
		if g.SolRef == [2]float64{} {
			g.SolRef = defaultSolRef
		}
		if g.SolImp == [5]float64{} {
			g.SolImp = defaultSolImp
		}
		if !finite(g.SolRef[:]...) || !finite(g.SolImp[:]...) || !finite(g.SolMix) || g.SolMix < 0 {
			bad("%s: solref %v, solimp %v and solmix %g must be finite (solmix ≥ 0)", where, g.SolRef, g.SolImp, g.SolMix)
		}
		q, ok := normQuat(g.Quat)
		if g.Quat == [4]float64{} {
			q, ok = [4]float64{1, 0, 0, 0}, true
		}
		if !ok || !finite(g.Pos[:]...) {
			bad("%s: pos %v and quat %v must be finite with a nonzero quaternion", where, g.Pos, g.Quat)
			continue
		}
		g.Quat = q
		mats[i] = quatMat(q)
		shapes[i] = convex.Shape{Kind: g.Type, Size: convex.Vec3(g.Size), Hull: g.Hull}
		if g.Type != convex.Plane {
			if err := shapes[i].Validate(); err != nil {
				bad("%s: %v", where, err)
				continue
			}
			rb[i] = shapes[i].RBound()
			box[i] = localHalfExtent(&shapes[i])
		}
	}
	exs := append([]Exclude(nil), excludes...)
	for i, e := range exs {
		if e.Body1 < 0 || e.Body1 >= nb || e.Body2 < 0 || e.Body2 >= nb {
			bad("exclude %d: bodies %d and %d must be in 0..%d", i, e.Body1, e.Body2, nb-1)
		}
	}
	prs := append([]Pair(nil), pairs...)
	for i := range prs {
		p := &prs[i]
		if p.Geom1 < 0 || p.Geom1 >= len(gs) || p.Geom2 < 0 || p.Geom2 >= len(gs) || p.Geom1 == p.Geom2 {
			bad("pair %d: geoms %d and %d must be two different geoms in 0..%d", i, p.Geom1, p.Geom2, len(gs)-1)
			continue
		}
		if p.Condim == 0 {
			p.Condim = 3
		}
		if p.Friction == [5]float64{} {
			p.Friction = [5]float64{1, 1, 0.005, 0.0001, 0.0001}
		}
		if p.SolRef == [2]float64{} {
			p.SolRef = defaultSolRef
		}
		if p.SolImp == [5]float64{} {
			p.SolImp = defaultSolImp
		}
		if p.Condim != 1 && p.Condim != 3 && p.Condim != 4 && p.Condim != 6 {
			bad("pair %d: condim %d must be 1, 3, 4 or 6", i, p.Condim)
		}
		if !finite(p.Friction[:]...) || !finite(p.SolRef[:]...) || !finite(p.SolImp[:]...) || !finite(p.Margin, p.Gap) || p.Margin < 0 || p.Gap < 0 {
			bad("pair %d: friction, solref, solimp must be finite, margin and gap finite and ≥ 0", i)
		}
		if gs[p.Geom1].Type == convex.Plane && gs[p.Geom2].Type == convex.Plane {
			bad("pair %d: two planes do not collide", i)
		}
	}
	if m.MaxContacts < 0 {
		bad("MaxContacts %d must be ≥ 0", m.MaxContacts)
	}
	if m.ImpRatio < 0 || !finite(m.ImpRatio) {
		bad("ImpRatio %g must be finite and ≥ 0 (0: MuJoCo's default 1)", m.ImpRatio)
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	m.Geoms, m.Excludes, m.Pairs, m.shapes, m.geomMat, m.rbound, m.aabb = gs, exs, prs, shapes, mats, rb, box
	m.pairs = m.candidatePairs()
	m.pairGroups = m.makePairGroups()
	// geoms on bodies welded to the world, with no mocap body on the way:
	// their frames are constants, computed at a Data's first collision
	m.geomStatic = make([]bool, len(gs))
	for i := range gs {
		m.geomStatic[i] = true
		for b := gs[i].Body; b > 0; b = m.Bodies[b].Parent {
			if m.bodyJntNum[b] != 0 || m.Bodies[b].Mocap {
				m.geomStatic[i] = false
				break
			}
		}
	}
	return nil
}

// weldOf is MuJoCo's body_weldid: the nearest ancestor-or-self body with
// joints, 0 when welded to the world.
func (m *Model) weldOf(b int) int {
	for b > 0 && m.bodyJntNum[b] == 0 {
		b = m.Bodies[b].Parent
	}
	return max(b, 0)
}

// candidatePairs applies the filters that do not depend on the state, in
// MuJoCo's order of body pairs and, within one, of geoms.
func (m *Model) candidatePairs() []geomPair {
	filterParent := m.Opt.Disable&DisableFilterParent == 0
	excluded := map[[2]int]bool{}
	for _, e := range m.Excludes {
		excluded[[2]int{min(e.Body1, e.Body2), max(e.Body1, e.Body2)}] = true
	}
	var out []geomPair
	explicit := map[[2]int]bool{}
	for _, pr := range m.Pairs {
		explicit[[2]int{min(pr.Geom1, pr.Geom2), max(pr.Geom1, pr.Geom2)}] = true
		g1, g2 := pr.Geom1, pr.Geom2
		if m.Geoms[g1].Type > m.Geoms[g2].Type {
			g1, g2 = g2, g1
		}
		b1, b2 := m.Geoms[g1].Body, m.Geoms[g2].Body
		out = append(out, geomPair{g1: g1, g2: g2, margin: pr.Margin, gap: pr.Gap, condim: pr.Condim,
			friction: clampFriction(pr.Friction), solref: pr.SolRef, solimp: pr.SolImp,
			maxCon: maxContacts(m.Geoms[g1].Type, m.Geoms[g2].Type), bodyLo: min(b1, b2), bodyHi: max(b1, b2)})
	}
	for i := range m.Geoms {
		for j := i + 1; j < len(m.Geoms); j++ {
			a, b := &m.Geoms[i], &m.Geoms[j]
			if explicit[[2]int{i, j}] {
				continue
			}
			if a.Contype&b.Conaffinity == 0 && b.Contype&a.Conaffinity == 0 {
				continue
			}
			if a.Type == convex.Plane && b.Type == convex.Plane {
				continue
			}
			w1, w2 := m.weldOf(a.Body), m.weldOf(b.Body)
			if w1 == w2 {
				continue
			}
			if filterParent && w1 != 0 && w2 != 0 {
				p1, p2 := m.weldOf(m.Bodies[w1].Parent), m.weldOf(m.Bodies[w2].Parent)
				if w1 == p2 || w2 == p1 {
					continue
				}
			}
			lo, hi := min(a.Body, b.Body), max(a.Body, b.Body)
			if excluded[[2]int{lo, hi}] {
				continue
			}
			g1, g2 := i, j
			if m.Geoms[g1].Type > m.Geoms[g2].Type {
				g1, g2 = g2, g1
			}
			out = append(out, m.mixPair(g1, g2, lo, hi))
		}
	}
	sort.SliceStable(out, func(x, y int) bool {
		if out[x].bodyLo != out[y].bodyLo {
			return out[x].bodyLo < out[y].bodyLo
		}
		return out[x].bodyHi < out[y].bodyHi
	})
	return out
}

// mixPair combines two geoms' parameters as mj_contactParam and
// mj_collideGeoms do: the higher priority wins; at equal priority condim
// and friction are the larger, solref and solimp mixed by solmix (direct
// solrefs: the smaller), margin and gap the larger of the two.
func (m *Model) mixPair(g1, g2, lo, hi int) geomPair {
	a, b := &m.Geoms[g1], &m.Geoms[g2]
	p := geomPair{g1: g1, g2: g2, bodyLo: lo, bodyHi: hi}
	p.margin, p.gap = convex.PairMarginGap(a.Margin, a.Gap, b.Margin, b.Gap)
	var fr [3]float64
	if a.Priority != b.Priority {
		w := a
		if b.Priority > a.Priority {
			w = b
		}
		p.condim, fr, p.solref, p.solimp = w.Condim, w.Friction, w.SolRef, w.SolImp
	} else {
		p.condim = max(a.Condim, b.Condim)
		for k := range 3 {
			fr[k] = math.Max(a.Friction[k], b.Friction[k])
		}
		const minVal = 1e-15 // mjMINVAL
		s1, s2 := a.SolMix, b.SolMix
		var mix float64
		switch {
		case s1 >= minVal && s2 >= minVal:
			mix = s1 / (s1 + s2)
		case s1 < minVal && s2 < minVal:
			mix = 0.5
		case s1 < minVal:
			mix = 0
		default:
			mix = 1
		}
		if a.SolRef[0] > 0 && b.SolRef[0] > 0 {
			for k := range 2 {
				p.solref[k] = mix*a.SolRef[k] + (1-mix)*b.SolRef[k]
			}
		} else {
			for k := range 2 {
				p.solref[k] = math.Min(a.SolRef[k], b.SolRef[k])
			}
		}
		for k := range 5 {
			p.solimp[k] = mix*a.SolImp[k] + (1-mix)*b.SolImp[k]
		}
	}
	p.friction = clampFriction([5]float64{fr[0], fr[0], fr[1], fr[2], fr[2]})
	p.maxCon = maxContacts(a.Type, b.Type)
	return p
}

// clampFriction is mj_assignFriction: each coefficient at least mjMINMU.
func clampFriction(f [5]float64) [5]float64 {
	for k := range f {
		f[k] = max(1e-5, f[k])
	}
	return f
}

// maxContacts is mj_maxContact without multiccd: the most contacts the
// pair's collider returns.
func maxContacts(t1, t2 convex.Kind) int {
	switch {
	case t1 == convex.Sphere || t2 == convex.Sphere || t1 == convex.Ellipsoid || t2 == convex.Ellipsoid:
		return 1
	case t1 == convex.Box && t2 == convex.Box:
		return 8
	case t1 == convex.Capsule && t2 == convex.Capsule:
		return 2
	case t1 == convex.Capsule && t2 == convex.Box:
		return 4
	case t1 == convex.Plane:
		switch t2 {
		case convex.Capsule:
			return 2
		case convex.Cylinder, convex.Box:
			return 4
		case convex.Mesh:
			return 3
		}
	}
	return 1
}

// contactCap is the size of Data.Contacts' buffer.
func (m *Model) contactCap() int {
	if m.MaxContacts > 0 {
		return m.MaxContacts
	}
	n := 0
	for _, p := range m.pairs {
		n += p.maxCon
	}
	return min(n, DefaultMaxContacts)
}

// initContacts allocates d's collision buffers (NewData's hook).
func (d *Data) initContacts(m *Model) {
	ng := len(m.Geoms)
	d.GeomXpos, d.GeomXmat = make([][3]float64, ng), make([][9]float64, ng)
	d.geomExt = make([][3]float64, ng)
	d.Contacts = make([]Contact, 0, m.contactCap())
	d.conBuf = make([]convex.Contact, 0, convex.MaxContacts)
	d.conJac = make([]float64, 12*m.NV)
}

// collision is mj_collision: geom frames, then for each candidate pair the
// bounding-sphere test and the narrow phase; Forward's hook after the
// position stage.
func collision(m *Model, d *Data) {
	if len(m.Geoms) == 0 {
		d.Contacts = d.Contacts[:0]
		return
	}
	if len(d.GeomXpos) != len(m.Geoms) {
		d.initContacts(m) // once, for a Data made before SetGeoms
	}
	d.Contacts = d.Contacts[:0]
	// nan stays 0 while every geom frame is finite (x·0 is NaN for ±Inf
	// and NaN): then the narrow phase runs without its per-pair checks
	var nan float64
	for i := range m.Geoms {
		if d.staticFrames && m.geomStatic[i] {
			continue // constant: computed at the first collision
		}
		g := &m.Geoms[i]
		b := g.Body
		// xpos + xmat·pos and xmat·geomMat written in place (no vec3
		// temporaries), the operations of add3, mulMatVec and mulMat3
		bm, bp, gm := &d.Xmat[b], &d.Xpos[b], &m.geomMat[i]
		xp, xm := &d.GeomXpos[i], &d.GeomXmat[i]
		g0, g1, g2 := g.Pos[0], g.Pos[1], g.Pos[2]
		h := &m.aabb[i]
		e := &d.geomExt[i]
		for r := range 3 {
			a0, a1, a2 := bm[3*r], bm[3*r+1], bm[3*r+2]
			xp[r] = bp[r] + (a0*g0 + a1*g1 + a2*g2)
			m0 := a0*gm[0] + a1*gm[3] + a2*gm[6]
			m1 := a0*gm[1] + a1*gm[4] + a2*gm[7]
			m2 := a0*gm[2] + a1*gm[5] + a2*gm[8]
			xm[3*r], xm[3*r+1], xm[3*r+2] = m0, m1, m2
			e[r] = math.Abs(m0)*h[0] + math.Abs(m1)*h[1] + math.Abs(m2)*h[2]
			nan += (xp[r] + m0 + m1 + m2) * 0
		}
	}
	d.staticFrames = nan == 0
	if m.Opt.Disable&(DisableConstraint|DisableContact) != 0 {
		return
	}
	checked := nan != 0
	// MuJoCo's native CCD bounds: EPA stops at ccd_tolerance
	d.collider.Tolerance, d.collider.MaxIterations = m.Opt.ccdTolerance(), m.Opt.ccdIterations()
	gi := 0
	for k := 0; k < len(m.pairs); k++ {
		if gi < len(m.pairGroups) && m.pairGroups[gi].start == k {
			g := &m.pairGroups[gi]
			gi++
			x1, x2 := &d.Xpos[g.b1], &d.Xpos[g.b2]
			dx, dy, dz := x1[0]-x2[0], x1[1]-x2[1], x1[2]-x2[2]
			if !checked && dx*dx+dy*dy+dz*dz > g.r*g.r {
				k = g.end - 1 // every pair of the two bodies is apart
				continue
			}
		}
		p := &m.pairs[k]
		if m.boundFiltered(d, p) {
			continue
		}
		// (frames, and below the contacts, copied element by element: they
		// were just stored as single floats, and whole-array copies would
		// reload them with 16-byte loads the store buffer cannot forward)
		var p1, p2 convex.Pose
		d.geomPose(&p1, p.g1)
		d.geomPose(&p2, p.g2)
		var buf []convex.Contact
		if checked {
			var err error
			buf, err = d.collider.Collide(d.conBuf[:0], &m.shapes[p.g1], &p1, &m.shapes[p.g2], &p2, p.margin, p.gap)
			if err != nil {
				continue // non-finite pose: Step's state check counts it
			}
		} else {
			buf = d.collider.CollideValid(d.conBuf[:0], &m.shapes[p.g1], &p1, &m.shapes[p.g2], &p2, p.margin, p.gap)
		}
		for ci := range buf {
			n := len(d.Contacts)
			if n == cap(d.Contacts) {
				d.Warnings.Contacts++
				break
			}
			c := &buf[ci]
			d.Contacts = d.Contacts[:n+1]
			o := &d.Contacts[n]
			o.Geom1, o.Geom2, o.Dist, o.IncludeMargin, o.Condim = p.g1, p.g2, c.Dist, c.IncludeMargin, p.condim
			o.Pos[0], o.Pos[1], o.Pos[2] = c.Pos[0], c.Pos[1], c.Pos[2]
			for k := range 9 {
				o.Frame[k] = c.Frame[k]
			}
			o.Friction, o.SolRef, o.SolImp = p.friction, p.solref, p.solimp
		}
	}
}

// geomPose copies geom g's world frame into pose, element by element.
func (d *Data) geomPose(pose *convex.Pose, g int) {
	x, r := &d.GeomXpos[g], &d.GeomXmat[g]
	pose.Pos[0], pose.Pos[1], pose.Pos[2] = x[0], x[1], x[2]
	for k := range 9 {
		pose.Rot[k] = r[k]
	}
}

// localHalfExtent is a box about the geom's origin, in its frame, that
// holds the whole shape (MuJoCo's geom_aabb for primitives; for a mesh,
// the hull's largest coordinate along each axis).
func localHalfExtent(s *convex.Shape) [3]float64 {
	z := s.Size
	switch s.Kind {
	case convex.Sphere:
		return [3]float64{z[0], z[0], z[0]}
	case convex.Capsule:
		return [3]float64{z[0], z[0], z[0] + z[1]}
	case convex.Cylinder:
		return [3]float64{z[0], z[0], z[1]}
	case convex.Box, convex.Ellipsoid:
		return [3]float64(z)
	case convex.Mesh:
		var h [3]float64
		for _, v := range s.Hull.Verts {
			for k := range 3 {
				h[k] = max(h[k], math.Abs(v[k]))
			}
		}
		return h
	}
	r := s.RBound()
	return [3]float64{r, r, r}
}

// boundFiltered is mj_filterSphere (margin + gap) followed by a box test
// that cannot drop a contact either: each geom's world box (geomExt about
// GeomXpos) holds the geom, so boxes apart by more than margin + gap on
// one axis mean shapes at least that far apart. Against a plane the
// geom's extent along the normal replaces the bounding sphere (exact for
// a box). MuJoCo's mid-phase filters such pairs with oriented boxes in
// the same way; the narrow phase would return no contact for them.
func (m *Model) boundFiltered(d *Data, p *geomPair) bool {
	bound := p.margin + p.gap
	x1, x2 := &d.GeomXpos[p.g1], &d.GeomXpos[p.g2]
	if m.Geoms[p.g1].Type == convex.Plane {
		mt, m2 := &d.GeomXmat[p.g1], &d.GeomXmat[p.g2]
		n0, n1, n2 := mt[2], mt[5], mt[8]
		h := &m.aabb[p.g2]
		ext := math.Abs(n0*m2[0]+n1*m2[3]+n2*m2[6])*h[0] + math.Abs(n0*m2[1]+n1*m2[4]+n2*m2[7])*h[1] +
			math.Abs(n0*m2[2]+n1*m2[5]+n2*m2[8])*h[2]
		return (x2[0]-x1[0])*n0+(x2[1]-x1[1])*n1+(x2[2]-x1[2])*n2 > bound+min(ext, m.rbound[p.g2])
	}
	dx, dy, dz := x1[0]-x2[0], x1[1]-x2[1], x1[2]-x2[2]
	r := m.rbound[p.g1] + m.rbound[p.g2] + bound
	if dx*dx+dy*dy+dz*dz > r*r {
		return true
	}
	e1, e2 := &d.geomExt[p.g1], &d.geomExt[p.g2]
	return math.Abs(dx) > e1[0]+e2[0]+bound || math.Abs(dy) > e1[1]+e2[1]+bound || math.Abs(dz) > e1[2]+e2[2]+bound
}

func mulMat3(a, b *[9]float64) [9]float64 {
	var c [9]float64
	for i := range 3 {
		for j := range 3 {
			c[3*i+j] = a[3*i]*b[j] + a[3*i+1]*b[3+j] + a[3*i+2]*b[6+j]
		}
	}
	return c
}
