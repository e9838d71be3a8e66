package render

import (
	"cmp"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
)

// mesh is an indexed triangle list in an object's local frame with the
// object's size baked in. Triangles wind counter-clockwise seen from outside.
type mesh struct {
	pos, nrm [][3]float32
	uv       [][2]float32
	idx      []uint32
}

// Tessellation of round shapes (spheres, capsules, cylinders): slices
// around the axis, stacks = slices/2 from pole to pole (even, so capsules
// split at the equator). An object gets the fewest slices, from
// minRoundSlices up to maxRoundSlices in steps of 4, whose polygon departs
// from the true silhouette by at most lodErrPx pixels where it is drawn
// (roundSlicesFor): a far or small shape needs fewer triangles to look
// round, and llvmpipe's cost grows with every triangle it sets up and bins
// (≈ 0.35 µs each in a 224² 4× MSAA frame, bench/RESULTS.md).
const (
	minRoundSlices = 8
	maxRoundSlices = 16
	lodErrPx       = 0.5
	planeInf       = 5 // half extent (m) used for planes of size 0 (MuJoCo: infinite)
)

// roundSlicesFor returns the slices for a round shape whose radius spans
// rPx pixels: a regular n-gon inscribed in a circle of radius R departs
// from it by at most R·(1 − cos(π/n)).
func roundSlicesFor(rPx float64) int {
	for n := minRoundSlices; n < maxRoundSlices; n += 4 {
		if rPx*(1-math.Cos(math.Pi/float64(n))) <= lodErrPx {
			return n
		}
	}
	return maxRoundSlices
}

// lodView is what roundSlicesFor needs to know of the camera: its position
// and its focal length in pixels. The zero value (focal 0) asks for the
// finest tessellation.
type lodView struct {
	eye   mgl64.Vec3
	focal float64 // pixels per unit of tangent: (height/2)/tan(fovY/2)
}

func newLODView(cam Camera) lodView {
	return lodView{eye: cam.Pos, focal: float64(cam.Height) / 2 / math.Tan(cam.fovy()*math.Pi/360)}
}

// slices returns the tessellation of object o seen from v (0 for shapes
// that are not round). The radius is projected at the distance of the
// object's nearest point to the eye.
func (v lodView) slices(o *Object) int {
	switch o.Kind {
	case Sphere, Capsule, Cylinder, Ellipsoid:
	default:
		return 0
	}
	if v.focal <= 0 {
		return maxRoundSlices
	}
	r := o.Size[0]
	d := o.Pos.Sub(v.eye).Len() - r - max(o.Size[1], 0)
	if d <= 1e-3 {
		return maxRoundSlices
	}
	return roundSlicesFor(r * v.focal / d)
}

func (m *mesh) add(p, n [3]float64, u, v float64) uint32 {
	m.pos = append(m.pos, [3]float32{float32(p[0]), float32(p[1]), float32(p[2])})
	m.nrm = append(m.nrm, [3]float32{float32(n[0]), float32(n[1]), float32(n[2])})
	m.uv = append(m.uv, [2]float32{float32(u), float32(v)})
	return uint32(len(m.pos) - 1)
}

func (m *mesh) quad(a, b, c, d uint32) { m.idx = append(m.idx, a, b, c, a, c, d) }

type meshKey struct {
	kind   Kind
	size   [3]float64
	slices int
	tri    *TriMesh
}

// meshCache keeps one mesh per (kind, size, slices). Not safe for concurrent use.
type meshCache map[meshKey]*mesh

// get returns the mesh of a shape; slices (roundSlicesFor) applies to
// round shapes only.
func (mc meshCache) get(k Kind, s mgl64.Vec3, slices int) *mesh {
	return mc.getTri(k, s, slices, nil)
}

