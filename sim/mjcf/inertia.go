package mjcf

import (
	"math"

	"github.com/vlmrb/vlmrb/sim"
)

// sym3 is a symmetric 3×3 tensor (kg·m² for inertias).
type sym3 struct{ xx, yy, zz, xy, xz, yz float64 }

func (s sym3) mat() [3][3]float64 {
	return [3][3]float64{{s.xx, s.xy, s.xz}, {s.xy, s.yy, s.yz}, {s.xz, s.yz, s.zz}}
}

func (s *sym3) add(o sym3) {
	s.xx += o.xx
	s.yy += o.yy
	s.zz += o.zz
	s.xy += o.xy
	s.xz += o.xz
	s.yz += o.yz
}

// rotated returns R·diag(d)·Rᵀ for the rotation q.
func rotated(q sim.Quat, d sim.Vec3) sym3 {
	r := q.Mat3()
	var o [3][3]float64
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			o[i][j] = r[3*i]*d.X*r[3*j] + r[3*i+1]*d.Y*r[3*j+1] + r[3*i+2]*d.Z*r[3*j+2]
		}
	}
	return sym3{o[0][0], o[1][1], o[2][2], o[0][1], o[0][2], o[1][2]}
}

// pointInertia returns the inertia of point mass m at offset o.
func pointInertia(m float64, o sim.Vec3) sym3 {
	o2 := o.Norm2()
	return sym3{m * (o2 - o.X*o.X), m * (o2 - o.Y*o.Y), m * (o2 - o.Z*o.Z), -m * o.X * o.Y, -m * o.X * o.Z, -m * o.Y * o.Z}
}

// principal returns the eigenvalues (descending) and the rotation whose
// columns are the eigenvectors (cyclic Jacobi; right-handed).
func (s sym3) principal() (sim.Vec3, sim.Quat) {
	a := s.mat()
	v := [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	for sweep := 0; sweep < 50; sweep++ {
		off := a[0][1]*a[0][1] + a[0][2]*a[0][2] + a[1][2]*a[1][2]
		scale := a[0][0]*a[0][0] + a[1][1]*a[1][1] + a[2][2]*a[2][2]
		if off <= 1e-30*scale || off == 0 {
			break
		}
		for p := 0; p < 2; p++ {
			for q := p + 1; q < 3; q++ {
				if a[p][q] == 0 {
					continue
				}
				theta := (a[q][q] - a[p][p]) / (2 * a[p][q])
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				cs := 1 / math.Sqrt(t*t+1)
				sn := t * cs
				for k := 0; k < 3; k++ {
					akp, akq := a[k][p], a[k][q]
					a[k][p], a[k][q] = cs*akp-sn*akq, sn*akp+cs*akq
				}
				for k := 0; k < 3; k++ {
					apk, aqk := a[p][k], a[q][k]
					a[p][k], a[q][k] = cs*apk-sn*aqk, sn*apk+cs*aqk
				}
				for k := 0; k < 3; k++ {
					vkp, vkq := v[k][p], v[k][q]
					v[k][p], v[k][q] = cs*vkp-sn*vkq, sn*vkp+cs*vkq
				}
			}
		}
	}
	ev := [3]float64{a[0][0], a[1][1], a[2][2]}
	idx := [3]int{0, 1, 2}
	for i := 0; i < 3; i++ {
		for j := i + 1; j < 3; j++ {
			if ev[idx[j]] > ev[idx[i]] {
				idx[i], idx[j] = idx[j], idx[i]
			}
		}
	}
	col := func(k int) sim.Vec3 { return sim.V3(v[0][k], v[1][k], v[2][k]) }
	x, y := col(idx[0]), col(idx[1])
	z := x.Cross(y)
	return sim.V3(ev[idx[0]], ev[idx[1]], ev[idx[2]]), quatFromMat(x, y, z)
}

// massProps computes each body's mass, inertial frame and principal
// inertia as MuJoCo's compiler does: from <inertial> when present (unless
// inertiafromgeom is true), else from its geoms at their masses.
func (c *compiler) massProps() {
	for _, b := range c.bodies[1:] {
		if b.inertial != nil && c.inertiaFromGeom != 1 {
			in := b.inertial
			b.mass, b.ipos = in.mass, in.pos
			t := sym3{in.full[0], in.full[1], in.full[2], in.full[3], in.full[4], in.full[5]}
			var pr sim.Vec3
			var r sim.Quat
			if in.full[3] == 0 && in.full[4] == 0 && in.full[5] == 0 {
				pr, r = sim.V3(in.full[0], in.full[1], in.full[2]), sim.Identity()
			} else {
				pr, r = t.principal()
			}
			b.inertia, b.iquat = pr, in.rot.Mul(r).Normalize()
			continue
		}
		if b.inertial == nil && c.inertiaFromGeom == 0 {
			if len(b.joints) > 0 || b.free {
				c.fail(b.e, "", "inertiafromgeom is false and the body has no <inertial>")
			}
			continue
		}
		var mass float64
		var com sim.Vec3
		for _, g := range b.geoms {
			if g.typ == "plane" {
				continue
			}
			mass += g.mass
			com = com.AddScaled(g.pos.Add(g.rot.Rotate(g.meshCOM)), g.mass)
		}
		b.mass = mass
		if mass == 0 {
			continue
		}
		com = com.Scale(1 / mass)
		var t sym3
		for _, g := range b.geoms {
			if g.typ == "plane" || g.mass == 0 {
				continue
			}
			gr := g.rot
			if g.typ == "mesh" {
				gr = g.rot.Mul(g.meshRot)
			}
			t.add(rotated(gr, geomInertia(g)))
			t.add(pointInertia(g.mass, g.pos.Add(g.rot.Rotate(g.meshCOM)).Sub(com)))
		}
		b.ipos = com
		b.inertia, b.iquat = t.principal()
	}
	c.boundAndScale()
}

// boundAndScale applies compiler boundmass, boundinertia and settotalmass.
func (c *compiler) boundAndScale() {
	var total float64
	for _, b := range c.bodies[1:] {
		if len(b.joints) > 0 || b.free {
			b.mass = max(b.mass, c.boundMass)
			b.inertia = sim.V3(max(b.inertia.X, c.boundInertia), max(b.inertia.Y, c.boundInertia), max(b.inertia.Z, c.boundInertia))
		}
		total += b.mass
	}
	if c.settotalmass > 0 && total > 0 {
		f := c.settotalmass / total
		for _, b := range c.bodies[1:] {
			b.mass *= f
			b.inertia = b.inertia.Scale(f)
		}
	}
}
