package render

import (
	"image"
	"math"
	"runtime"
	"sync"
)

// softRenderer is the pure-Go backend: a deferred z-buffer rasterizer that
// evaluates the same shading as the GL fragment shader once per visible
// pixel. It follows GL conventions (pixel centres at +0.5, clip against near
// and far planes, depth test LESS against a cleared 1.0, back faces culled).
type softRenderer struct {
	mu     sync.Mutex
	opts   Options
	closed bool
	mc     meshCache
	b      batch
	vis    visBuf
	shadow visBuf
	clip   []float64 // 4 per vertex
	vterms []float32 // vtermStride per vertex (per-vertex lighting)
	tris   []stri
	ss     []uint8 // supersampled colour
}

func newSoft(opts Options) (*softRenderer, error) {
	return &softRenderer{opts: opts, mc: meshCache{}}, nil
}

func (r *softRenderer) Info() Info {
	ms := 1
	if r.opts.MSAA > 1 {
		ms = 4
	}
	return Info{Backend: "soft", Renderer: "vlmrb pure-Go rasterizer", Vendor: "vlmrb", Version: "1", Software: true,
		ShadowSize: r.opts.shadowSize(), MSAA: ms}
}

func (r *softRenderer) Close() error {
	r.mu.Lock()
	r.closed = true
	r.mu.Unlock()
	return nil
}

func (r *softRenderer) Render(sc *Scene, cam Camera, dst *image.RGBA) error {
	return r.RenderBuffers(sc, cam, Buffers{RGB: dst})
}

func (r *softRenderer) RenderBuffers(sc *Scene, cam Camera, dst Buffers) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := checkCall(r.closed, sc, cam, dst); err != nil {
		return err
	}
	if r.opts.RequireGPU {
		return ErrSoftwareGL
	}
	r.b.build(sc, r.mc, newLODView(cam))
	fp := r.b.params(sc, cam, r.opts.Shadows)
	ssize := r.opts.shadowSize()
	if fp.shadowIdx >= 0 {
		r.shadow.resetDepth(ssize, ssize)
		// Back faces are culled as in the colour pass: casters are closed
		// meshes (TestMeshClosed), so the nearest surface along any ray
		// from the light is a front face and the map is the same.
		r.rasterize(&r.shadow, &fp.lightVP, true, r.b.casterIdx())
	}
	if !r.opts.PixelLighting && dst.RGB != nil {
		r.computeVertexTerms(&fp)
	}
	w, h := cam.Width, cam.Height
	if dst.RGB != nil && r.opts.MSAA > 1 {
		r.vis.reset(2*w, 2*h)
		r.rasterize(&r.vis, &fp.viewProj, true, r.b.mainIdx())
		if cap(r.ss) < 16*w*h {
			r.ss = make([]uint8, 16*w*h)
		}
		ss := r.ss[:16*w*h]
		r.shadeInto(&fp, ss, 8*w, 2*w, 2*h, nil, nil, ssize)
		resolve2x2(dst.RGB, ss, w, h)
		if dst.Depth == nil && dst.Seg == nil {
			return nil
		}
		dst.RGB = nil
	}
	r.vis.reset(w, h)
	r.rasterize(&r.vis, &fp.viewProj, true, r.b.mainIdx())
	var pix []uint8
	stride := 0
	if dst.RGB != nil {
		pix, stride = dst.RGB.Pix, dst.RGB.Stride
	}
	r.shadeInto(&fp, pix, stride, w, h, dst.Depth, dst.Seg, ssize)
	return nil
}

func (r *softRenderer) computeVertexTerms(fp *frameParams) {
	verts, mats := r.b.verts, r.b.mats
	nv := len(verts) / vertexStride
	if cap(r.vterms) < nv*vtermStride {
		r.vterms = make([]float32, nv*vtermStride)
	}
	r.vterms = r.vterms[:nv*vtermStride]
	for i := 0; i < nv; i++ {
		v := verts[i*vertexStride : i*vertexStride+vertexStride]
		o := int(v[8])
		fp.vertexTerms(mats[o*matStride:o*matStride+matStride], [3]float32{v[0], v[1], v[2]}, [3]float32{v[3], v[4], v[5]},
			r.vterms[i*vtermStride:i*vtermStride+vtermStride])
	}
}

// visBuf is the visibility buffer: nearest triangle and its perspective-
// correct barycentrics per pixel, bottom row first (GL order).
type visBuf struct {
	w, h   int
	z      []float32
	tri    []int32
	b1, b2 []float32
}

// resetDepth prepares a depth-only buffer (shadow maps).
func (v *visBuf) resetDepth(w, h int) {
	n := w * h
	if cap(v.z) < n {
		v.z = make([]float32, n)
	}
	v.w, v.h, v.z, v.tri = w, h, v.z[:n], nil
	for i := range v.z {
		v.z[i] = 1
	}
}

