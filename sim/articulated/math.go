package articulated

import "math"

type vec3 = [3]float64

func add3(a, b vec3) vec3           { return vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func sub3(a, b vec3) vec3           { return vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func scale3(a vec3, s float64) vec3 { return vec3{a[0] * s, a[1] * s, a[2] * s} }
func dot3(a, b vec3) float64        { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func norm3(a vec3) float64          { return math.Sqrt(dot3(a, a)) }
func cross3(a, b vec3) vec3 {
	return vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

func normQuat(q [4]float64) ([4]float64, bool) {
	n := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	if n < 1e-15 {
		return [4]float64{1, 0, 0, 0}, false
	}
	return [4]float64{q[0] / n, q[1] / n, q[2] / n, q[3] / n}, true
}

// normQuatS is normQuat on scalars (in registers): q/|q|, the identity
// when |q| < 1e-15.
func normQuatS(w, x, y, z float64) (float64, float64, float64, float64) {
	n := math.Sqrt(w*w + x*x + y*y + z*z)
	if n < 1e-15 {
		return 1, 0, 0, 0
	}
	return w / n, x / n, y / n, z / n
}

// mulQuat returns a·b (w, x, y, z).
func mulQuat(a, b [4]float64) [4]float64 {
	r0, r1, r2, r3 := mulQuatS(a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3])
	return [4]float64{r0, r1, r2, r3}
}

// mulQuatS is mulQuat on scalars (Go passes arrays in memory, scalars in
// registers: the kinematics' inner loops use these forms).
func mulQuatS(a0, a1, a2, a3, b0, b1, b2, b3 float64) (float64, float64, float64, float64) {
	return a0*b0 - a1*b1 - a2*b2 - a3*b3,
		a0*b1 + a1*b0 + a2*b3 - a3*b2,
		a0*b2 - a1*b3 + a2*b0 + a3*b1,
		a0*b3 + a1*b2 - a2*b1 + a3*b0
}

// quatMat returns the row-major rotation matrix of unit quaternion q.
func quatMat(q [4]float64) [9]float64 {
	var m [9]float64
	quatMatTo(&m, q[0], q[1], q[2], q[3])
	return m
}

// quatMatTo writes quatMat(w, x, y, z) into m.
func quatMatTo(m *[9]float64, w, x, y, z float64) {
	m[0], m[1], m[2] = w*w+x*x-y*y-z*z, 2*(x*y-w*z), 2*(x*z+w*y)
	m[3], m[4], m[5] = 2*(x*y+w*z), w*w-x*x+y*y-z*z, 2*(y*z-w*x)
	m[6], m[7], m[8] = 2*(x*z-w*y), 2*(y*z+w*x), w*w-x*x-y*y+z*z
}

func mulMatVec(m *[9]float64, v vec3) vec3 {
	return vec3{m[0]*v[0] + m[1]*v[1] + m[2]*v[2], m[3]*v[0] + m[4]*v[1] + m[5]*v[2], m[6]*v[0] + m[7]*v[1] + m[8]*v[2]}
}

func mulMatTVec(m *[9]float64, v vec3) vec3 {
	return vec3{m[0]*v[0] + m[3]*v[1] + m[6]*v[2], m[1]*v[0] + m[4]*v[1] + m[7]*v[2], m[2]*v[0] + m[5]*v[1] + m[8]*v[2]}
}

// rotVecQuat rotates v by unit quaternion q (v + w·t + q⃗ × t, t = 2·q⃗ ×
// v); the zero vector stays exactly zero.
func rotVecQuat(v vec3, q [4]float64) vec3 {
	r0, r1, r2 := rotVecQuatS(v[0], v[1], v[2], q[0], q[1], q[2], q[3])
	return vec3{r0, r1, r2}
}

// rotVecQuatS is rotVecQuat on scalars, the same operations in the same
// order.
func rotVecQuatS(v0, v1, v2, w, x, y, z float64) (float64, float64, float64) {
	if v0 == 0 && v1 == 0 && v2 == 0 {
		return v0, v1, v2
	}
	t0, t1, t2 := (y*v2-z*v1)*2, (z*v0-x*v2)*2, (x*v1-y*v0)*2
	return v0 + t0*w + (y*t2 - z*t1), v1 + t1*w + (z*t0 - x*t2), v2 + t2*w + (x*t1 - y*t0)
}

// axisAngleQuat returns the rotation by angle about unit axis a.
func axisAngleQuat(a vec3, angle float64) [4]float64 {
	s, c := math.Sincos(angle / 2)
	return [4]float64{c, a[0] * s, a[1] * s, a[2] * s}
}

// quatIntegrate returns q rotated by the body-frame angular velocity w for
// time h (q·exp(w h/2)), normalized.
func quatIntegrate(q [4]float64, w vec3, h float64) [4]float64 {
	// in scalars: norm3's, scale3's, axisAngleQuat's and mulQuat's
	// operations in their order
	n := math.Sqrt(w[0]*w[0] + w[1]*w[1] + w[2]*w[2])
	if n == 0 || h == 0 {
		r, _ := normQuat(q)
		return r
	}
	inv := 1 / n
	a0, a1, a2 := w[0]*inv, w[1]*inv, w[2]*inv
	s, c := math.Sincos((n * h) / 2)
	r0, r1, r2, r3 := mulQuatS(q[0], q[1], q[2], q[3], c, a0*s, a1*s, a2*s)
	r, _ := normQuat([4]float64{r0, r1, r2, r3})
	return r
}

// subQuat returns the rotation vector v with b·exp(v) = a (MuJoCo's
// mju_subQuat): the angle in [−π, π] about the axis, in b's frame.
func subQuat(a, b [4]float64) vec3 {
	q := mulQuat([4]float64{b[0], -b[1], -b[2], -b[3]}, a)
	v := vec3{q[1], q[2], q[3]}
	s := norm3(v)
	if s == 0 {
		return vec3{}
	}
	angle := 2 * math.Atan2(s, q[0])
	if angle > math.Pi {
		angle -= 2 * math.Pi
	}
	return scale3(v, angle/s)
}

// motion is a spatial motion vector (angular, linear) at a reference point.
type motion = [6]float64

// sinert is a spatial inertia about a reference point, in world axes:
// rotational inertia I (xx yy zz xy xz yz), first moment h = m·(com − ref)
// and mass m.
type sinert struct {
	I [6]float64
	h vec3
	m float64
}

func (s *sinert) add(o *sinert) {
	for i := range s.I {
		s.I[i] += o.I[i]
	}
	s.h = add3(s.h, o.h)
	s.m += o.m
}

// mul returns the spatial force s·v: (I w + h × v, m v − h × w).
func (s *sinert) mul(v *motion) motion {
	var r motion
	s.mulTo(&r, v)
	return r
}

// mulTo writes s·v into r (r must not alias v).
func (s *sinert) mulTo(r, v *motion) {
	w0, w1, w2, l0, l1, l2 := v[0], v[1], v[2], v[3], v[4], v[5]
	I := &s.I
	h0, h1, h2, mm := s.h[0], s.h[1], s.h[2], s.m
	r[0] = I[0]*w0 + I[3]*w1 + I[4]*w2 + h1*l2 - h2*l1
	r[1] = I[3]*w0 + I[1]*w1 + I[5]*w2 + h2*l0 - h0*l2
	r[2] = I[4]*w0 + I[5]*w1 + I[2]*w2 + h0*l1 - h1*l0
	r[3] = mm*l0 - (h1*w2 - h2*w1)
	r[4] = mm*l1 - (h2*w0 - h0*w2)
	r[5] = mm*l2 - (h0*w1 - h1*w0)
}

// mul6 is mulTo's s·v returned as six scalars (the same operations).
func (s *sinert) mul6(v *motion) (r0, r1, r2, r3, r4, r5 float64) {
	w0, w1, w2, l0, l1, l2 := v[0], v[1], v[2], v[3], v[4], v[5]
	I := &s.I
	h0, h1, h2, mm := s.h[0], s.h[1], s.h[2], s.m
	r0 = I[0]*w0 + I[3]*w1 + I[4]*w2 + h1*l2 - h2*l1
	r1 = I[3]*w0 + I[1]*w1 + I[5]*w2 + h2*l0 - h0*l2
	r2 = I[4]*w0 + I[5]*w1 + I[2]*w2 + h0*l1 - h1*l0
	r3 = mm*l0 - (h1*w2 - h2*w1)
	r4 = mm*l1 - (h2*w0 - h0*w2)
	r5 = mm*l2 - (h0*w1 - h1*w0)
	return
}

// crossMotionS is crossMotionTo with v = (w0, w1, w2, l0, l1, l2) given
// as scalars (no motion stored only to be read back).
func crossMotionS(r *motion, w0, w1, w2, l0, l1, l2 float64, u *motion) {
	a0, a1, a2, b0, b1, b2 := u[0], u[1], u[2], u[3], u[4], u[5]
	r[0] = w1*a2 - w2*a1
	r[1] = w2*a0 - w0*a2
	r[2] = w0*a1 - w1*a0
	r[3] = (w1*b2 - w2*b1) + (l1*a2 - l2*a1)
	r[4] = (w2*b0 - w0*b2) + (l2*a0 - l0*a2)
	r[5] = (w0*b1 - w1*b0) + (l0*a1 - l1*a0)
}

// crossMotion returns v × u for motions.
func crossMotion(v, u *motion) motion {
	var r motion
	crossMotionTo(&r, v, u)
	return r
}

// crossMotionTo writes v × u into r (r must not alias v or u): the
// operations of cross3 and add3, in their order.
func crossMotionTo(r, v, u *motion) {
	w0, w1, w2, l0, l1, l2 := v[0], v[1], v[2], v[3], v[4], v[5]
	a0, a1, a2, b0, b1, b2 := u[0], u[1], u[2], u[3], u[4], u[5]
	r[0] = w1*a2 - w2*a1
	r[1] = w2*a0 - w0*a2
	r[2] = w0*a1 - w1*a0
	r[3] = (w1*b2 - w2*b1) + (l1*a2 - l2*a1)
	r[4] = (w2*b0 - w0*b2) + (l2*a0 - l0*a2)
	r[5] = (w0*b1 - w1*b0) + (l0*a1 - l1*a0)
}

// crossForce returns v ×* f for motion v and force f.
func crossForce(v, f *motion) motion {
	var r motion
	crossForceTo(&r, v, f)
	return r
}

// crossForceTo writes v ×* f into r (r must not alias v or f).
func crossForceTo(r, v, f *motion) {
	w0, w1, w2, l0, l1, l2 := v[0], v[1], v[2], v[3], v[4], v[5]
	n0, n1, n2, f0, f1, f2 := f[0], f[1], f[2], f[3], f[4], f[5]
	r[0] = (w1*n2 - w2*n1) + (l1*f2 - l2*f1)
	r[1] = (w2*n0 - w0*n2) + (l2*f0 - l0*f2)
	r[2] = (w0*n1 - w1*n0) + (l0*f1 - l1*f0)
	r[3] = w1*f2 - w2*f1
	r[4] = w2*f0 - w0*f2
	r[5] = w0*f1 - w1*f0
}

func dot6(a, b *motion) float64 {
	return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] + a[3]*b[3] + a[4]*b[4] + a[5]*b[5]
}