// getTri is get for Mesh objects too (their TriMesh is the key).
func (mc meshCache) getTri(k Kind, s mgl64.Vec3, slices int, tri *TriMesh) *mesh {
	if k != Mesh {
		tri = nil
	} else {
		s = mgl64.Vec3{}
	}
	switch k {
	case Sphere, Capsule, Cylinder, Ellipsoid:
		if slices < minRoundSlices {
			slices = maxRoundSlices
		}
	default:
		slices = 0
	}
	key := meshKey{k, [3]float64(s), slices, tri}
	if m, ok := mc[key]; ok {
		return m
	}
	if len(mc) > 4096 { // scenes with ever-changing sizes: start over
		clear(mc)
	}
	m := buildMesh(k, s, slices)
	if k == Mesh {
		m = triMesh(tri)
	}
	mc[key] = m
	return m
}

func buildMesh(k Kind, s mgl64.Vec3, slices int) *mesh {
	m := &mesh{}
	switch k {
	case Box:
		boxMesh(m, s)
	case Sphere:
		roundMesh(m, s[0], 0, false, slices)
	case Capsule:
		roundMesh(m, s[0], s[1], true, slices)
	case Cylinder:
		cylinderMesh(m, s[0], s[1], slices)
	case Ellipsoid:
		// a unit sphere scaled by the semi-axes; normals by their inverse
		roundMesh(m, 1, 0, false, slices)
		for i, p := range m.pos {
			m.pos[i] = [3]float32{p[0] * float32(s[0]), p[1] * float32(s[1]), p[2] * float32(s[2])}
			n := m.nrm[i]
			nx, ny, nz := float64(n[0])/s[0], float64(n[1])/s[1], float64(n[2])/s[2]
			l := math.Sqrt(nx*nx + ny*ny + nz*nz)
			m.nrm[i] = [3]float32{float32(nx / l), float32(ny / l), float32(nz / l)}
		}
	case Plane:
		a, b := planeHalf(s)
		n := [3]float64{0, 0, 1}
		i0 := m.add([3]float64{-a, -b, 0}, n, -a, -b)
		i1 := m.add([3]float64{a, -b, 0}, n, a, -b)
		i2 := m.add([3]float64{a, b, 0}, n, a, b)
		i3 := m.add([3]float64{-a, b, 0}, n, -a, b)
		m.quad(i0, i1, i2, i3)
	}
	return m
}

// triMesh returns a flat-shaded copy of t (each triangle its own normal);
// nil or degenerate input gives an empty mesh.
func triMesh(t *TriMesh) *mesh {
	m := &mesh{}
	if t == nil {
		return m
	}
	nv := uint32(len(t.Vertices))
	for _, tr := range t.Triangles {
		if tr[0] >= nv || tr[1] >= nv || tr[2] >= nv {
			continue
		}
		a, b, c := t.Vertices[tr[0]], t.Vertices[tr[1]], t.Vertices[tr[2]]
		u := [3]float64{float64(b[0] - a[0]), float64(b[1] - a[1]), float64(b[2] - a[2])}
		v := [3]float64{float64(c[0] - a[0]), float64(c[1] - a[1]), float64(c[2] - a[2])}
		n := [3]float64{u[1]*v[2] - u[2]*v[1], u[2]*v[0] - u[0]*v[2], u[0]*v[1] - u[1]*v[0]}
		l := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])
		if l == 0 {
			continue
		}
		n = [3]float64{n[0] / l, n[1] / l, n[2] / l}
		p := func(q [3]float32) [3]float64 { return [3]float64{float64(q[0]), float64(q[1]), float64(q[2])} }
		i0 := m.add(p(a), n, float64(a[0]), float64(a[1]))
		i1 := m.add(p(b), n, float64(b[0]), float64(b[1]))
		i2 := m.add(p(c), n, float64(c[0]), float64(c[1]))
		m.idx = append(m.idx, i0, i1, i2)
	}
	return m
}

// planeHalf returns a plane's half extents; a size of 0 means planeInf.
func planeHalf(s mgl64.Vec3) (a, b float64) {
	a, b = s[0], s[1]
	if a <= 0 {
		a = planeInf
	}
	if b <= 0 {
		b = planeInf
	}
	return a, b
}

