package mjcf

import (
	"math"
	"testing"

	"github.com/vlmrb/vlmrb/sim/articulated"
)

// On the elliptic cone a sliding contact's force lies on the cone's
// surface, so Coulomb's law holds exactly per contact: the friction force
// is friction × the normal force (μ₁ = 0.5, isotropic), and the box
// decelerates at μ·g on average while it slides (it chatters on its
// contacts, as in MuJoCo, so the average is over 0.1 s).
func TestEllipticConeCoulombSliding(t *testing.T) {
	m := loadContactScene(t, "box_slide_elliptic")
	d := articulated.NewData(m)
	if err := articulated.ResetKey(m, d, 0); err != nil {
		t.Fatal(err)
	}
	speed := func() float64 { return math.Hypot(d.Qvel[0], d.Qvel[1]) }
	var v0, t0 float64
	for d.Time < 0.15 {
		articulated.Step(m, d)
		if v0 == 0 && d.Time >= 0.05 {
			v0, t0 = speed(), d.Time
		}
	}
	const mu, g = 0.5, 9.81
	decel := (v0 - speed()) / (d.Time - t0)
	if math.Abs(decel-mu*g) > 0.01*mu*g {
		t.Errorf("sliding deceleration %.4f m/s², want μ·g = %.4f", decel, mu*g)
	}
	blocks := 0
	for i := 0; i < d.NEfc; i++ {
		if d.EfcType[i] != articulated.RowContactElliptic {
			continue
		}
		c := d.Contacts[d.EfcJnt[i]]
		if c.Condim != 3 {
			t.Fatalf("contact condim %d, want 3", c.Condim)
		}
		fn, ft := d.EfcForce[i], math.Hypot(d.EfcForce[i+1], d.EfcForce[i+2])
		if fn > 0 {
			blocks++
			if math.Abs(ft-mu*fn) > 1e-9*fn {
				t.Errorf("contact %d: friction force %.9g, want μ × normal %.9g", d.EfcJnt[i], ft, mu*fn)
			}
		}
		i += 2
	}
	if blocks == 0 {
		t.Fatal("no pushing elliptic contact while sliding: the check tests nothing")
	}
}
