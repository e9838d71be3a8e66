package articulated

// Tendon is a fixed tendon (MuJoCo's <fixed>): length Σ Coefs[k]·q of
// hinge or slide Joints[k], acting on them with the transposed Jacobian.
// It may carry a spring with a dead band (SpringLength; both −1: the
// length at the joints' spring references, as MuJoCo), a damper, soft
// limits on its length (Range, SolRef, SolImp, Margin) and dry friction
// (FrictionLoss, SolRefFriction, SolImpFriction); actuators may drive it
// (Actuator.Trn = TrnTendon). Zero solver parameters mean MuJoCo's
// defaults.
type Tendon struct {
	Name   string
	Joints []int
	Coefs  []float64
	// Path makes the tendon spatial (MuJoCo's <spatial> through sites
	// only): its length is the sum of the straight segments between
	// consecutive points, each fixed on a body; Joints and Coefs stay
	// empty.
	Path               []TendonPoint
	Stiffness, Damping float64
	SpringLength       [2]float64
	Limited            bool
	Range              [2]float64
	SolRef             [2]float64
	SolImp             [5]float64
	Margin             float64
	FrictionLoss       float64
	SolRefFriction     [2]float64
	SolImpFriction     [5]float64
}

// Transmission types (MuJoCo's mjtTrn, the ones implemented).
const (
	TrnJoint  = 0 // Actuator.Joint
	TrnTendon = 3 // Actuator.Tendon
)

// Spec is everything New compiles.
type Spec struct {
	Opt        Option
	Bodies     []Body
	Joints     []Joint
	Actuators  []Actuator
	Keys       []Key
	Equalities []Equality
	Tendons    []Tendon
}

// NewSpec is New with tendons.
func NewSpec(s Spec) (*Model, error) {
	return newModel(s)
}

// validateTendons checks the tendons, fills their defaults and builds
// their (constant) Jacobians.
func (m *Model) validateTendons(bad func(string, ...any)) {
	nv := m.NV
	m.tenJ = make([]float64, len(m.Tendons)*nv)
	for t := range m.Tendons {
		tn := &m.Tendons[t]
		tn.Joints, tn.Coefs = append([]int(nil), tn.Joints...), append([]float64(nil), tn.Coefs...)
		tn.Path = append([]TendonPoint(nil), tn.Path...)
		if len(tn.Path) > 0 {
			m.validatePath(t, tn, bad) // spatial.go
		} else if len(tn.Joints) == 0 || len(tn.Joints) != len(tn.Coefs) {
			bad("tendon %d (%q): needs joints with one coefficient each (got %d joints, %d coefs)", t, tn.Name, len(tn.Joints), len(tn.Coefs))
			continue
		}
		for k, j := range tn.Joints {
			if j < 0 || j >= len(m.Joints) || (m.Joints[j].Type != Hinge && m.Joints[j].Type != Slide) {
				bad("tendon %d (%q): joint %d must be a hinge or slide joint", t, tn.Name, j)
				continue
			}
			if !finite(tn.Coefs[k]) {
				bad("tendon %d (%q): coefficient %d is not finite", t, tn.Name, k)
				continue
			}
			m.tenJ[t*nv+m.jntDofAdr[j]] += tn.Coefs[k]
		}
		if !finite(tn.Stiffness, tn.Damping, tn.Margin, tn.FrictionLoss) || !finite(tn.SpringLength[:]...) || !finite(tn.Range[:]...) ||
			tn.Stiffness < 0 || tn.Damping < 0 || tn.FrictionLoss < 0 {
			bad("tendon %d (%q): stiffness, damping and frictionloss must be finite and >= 0", t, tn.Name)
		}
		if tn.SolRef == [2]float64{} {
			tn.SolRef = [2]float64{0.02, 1}
		}
		if tn.SolImp == [5]float64{} {
			tn.SolImp = [5]float64{0.9, 0.95, 0.001, 0.5, 2}
		}
		if tn.SolRefFriction == [2]float64{} {
			tn.SolRefFriction = [2]float64{0.02, 1}
		}
		if tn.SolImpFriction == [5]float64{} {
			tn.SolImpFriction = [5]float64{0.9, 0.95, 0.001, 0.5, 2}
		}
		if (tn.SolRef[0] > 0) != (tn.SolRef[1] > 0) || (tn.SolRefFriction[0] > 0) != (tn.SolRefFriction[1] > 0) {
			bad("tendon %d (%q): a solref mixes the standard and direct formats", t, tn.Name)
		}
		if tn.Limited {
			if tn.Range[0] > tn.Range[1] {
				bad("tendon %d (%q): range %v has lower > upper", t, tn.Name, tn.Range)
			}
			m.nTendonRows += 2
		}
		if tn.FrictionLoss > 0 {
			m.nTendonRows++
		}
		if tn.Damping > 0 {
			m.tendonDamping = true
		}
	}
}

