package tasks_test

import (
	"path/filepath"
	"testing"

	"github.com/vlmrb/vlmrb/sim/mjcf"
	"github.com/vlmrb/vlmrb/tasks"
)

// BenchmarkArmReachStep: control steps of arm-reach on arm6.xml (20
// physics steps of 2 ms each), the IK expert acting in ee or joint
// control, episodes of 100 steps reset as they end. Reported as
// env_steps/s (control steps, what SAC collects) and sim_s/s (simulated
// seconds per wall second); the expert's own IK is included.
func BenchmarkArmReachStep(b *testing.B) {
	for _, mode := range []string{"ee", "joint"} {
		b.Run(mode, func(b *testing.B) {
			e := benchArm(b, mode)
			pol := tasks.ArmReachExpert(e)
			act := make([]float64, e.Spec().ActDim)
			obs, _ := e.Reset(0)
			ep := uint64(0)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				pol.Act(obs, act)
				next, _, _, trunc, _, err := e.Step(act)
				if err != nil {
					b.Fatal(err)
				}
				obs = next
				if trunc {
					ep++
					obs, _ = e.Reset(ep)
				}
			}
			sec := b.Elapsed().Seconds()
			b.ReportMetric(float64(b.N)/sec, "env_steps/s")
			b.ReportMetric(float64(b.N)*e.Spec().ControlDt/sec, "sim_s/s")
		})
	}
}

func benchArm(b *testing.B, mode string) *tasks.ArmReach {
	a, err := mjcf.Load(filepath.Join("..", "sim", "mjcf", "testdata", "arm6.xml"), mjcf.Options{})
	if err != nil {
		b.Fatal(err)
	}
	e, err := tasks.NewArmReach(a, tasks.ArmReachOptions{Control: mode})
	if err != nil {
		b.Fatal(err)
	}
	return e
}
