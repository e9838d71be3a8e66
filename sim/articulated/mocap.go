package articulated

// Mocap bodies (MuJoCo's mocap="true"): children of the world without
// joints whose frames the caller writes into Data.MocapPos and
// Data.MocapQuat before each Step, as mjData.mocap_pos and mocap_quat.
// They move nothing by themselves: a weld or connect equality to a body
// with joints drags that body along (MetaWorld's and the built-in
// tabletop's gripper), and their geoms collide as static geoms do.

// validateMocap checks the mocap bodies and numbers them in body order.
func (m *Model) validateMocap(bad func(string, ...any)) {
	m.bodyMocap = make([]int, len(m.Bodies))
	m.MocapBodies = m.MocapBodies[:0]
	for i := range m.Bodies {
		m.bodyMocap[i] = -1
		b := &m.Bodies[i]
		if !b.Mocap {
			continue
		}
		switch {
		case i == 0:
			bad("body 0 (the world) cannot be a mocap body")
			continue
		case b.Parent != 0:
			bad("body %d (%q): a mocap body must be a child of the world (MuJoCo's rule)", i, b.Name)
			continue
		case m.bodyJntNum[i] > 0:
			bad("body %d (%q): a mocap body cannot have joints: the caller sets its frame", i, b.Name)
			continue
		}
		m.bodyMocap[i] = len(m.MocapBodies)
		m.MocapBodies = append(m.MocapBodies, i)
	}
}

// mocapKey checks keyframe k's mocap poses and copies them, quaternions
// normalized, into key.
func (m *Model) mocapKey(i int, k, key *Key, bad func(string, ...any)) bool {
	n := len(m.MocapBodies)
	if k.Mpos != nil && len(k.Mpos) != 3*n || k.Mquat != nil && len(k.Mquat) != 4*n {
		bad("key %d (%q): mpos and mquat need %d and %d values for %d mocap bodies (got %d, %d)", i, k.Name,
			3*n, 4*n, n, len(k.Mpos), len(k.Mquat))
		return false
	}
	if !finite(k.Mpos...) || !finite(k.Mquat...) {
		bad("key %d (%q): a non-finite mocap pose", i, k.Name)
		return false
	}
	if k.Mpos != nil {
		key.Mpos = append([]float64(nil), k.Mpos...)
	}
	if k.Mquat != nil {
		key.Mquat = append([]float64(nil), k.Mquat...)
		for j := 0; j < n; j++ {
			q, ok := normQuat([4]float64{k.Mquat[4*j], k.Mquat[4*j+1], k.Mquat[4*j+2], k.Mquat[4*j+3]})
			if !ok {
				bad("key %d (%q): mocap quaternion %d is zero", i, k.Name, j)
				return false
			}
			copy(key.Mquat[4*j:4*j+4], q[:])
		}
	}
	return true
}

// resetMocap puts the mocap bodies at their model frames (mj_resetData),
// then applies key's poses when key is not nil.
func resetMocap(m *Model, d *Data, key *Key) {
	for k, b := range m.MocapBodies {
		d.MocapPos[k], d.MocapQuat[k] = m.Bodies[b].Pos, m.Bodies[b].Quat
		if key == nil {
			continue
		}
		if key.Mpos != nil {
			d.MocapPos[k] = [3]float64(key.Mpos[3*k : 3*k+3])
		}
		if key.Mquat != nil {
			d.MocapQuat[k] = [4]float64(key.Mquat[4*k : 4*k+4])
		}
	}
}