// tendonLength returns tendon t's length at qpos.
func (m *Model) tendonLength(t int, qpos []float64) float64 {
	tn := &m.Tendons[t]
	s := 0.0
	for k, j := range tn.Joints {
		s += tn.Coefs[k] * qpos[m.jntQposAdr[j]]
	}
	return s
}

// setTendonConst computes tendon_invweight0 (J M⁻¹ Jᵀ at qpos0) and the
// default spring lengths (at the spring references), as mj_setConst.
func (m *Model) setTendonConst(d *Data) {
	nv := m.NV
	m.tenInvWeight0 = make([]float64, len(m.Tendons))
	m.tenLength0 = make([]float64, len(m.Tendons))
	tmp := make([]float64, nv)
	for t := range m.Tendons {
		J := m.tenJ[t*nv : t*nv+nv]
		if len(m.Tendons[t].Path) > 0 {
			J = d.tenJ[t*nv : t*nv+nv] // at qpos0: d's kinematics
			spatialTendon(m, d, t)
		}
		copy(tmp, J)
		solveLD(m, d.qLD, tmp)
		s := 0.0
		for k := range nv {
			s += J[k] * tmp[k]
		}
		m.tenInvWeight0[t] = s
		tn := &m.Tendons[t]
		if len(tn.Path) > 0 {
			m.tenLength0[t] = d.TenLength[t]
			if tn.SpringLength == [2]float64{-1, -1} {
				l := m.spatialLengthAt(d, t, m.QposSpring)
				tn.SpringLength = [2]float64{l, l}
			}
			continue
		}
		m.tenLength0[t] = m.tendonLength(t, m.Qpos0)
		if tn.SpringLength == [2]float64{-1, -1} {
			l := m.tendonLength(t, m.QposSpring)
			tn.SpringLength = [2]float64{l, l}
		}
	}
}

// tendons computes the tendon lengths and velocities (mj_tendon).
func tendons(m *Model, d *Data) {
	nv := m.NV
	for t := range m.Tendons {
		if len(m.Tendons[t].Path) > 0 {
			spatialTendon(m, d, t) // length and d.tenJ's row
		} else {
			d.TenLength[t] = m.tendonLength(t, d.Qpos)
		}
		v := 0.0
		for k, x := range d.tenJ[t*nv : t*nv+nv] {
			v += x * d.Qvel[k]
		}
		d.TenVelocity[t] = v
	}
}

// tendonPassive adds the tendons' spring and damper forces.
func tendonPassive(m *Model, d *Data) {
	nv := m.NV
	spring, damper := m.Opt.Disable&DisableSpring == 0, m.Opt.Disable&DisableDamper == 0
	for t := range m.Tendons {
		tn := &m.Tendons[t]
		var fs, fd float64
		if spring && tn.Stiffness > 0 {
			switch l := d.TenLength[t]; {
			case l > tn.SpringLength[1]:
				fs = tn.Stiffness * (tn.SpringLength[1] - l)
			case l < tn.SpringLength[0]:
				fs = tn.Stiffness * (tn.SpringLength[0] - l)
			}
		}
		if damper {
			fd = -tn.Damping * d.TenVelocity[t]
		}
		if fs == 0 && fd == 0 {
			continue
		}
		for k, x := range d.tenJ[t*nv : t*nv+nv] {
			d.QfrcSpring[k] += x * fs
			d.QfrcDamper[k] += x * fd
		}
	}
}

// makeTendonRows adds the tendons' frictionloss and limit rows.
func makeTendonRows(m *Model, d *Data, friction bool) {
	nv := m.NV
	for t := range m.Tendons {
		tn := &m.Tendons[t]
		J := d.tenJ[t*nv : t*nv+nv]
		if friction {
			if tn.FrictionLoss == 0 || m.Opt.Disable&DisableFrictionLoss != 0 {
				continue
			}
			copy(d.efcJd[d.NEfc*nv:d.NEfc*nv+nv], J)
			d.addRow(m, RowFrictionTendon, t, 0, 0, [3]float64{}, 0, 0, 0, tn.FrictionLoss, d.TenVelocity[t], m.tenInvWeight0[t], tn.SolRefFriction, tn.SolImpFriction)
			continue
		}
		if !tn.Limited || m.Opt.Disable&DisableLimit != 0 {
			continue
		}
		for _, side := range [2]float64{-1, 1} {
			r := tn.Range[0]
			if side > 0 {
				r = tn.Range[1]
			}
			dist := side * (r - d.TenLength[t])
			if dist < tn.Margin {
				row := d.efcJd[d.NEfc*nv : d.NEfc*nv+nv]
				for k := range nv {
					row[k] = -side * J[k]
				}
				d.addRow(m, RowLimitTendon, t, 0, 0, [3]float64{}, dist, dist, tn.Margin, 0, -side*d.TenVelocity[t], m.tenInvWeight0[t], tn.SolRef, tn.SolImp)
			}
		}
	}
}
