package convex

import "math"

// Vec3 is a point or direction in metres (or unitless for directions).
type Vec3 [3]float64

// Mat3 is a row-major 3×3 matrix; as a rotation it maps local to world
// coordinates like MuJoCo's xmat.
type Mat3 [9]float64

// Identity is the 3×3 identity matrix.
var Identity = Mat3{1, 0, 0, 0, 1, 0, 0, 0, 1}

// Pose places a shape in the world: world = Rot·local + Pos.
type Pose struct {
	Pos Vec3
	Rot Mat3
}

// IdentityPose is the pose at the origin with no rotation.
func IdentityPose() Pose { return Pose{Rot: Identity} }

func (a Vec3) Add(b Vec3) Vec3      { return Vec3{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func (a Vec3) Sub(b Vec3) Vec3      { return Vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func (a Vec3) Scale(s float64) Vec3 { return Vec3{a[0] * s, a[1] * s, a[2] * s} }
func (a Vec3) Dot(b Vec3) float64   { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func (a Vec3) Norm() float64        { return math.Sqrt(a.Dot(a)) }
func (a Vec3) AddScaled(b Vec3, s float64) Vec3 {
	return Vec3{a[0] + b[0]*s, a[1] + b[1]*s, a[2] + b[2]*s}
}

// Cross returns a × b.
func (a Vec3) Cross(b Vec3) Vec3 {
	return Vec3{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// Unit returns a/|a|, or the zero vector when |a| is zero.
func (a Vec3) Unit() Vec3 {
	n := a.Norm()
	if n == 0 {
		return Vec3{}
	}
	return a.Scale(1 / n)
}

// MulVec returns m·v.
func (m *Mat3) MulVec(v Vec3) Vec3 {
	return Vec3{
		m[0]*v[0] + m[1]*v[1] + m[2]*v[2],
		m[3]*v[0] + m[4]*v[1] + m[5]*v[2],
		m[6]*v[0] + m[7]*v[1] + m[8]*v[2],
	}
}

// MulTVec returns mᵀ·v (world to local for a rotation).
func (m *Mat3) MulTVec(v Vec3) Vec3 {
	return Vec3{
		m[0]*v[0] + m[3]*v[1] + m[6]*v[2],
		m[1]*v[0] + m[4]*v[1] + m[7]*v[2],
		m[2]*v[0] + m[5]*v[1] + m[8]*v[2],
	}
}

// Mul returns a·b.
func (a Mat3) Mul(b Mat3) Mat3 {
	var r Mat3
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			r[3*i+j] = a[3*i]*b[j] + a[3*i+1]*b[3+j] + a[3*i+2]*b[6+j]
		}
	}
	return r
}

// Col returns column j of m (for a rotation: local axis j in world).
func (m *Mat3) Col(j int) Vec3 { return Vec3{m[j], m[3+j], m[6+j]} }

// Transform maps a local point to world coordinates.
func (p *Pose) Transform(v Vec3) Vec3 { return p.Rot.MulVec(v).Add(p.Pos) }

// Compose returns the pose of a frame given in p's local frame: p∘q.
func (p Pose) Compose(q Pose) Pose {
	return Pose{Pos: p.Transform(q.Pos), Rot: p.Rot.Mul(q.Rot)}
}

// AxisAngle returns the rotation by angle (rad) about axis (any length > 0).
func AxisAngle(axis Vec3, angle float64) Mat3 {
	u := axis.Unit()
	c, s := math.Cos(angle), math.Sin(angle)
	t := 1 - c
	x, y, z := u[0], u[1], u[2]
	return Mat3{
		t*x*x + c, t*x*y - s*z, t*x*z + s*y,
		t*x*y + s*z, t*y*y + c, t*y*z - s*x,
		t*x*z - s*y, t*y*z + s*x, t*z*z + c,
	}
}

func finite(v Vec3) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
