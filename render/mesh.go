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

// Tessellation of round shapes: a trade between silhouettes a VLM reads as
// round at 224 px and per-vertex cost on llvmpipe.
const (
	roundSlices = 16
	roundStacks = 8 // even, so capsules split at the equator
	planeInf    = 5 // half extent (m) used for planes of size 0 (MuJoCo: infinite)
)

func (m *mesh) add(p, n [3]float64, u, v float64) uint32 {
	m.pos = append(m.pos, [3]float32{float32(p[0]), float32(p[1]), float32(p[2])})
	m.nrm = append(m.nrm, [3]float32{float32(n[0]), float32(n[1]), float32(n[2])})
	m.uv = append(m.uv, [2]float32{float32(u), float32(v)})
	return uint32(len(m.pos) - 1)
}

func (m *mesh) quad(a, b, c, d uint32) { m.idx = append(m.idx, a, b, c, a, c, d) }

type meshKey struct {
	kind Kind
	size [3]float64
}

// meshCache keeps one mesh per (kind, size). Not safe for concurrent use.
type meshCache map[meshKey]*mesh

func (mc meshCache) get(k Kind, s mgl64.Vec3) *mesh {
	key := meshKey{k, [3]float64(s)}
	if m, ok := mc[key]; ok {
		return m
	}
	if len(mc) > 4096 { // scenes with ever-changing sizes: start over
		clear(mc)
	}
	m := buildMesh(k, s)
	mc[key] = m
	return m
}

func buildMesh(k Kind, s mgl64.Vec3) *mesh {
	m := &mesh{}
	switch k {
	case Box:
		boxMesh(m, s)
	case Sphere:
		roundMesh(m, s[0], 0, false)
	case Capsule:
		roundMesh(m, s[0], s[1], true)
	case Cylinder:
		cylinderMesh(m, s[0], s[1])
	case Plane:
		a, b := s[0], s[1]
		if a <= 0 {
			a = planeInf
		}
		if b <= 0 {
			b = planeInf
		}
		n := [3]float64{0, 0, 1}
		i0 := m.add([3]float64{-a, -b, 0}, n, -a, -b)
		i1 := m.add([3]float64{a, -b, 0}, n, a, -b)
		i2 := m.add([3]float64{a, b, 0}, n, a, b)
		i3 := m.add([3]float64{-a, b, 0}, n, -a, b)
		m.quad(i0, i1, i2, i3)
	}
	return m
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

// roundMesh builds a sphere (halfLen 0) or a capsule along z.
func roundMesh(m *mesh, r, halfLen float64, capsule bool) {
	type ring struct{ theta, z float64 }
	var rings []ring
	for i := 0; i <= roundStacks; i++ {
		th := math.Pi * float64(i) / roundStacks
		if !capsule {
			rings = append(rings, ring{th, 0})
			continue
		}
		if i <= roundStacks/2 {
			rings = append(rings, ring{th, halfLen})
		}
		if i >= roundStacks/2 {
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
		for j := 0; j <= roundSlices; j++ {
			ph := 2 * math.Pi * float64(j) / roundSlices
			n := [3]float64{st * math.Cos(ph), st * math.Sin(ph), ct}
			m.add([3]float64{r * n[0], r * n[1], r*n[2] + rg.z}, n, r*ph, arc)
		}
	}
	w := uint32(roundSlices + 1)
	for i := uint32(0); i+1 < uint32(len(rings)); i++ {
		for j := uint32(0); j < roundSlices; j++ {
			a := base + i*w + j
			b := base + (i+1)*w + j
			m.quad(a, b, b+1, a+1)
		}
	}
}

func cylinderMesh(m *mesh, r, hl float64) {
	w := uint32(roundSlices + 1)
	base := uint32(len(m.pos))
	for _, z := range [2]float64{hl, -hl} {
		for j := 0; j <= roundSlices; j++ {
			ph := 2 * math.Pi * float64(j) / roundSlices
			n := [3]float64{math.Cos(ph), math.Sin(ph), 0}
			m.add([3]float64{r * n[0], r * n[1], z}, n, r*ph, z)
		}
	}
	for j := uint32(0); j < roundSlices; j++ {
		a, b := base+j, base+w+j
		m.quad(a, b, b+1, a+1)
	}
	for _, z := range [2]float64{hl, -hl} {
		n := [3]float64{0, 0, math.Copysign(1, z)}
		c := m.add([3]float64{0, 0, z}, n, 0, 0)
		first := uint32(len(m.pos))
		for j := 0; j <= roundSlices; j++ {
			ph := 2 * math.Pi * float64(j) / roundSlices
			x, y := r*math.Cos(ph), r*math.Sin(ph)
			m.add([3]float64{x, y, z}, n, x, y)
		}
		for j := uint32(0); j < roundSlices; j++ {
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
	objRecv                  []bool // shadows fall on the object
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

// build flattens sc into the batch; eye (the camera position) orders the
// colour pass front to back.
func (b *batch) build(sc *Scene, mc meshCache, eye mgl64.Vec3) {
	b.verts, b.idx, b.mats = b.verts[:0], b.idx[:0], b.mats[:0]
	b.objKind = b.objKind[:0]
	b.objRecv = b.objRecv[:0]
	b.hasCaster = false
	for oi := range sc.Objects {
		o := &sc.Objects[oi]
		me := mc.get(o.Kind, o.Size)
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
		o := &sc.Objects[oi]
		me := mc.get(o.Kind, o.Size)
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
		me := mc.get(o.Kind, o.Size)
		base := uint32(b.mats[oi*matStride+11])
		for _, ix := range me.idx {
			b.idx = append(b.idx, base+ix)
		}
	}
	b.casterCount = int32(len(b.idx)) - b.casterStart
}

// planeDist is the distance from eye to the nearest point of the plane
// object o (a rectangle of half-extents Size[0] × Size[1] in its local xy).
func planeDist(o *Object, eye mgl64.Vec3) float64 {
	rot := o.Rot
	if rot.Len() == 0 {
		rot = mgl64.QuatIdent()
	}
	a, b := o.Size[0], o.Size[1]
	if a <= 0 {
		a = planeInf
	}
	if b <= 0 {
		b = planeInf
	}
	l := rot.Normalize().Inverse().Rotate(eye.Sub(o.Pos))
	x := math.Max(-a, math.Min(a, l[0]))
	y := math.Max(-b, math.Min(b, l[1]))
	return mgl64.Vec3{l[0] - x, l[1] - y, l[2]}.Len()
}

// mainIdx returns the indices of the colour pass (every object once).
func (b *batch) mainIdx() []uint32 { return b.idx[:b.casterStart] }

// casterIdx returns the indices of the shadow pass (non-plane objects).
func (b *batch) casterIdx() []uint32 { return b.idx[b.casterStart:] }
