package mjcf

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/vlmrb/vlmrb/sim/articulated"
)

func loadContactScene(tb testing.TB, name string) *articulated.Model {
	tb.Helper()
	am, err := Load(filepath.Join("testdata", "contacts", name+".xml"), Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return am.Model
}

// Step with contacts allocates nothing after the first step, and two runs
// from the same state are bit-identical (sim's contracts).
func TestContactStepAllocatesNothingAndIsDeterministic(t *testing.T) {
	for _, name := range []string{"stack3", "gripper_box", "hulls", "capsule_chain", "gripper_box_elliptic", "roll_spin_elliptic", "stack3_pgs", "roll_spin_elliptic_pgs"} {
		m := loadContactScene(t, name)
		run := func() []float64 {
			d := articulated.NewData(m)
			if len(m.Keys) > 0 {
				if err := articulated.ResetKey(m, d, 0); err != nil {
					t.Fatal(err)
				}
			}
			articulated.Step(m, d)
			if a := testing.AllocsPerRun(200, func() { articulated.Step(m, d) }); a != 0 {
				t.Errorf("%s: Step allocates %.1f times per call", name, a)
			}
			if len(d.Contacts) == 0 {
				t.Errorf("%s: no contacts after 201 steps: the check tests nothing", name)
			}
			return append([]float64(nil), d.Qpos...)
		}
		a, b := run(), run()
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				t.Errorf("%s: qpos[%d] %v then %v: not bit-deterministic", name, i, a[i], b[i])
			}
		}
	}
}

// BenchmarkContactStep steps contact scenes at rest or in grip (after 0.5 s
// of settling) and reports simulated steps per second and contacts.
func BenchmarkContactStep(b *testing.B) {
	for _, name := range []string{"box_rest", "stack3", "gripper_box", "capsule_chain",
		"stack3_elliptic", "gripper_box_elliptic", "stack3_pgs", "gripper_box_pgs"} {
		b.Run(name, func(b *testing.B) {
			m := loadContactScene(b, name)
			d := articulated.NewData(m)
			if len(m.Keys) > 0 {
				if err := articulated.ResetKey(m, d, 0); err != nil {
					b.Fatal(err)
				}
			}
			for range int(0.5 / m.Opt.Timestep) {
				articulated.Step(m, d)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				articulated.Step(m, d)
			}
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
			b.ReportMetric(float64(len(d.Contacts)), "contacts")
			b.ReportMetric(float64(d.NEfc), "rows")
		})
	}
}
