package convex

import (
	"fmt"
	"math"
)

// Kind is a geom type, numbered in MuJoCo's mjtGeom order.
type Kind uint8

const (
	Plane     Kind = 0 // infinite plane z = 0 in its frame, normal +z
	Sphere    Kind = 2 // Size[0] radius
	Capsule   Kind = 3 // Size[0] radius, Size[1] half-length of the segment along z
	Ellipsoid Kind = 4 // Size radii along x, y, z
	Cylinder  Kind = 5 // Size[0] radius, Size[1] half-height along z
	Box       Kind = 6 // Size half-sizes along x, y, z
	Mesh      Kind = 7 // collides through Hull
)

func (k Kind) String() string {
	switch k {
	case Plane:
		return "plane"
	case Sphere:
		return "sphere"
	case Capsule:
		return "capsule"
	case Ellipsoid:
		return "ellipsoid"
	case Cylinder:
		return "cylinder"
	case Box:
		return "box"
	case Mesh:
		return "mesh"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// minVal2 is MuJoCo's mjMINVAL² (1e-15²): a cylinder's support ignores
// the radial part of a direction shorter than mjMINVAL, as
// mjc_cylinderSupport does.
const minVal2 = 1e-15 * 1e-15

// Shape is a convex geom in its local frame, with MuJoCo's size semantics.
type Shape struct {
	Kind Kind
	Size Vec3  // m; see Kind
	Hull *Hull // Mesh only: the convex hull of the mesh, in the geom frame
}

// Validate says what is wrong with s, if anything.
func (s *Shape) Validate() error {
	if s == nil {
		return fmt.Errorf("convex: nil shape")
	}
	if !finite(s.Size) {
		return fmt.Errorf("convex: %v size %v is not finite", s.Kind, s.Size)
	}
	need := 0
	switch s.Kind {
	case Plane:
		return nil
	case Sphere:
		need = 1
	case Capsule, Cylinder:
		need = 2
	case Ellipsoid, Box:
		need = 3
	case Mesh:
		if s.Hull == nil || len(s.Hull.Verts) < 4 {
			return fmt.Errorf("convex: mesh shape has no hull; build one with BuildHull")
		}
		return nil
	default:
		return fmt.Errorf("convex: unknown shape kind %d; use Sphere, Capsule, Ellipsoid, Cylinder, Box, Mesh or Plane", s.Kind)
	}
	for i := 0; i < need; i++ {
		if !(s.Size[i] > 0) {
			return fmt.Errorf("convex: %v size[%d] = %v; it must be > 0 (m)", s.Kind, i, s.Size[i])
		}
	}
	return nil
}

// SupportLocal returns the point of s farthest along dir, in s's frame.
// dir need not be unit length; a zero dir gives some point of s.
func (s *Shape) SupportLocal(dir Vec3) Vec3 {
	switch s.Kind {
	case Sphere:
		return dir.Unit().Scale(s.Size[0])
	case Capsule:
		p := dir.Unit().Scale(s.Size[0])
		if dir[2] >= 0 {
			p[2] += s.Size[1]
		} else {
			p[2] -= s.Size[1]
		}
		return p
	case Ellipsoid:
		// argmax d·x over x'S⁻²x ≤ 1 is S²d / |S d|.
		a, b, c := s.Size[0], s.Size[1], s.Size[2]
		sd := Vec3{a * dir[0], b * dir[1], c * dir[2]}
		n := sd.Norm()
		if n == 0 {
			return Vec3{}
		}
		return Vec3{a * sd[0] / n, b * sd[1] / n, c * sd[2] / n}
	case Cylinder:
		var p Vec3
		if n2 := dir[0]*dir[0] + dir[1]*dir[1]; n2 >= minVal2 {
			scl := s.Size[0] / math.Sqrt(n2)
			p[0], p[1] = scl*dir[0], scl*dir[1]
		}
		if dir[2] >= 0 {
			p[2] = s.Size[1]
		} else {
			p[2] = -s.Size[1]
		}
		return p
	case Box:
		var p Vec3
		for k := 0; k < 3; k++ {
			if dir[k] >= 0 {
				p[k] = s.Size[k]
			} else {
				p[k] = -s.Size[k]
			}
		}
		return p
	case Mesh:
		return s.Hull.Verts[s.Hull.Support(dir)]
	}
	return Vec3{}
}

// Support returns the world point of s at pose farthest along the world
// direction dir.
func (s *Shape) Support(pose *Pose, dir Vec3) Vec3 {
	var p Vec3
	s.supportTo(&p, pose, dir[0], dir[1], dir[2])
	return p
}

// supportTo is Support written into out, with the direction in scalars
// (GJK and EPA call it in their inner loops): for boxes and cylinders in
// scalars throughout, with MulTVec's, SupportLocal's and Transform's
// operations in their order.
func (s *Shape) supportTo(out *Vec3, pose *Pose, d0, d1, d2 float64) {
	R := &pose.Rot
	l0 := R[0]*d0 + R[3]*d1 + R[6]*d2
	l1 := R[1]*d0 + R[4]*d1 + R[7]*d2
	l2 := R[2]*d0 + R[5]*d1 + R[8]*d2
	var p0, p1, p2 float64
	switch s.Kind {
	case Box:
		p0, p1, p2 = -s.Size[0], -s.Size[1], -s.Size[2]
		if l0 >= 0 {
			p0 = s.Size[0]
		}
		if l1 >= 0 {
			p1 = s.Size[1]
		}
		if l2 >= 0 {
			p2 = s.Size[2]
		}
	case Cylinder:
		// mjc_cylinderSupport: radius/|l_xy| times l_xy, nothing below
		// mjMINVAL² (one square root and one division, no Hypot)
		if n2 := l0*l0 + l1*l1; n2 >= minVal2 {
			scl := s.Size[0] / math.Sqrt(n2)
			p0, p1 = scl*l0, scl*l1
		}
		p2 = -s.Size[1]
		if l2 >= 0 {
			p2 = s.Size[1]
		}
	default:
		*out = pose.Transform(s.SupportLocal(Vec3{l0, l1, l2}))
		return
	}
	out[0] = R[0]*p0 + R[1]*p1 + R[2]*p2 + pose.Pos[0]
	out[1] = R[3]*p0 + R[4]*p1 + R[5]*p2 + pose.Pos[1]
	out[2] = R[6]*p0 + R[7]*p1 + R[8]*p2 + pose.Pos[2]
}

// RBound returns the radius (m) of the smallest origin-centred sphere
// holding s, as MuJoCo's geom_rbound; +Inf for a plane.
func (s *Shape) RBound() float64 {
	switch s.Kind {
	case Sphere:
		return s.Size[0]
	case Capsule:
		return s.Size[0] + s.Size[1]
	case Ellipsoid:
		return math.Max(s.Size[0], math.Max(s.Size[1], s.Size[2]))
	case Cylinder:
		return math.Hypot(s.Size[0], s.Size[1])
	case Box:
		return s.Size.Norm()
	case Mesh:
		return s.Hull.RBound
	}
	return math.Inf(1)
}

// core splits a rounded shape into a core (point or segment, half-length
// h along local z) and a radius, the way MuJoCo's GJK treats spheres and
// capsules: distances between cores minus the radii are exact.
func (s *Shape) core() (radius, halfLen float64, ok bool) {
	switch s.Kind {
	case Sphere:
		return s.Size[0], 0, true
	case Capsule:
		return s.Size[0], s.Size[1], true
	}
	return 0, 0, false
}
