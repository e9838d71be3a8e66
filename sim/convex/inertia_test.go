package convex

import (
	"errors"
	"math"
	"testing"
)

// boxMesh is a closed box of half-sizes h, 12 outward triangles.
func boxMesh(h Vec3) ([]Vec3, [][3]int32) {
	var v []Vec3
	for _, c := range cubeCorners(1) {
		v = append(v, Vec3{c[0] * h[0], c[1] * h[1], c[2] * h[2]})
	}
	// Corner i has bit k set when coordinate k is +h.
	f := [][3]int32{
		{0, 2, 1}, {1, 2, 3}, // z−
		{4, 5, 6}, {5, 7, 6}, // z+
		{0, 1, 4}, {1, 5, 4}, // y−
		{2, 6, 3}, {3, 6, 7}, // y+
		{0, 4, 2}, {2, 4, 6}, // x−
		{1, 3, 5}, {3, 7, 5}, // x+
	}
	return v, f
}

func nearMat(t *testing.T, what string, got, want Mat3, tol float64) {
	t.Helper()
	for i := range got {
		if math.Abs(got[i]-want[i]) > tol {
			t.Fatalf("%s = %v, want %v (±%.1g)", what, got, want, tol)
		}
	}
}

func TestBoxMeshInertia(t *testing.T) {
	h := Vec3{0.1, 0.2, 0.3}
	v, f := boxMesh(h)
	const rho = 1000.0
	m := rho * 8 * h[0] * h[1] * h[2]
	// Solid box: I_xx = m/3·(b² + c²) with half-sizes a, b, c.
	want := Mat3{m / 3 * (h[1]*h[1] + h[2]*h[2]), 0, 0, 0, m / 3 * (h[0]*h[0] + h[2]*h[2]), 0, 0, 0, m / 3 * (h[0]*h[0] + h[1]*h[1])}
	for _, mode := range []InertiaMode{InertiaExact, InertiaConvex} {
		mp, err := MeshInertia(v, f, rho, mode)
		if err != nil {
			t.Fatal(err)
		}
		near(t, mode.String()+" volume", mp.Measure, 8*h[0]*h[1]*h[2], 1e-15)
		near(t, mode.String()+" mass", mp.Mass, m, 1e-12)
		nearVec(t, mode.String()+" com", mp.COM, Vec3{}, 1e-15)
		nearMat(t, mode.String()+" inertia", mp.Inertia, want, 1e-12)
	}
	// Shell (surface density ρ): I about axis ax is ρ·Σ over the six faces of
	// ∫(x_o1² + x_o2²) dA. On a face ⊥ k the coordinate k is ±h_k; the
	// others are uniform on [−h, h] with mean square h²/3.
	A := [3]float64{4 * h[1] * h[2], 4 * h[0] * h[2], 4 * h[0] * h[1]} // area of a face ⊥ axis k
	var Ishell Vec3
	for ax := 0; ax < 3; ax++ {
		o1, o2 := (ax+1)%3, (ax+2)%3
		sum := 0.0
		for k := 0; k < 3; k++ {
			// Two faces ⊥ k at ±h[k]; ∫ over the face of (x_o1² + x_o2²).
			for _, o := range []int{o1, o2} {
				if o == k {
					sum += 2 * A[k] * h[k] * h[k]
				} else {
					sum += 2 * A[k] * h[o] * h[o] / 3
				}
			}
		}
		Ishell[ax] = rho * sum
	}
	mp, err := MeshInertia(v, f, rho, InertiaShell)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "shell area", mp.Measure, 2*(A[0]+A[1]+A[2]), 1e-14)
	nearMat(t, "shell inertia", mp.Inertia, Mat3{Ishell[0], 0, 0, 0, Ishell[1], 0, 0, 0, Ishell[2]}, 1e-12)
	// Hollow cube of side s: I = 5/18·m·s².
	cv, cf := boxMesh(Vec3{0.5, 0.5, 0.5})
	mp, _ = MeshInertia(cv, cf, 1, InertiaShell)
	near(t, "hollow cube", mp.Inertia[0], 5.0/18*mp.Mass, 1e-14)
}