func (v *visBuf) reset(w, h int) {
	n := w * h
	if cap(v.z) < n {
		v.z, v.tri = make([]float32, n), make([]int32, n)
		v.b1, v.b2 = make([]float32, n), make([]float32, n)
	}
	v.w, v.h = w, h
	v.z, v.tri, v.b1, v.b2 = v.z[:n], v.tri[:n], v.b1[:n], v.b2[:n]
	for i := range v.z {
		v.z[i] = 1
		v.tri[i] = -1
	}
}

// cvert is a clip-space vertex with barycentrics in its source triangle.
type cvert struct {
	c [4]float64
	b [3]float64
}

func (r *softRenderer) rasterize(v *visBuf, vp *[16]float32, cull bool, idx []uint32) {
	verts := r.b.verts
	nv := len(verts) / vertexStride
	if cap(r.clip) < 4*nv {
		r.clip = make([]float64, 4*nv)
	}
	cl := r.clip[:4*nv]
	var m [16]float64
	for i := range m {
		m[i] = float64(vp[i])
	}
	for i := 0; i < nv; i++ {
		x, y, z := float64(verts[i*vertexStride]), float64(verts[i*vertexStride+1]), float64(verts[i*vertexStride+2])
		cl[4*i] = m[0]*x + m[4]*y + m[8]*z + m[12]
		cl[4*i+1] = m[1]*x + m[5]*y + m[9]*z + m[13]
		cl[4*i+2] = m[2]*x + m[6]*y + m[10]*z + m[14]
		cl[4*i+3] = m[3]*x + m[7]*y + m[11]*z + m[15]
	}
	r.tris = r.tris[:0]
	var poly, tmp [9]cvert
	for t := 0; t+2 < len(idx); t += 3 {
		var in [3]cvert
		outside := 0
		for k := 0; k < 3; k++ {
			j := idx[t+k]
			copy(in[k].c[:], cl[4*j:4*j+4])
			in[k].b[k] = 1
			c := in[k].c
			if c[2] < -c[3] || c[2] > c[3] {
				outside++
			}
		}
		n := 3
		copy(poly[:], in[:])
		if outside > 0 {
			n = clipPoly(poly[:], tmp[:], n, 1)  // z + w >= 0 (near)
			n = clipPoly(poly[:], tmp[:], n, -1) // w - z >= 0 (far)
			if n < 3 {
				continue
			}
		}
		for k := 1; k+1 < n; k++ {
			if st, ok := setupTri(v.w, v.h, &poly[0], &poly[k], &poly[k+1], int32(t/3), cull); ok {
				r.tris = append(r.tris, st)
			}
		}
	}
	bands := r.bands(v.w, v.h)
	if bands == 1 {
		v.rasterBand(r.tris, 0, v.h)
		return
	}
	var wg sync.WaitGroup
	for k := 0; k < bands; k++ {
		y0, y1 := k*v.h/bands, (k+1)*v.h/bands
		wg.Add(1)
		go func() {
			defer wg.Done()
			v.rasterBand(r.tris, y0, y1)
		}()
	}
	wg.Wait()
}

// bands picks how many row bands to rasterize and shade in parallel.
func (r *softRenderer) bands(w, h int) int {
	n := min(runtime.GOMAXPROCS(0), 8, h/16)
	if w*h < 64*64 || n < 1 {
		return 1
	}
	return n
}

// clipPoly clips poly (n vertices) against s*z + w >= 0 in place.
func clipPoly(poly, tmp []cvert, n int, s float64) int {
	m := 0
	for i := 0; i < n; i++ {
		a, b := &poly[i], &poly[(i+1)%n]
		da, db := s*a.c[2]+a.c[3], s*b.c[2]+b.c[3]
		if da >= 0 {
			tmp[m] = *a
			m++
		}
		if (da >= 0) != (db >= 0) {
			t := da / (da - db)
			var o cvert
			for k := 0; k < 4; k++ {
				o.c[k] = a.c[k] + t*(b.c[k]-a.c[k])
			}
			for k := 0; k < 3; k++ {
				o.b[k] = a.b[k] + t*(b.b[k]-a.b[k])
			}
			tmp[m] = o
			m++
		}
	}
	copy(poly, tmp[:m])
	return m
}

// stri is a triangle set up for rasterization: normalised edge functions
// e_k(x, y) = A_k x + B_k y + C_k (the weight of vertex k), depth and 1/w
// per vertex, source-triangle barycentrics and the pixel bounding box.
type stri struct {
	A, B, C, Z, IW [3]float64
	bary           [3][3]float64
	tri            int32
	x0, x1, y0, y1 int
}

