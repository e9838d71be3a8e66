package vlmreward

import (
	"math/rand/v2"
	"testing"
)

func benchData(b *testing.B, cfg CNNConfig, n int) []uint8 {
	rng := rand.New(rand.NewPCG(1, 1))
	imgs := make([]uint8, n*3*cfg.Size*cfg.Size)
	for i := range imgs {
		imgs[i] = uint8(rng.IntN(256))
	}
	return imgs
}

// BenchmarkTrainStep: one forward+backward+Adam step of one ensemble
// member on a 512-image batch with the rating loss (DefaultCNNConfig, 32 px).
func BenchmarkTrainStep(b *testing.B) {
	cfg := DefaultModelConfig(3)
	cfg.Ensemble = 1
	cfg.MaxEpochs = 1
	m, err := NewModel(cfg)
	if err != nil {
		b.Fatal(err)
	}
	d, _ := NewDataset(512, m.InputLen(), 3)
	imgs := benchData(b, cfg.CNN, 512)
	for i := 0; i < 512; i++ {
		d.Add(imgs[i*m.InputLen():(i+1)*m.InputLen()], i%3)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := m.Train(d); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*512/b.Elapsed().Seconds(), "samples/s")
}

// BenchmarkPredict: ensemble-of-3 reward for relabelling, in frames/s.
func BenchmarkPredict(b *testing.B) {
	m, err := NewModel(DefaultModelConfig(3))
	if err != nil {
		b.Fatal(err)
	}
	const n = 1024
	imgs := benchData(b, m.Cfg.CNN, n)
	out := make([]float32, n)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Predict(out, imgs, n)
	}
	b.ReportMetric(float64(b.N)*n/b.Elapsed().Seconds(), "frames/s")
}

// BenchmarkVLMRMReward: the goal-baseline reward of one 1024-D embedding.
func BenchmarkVLMRMReward(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	v, err := NewVLMRM([][]float64{randVec(rng, 1024)}, [][]float64{randVec(rng, 1024)}, 0.5)
	if err != nil {
		b.Fatal(err)
	}
	x := randVec(rng, 1024)
	for i := 0; i < b.N; i++ {
		_, _ = v.Reward(x)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "rewards/s")
}
