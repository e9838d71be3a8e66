package articulated_test

import (
	"testing"

	"github.com/vlmrb/vlmrb/sim/articulated"
	"github.com/vlmrb/vlmrb/sim/mjcf"
)

func BenchmarkZZHumanoid(b *testing.B) {
	am, err := mjcf.LoadArticulated("/tmp/eng/hum/humanoid_nocontact.xml", mjcf.Options{})
	if err != nil {
		b.Fatal(err)
	}
	d := articulated.NewData(am.Model)
	for b.Loop() {
		articulated.Step(am.Model, d)
		if d.Time > 3 {
			articulated.Reset(am.Model, d)
		}
	}
}