func boxMesh(m *mesh, h mgl64.Vec3) {
	// normal axis, u axis, v axis with u × v = normal.
	faces := [6][3]int{{0, 1, 2}, {0, 2, 1}, {1, 2, 0}, {1, 0, 2}, {2, 0, 1}, {2, 1, 0}}
	for f, ax := range faces {
		sign := 1.0
		if f%2 == 1 {
			sign = -1
		}
		na, ua, va := ax[0], ax[1], ax[2]
		var n [3]float64
		n[na] = sign
		var ids [4]uint32
		for c, q := range [4][2]float64{{-1, -1}, {1, -1}, {1, 1}, {-1, 1}} {
			var p [3]float64
			p[na] = sign * h[na]
			p[ua] = q[0] * h[ua]
			p[va] = q[1] * h[va]
			ids[c] = m.add(p, n, p[ua], p[va])
		}
		m.quad(ids[0], ids[1], ids[2], ids[3])
	}
}

// roundMesh builds a sphere (halfLen 0) or a capsule along z with slices
// around the axis and slices/2 stacks.
func roundMesh(m *mesh, r, halfLen float64, capsule bool, slices int) {
	type ring struct{ theta, z float64 }
	var rings []ring
	stacks := slices / 2
	for i := 0; i <= stacks; i++ {
		th := math.Pi * float64(i) / float64(stacks)
		if !capsule {
			rings = append(rings, ring{th, 0})
			continue
		}
		if i <= stacks/2 {
			rings = append(rings, ring{th, halfLen})
		}
		if i >= stacks/2 {
			rings = append(rings, ring{th, -halfLen})
		}
	}
	arc := 0.0
	base := uint32(len(m.pos))
	for ri, rg := range rings {
		if ri > 0 {
			p := rings[ri-1]
			arc += r*(rg.theta-p.theta) + math.Abs(rg.z-p.z)
		}
		st, ct := math.Sin(rg.theta), math.Cos(rg.theta)
		for j := 0; j <= slices; j++ {
			ph := 2 * math.Pi * float64(j) / float64(slices)
			n := [3]float64{st * math.Cos(ph), st * math.Sin(ph), ct}
			m.add([3]float64{r * n[0], r * n[1], r*n[2] + rg.z}, n, r*ph, arc)
		}
	}
	// The first and last rings sit on the poles: their bands are fans, one
	// triangle a quad (the quad's other triangle would have zero area, and
	// llvmpipe still sets up and bins every triangle it is given).
	w, ns := uint32(slices+1), uint32(slices)
	last := uint32(len(rings)) - 2
	for i := uint32(0); i <= last; i++ {
		for j := uint32(0); j < ns; j++ {
			a := base + i*w + j
			b := base + (i+1)*w + j
			switch i {
			case 0:
				m.idx = append(m.idx, a, b, b+1)
			case last:
				m.idx = append(m.idx, a, b+1, a+1)
			default:
				m.quad(a, b, b+1, a+1)
			}
		}
	}
}

func cylinderMesh(m *mesh, r, hl float64, slices int) {
	w, ns := uint32(slices+1), uint32(slices)
	base := uint32(len(m.pos))
	for _, z := range [2]float64{hl, -hl} {
		for j := 0; j <= slices; j++ {
			ph := 2 * math.Pi * float64(j) / float64(slices)
			n := [3]float64{math.Cos(ph), math.Sin(ph), 0}
			m.add([3]float64{r * n[0], r * n[1], z}, n, r*ph, z)
		}
	}
	for j := uint32(0); j < ns; j++ {
		a, b := base+j, base+w+j
		m.quad(a, b, b+1, a+1)
	}
	for _, z := range [2]float64{hl, -hl} {
		n := [3]float64{0, 0, math.Copysign(1, z)}
		c := m.add([3]float64{0, 0, z}, n, 0, 0)
		first := uint32(len(m.pos))
		for j := 0; j <= slices; j++ {
			ph := 2 * math.Pi * float64(j) / float64(slices)
			x, y := r*math.Cos(ph), r*math.Sin(ph)
			m.add([3]float64{x, y, z}, n, x, y)
		}
		for j := uint32(0); j < ns; j++ {
			if z > 0 {
				m.idx = append(m.idx, c, first+j, first+j+1)
			} else {
				m.idx = append(m.idx, c, first+j+1, first+j)
			}
		}
	}
}

