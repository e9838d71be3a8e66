package articulated

// TendonPoint is a point of a spatial tendon's path: Pos in body Body's
// frame (a MuJoCo site).
type TendonPoint struct {
	Body int
	Pos  [3]float64
}

// validatePath checks a spatial tendon's path.
func (m *Model) validatePath(t int, tn *Tendon, bad func(string, ...any)) {
	if len(tn.Joints) > 0 || len(tn.Coefs) > 0 {
		bad("tendon %d (%q): a tendon is fixed (joints) or spatial (a path), not both", t, tn.Name)
	}
	if len(tn.Path) < 2 {
		bad("tendon %d (%q): a spatial tendon's path needs at least 2 points (got %d)", t, tn.Name, len(tn.Path))
	}
	for k, p := range tn.Path {
		if p.Body < 0 || p.Body >= len(m.Bodies) || !finite(p.Pos[:]...) {
			bad("tendon %d (%q): path point %d: body %d does not exist or its position is not finite", t, tn.Name, k, p.Body)
		}
	}
}

// pointWorld returns a path point's world position.
func (d *Data) pointWorld(p TendonPoint) [3]float64 {
	return add3(d.Xpos[p.Body], mulMatVec(&d.Xmat[p.Body], p.Pos))
}

// spatialTendon computes spatial tendon t's length and Jacobian row
// (mj_tendon for a site-only path): the length is Σ‖p_{k+1} − p_k‖, the
// Jacobian Σ u_kᵀ(J_{k+1} − J_k) with u_k the unit segment direction (a
// segment shorter than 1e-15 adds its length only).
func spatialTendon(m *Model, d *Data, t int) {
	nv := m.NV
	tn := &m.Tendons[t]
	J := d.tenJ[t*nv : t*nv+nv]
	clear(J)
	j0p, j0r := d.tenScratch[0:3*nv], d.tenScratch[3*nv:6*nv]
	j1p, j1r := d.tenScratch[6*nv:9*nv], d.tenScratch[9*nv:12*nv]
	length := 0.0
	for k := 0; k+1 < len(tn.Path); k++ {
		a, b := tn.Path[k], tn.Path[k+1]
		pa, pb := d.pointWorld(a), d.pointWorld(b)
		dif := sub3(pb, pa)
		l := norm3(dif)
		length += l
		if l < 1e-15 {
			continue
		}
		u := scale3(dif, 1/l)
		d.jacPoint(m, a.Body, pa, j0p, j0r)
		d.jacPoint(m, b.Body, pb, j1p, j1r)
		for c := range nv {
			s := 0.0
			for r := range 3 {
				s += u[r] * (j1p[r*nv+c] - j0p[r*nv+c])
			}
			J[c] += s
		}
	}
	d.TenLength[t] = length
}

// spatialLengthAt returns spatial tendon t's length at qpos, computed in
// d (whose kinematics it then puts back at m.Qpos0).
func (m *Model) spatialLengthAt(d *Data, t int, qpos []float64) float64 {
	copy(d.Qpos, qpos)
	kinematics(m, d)
	comPos(m, d)
	spatialTendon(m, d, t)
	l := d.TenLength[t]
	copy(d.Qpos, m.Qpos0)
	kinematics(m, d)
	comPos(m, d)
	spatialTendon(m, d, t)
	return l
}
