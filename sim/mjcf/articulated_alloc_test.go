package mjcf

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/vlmrb/vlmrb/sim/articulated"
)

// The feature models with activations and spatial tendons step without
// allocating after the first step, bit-deterministically.
func TestFeatureStepAllocatesNothingAndIsDeterministic(t *testing.T) {
	for _, name := range []string{"activation", "activation_implicitfast", "spatial", "pgs_friction"} {
		am, err := Load(filepath.Join("testdata", "articulated", name+".xml"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		m := am.Model
		run := func() []float64 {
			d := articulated.NewData(m)
			if err := articulated.ResetKey(m, d, 0); err != nil {
				t.Fatal(err)
			}
			articulated.Step(m, d)
			if a := testing.AllocsPerRun(100, func() { articulated.Step(m, d) }); a != 0 {
				t.Errorf("%s: Step allocates %.1f times per call", name, a)
			}
			return append(append([]float64(nil), d.Qpos...), d.Act...)
		}
		a, b := run(), run()
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				t.Errorf("%s: state[%d] %v then %v: not bit-deterministic", name, i, a[i], b[i])
			}
		}
	}
}