func TestTetrahedronInertia(t *testing.T) {
	// Corner tetrahedron 0, e1, e2, e3 at unit density: V = 1/6,
	// COM = (1/4)(1,1,1); ∫x² dV = 1/60 and ∫xy dV = 1/120 give, about the
	// COM, I_xx = 1/80 and I_xy = +1/480.
	v := []Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	f := [][3]int32{{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}}
	mp, err := MeshInertia(v, f, 1, InertiaExact)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "tet volume", mp.Measure, 1.0/6, 1e-15)
	nearVec(t, "tet com", mp.COM, Vec3{0.25, 0.25, 0.25}, 1e-15)
	d, o := 1.0/80, 1.0/480
	nearMat(t, "tet inertia", mp.Inertia, Mat3{d, o, o, o, d, o, o, o, d}, 1e-15)
	// Principal moments: eigenvalues of dI + o(J−I): d+2o once, d−o twice.
	pm, axes := PrincipalInertia(mp.Inertia)
	nearVec(t, "principal moments", pm, Vec3{d - o, d - o, d + 2*o}, 1e-15)
	if ax := axes.Col(2); math.Abs(math.Abs(ax.Dot(Vec3{1, 1, 1}.Unit()))-1) > 1e-12 {
		t.Fatalf("largest axis %v, want ±(1,1,1)/√3", ax)
	}
	if math.Abs(axes.det()-1) > 1e-12 {
		t.Fatalf("principal axes det %v, want a rotation", axes.det())
	}
}

func TestInertiaFollowsRigidMotion(t *testing.T) {
	v, f := boxMesh(Vec3{0.1, 0.2, 0.3})
	R := AxisAngle(Vec3{1, 2, 3}, 0.9)
	off := Vec3{0.5, -1, 2}
	w := make([]Vec3, len(v))
	for i := range v {
		w[i] = R.MulVec(v[i]).Add(off)
	}
	a, _ := MeshInertia(v, f, 500, InertiaExact)
	b, err := MeshInertia(w, f, 500, InertiaExact)
	if err != nil {
		t.Fatal(err)
	}
	nearVec(t, "moved com", b.COM, off, 1e-12)
	RT := Mat3{R[0], R[3], R[6], R[1], R[4], R[7], R[2], R[5], R[8]}
	nearMat(t, "moved inertia", b.Inertia, R.Mul(a.Inertia).Mul(RT), 1e-12)
}

func TestNonConvexMeshInertia(t *testing.T) {
	// A unit cube whose top face is dented by a pyramid of depth d: exact
	// inertia sees the dent, convex inertia (the hull) does not.
	h := Vec3{0.5, 0.5, 0.5}
	v, f := boxMesh(h)
	// Replace the two z+ triangles by four around a dent vertex at depth d.
	const d = 0.3
	v = append(v, Vec3{0, 0, 0.5 - d})
	dent := int32(len(v) - 1)
	var g [][3]int32
	for _, t := range f {
		if t == [3]int32{4, 5, 6} || t == [3]int32{5, 7, 6} {
			continue
		}
		g = append(g, t)
	}
	g = append(g, [3]int32{4, 5, dent}, [3]int32{5, 7, dent}, [3]int32{7, 6, dent}, [3]int32{6, 4, dent})
	exact, err := MeshInertia(v, g, 1, InertiaExact)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "dented volume", exact.Measure, 1-d/3, 1e-14) // minus a pyramid of base 1, height d
	conv, _ := MeshInertia(v, g, 1, InertiaConvex)
	near(t, "convex volume of dented cube", conv.Measure, 1, 1e-14)
}

func TestInertiaRejectsBadMeshes(t *testing.T) {
	v, f := boxMesh(Vec3{1, 1, 1})
	inv := make([][3]int32, len(f))
	for i, t := range f {
		inv[i] = [3]int32{t[0], t[2], t[1]}
	}
	if _, err := MeshInertia(v, inv, 1, InertiaExact); err == nil {
		t.Error("inward mesh accepted")
	}
	if _, err := MeshInertia(v, [][3]int32{{0, 1, 99}}, 1, InertiaExact); err == nil {
		t.Error("bad index accepted")
	}
	if _, err := MeshInertia(v, f, 0, InertiaExact); err == nil {
		t.Error("zero density accepted")
	}
	if _, err := MeshInertia(v, f, 1, InertiaMode(9)); err == nil {
		t.Error("unknown mode accepted")
	}
	flat := []Vec3{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}}
	if _, err := MeshInertia(flat, nil, 1, InertiaConvex); !errors.Is(err, ErrDegenerate) {
		t.Errorf("flat mesh with convex inertia: %v", err)
	}
	bad := append([]Vec3{}, v...)
	bad[3][1] = math.NaN()
	if _, err := MeshInertia(bad, f, 1, InertiaExact); err == nil {
		t.Error("NaN vertex accepted")
	}
}
