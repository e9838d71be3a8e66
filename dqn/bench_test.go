package dqn

import (
	"fmt"
	"testing"

	"github.com/vlmrb/vlmrb/internal/cputime"
	"github.com/vlmrb/vlmrb/nn"
)

// doorKeyWidths are the categorical widths of MiniGrid's egocentric
// DoorKey observation (package tasks/grid): 7·7 cells of (11 objects, 6
// colours, 4 states) and the direction (4), 1,033 network inputs.
func doorKeyWidths() []int {
	c := make([]int, 0, 148)
	for range 49 {
		c = append(c, 11, 6, 4)
	}
	return append(c, 4)
}

// BenchmarkUpdate measures Double DQN updates/s on DoorKey's egocentric
// observation (148 codes one-hot to 1,033 inputs, 7 actions) for the
// default 256×256 network at batch 128 and the smaller 128×128 at 64,
// on the BLAS backend in use.
func BenchmarkUpdate(b *testing.B) {
	for _, c := range []struct {
		hidden []int
		batch  int
	}{{[]int{256, 256}, 128}, {[]int{128, 128}, 64}} {
		b.Run(fmt.Sprintf("doorkey/%dx%d/batch%d/%s", c.hidden[0], c.hidden[1], c.batch, nn.Backend()), func(b *testing.B) {
			cfg := DefaultConfig()
			cfg.Hidden, cfg.BatchSize, cfg.Categorical = c.hidden, c.batch, doorKeyWidths()
			a, err := New(cfg, 148, 7)
			if err != nil {
				b.Fatal(err)
			}
			batch := randomBatch(c.batch, 148, 7, 1)
			for i := range batch.Obs { // codes, not uniform noise
				batch.Obs[i] = float32(int(batch.Obs[i]*5+5) % 4)
				batch.NextObs[i] = float32(int(batch.NextObs[i]*5+5) % 4)
			}
			if _, err := a.Update(batch); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			cpu0 := cputime.Process()
			for b.Loop() {
				if _, err := a.Update(batch); err != nil {
					b.Fatal(err)
				}
			}
			sec := b.Elapsed().Seconds()
			b.ReportMetric(float64(b.N)/sec, "updates/s")
			if cpu := (cputime.Process() - cpu0).Seconds(); cpu > 0 {
				b.ReportMetric(float64(b.N)/cpu, "updates/cpu-s")
			}
		})
	}
}
