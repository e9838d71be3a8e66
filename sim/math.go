package sim

import "math"

// Vec3 is a 3-vector; positions are in m, velocities in m/s, angular
// velocities in rad/s unless a field says otherwise.
type Vec3 struct{ X, Y, Z float64 }

// V3 returns the vector (x, y, z).
func V3(x, y, z float64) Vec3 { return Vec3{x, y, z} }

// Add returns a+b.
func (a Vec3) Add(b Vec3) Vec3 { return Vec3{a.X + b.X, a.Y + b.Y, a.Z + b.Z} }

// Sub returns a-b.
func (a Vec3) Sub(b Vec3) Vec3 { return Vec3{a.X - b.X, a.Y - b.Y, a.Z - b.Z} }

// Scale returns s·a.
func (a Vec3) Scale(s float64) Vec3 { return Vec3{a.X * s, a.Y * s, a.Z * s} }

// Neg returns -a.
func (a Vec3) Neg() Vec3 { return Vec3{-a.X, -a.Y, -a.Z} }

// Dot returns a·b.
func (a Vec3) Dot(b Vec3) float64 { return a.X*b.X + a.Y*b.Y + a.Z*b.Z }

// Cross returns a×b.
func (a Vec3) Cross(b Vec3) Vec3 {
	return Vec3{a.Y*b.Z - a.Z*b.Y, a.Z*b.X - a.X*b.Z, a.X*b.Y - a.Y*b.X}
}

// Norm returns |a|.
func (a Vec3) Norm() float64 { return math.Sqrt(a.X*a.X + a.Y*a.Y + a.Z*a.Z) }

// Norm2 returns |a|².
func (a Vec3) Norm2() float64 { return a.X*a.X + a.Y*a.Y + a.Z*a.Z }

// Normalize returns a/|a|, or the zero vector when |a| is 0.
func (a Vec3) Normalize() Vec3 {
	n := a.Norm()
	if n == 0 {
		return Vec3{}
	}
	return a.Scale(1 / n)
}

// AddScaled returns a + s·b.
func (a Vec3) AddScaled(b Vec3, s float64) Vec3 {
	return Vec3{a.X + s*b.X, a.Y + s*b.Y, a.Z + s*b.Z}
}

// Mul returns the component-wise product of a and b.
func (a Vec3) Mul(b Vec3) Vec3 { return Vec3{a.X * b.X, a.Y * b.Y, a.Z * b.Z} }

// Abs returns the component-wise absolute value.
func (a Vec3) Abs() Vec3 { return Vec3{math.Abs(a.X), math.Abs(a.Y), math.Abs(a.Z)} }

// Get returns component i (0 = X, 1 = Y, 2 = Z).
func (a Vec3) Get(i int) float64 {
	switch i {
	case 0:
		return a.X
	case 1:
		return a.Y
	}
	return a.Z
}

// IsFinite reports whether every component is finite.
func (a Vec3) IsFinite() bool {
	return !math.IsNaN(a.X+a.Y+a.Z) && !math.IsInf(a.X+a.Y+a.Z, 0)
}

// Quat is a rotation quaternion w + xi + yj + zk (unit length for rotations).
type Quat struct{ W, X, Y, Z float64 }

// Identity returns the identity rotation.
func Identity() Quat { return Quat{W: 1} }

// QuatFromAxisAngle returns the rotation by angle (rad) about axis (any
// non-zero length; a zero axis gives the identity).
func QuatFromAxisAngle(axis Vec3, angle float64) Quat {
	n := axis.Norm()
	if n == 0 {
		return Identity()
	}
	s, c := math.Sincos(angle / 2)
	s /= n
	return Quat{c, axis.X * s, axis.Y * s, axis.Z * s}
}

// Mul returns the composition q·r (apply r first, then q).
func (q Quat) Mul(r Quat) Quat {
	return Quat{
		q.W*r.W - q.X*r.X - q.Y*r.Y - q.Z*r.Z,
		q.W*r.X + q.X*r.W + q.Y*r.Z - q.Z*r.Y,
		q.W*r.Y - q.X*r.Z + q.Y*r.W + q.Z*r.X,
		q.W*r.Z + q.X*r.Y - q.Y*r.X + q.Z*r.W,
	}
}

// Conj returns the conjugate (the inverse rotation for a unit quaternion).
func (q Quat) Conj() Quat { return Quat{q.W, -q.X, -q.Y, -q.Z} }

// Normalize returns q/|q|, or the identity when |q| is 0 or not finite.
func (q Quat) Normalize() Quat {
	n := math.Sqrt(q.W*q.W + q.X*q.X + q.Y*q.Y + q.Z*q.Z)
	if n == 0 || math.IsNaN(n) || math.IsInf(n, 0) {
		return Identity()
	}
	n = 1 / n
	return Quat{q.W * n, q.X * n, q.Y * n, q.Z * n}
}

// Rotate returns v rotated by the unit quaternion q.
func (q Quat) Rotate(v Vec3) Vec3 {
	// t = 2 q.xyz × v; v' = v + w t + q.xyz × t
	tx := 2 * (q.Y*v.Z - q.Z*v.Y)
	ty := 2 * (q.Z*v.X - q.X*v.Z)
	tz := 2 * (q.X*v.Y - q.Y*v.X)
	return Vec3{
		v.X + q.W*tx + (q.Y*tz - q.Z*ty),
		v.Y + q.W*ty + (q.Z*tx - q.X*tz),
		v.Z + q.W*tz + (q.X*ty - q.Y*tx),
	}
}

// InvRotate returns v rotated by the inverse of the unit quaternion q.
func (q Quat) InvRotate(v Vec3) Vec3 { return q.Conj().Rotate(v) }

// Mat3 returns the rotation matrix of the unit quaternion q.
func (q Quat) Mat3() Mat3 {
	w, x, y, z := q.W, q.X, q.Y, q.Z
	return Mat3{
		1 - 2*(y*y+z*z), 2 * (x*y - w*z), 2 * (x*z + w*y),
		2 * (x*y + w*z), 1 - 2*(x*x+z*z), 2 * (y*z - w*x),
		2 * (x*z - w*y), 2 * (y*z + w*x), 1 - 2*(x*x+y*y),
	}
}

// Mat3 is a row-major 3×3 matrix.
type Mat3 [9]float64

// MulVec returns m·v.
func (m *Mat3) MulVec(v Vec3) Vec3 {
	return Vec3{
		m[0]*v.X + m[1]*v.Y + m[2]*v.Z,
		m[3]*v.X + m[4]*v.Y + m[5]*v.Z,
		m[6]*v.X + m[7]*v.Y + m[8]*v.Z,
	}
}

// MulTVec returns mᵀ·v.
func (m *Mat3) MulTVec(v Vec3) Vec3 {
	return Vec3{
		m[0]*v.X + m[3]*v.Y + m[6]*v.Z,
		m[1]*v.X + m[4]*v.Y + m[7]*v.Z,
		m[2]*v.X + m[5]*v.Y + m[8]*v.Z,
	}
}

// Col returns column i of m.
func (m *Mat3) Col(i int) Vec3 { return Vec3{m[i], m[3+i], m[6+i]} }
