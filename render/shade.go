package render

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// frameParams is everything per frame that both the GL shaders and the soft
// rasterizer read, computed once in Go so both backends agree.
type frameParams struct {
	viewProj   [16]float32 // column-major
	viewZ      [4]float32  // row 2 of the view matrix: eye z = viewZ·(p,1)
	eye        [3]float32
	nLights    int
	light      [MaxLights][4]float32 // xyz: unit vector towards a directional light (w=0) or point position (w=1)
	lightCol   [MaxLights][3]float32
	ambient    [3]float32
	background [3]float32
	shadowIdx  int // light index with a shadow map, or -1
	lightVP    [16]float32
}

func toF32(m mgl64.Mat4) (o [16]float32) {
	for i := range m {
		o[i] = float32(m[i])
	}
	return o
}

// params derives frame parameters; shadowSize 0 turns shadows off.
func (b *batch) params(sc *Scene, cam Camera, shadows bool) frameParams {
	var fp frameParams
	view := cam.View()
	fp.viewProj = toF32(cam.Proj().Mul4(view))
	fp.viewZ = [4]float32{float32(view[2]), float32(view[6]), float32(view[10]), float32(view[14])}
	fp.eye = [3]float32{float32(cam.Pos[0]), float32(cam.Pos[1]), float32(cam.Pos[2])}
	fp.ambient, fp.background = sc.Ambient, sc.Background
	fp.shadowIdx = -1
	for _, l := range sc.Lights {
		if fp.nLights == MaxLights {
			break
		}
		i := fp.nLights
		if l.Point {
			fp.light[i] = [4]float32{float32(l.Pos[0]), float32(l.Pos[1]), float32(l.Pos[2]), 1}
		} else {
			d := l.Dir
			if d.Len() == 0 {
				d = mgl64.Vec3{0, 0, -1}
			}
			d = d.Normalize().Mul(-1)
			fp.light[i] = [4]float32{float32(d[0]), float32(d[1]), float32(d[2]), 0}
			if shadows && l.Shadow && fp.shadowIdx < 0 && b.hasCaster {
				fp.shadowIdx = i
				fp.lightVP = toF32(b.lightViewProj(d.Mul(-1)))
			}
		}
		fp.lightCol[i] = l.Color
		fp.nLights++
	}
	return fp
}

// lightViewProj fits an orthographic light frustum around the shadow casters
// (every non-plane object). Receivers beyond its depth range count as lit.
func (b *batch) lightViewProj(dir mgl64.Vec3) mgl64.Mat4 {
	lo, hi := b.casterLo, b.casterHi
	c := mgl64.Vec3{float64(lo[0]+hi[0]) / 2, float64(lo[1]+hi[1]) / 2, float64(lo[2]+hi[2]) / 2}
	r := mgl64.Vec3{float64(hi[0] - lo[0]), float64(hi[1] - lo[1]), float64(hi[2] - lo[2])}.Len()/2 + 0.01
	up := mgl64.Vec3{0, 0, 1}
	if math.Abs(dir.Normalize().Dot(up)) > 0.99 {
		up = mgl64.Vec3{0, 1, 0}
	}
	eye := c.Sub(dir.Normalize().Mul(r + 0.05))
	view := mgl64.LookAtV(eye, c, up)
	return mgl64.Ortho(-r, r, -r, r, 0.01, 2*r+1.0).Mul4(view)
}

// shadowBias is the depth bias (light clip depth in [0,1]) against acne.
func shadowBias(ndotl float32) float32 { return 0.002 + 0.004*(1-ndotl) }

func fract32(x float32) float32 { return x - float32(math.Floor(float64(x))) }

// texColor mirrors texColor in the fragment shader.
func texColor(m []float32, u, v float32) (r, g, b float32) {
	kind := m[3]
	if kind == 0 {
		return m[0], m[1], m[2]
	}
	tx, ty := u*m[7], v*m[7]
	var k float32
	switch kind {
	case 1:
		s := float32(math.Floor(float64(tx))) + float32(math.Floor(float64(ty)))
		k = s - 2*float32(math.Floor(float64(s/2)))
	case 2:
		g := tx + 0.25*sin32(ty*0.9) + 0.08*sin32(ty*4.1+tx*0.7)
		rr := 0.5 + 0.5*sin32(g*6.2831853)
		k = rr * rr
	case 3:
		if fract32(tx+ty) >= 0.5 {
			k = 1
		}
	default:
		return m[0], m[1], m[2]
	}
	return m[0] + (m[4]-m[0])*k, m[1] + (m[5]-m[1])*k, m[2] + (m[6]-m[2])*k
}

