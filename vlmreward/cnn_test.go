package vlmreward

import (
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// Hand-written backprop through tanh, the linear layer, ReLU and im2col
// convolutions (including col2im for the input gradient of inner layers)
// matches central finite differences of L = Σ c_i·y_i.
func TestCNNGradientFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cfg := CNNConfig{Size: 12, Channels: []int{4, 5, 3}, Kernels: []int{3, 3, 2}, Strides: []int{2, 1, 1}}
	m, err := NewCNN(cfg, rng)
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.Params { // larger weights than the reference init, so every path carries gradient
		m.Params[i] = float32(rng.Float64() - 0.5)
	}
	const n = 3
	imgs := make([]uint8, n*m.InputLen())
	for i := range imgs {
		imgs[i] = uint8(rng.IntN(256))
	}
	c := []float64{0.7, -1.3, 0.4}
	loss := func() float64 {
		y := m.Forward(imgs, n)
		s := 0.0
		for i, v := range y {
			s += c[i] * float64(v)
		}
		return s
	}
	y := m.Forward(imgs, n)
	dy := make([]float32, n)
	for i := range dy {
		dy[i] = float32(c[i])
	}
	_ = y
	m.Backward(dy)
	grads := append([]float32(nil), m.Grads...)
	checked, bad := 0, 0
	for i := 0; i < len(m.Params); i += 1 + rng.IntN(3) {
		const h = 2e-3
		old := m.Params[i]
		m.Params[i] = old + h
		lp := loss()
		m.Params[i] = old - h
		lm := loss()
		m.Params[i] = old
		num := (lp - lm) / (2 * h)
		g := float64(grads[i])
		if math.Abs(num-g) > 2e-3+2e-2*math.Abs(num) {
			bad++
			if bad < 10 {
				t.Errorf("param %d: backprop %.5g, numeric %.5g", i, g, num)
			}
		}
		checked++
	}
	if checked < 100 {
		t.Fatalf("only %d parameters checked", checked)
	}
}

func TestDownscale(t *testing.T) {
	// covered through the rendered-frame tests; here: a 4×2 image center-crops
	// to its middle 2×2 and averages to one pixel.
	img := newRGBA(4, 2)
	for x := 0; x < 4; x++ {
		for y := 0; y < 2; y++ {
			o := img.PixOffset(x, y)
			img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3] = uint8(10*x), 100, uint8(200*y), 255
		}
	}
	got := Downscale(nil, img, 1)
	if got[0] != 15 || got[1] != 100 || got[2] != 100 {
		t.Fatalf("downscaled %v, want [15 100 100]", got)
	}
}

func TestModelSaveLoad(t *testing.T) {
	cfg := DefaultModelConfig(2)
	cfg.CNN = CNNConfig{Size: 12, Channels: []int{4, 4}, Kernels: []int{3, 3}, Strides: []int{2, 2}}
	m, err := NewModel(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := NewDataset(40, m.InputLen(), 2)
	rng := rand.New(rand.NewPCG(1, 1))
	img := make([]uint8, m.InputLen())
	for i := 0; i < 40; i++ {
		for j := range img {
			img[j] = uint8(rng.IntN(256))
		}
		d.Add(img, i%2)
	}
	if _, err := m.Train(d); err != nil {
		t.Fatal(err)
	}
	path := t.TempDir() + "/m.bin"
	if err := m.Save(path); err != nil {
		t.Fatal(err)
	}
	l, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	a, b := make([]float32, 1), make([]float32, 1)
	m.Predict(a, img, 1)
	l.Predict(b, img, 1)
	if a[0] != b[0] || l.Updates != m.Updates || l.opt[0].T != m.opt[0].T {
		t.Fatalf("loaded model differs: %v vs %v, updates %d vs %d", a, b, l.Updates, m.Updates)
	}
	data, _ := os.ReadFile(path)
	data[len(data)/2] ^= 1
	_ = os.WriteFile(path, data, 0o644)
	if _, err := LoadModel(path); err == nil {
		t.Fatal("corrupt file loaded")
	}
}
