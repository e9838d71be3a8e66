package sim_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/vlmrb/vlmrb/sim"
)

// BenchmarkStep runs the scenarios of anchors/mujoco_bench/mjbench.c on the
// tabletop scene at timestep 2 ms: one op is one 2-ms Step, including the
// scripted control every 5 steps and the episode resets every 250 control
// steps. MuJoCo 2.2.2 anchor: 71.5k (idle), 45.4k (push), 55.3k (lift) steps/s.
func BenchmarkStep(b *testing.B) {
	for _, sc := range []struct {
		name string
		sc   scenario
	}{{"idle", idle}, {"push", push}, {"lift", lift}} {
		b.Run(sc.name, func(b *testing.B) {
			tt, err := newTabletop(0.1, 0.002)
			if err != nil {
				b.Fatal(err)
			}
			s := tt.m.NewState()
			tt.episode(s, sc.sc) // warm-up: sizes the contact buffers
			tt.reset(s, sc.sc)
			i := 0
			start, cpu0 := time.Now(), cpuSeconds()
			for b.Loop() {
				k := i / frameSkip
				if k == epLen {
					tt.reset(s, sc.sc)
					i, k = 0, 0
				}
				if i%frameSkip == 0 {
					tt.control(s, sc.sc, k)
				}
				sim.Step(tt.m, s)
				i++
			}
			report(b, start, cpu0, len(tt.m.Bodies))
		})
	}
}

// report adds steps/s (wall clock), steps/cpu-s (process CPU time: less
// sensitive to other load on a shared machine) and the body count.
func report(b *testing.B, start time.Time, cpu0 float64, bodies int) {
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "steps/s")
	if cpu := cpuSeconds() - cpu0; cpu > 0 {
		b.ReportMetric(float64(b.N)/cpu, "steps/cpu-s")
	}
	b.ReportMetric(float64(bodies), "bodies")
}

// BenchmarkStepBoxes measures how the cost grows with the number of free
// 5 cm boxes resting on the table in a grid (and, every fifth one, stacked
// on its neighbour).
func BenchmarkStepBoxes(b *testing.B) {
	for _, n := range []int{1, 10, 50} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			bl := sim.NewBuilder()
			bl.Opt.Timestep = 0.002
			bl.AddShape(sim.World, sim.ShapeDesc{Kind: sim.Plane})
			for i := 0; i < n; i++ {
				x, y, z := float64(i%8)*0.07, float64(i/8)*0.07, 0.025
				if i%5 == 4 {
					// stacked on the previous box
					x, y, z = float64((i-1)%8)*0.07, float64((i-1)/8)*0.07, 0.075
				}
				id := bl.AddBody(sim.BodyDesc{Mass: 0.1, Pos: sim.V3(x, y, z)})
				bl.AddShape(id, sim.ShapeDesc{Kind: sim.Box, Size: sim.V3(0.025, 0.025, 0.025)})
			}
			m, err := bl.Build()
			if err != nil {
				b.Fatal(err)
			}
			s := m.NewState()
			for i := 0; i < 500; i++ {
				sim.Step(m, s)
			}
			start, cpu0 := time.Now(), cpuSeconds()
			for b.Loop() {
				sim.Step(m, s)
			}
			report(b, start, cpu0, n)
		})
	}
}

// TestStepAllocs checks Step allocates nothing after warm-up.
func TestStepAllocs(t *testing.T) {
	tt, err := newTabletop(0.1, 0.002)
	if err != nil {
		t.Fatal(err)
	}
	s := tt.m.NewState()
	tt.episode(s, lift)
	tt.reset(s, push)
	for i := 0; i < 100; i++ {
		sim.Step(tt.m, s)
	}
	k := 0
	if a := testing.AllocsPerRun(500, func() {
		tt.control(s, push, k/frameSkip%epLen)
		k++
		sim.Step(tt.m, s)
	}); a != 0 {
		t.Errorf("Step allocates %.2f times per call", a)
	}
}
