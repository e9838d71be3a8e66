package vlmviam

import (
	"context"
	"testing"
)

// BenchmarkRigTick measures one control step of the Rig against the
// in-process sim components (no gRPC): action → limits → gripper →
// MoveToPosition (one 12.5 ms sim control step) → observation.
func BenchmarkRigTick(b *testing.B) {
	ctx := context.Background()
	deps, sa := simRig(b, "bench", 0)
	rig, err := NewRig(context.Background(), deps, RigConfig{Arm: "arm", Gripper: "gripper", GripperMode: "proportional", PoseTracker: "poses", MaxStep: 8})
	if err != nil {
		b.Fatal(err)
	}
	sa.world().Reset(1)
	if _, err := rig.Begin(ctx); err != nil {
		b.Fatal(err)
	}
	a := []float64{0.3, -0.2, 0.1, -1}
	steps := 0
	for b.Loop() {
		if steps == 150 { // stay inside the 200-step episode
			b.StopTimer()
			sa.world().Reset(1)
			if _, err := rig.Begin(ctx); err != nil {
				b.Fatal(err)
			}
			steps = 0
			b.StartTimer()
		}
		a[0] = -a[0]
		if _, err := rig.Act(ctx, a); err != nil {
			b.Fatal(err)
		}
		if _, err := rig.Observe(ctx); err != nil {
			b.Fatal(err)
		}
		steps++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ticks/s")
}