// vertexStride is the number of float32s per batched vertex: world position,
// world normal, surface uv (m), object index.
const vertexStride = 9

// matStride is the number of float32s per object material record:
// colour+texture, colour2+scale, specular, shininess, id, first vertex.
const matStride = 12

// batch is a scene flattened to world space: one vertex and index array for
// the whole scene (one draw call) and a material table indexed per vertex.
type batch struct {
	verts []float32
	idx   []uint32
	mats  []float32
	// draws are the index ranges of the colour pass, in drawing order:
	// every non-plane object grouped by texture kind and shadow lookup,
	// then the planes nearest the camera first (see build). Each range has
	// one program (texture kind, with or without shadows) and one draw.
	draws []drawRange
	order []int
	// casterStart/casterCount: a second copy of the indices of every
	// non-plane object, after the kind groups, for the shadow pass.
	casterStart, casterCount int32
	objKind                  []uint8
	objMesh                  []*mesh // each object's mesh, as tessellated for this view
	holed                    []*mesh // this view's planes with a covered part left out (holedPlane)
	objRecv                  []bool  // shadows fall on the object
	// casterLo/Hi bound every non-plane object (for the shadow map).
	casterLo, casterHi [3]float32
	hasCaster          bool
}

// drawRange is one draw call of the colour pass: count indices of one
// texture kind from start.
type drawRange struct {
	kind         uint8
	shadow       bool // shadows fall on these objects (Object.NoReceive unset)
	start, count int32
}

// numTexKinds is the number of Texture values the shaders know.
const numTexKinds = 4

func texKind(t Texture) uint8 {
	if t >= numTexKinds {
		return 0
	}
	return uint8(t)
}

