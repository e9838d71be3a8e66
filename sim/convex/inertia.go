package convex

import (
	"fmt"
	"math"
)

// InertiaMode is MuJoCo 3.x's <mesh inertia="..."> attribute.
type InertiaMode uint8

const (
	// InertiaConvex integrates the volume of the mesh's convex hull
	// (MuJoCo's default).
	InertiaConvex InertiaMode = iota
	// InertiaExact integrates the volume of the mesh itself; it must be
	// closed and consistently oriented (outward normals).
	InertiaExact
	// InertiaShell puts the mass on the surface: density is per area (kg/m²).
	InertiaShell
	// InertiaLegacy is MuJoCo 3.3.8's default: the tetrahedra from the
	// mean face centroid count with their absolute volume, which
	// overcounts where a non-convex mesh folds back past that point.
	InertiaLegacy
)

func (m InertiaMode) String() string {
	switch m {
	case InertiaConvex:
		return "convex"
	case InertiaExact:
		return "exact"
	case InertiaShell:
		return "shell"
	case InertiaLegacy:
		return "legacy"
	}
	return fmt.Sprintf("InertiaMode(%d)", uint8(m))
}

// MassProps are the mass properties of a mesh in its own frame.
type MassProps struct {
	Measure float64 // volume (m³), or surface area (m²) for InertiaShell
	Mass    float64 // kg: density × Measure
	COM     Vec3    // centre of mass (m)
	Inertia Mat3    // kg·m², about COM, in the mesh axes (symmetric)
}

// MeshInertia computes a triangle mesh's mass properties as MuJoCo's
// compiler does: signed tetrahedra from the surface centroid to
// each triangle (exact, convex; legacy with their absolute volume), or
// area-weighted triangles (shell).
// InertiaConvex takes the hull of verts and ignores faces. MuJoCo 3.3.8's
// default, when <mesh> has no inertia attribute, is InertiaLegacy. It fails with an
// error saying what to fix for an index out of range, a non-finite vertex,
// a negative volume (inward-facing triangles) or a zero measure.
func MeshInertia(verts []Vec3, faces [][3]int32, density float64, mode InertiaMode) (MassProps, error) {
	if !(density > 0) || math.IsInf(density, 0) {
		return MassProps{}, fmt.Errorf("convex: density %v must be a finite number > 0", density)
	}
	for i, v := range verts {
		if !finite(v) {
			return MassProps{}, fmt.Errorf("convex: vertex %d is %v; every coordinate must be finite", i, v)
		}
	}
	if mode == InertiaConvex {
		h, err := BuildHull(verts, HullOptions{})
		if err != nil {
			return MassProps{}, fmt.Errorf("convex: inertia=\"convex\" needs the mesh hull: %w", err)
		}
		verts, faces = h.Verts, h.Faces
	} else if mode != InertiaExact && mode != InertiaShell && mode != InertiaLegacy {
		return MassProps{}, fmt.Errorf("convex: inertia mode %v unknown; use convex, exact, legacy or shell", mode)
	}
	if len(faces) == 0 {
		return MassProps{}, fmt.Errorf("convex: mesh has no faces")
	}
	for i, f := range faces {
		for _, k := range f {
			if k < 0 || int(k) >= len(verts) {
				return MassProps{}, fmt.Errorf("convex: face %d uses vertex %d; the mesh has %d vertices", i, k, len(verts))
			}
		}
	}
	// Reference point: the area-weighted mean of the face centroids (the
	// surface centroid). Exact, convex and shell do not depend on it;
	// legacy does.
	var cen Vec3
	area := 0.0
	for _, f := range faces {
		a, b, c := verts[f[0]], verts[f[1]], verts[f[2]]
		w := b.Sub(a).Cross(c.Sub(a)).Norm() / 2
		cen = cen.AddScaled(a.Add(b).Add(c), w/3)
		area += w
	}
	if !(area > 0) {
		return MassProps{}, fmt.Errorf("convex: mesh surface area is %v; its triangles are degenerate", area)
	}
	cen = cen.Scale(1 / area)

	// Two passes as MuJoCo's compiler makes them: the centre of mass from
	// pieces with their apex at cen, then measure and second moment from
	// pieces with their apex at that centre. For exact, convex and shell
	// the second pass only re-derives the first; for legacy, whose pieces
	// count with their absolute volume, it does not (and MuJoCo keeps the
	// first pass's centre).
	com := cen
	var measure float64
	var second [9]float64
	for pass := 0; pass < 2; pass++ {
		apex := com
		var first Vec3
		measure = 0
		second = [9]float64{}
		for _, f := range faces {
			a, b, c := verts[f[0]].Sub(apex), verts[f[1]].Sub(apex), verts[f[2]].Sub(apex)
			s := a.Add(b).Add(c)
			var w, k float64 // weight (volume or area) and moment coefficient
			if mode == InertiaShell {
				w = b.Sub(a).Cross(c.Sub(a)).Norm() / 2
				first = first.AddScaled(s, w/3)
				k = w / 12
			} else {
				w = a.Dot(b.Cross(c)) / 6 // tetrahedron with its apex at the origin
				if mode == InertiaLegacy {
					w = math.Abs(w)
				}
				first = first.AddScaled(s, w/4)
				k = w / 20
			}
			measure += w
			if pass == 1 {
				// ∫x xᵀ over the piece = k·(Σ p pᵀ + s sᵀ); the apex adds nothing.
				pts := [3]Vec3{a, b, c}
				for i := 0; i < 3; i++ {
					for j := 0; j < 3; j++ {
						sum := s[i] * s[j]
						for _, p := range pts {
							sum += p[i] * p[j]
						}
						second[3*i+j] += k * sum
					}
				}
			}
		}
		if pass == 0 {
			if err := checkMeasure(measure, mode); err != nil {
				return MassProps{}, err
			}
			com = apex.Add(first.Scale(1 / measure))
		} else if mode != InertiaLegacy {
			// Signed pieces: the centre about the new apex is the apex itself
			// up to rounding; fold the residue in with the parallel-axis rule.
			d := first.Scale(1 / measure)
			for i := 0; i < 3; i++ {
				for j := 0; j < 3; j++ {
					second[3*i+j] -= measure * d[i] * d[j]
				}
			}
			com = com.Add(d)
		}
	}
	if err := checkMeasure(measure, mode); err != nil {
		return MassProps{}, err
	}
	mass := density * measure
	var out MassProps
	out.Measure, out.Mass, out.COM = measure, mass, com
	tr := second[0] + second[4] + second[8]
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			v := -density * second[3*i+j]
			if i == j {
				v += density * tr
			}
			out.Inertia[3*i+j] = v
		}
	}
	return out, nil
}