func setupTri(w, h int, a, b, c *cvert, tri int32, cull bool) (stri, bool) {
	W, H := float64(w), float64(h)
	var X, Y [3]float64
	var st stri
	for k, p := range [3]*cvert{a, b, c} {
		iw := 1 / p.c[3]
		X[k] = (p.c[0]*iw*0.5 + 0.5) * W
		Y[k] = (p.c[1]*iw*0.5 + 0.5) * H
		st.Z[k] = p.c[2]*iw*0.5 + 0.5
		st.IW[k] = iw
		st.bary[k] = p.b
	}
	area := (X[1]-X[0])*(Y[2]-Y[0]) - (X[2]-X[0])*(Y[1]-Y[0])
	if area == 0 || math.IsNaN(area) || (cull && area < 0) {
		return st, false
	}
	inv := 1 / area
	st.x0 = max(0, int(math.Ceil(min(X[0], X[1], X[2])-0.5)))
	st.x1 = min(w-1, int(math.Floor(max(X[0], X[1], X[2])-0.5)))
	st.y0 = max(0, int(math.Ceil(min(Y[0], Y[1], Y[2])-0.5)))
	st.y1 = min(h-1, int(math.Floor(max(Y[0], Y[1], Y[2])-0.5)))
	if st.x0 > st.x1 || st.y0 > st.y1 {
		return st, false
	}
	for k := 0; k < 3; k++ {
		i, j := (k+1)%3, (k+2)%3
		st.A[k] = -(Y[j] - Y[i]) * inv
		st.B[k] = (X[j] - X[i]) * inv
		st.C[k] = ((X[j]-X[i])*(-Y[i]) + (Y[j]-Y[i])*X[i]) * inv
	}
	st.tri = tri
	return st, true
}

// rasterBand draws tris into rows [ya, yb) in submission order (so the
// depth test resolves ties as GL does).
func (v *visBuf) rasterBand(tris []stri, ya, yb int) {
	for ti := range tris {
		st := &tris[ti]
		y0, y1 := max(st.y0, ya), min(st.y1, yb-1)
		A, B, C, Z, IW := &st.A, &st.B, &st.C, &st.Z, &st.IW
		for y := y0; y <= y1; y++ {
			py := float64(y) + 0.5
			row := y * v.w
			for x := st.x0; x <= st.x1; x++ {
				px := float64(x) + 0.5
				e0 := A[0]*px + B[0]*py + C[0]
				e1 := A[1]*px + B[1]*py + C[1]
				e2 := A[2]*px + B[2]*py + C[2]
				if e0 < 0 || e1 < 0 || e2 < 0 {
					continue
				}
				z := float32(e0*Z[0] + e1*Z[1] + e2*Z[2])
				i := row + x
				if !(z < v.z[i]) || z < 0 {
					continue
				}
				v.z[i] = z
				if v.tri == nil {
					continue
				}
				v.tri[i] = st.tri
				q0, q1, q2 := e0*IW[0], e1*IW[1], e2*IW[2]
				s := 1 / (q0 + q1 + q2)
				q0, q1, q2 = q0*s, q1*s, q2*s
				v.b1[i] = float32(q0*st.bary[0][1] + q1*st.bary[1][1] + q2*st.bary[2][1])
				v.b2[i] = float32(q0*st.bary[0][2] + q1*st.bary[1][2] + q2*st.bary[2][2])
			}
		}
	}
}

// shadeInto shades every pixel of r.vis into pix (top row first) and fills
// depth and seg when non-nil.
func (r *softRenderer) shadeInto(fp *frameParams, pix []uint8, stride, w, h int, depth []float32, seg []int32, ssize int) {
	bands := r.bands(w, h)
	if bands == 1 {
		r.shadeRows(fp, pix, stride, w, h, depth, seg, ssize, 0, h)
		return
	}
	var wg sync.WaitGroup
	for k := 0; k < bands; k++ {
		y0, y1 := k*h/bands, (k+1)*h/bands
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.shadeRows(fp, pix, stride, w, h, depth, seg, ssize, y0, y1)
		}()
	}
	wg.Wait()
}