// build flattens sc into the batch as view sees it: the camera position
// orders the colour pass front to back, and the projected size of each
// round shape sets its tessellation (lodView.slices).
func (b *batch) build(sc *Scene, mc meshCache, view lodView) {
	eye := view.eye
	b.verts, b.idx, b.mats = b.verts[:0], b.idx[:0], b.mats[:0]
	b.objKind = b.objKind[:0]
	b.objRecv = b.objRecv[:0]
	b.objMesh = b.objMesh[:0]
	b.hasCaster = false
	nHoled := 0
	for oi := range sc.Objects {
		o := &sc.Objects[oi]
		me := mc.getTri(o.Kind, o.Size, view.slices(o), o.Mesh)
		if o.Kind == Plane && o.cover.ok {
			if nHoled == len(b.holed) {
				b.holed = append(b.holed, &mesh{})
			}
			if holedPlane(b.holed[nHoled], o, view.eye) {
				me = b.holed[nHoled]
				nHoled++
			}
		}
		b.objMesh = append(b.objMesh, me)
		b.objKind = append(b.objKind, texKind(o.Mat.Texture))
		b.objRecv = append(b.objRecv, !o.NoReceive)
		rot := o.Rot
		if rot.Len() == 0 {
			rot = mgl64.QuatIdent()
		}
		r := rot.Normalize().Mat4()
		var R [9]float32
		for c := 0; c < 3; c++ {
			for rr := 0; rr < 3; rr++ {
				R[c*3+rr] = float32(r[c*4+rr])
			}
		}
		tx, ty, tz := float32(o.Pos[0]), float32(o.Pos[1]), float32(o.Pos[2])
		base := uint32(len(b.verts) / vertexStride)
		fo := float32(oi)
		for i, p := range me.pos {
			n := me.nrm[i]
			wx := R[0]*p[0] + R[3]*p[1] + R[6]*p[2] + tx
			wy := R[1]*p[0] + R[4]*p[1] + R[7]*p[2] + ty
			wz := R[2]*p[0] + R[5]*p[1] + R[8]*p[2] + tz
			b.verts = append(b.verts, wx, wy, wz,
				R[0]*n[0]+R[3]*n[1]+R[6]*n[2],
				R[1]*n[0]+R[4]*n[1]+R[7]*n[2],
				R[2]*n[0]+R[5]*n[1]+R[8]*n[2],
				me.uv[i][0], me.uv[i][1], fo)
			if o.Kind != Plane && !o.NoShadow {
				if !b.hasCaster {
					b.casterLo, b.casterHi = [3]float32{wx, wy, wz}, [3]float32{wx, wy, wz}
					b.hasCaster = true
				}
				b.casterLo = [3]float32{min(b.casterLo[0], wx), min(b.casterLo[1], wy), min(b.casterLo[2], wz)}
				b.casterHi = [3]float32{max(b.casterHi[0], wx), max(b.casterHi[1], wy), max(b.casterHi[2], wz)}
			}
		}
		mt := &o.Mat
		scale := mt.TexScale
		if scale == 0 {
			scale = 10
		}
		shin := mt.Shininess
		if shin <= 0 {
			shin = 32
		}
		b.mats = append(b.mats,
			mt.Color[0], mt.Color[1], mt.Color[2], float32(mt.Texture),
			mt.Color2[0], mt.Color2[1], mt.Color2[2], scale,
			mt.Specular, shin, float32(o.ID), float32(base))
	}
	// The colour pass draws front to back so the early depth test rejects
	// hidden fragments before they are shaded (llvmpipe skips the shader
	// for them in single-sample rendering; under multisampling it shades
	// every rasterized fragment, so there only less hidden area helps):
	// first every object that is not a plane, grouped by texture kind and
	// shadow lookup; then the planes (table top, floor, backdrop: large
	// receivers behind the rest), nearest the eye first. The image does not
	// depend on this order (depth test LESS, no blending); only the work
	// does. mats[12*oi+11] holds each object's first vertex.
	b.draws = b.draws[:0]
	appendObj := func(oi int) {
		me := b.objMesh[oi]
		base := uint32(b.mats[oi*matStride+11])
		for _, ix := range me.idx {
			b.idx = append(b.idx, base+ix)
		}
	}
	// add appends object oi's triangles, extending the last range when it
	// has the same program.
	add := func(oi int) {
		k, sh := b.objKind[oi], b.objRecv[oi]
		start := int32(len(b.idx))
		appendObj(oi)
		n := int32(len(b.idx)) - start
		if l := len(b.draws); l > 0 && b.draws[l-1].kind == k && b.draws[l-1].shadow == sh && b.draws[l-1].start+b.draws[l-1].count == start {
			b.draws[l-1].count += n
		} else if n > 0 {
			b.draws = append(b.draws, drawRange{kind: k, shadow: sh, start: start, count: n})
		}
	}
	for k := uint8(0); k < numTexKinds; k++ {
		for _, sh := range [2]bool{true, false} {
			for oi := range sc.Objects {
				if b.objKind[oi] == k && b.objRecv[oi] == sh && sc.Objects[oi].Kind != Plane {
					add(oi)
				}
			}
		}
	}
	b.order = b.order[:0]
	for oi := range sc.Objects {
		if sc.Objects[oi].Kind == Plane {
			b.order = append(b.order, oi)
		}
	}
	slices.SortStableFunc(b.order, func(i, j int) int {
		return cmp.Compare(planeDist(&sc.Objects[i], eye), planeDist(&sc.Objects[j], eye))
	})
	for _, oi := range b.order {
		add(oi)
	}
	b.casterStart = int32(len(b.idx))
	for oi := range sc.Objects {
		o := &sc.Objects[oi]
		if o.Kind == Plane || o.NoShadow {
			continue
		}
		appendObj(oi)
	}
	b.casterCount = int32(len(b.idx)) - b.casterStart
}

