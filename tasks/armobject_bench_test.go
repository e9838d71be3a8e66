package tasks

import (
	"os"
	"testing"
)

// BenchmarkArmObjectStep: control steps of panda-pick and panda-push (20
// physics steps of 2 ms, two 6-D IK iterations and the gravity
// feedforward each) with the expert acting, episodes reset as they end, on
// the test arm, or on the model VLMRB_PANDA names (bench/panda-tasks.sh
// --prepare). Reported per CPU-second of the process (env_steps/cpu_s,
// what SAC collects) so that other load on a shared machine counts less.
func BenchmarkArmObjectStep(b *testing.B) {
	model := gripperArm
	if p := os.Getenv("VLMRB_PANDA"); p != "" {
		model = p
	}
	for _, task := range []string{"pick", "push"} {
		b.Run(task, func(b *testing.B) {
			e, err := LoadArmObject(model, ArmObjectOptions{Task: task})
			if err != nil {
				b.Fatal(err)
			}
			pol, act := e.Expert(), make([]float64, 4)
			obs, _ := e.Reset(0)
			ep := uint64(0)
			b.ResetTimer()
			c0 := cpuSeconds()
			for i := 0; i < b.N; i++ {
				pol.Act(obs, act)
				next, _, term, trunc, _, err := e.Step(act)
				if err != nil {
					b.Fatal(err)
				}
				obs = next
				if term || trunc {
					ep++
					obs, _ = e.Reset(ep)
				}
			}
			if cpu := cpuSeconds() - c0; cpu > 0 {
				b.ReportMetric(float64(b.N)/cpu, "env_steps/cpu_s")
				b.ReportMetric(float64(b.N)*e.Spec().ControlDt/cpu, "sim_s/cpu_s")
			}
		})
	}
}
