package sim

import (
	"math"
	"testing"
)

// TestQuatRotationProperties checks the quaternion algebra against the
// rotation it stands for: a quarter turn about z maps x to y; composing
// rotations multiplies quaternions (q·r rotates by r, then q); the
// inverse rotation undoes the rotation; the matrix form agrees with Rotate;
// lengths are preserved.
func TestQuatRotationProperties(t *testing.T) {
	near := func(a, b Vec3) bool { return a.Sub(b).Norm() < 1e-12 }
	qz := QuatFromAxisAngle(V3(0, 0, 1), math.Pi/2)
	if got := qz.Rotate(V3(1, 0, 0)); !near(got, V3(0, 1, 0)) {
		t.Fatalf("quarter turn about z maps x to %v, want y", got)
	}
	qx := QuatFromAxisAngle(V3(2, 0, 0), math.Pi/3) // axis need not be unit
	v := V3(0.3, -1.2, 0.7)
	if got, want := qz.Mul(qx).Rotate(v), qz.Rotate(qx.Rotate(v)); !near(got, want) {
		t.Fatalf("(qz·qx) v = %v, qz(qx v) = %v", got, want)
	}
	if got := qx.InvRotate(qx.Rotate(v)); !near(got, v) {
		t.Fatalf("inverse rotation gives %v, want %v", got, v)
	}
	m := qz.Mul(qx).Mat3()
	if got, want := m.MulVec(v), qz.Mul(qx).Rotate(v); !near(got, want) {
		t.Fatalf("matrix form %v, Rotate %v", got, want)
	}
	if got := m.MulTVec(m.MulVec(v)); !near(got, v) {
		t.Fatalf("Rᵀ R v = %v, want %v", got, v)
	}
	if d := math.Abs(qx.Rotate(v).Norm() - v.Norm()); d > 1e-12 {
		t.Fatalf("rotation changed a length by %g", d)
	}
}

// TestVec3Algebra checks the cross product's right-handedness and its
// orthogonality, and Normalize on a zero vector (no NaN).
func TestVec3Algebra(t *testing.T) {
	if got := V3(1, 0, 0).Cross(V3(0, 1, 0)); got != V3(0, 0, 1) {
		t.Fatalf("x × y = %v, want z", got)
	}
	a, b := V3(0.2, -0.5, 1.1), V3(-0.7, 0.4, 0.3)
	c := a.Cross(b)
	if math.Abs(c.Dot(a)) > 1e-15 || math.Abs(c.Dot(b)) > 1e-15 {
		t.Fatalf("a × b not orthogonal to a and b: %g %g", c.Dot(a), c.Dot(b))
	}
	if n := (Vec3{}).Normalize(); !n.IsFinite() {
		t.Fatalf("Normalize of zero gave %v", n)
	}
}