// shadeRows shades visibility rows [ya, yb) (GL order, bottom first).
func (r *softRenderer) shadeRows(fp *frameParams, pix []uint8, stride, w, h int, depth []float32, seg []int32, ssize, ya, yb int) {
	verts, idx, mats := r.b.verts, r.b.idx, r.b.mats
	bg := [3]uint8{to8(fp.background[0]), to8(fp.background[1]), to8(fp.background[2])}
	var lit [MaxLights]float32
	for y := ya; y < yb; y++ {
		out := h - 1 - y
		for x := 0; x < w; x++ {
			i := y*w + x
			o := out*w + x
			t0 := r.vis.tri[i]
			t := t0
			var po []uint8
			if pix != nil {
				po = pix[out*stride+4*x : out*stride+4*x+4 : out*stride+4*x+4]
			}
			if t < 0 {
				if po != nil {
					po[0], po[1], po[2], po[3] = bg[0], bg[1], bg[2], 255
				}
				if depth != nil {
					depth[o] = 0
				}
				if seg != nil {
					seg[o] = 0
				}
				continue
			}
			b1, b2 := r.vis.b1[i], r.vis.b2[i]
			b0 := 1 - b1 - b2
			v0 := verts[int(idx[3*t])*vertexStride:]
			v1 := verts[int(idx[3*t+1])*vertexStride:]
			v2 := verts[int(idx[3*t+2])*vertexStride:]
			var p, n [3]float32
			for k := 0; k < 3; k++ {
				p[k] = b0*v0[k] + b1*v1[k] + b2*v2[k]
				n[k] = b0*v0[3+k] + b1*v1[3+k] + b2*v2[3+k]
			}
			m := mats[int(v0[8])*matStride : int(v0[8])*matStride+matStride]
			if depth != nil {
				depth[o] = -(fp.viewZ[0]*p[0] + fp.viewZ[1]*p[1] + fp.viewZ[2]*p[2] + fp.viewZ[3])
			}
			if seg != nil {
				seg[o] = int32(m[10] + 0.5)
			}
			if po == nil {
				continue
			}
			u := b0*v0[6] + b1*v1[6] + b2*v2[6]
			vv := b0*v0[7] + b1*v1[7] + b2*v2[7]
			var cr, cg, cb float32
			if r.opts.PixelLighting {
				for k := range lit {
					lit[k] = 1
				}
				if fp.shadowIdx >= 0 && r.b.objRecv[int(v0[8])] {
					l := fp.light[fp.shadowIdx]
					var ndl float32
					if nl := float32(math.Sqrt(float64(n[0]*n[0] + n[1]*n[1] + n[2]*n[2]))); nl > 0 {
						ndl = (n[0]*l[0] + n[1]*l[1] + n[2]*l[2]) / nl
					}
					lit[fp.shadowIdx] = r.shadowAt(fp, p, ndl, ssize)
				}
				cr, cg, cb = fp.shade(m, p, n, u, vv, &lit)
			} else {
				var t [vtermStride]float32
				i0, i1, i2 := int(idx[3*t0])*vtermStride, int(idx[3*t0+1])*vtermStride, int(idx[3*t0+2])*vtermStride
				for k := range t {
					t[k] = b0*r.vterms[i0+k] + b1*r.vterms[i1+k] + b2*r.vterms[i2+k]
				}
				br, bg, bb := texColor(m, u, vv)
				sf := float32(1)
				if fp.shadowIdx >= 0 && r.b.objRecv[int(v0[8])] {
					sf = r.shadowAt(fp, p, t[12], ssize)
				}
				cr = t[0]*br + t[3] + sf*(t[6]*br+t[9])
				cg = t[1]*bg + t[4] + sf*(t[7]*bg+t[10])
				cb = t[2]*bb + t[5] + sf*(t[8]*bb+t[11])
			}
			po[0], po[1], po[2], po[3] = to8(cr), to8(cg), to8(cb), 255
		}
	}
}

// shadowAt mirrors shadowAt in the fragment shader.
func (r *softRenderer) shadowAt(fp *frameParams, p [3]float32, ndotl float32, ssize int) float32 {
	m := &fp.lightVP
	cx := m[0]*p[0] + m[4]*p[1] + m[8]*p[2] + m[12]
	cy := m[1]*p[0] + m[5]*p[1] + m[9]*p[2] + m[13]
	cz := m[2]*p[0] + m[6]*p[1] + m[10]*p[2] + m[14]
	cw := m[3]*p[0] + m[7]*p[1] + m[11]*p[2] + m[15]
	x, y, z := cx/cw*0.5+0.5, cy/cw*0.5+0.5, cz/cw*0.5+0.5
	if x < 0 || y < 0 || x >= 1 || y >= 1 || z > 1 {
		return 1
	}
	tx, ty := int(x*float32(ssize)), int(y*float32(ssize))
	d := r.shadow.z[ty*r.shadow.w+tx]
	if z-shadowBias(ndotl) > d {
		return 0
	}
	return 1
}

func resolve2x2(dst *image.RGBA, ss []uint8, w, h int) {
	s := 8 * w
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			a := 2*y*s + 8*x
			o := y*dst.Stride + 4*x
			for k := 0; k < 4; k++ {
				sum := int(ss[a+k]) + int(ss[a+4+k]) + int(ss[a+s+k]) + int(ss[a+s+4+k])
				dst.Pix[o+k] = uint8((sum + 2) / 4)
			}
		}
	}
}