func checkMeasure(measure float64, mode InertiaMode) error {
	name := "volume"
	if mode == InertiaShell {
		name = "surface area"
	}
	if measure < 0 {
		return fmt.Errorf("convex: mesh %s is negative (%.3g); its triangles face inward: reverse their winding", name, measure)
	}
	if !(measure > 1e-15) {
		return fmt.Errorf("convex: mesh %s is %.3g; the mesh must enclose a volume (use inertia=\"shell\" for open surfaces)", name, measure)
	}
	return nil
}

// PrincipalInertia returns the principal moments (kg·m², ascending) of a
// symmetric inertia tensor and the rotation whose columns are the
// principal axes (cyclic Jacobi).
func PrincipalInertia(I Mat3) (Vec3, Mat3) {
	a := I
	v := Identity
	for sweep := 0; sweep < 50; sweep++ {
		off := a[1]*a[1] + a[2]*a[2] + a[5]*a[5]
		if off < 1e-30*(a[0]*a[0]+a[4]*a[4]+a[8]*a[8]) || off == 0 {
			break
		}
		for _, pq := range [3][2]int{{0, 1}, {0, 2}, {1, 2}} {
			p, q := pq[0], pq[1]
			apq := a[3*p+q]
			if apq == 0 {
				continue
			}
			theta := (a[3*q+q] - a[3*p+p]) / (2 * apq)
			t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
			c := 1 / math.Sqrt(t*t+1)
			s := t * c
			var J = Identity
			J[3*p+p], J[3*q+q], J[3*p+q], J[3*q+p] = c, c, s, -s
			JT := Mat3{J[0], J[3], J[6], J[1], J[4], J[7], J[2], J[5], J[8]}
			a = JT.Mul(a).Mul(J)
			v = v.Mul(J)
		}
	}
	d := Vec3{a[0], a[4], a[8]}
	// Sort ascending, permuting the axes with the moments.
	idx := [3]int{0, 1, 2}
	for i := 0; i < 3; i++ {
		for j := i + 1; j < 3; j++ {
			if d[idx[j]] < d[idx[i]] {
				idx[i], idx[j] = idx[j], idx[i]
			}
		}
	}
	var ds Vec3
	var vs Mat3
	for k, i := range idx {
		ds[k] = d[i]
		vs[k], vs[3+k], vs[6+k] = v[i], v[3+i], v[6+i]
	}
	if vs.det() < 0 {
		vs[2], vs[5], vs[8] = -vs[2], -vs[5], -vs[8]
	}
	return ds, vs
}

func (m *Mat3) det() float64 {
	return m[0]*(m[4]*m[8]-m[5]*m[7]) - m[1]*(m[3]*m[8]-m[5]*m[6]) + m[2]*(m[3]*m[7]-m[4]*m[6])
}