// coverMargin (m) is how far the hole holedPlane cuts stays inside the
// covered part of the plane and inside the plane's edges: the plane runs on
// a little under its cover, so no sample on the cover's silhouette falls
// between the two, and the plane's outline keeps its four corners (no
// T-junction with a neighbour such as the backdrop).
const coverMargin = 0.01

// holedPlane builds into m the mesh of plane object o (horizontal, with
// o.cover set) with the part its cover hides from eye left out: the plane's
// rectangle minus a rectangular hole, as four trapezoids (eight triangles
// sharing their vertices). The cover rectangle, seen from eye, projects onto
// the plane as the cover scaled by k = (eye.z − plane z)/(eye.z − cover z)
// about eye's foot (a central projection between parallel planes is a
// homothety). It reports false, leaving m unused, when nothing can be cut:
// the eye is not above the cover, o is rotated, or the hole is empty.
func holedPlane(m *mesh, o *Object, eye mgl64.Vec3) bool {
	c := &o.cover
	if o.Rot.Len() != 0 && math.Abs(math.Abs(o.Rot.W)-1) > 1e-9 {
		return false
	}
	fz := o.Pos[2]
	if c.z <= fz || eye[2] <= c.z+1e-3 {
		return false
	}
	a, b := planeHalf(o.Size)
	k := (eye[2] - fz) / (eye[2] - c.z)
	proj := func(v, e, p float64) float64 { return e + k*(v-e) - p }
	hx0 := max(proj(c.x0, eye[0], o.Pos[0])+coverMargin, -a+coverMargin)
	hx1 := min(proj(c.x1, eye[0], o.Pos[0])-coverMargin, a-coverMargin)
	hy0 := max(proj(c.y0, eye[1], o.Pos[1])+coverMargin, -b+coverMargin)
	hy1 := min(proj(c.y1, eye[1], o.Pos[1])-coverMargin, b-coverMargin)
	if hx1-hx0 <= coverMargin || hy1-hy0 <= coverMargin {
		return false
	}
	m.pos, m.nrm, m.uv, m.idx = m.pos[:0], m.nrm[:0], m.uv[:0], m.idx[:0]
	n := [3]float64{0, 0, 1}
	// outer corners 0–3 then hole corners 4–7, both counter-clockwise
	// seen from +z; uv = local xy, as the plain plane mesh has.
	for _, p := range [8][2]float64{{-a, -b}, {a, -b}, {a, b}, {-a, b}, {hx0, hy0}, {hx1, hy0}, {hx1, hy1}, {hx0, hy1}} {
		m.add([3]float64{p[0], p[1], 0}, n, p[0], p[1])
	}
	for i := uint32(0); i < 4; i++ {
		j := (i + 1) % 4
		m.quad(i, j, 4+j, 4+i)
	}
	return true
}

// planeDist is the distance from eye to the nearest point of the plane
// object o (a rectangle of half-extents Size[0] × Size[1] in its local xy).
func planeDist(o *Object, eye mgl64.Vec3) float64 {
	rot := o.Rot
	if rot.Len() == 0 {
		rot = mgl64.QuatIdent()
	}
	a, b := planeHalf(o.Size)
	l := rot.Normalize().Inverse().Rotate(eye.Sub(o.Pos))
	x := math.Max(-a, math.Min(a, l[0]))
	y := math.Max(-b, math.Min(b, l[1]))
	return mgl64.Vec3{l[0] - x, l[1] - y, l[2]}.Len()
}

// mainIdx returns the indices of the colour pass (every object once).
func (b *batch) mainIdx() []uint32 { return b.idx[:b.casterStart] }

// casterIdx returns the indices of the shadow pass (non-plane objects).
func (b *batch) casterIdx() []uint32 { return b.idx[b.casterStart:] }
