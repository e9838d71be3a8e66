package sim_test

import (
	"testing"

	"github.com/vlmrb/vlmrb/sim"
)

// overlapping builds n free spheres of radius 0.1 m all within 1 cm of
// each other: every pair overlaps, n(n-1)/2 contact manifolds.
func overlapping(n, maxContacts int) (*sim.Model, error) {
	b := sim.NewBuilder()
	b.Opt.MaxContacts = maxContacts
	for i := 0; i < n; i++ {
		id := b.AddBody(sim.BodyDesc{Mass: 1, Pos: sim.V3(float64(i%10)*0.001, float64(i/10%10)*0.001, 1+float64(i/100)*0.001)})
		b.AddShape(id, sim.ShapeDesc{Kind: sim.Sphere, Size: sim.V3(0.1, 0, 0)})
	}
	return b.Build()
}

// TestContactCap: 300 mutually overlapping spheres (44,850 pairs) keep
// at most MaxContacts manifolds (4 points each) per step; the dropped
// pairs are counted in Warnings.ContactCap, and the state stays finite.
// Under the cap nothing is dropped.
func TestContactCap(t *testing.T) {
	const n, limit = 300, 1000
	m, err := overlapping(n, limit)
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewState()
	sim.Step(m, s)
	pairs := n * (n - 1) / 2
	if got := s.Warnings.ContactCap; got != pairs-limit {
		t.Errorf("ContactCap %d after one step, want %d pairs - %d kept = %d", got, pairs, limit, pairs-limit)
	}
	if c := len(s.Contacts()); c > 4*limit {
		t.Errorf("%d contact points, over 4 x %d", c, limit)
	}
	for i := range s.Bodies {
		if p := s.Bodies[i].Pos; p != p {
			t.Fatalf("body %d not finite", i)
		}
	}
	m, err = overlapping(20, 0) // default cap
	if err != nil {
		t.Fatal(err)
	}
	if m.Opt.MaxContacts != sim.DefaultOptions().MaxContacts {
		t.Errorf("MaxContacts %d, want the default", m.Opt.MaxContacts)
	}
	s = m.NewState()
	sim.Step(m, s)
	if s.Warnings.ContactCap != 0 || len(s.Contacts()) == 0 {
		t.Errorf("20 spheres under the default cap: ContactCap %d, %d contacts", s.Warnings.ContactCap, len(s.Contacts()))
	}
	b := sim.NewBuilder()
	b.Opt.MaxContacts = -1
	if _, err := b.Build(); err == nil {
		t.Error("MaxContacts -1 built")
	}
}