// shade mirrors the fragment shader's Blinn-Phong lighting. lit[i] is the
// shadow factor for light i.
func (fp *frameParams) shade(m []float32, p, n [3]float32, u, v float32, lit *[MaxLights]float32) (r, g, b float32) {
	br, bg, bb := texColor(m, u, v)
	n[0], n[1], n[2] = unit(n[0], n[1], n[2])
	vx, vy, vz := unit(fp.eye[0]-p[0], fp.eye[1]-p[1], fp.eye[2]-p[2])
	r, g, b = fp.ambient[0]*br, fp.ambient[1]*bg, fp.ambient[2]*bb
	spec, shin := m[8], m[9]
	for i := 0; i < fp.nLights; i++ {
		lx, ly, lz := fp.toLight(i, p)
		d := n[0]*lx + n[1]*ly + n[2]*lz
		if d <= 0 {
			continue
		}
		s := blinnSpec(n, lx+vx, ly+vy, lz+vz, spec, shin)
		f := lit[i]
		c := fp.lightCol[i]
		r += f * c[0] * (d*br + s)
		g += f * c[1] * (d*bg + s)
		b += f * c[2] * (d*bb + s)
	}
	return r, g, b
}

func to8(x float32) uint8 {
	if !(x > 0) {
		return 0
	}
	if x >= 1 {
		return 255
	}
	return uint8(x*255 + 0.5)
}

// vtermStride is the number of per-vertex lighting values: A (ambient plus
// unshadowed diffuse), S (unshadowed specular), Dsh and Ssh (diffuse and
// specular of the shadowed light) and N·L of the shadowed light.
const vtermStride = 13

// vertexTerms mirrors the vertex shader's per-vertex lighting.
func (fp *frameParams) vertexTerms(m []float32, p, n [3]float32, out []float32) {
	n[0], n[1], n[2] = unit(n[0], n[1], n[2])
	vx, vy, vz := unit(fp.eye[0]-p[0], fp.eye[1]-p[1], fp.eye[2]-p[2])
	out = out[:vtermStride]
	clear(out)
	out[0], out[1], out[2] = fp.ambient[0], fp.ambient[1], fp.ambient[2]
	spec, shin := m[8], m[9]
	for i := 0; i < fp.nLights; i++ {
		lx, ly, lz := fp.toLight(i, p)
		d := n[0]*lx + n[1]*ly + n[2]*lz
		if i == fp.shadowIdx {
			out[12] = d
		}
		if d <= 0 {
			continue
		}
		s := blinnSpec(n, lx+vx, ly+vy, lz+vz, spec, shin)
		c := fp.lightCol[i]
		if i == fp.shadowIdx {
			out[6], out[7], out[8] = c[0]*d, c[1]*d, c[2]*d
			out[9], out[10], out[11] = c[0]*s, c[1]*s, c[2]*s
		} else {
			out[0] += c[0] * d
			out[1] += c[1] * d
			out[2] += c[2] * d
			out[3] += c[0] * s
			out[4] += c[1] * s
			out[5] += c[2] * s
		}
	}
}

// sin32 is sin for the texture code: range reduction to [−π, π] and an
// odd Taylor polynomial to x¹⁵ (error < 1e-6 there), about 3x faster than
// math.Sin and as accurate as GLSL's float sin.
func sin32(x float32) float32 {
	const twoPi, invTwoPi = 6.283185307179586, 0.15915494309189535
	r := float64(x)
	r -= twoPi * math.Floor(r*invTwoPi+0.5)
	r2 := r * r
	return float32(r * (1 + r2*(-1.0/6+r2*(1.0/120+r2*(-1.0/5040+r2*(1.0/362880+r2*(-1.0/39916800+r2*(1.0/6227020800+r2*(-1.0/1307674368000)))))))))
}

// unit returns (x, y, z) scaled to length 1, or unchanged when it is zero.
func unit(x, y, z float32) (float32, float32, float32) {
	if l := float32(math.Sqrt(float64(x*x + y*y + z*z))); l > 0 {
		return x / l, y / l, z / l
	}
	return x, y, z
}

// toLight is the unit vector from p towards light i (a directional
// light's stored direction as is).
func (fp *frameParams) toLight(i int, p [3]float32) (x, y, z float32) {
	lv := &fp.light[i]
	if lv[3] == 0 {
		return lv[0], lv[1], lv[2]
	}
	return unit(lv[0]-p[0], lv[1]-p[1], lv[2]-p[2])
}

// blinnSpec is the Blinn-Phong specular term spec·(n·ĥ)^shin for the
// unnormalised half vector h = l + v (0 when h is zero or faces away).
func blinnSpec(n [3]float32, hx, hy, hz, spec, shin float32) float32 {
	hl := float32(math.Sqrt(float64(hx*hx + hy*hy + hz*hz)))
	if hl <= 0 {
		return 0
	}
	nh := (n[0]*hx + n[1]*hy + n[2]*hz) / hl
	if nh <= 0 {
		return 0
	}
	return spec * float32(math.Pow(float64(nh), float64(shin)))
}
