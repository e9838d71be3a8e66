package sim

// Step advances s by m.Opt.Timestep: Step1 then Step2.
func Step(m *Model, s *State) {
	s.checkModel(m)
	// Step1's contact list (warm-start forces) is replaced by Step2's
	// before anyone can read it: build only the manifolds
	collideManifolds(m, s)
	s.pending = false
	solve(m, s)
	s.Time += m.Opt.Timestep
}

// Step1 runs the position-dependent stage: it finds the contacts of the
// current poses and matches them with the previous step's (warm start).
// Between Step1 and Step2 a controller may read s.Contacts() and write s.Ctrl
// (MuJoCo's mj_step1/mj_step2 split).
func Step1(m *Model, s *State) {
	s.checkModel(m)
	collide(m, s)
	s.pending = true
}

// Step2 applies s.Ctrl and mocap targets, solves and integrates one
// Timestep, and advances s.Time. Calling Step2 without Step1 runs Step1
// first.
func Step2(m *Model, s *State) {
	if !s.pending {
		Step1(m, s)
	}
	s.pending = false
	solve(m, s)
	s.Time += m.Opt.Timestep
}
