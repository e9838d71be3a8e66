package vlmreward

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas"

	"github.com/vlmrb/vlmrb/nn"
)

// CNNConfig shapes the reward CNN: Size×Size RGB input scaled to [0,1],
// conv layers (no padding, ReLU) with the given channels, kernels and
// strides, then one linear unit and tanh. The reference (papers.md §2.5) is
// 224 px with k=[5,3,3,3], ch=[16,32,64,128], stride=[3,2,2,2]; the default
// here is a downscaled 32 px version with three layers.
type CNNConfig struct {
	Size     int
	Channels []int
	Kernels  []int
	Strides  []int
}

// DefaultCNNConfig: 3×32×32 → conv5/2 16ch (14×14) → conv3/2 32ch (6×6) →
// conv3/2 32ch (2×2) → 128 → 1 → tanh.
func DefaultCNNConfig() CNNConfig {
	return CNNConfig{Size: 32, Channels: []int{16, 32, 32}, Kernels: []int{5, 3, 3}, Strides: []int{2, 2, 2}}
}

type conv struct {
	inC, inH, inW    int
	outC, outH, outW int
	k, s             int
	w, b             []float32 // views into CNN.Params: outC×(inC·k·k), outC
	gw, gb           []float32 // views into CNN.Grads
}

// CNN is one reward network r̂(image) ∈ (−1, 1). Params and Grads are flat
// slices (for Adam); the layers hold views into them. A CNN is for one
// goroutine at a time.
type CNN struct {
	Cfg    CNNConfig
	Params []float32
	Grads  []float32
	convs  []conv
	feat   int       // flattened feature size
	lw, lb []float32 // linear layer views (feat, 1)
	glw    []float32
	glb    []float32

	// forward/backward scratch, sized for the last batch
	n    int
	cols [][]float32 // per layer: (inC·k·k) × (n·outH·outW)
	acts [][]float32 // acts[0] = input CNHW; acts[l+1] = output of conv l, C×N×H×W (post-ReLU)
	out  []float32   // n tanh outputs
	fbuf []float32   // n × feat
}

// NewCNN builds a CNN with the reference initialisation: conv weights
// U(±1/√fan_in), biases 0, the last layer U(±1e-3).
func NewCNN(cfg CNNConfig, rng *rand.Rand) (*CNN, error) {
	L := len(cfg.Channels)
	if cfg.Size <= 0 || L == 0 || len(cfg.Kernels) != L || len(cfg.Strides) != L {
		return nil, fmt.Errorf("vlmreward: bad CNN config %+v", cfg)
	}
	m := &CNN{Cfg: cfg}
	inC, h := 3, cfg.Size
	total := 0
	for l := 0; l < L; l++ {
		k, s := cfg.Kernels[l], cfg.Strides[l]
		if k <= 0 || s <= 0 || h < k {
			return nil, fmt.Errorf("vlmreward: CNN layer %d: kernel %d stride %d does not fit %d px", l, k, s, h)
		}
		o := (h-k)/s + 1
		m.convs = append(m.convs, conv{inC: inC, inH: h, inW: h, outC: cfg.Channels[l], outH: o, outW: o, k: k, s: s})
		total += cfg.Channels[l]*inC*k*k + cfg.Channels[l]
		inC, h = cfg.Channels[l], o
	}
	m.feat = inC * h * h
	total += m.feat + 1
	m.Params = make([]float32, total)
	m.Grads = make([]float32, total)
	off := 0
	view := func(n int) ([]float32, []float32) {
		p, g := m.Params[off:off+n:off+n], m.Grads[off:off+n:off+n]
		off += n
		return p, g
	}
	for l := range m.convs {
		c := &m.convs[l]
		c.w, c.gw = view(c.outC * c.inC * c.k * c.k)
		c.b, c.gb = view(c.outC)
		bound := 1 / math.Sqrt(float64(c.inC*c.k*c.k))
		for i := range c.w {
			c.w[i] = float32((2*rng.Float64() - 1) * bound)
		}
	}
	m.lw, m.glw = view(m.feat)
	m.lb, m.glb = view(1)
	for i := range m.lw {
		m.lw[i] = float32((2*rng.Float64() - 1) * 1e-3)
	}
	m.lb[0] = float32((2*rng.Float64() - 1) * 1e-3)
	return m, nil
}

// InputLen is the length of one image in the uint8 CHW layout Forward reads.
func (m *CNN) InputLen() int { return 3 * m.Cfg.Size * m.Cfg.Size }

func (m *CNN) grow(n int) {
	if m.n == n && m.acts != nil {
		return
	}
	m.n = n
	m.cols = make([][]float32, len(m.convs))
	m.acts = make([][]float32, len(m.convs)+1)
	m.acts[0] = make([]float32, n*m.InputLen())
	for l, c := range m.convs {
		m.cols[l] = make([]float32, c.inC*c.k*c.k*n*c.outH*c.outW)
		m.acts[l+1] = make([]float32, c.outC*n*c.outH*c.outW)
	}
	m.out = make([]float32, n)
	m.fbuf = make([]float32, n*m.feat)
}

// Forward evaluates n images (each InputLen uint8 values, CHW, 0–255,
// concatenated in imgs) and returns the n outputs in (−1,1). The result is
// valid until the next call.
func (m *CNN) Forward(imgs []uint8, n int) []float32 {
	if len(imgs) != n*m.InputLen() {
		panic("vlmreward: CNN.Forward: wrong input length")
	}
	m.grow(n)
	S2 := m.Cfg.Size * m.Cfg.Size
	x := m.acts[0] // C×N×H×W
	for i := 0; i < n; i++ {
		for c := 0; c < 3; c++ {
			src := imgs[i*3*S2+c*S2 : i*3*S2+(c+1)*S2]
			dst := x[(c*n+i)*S2 : (c*n+i+1)*S2]
			for p, v := range src {
				dst[p] = float32(v) / 255
			}
		}
	}
	for l := range m.convs {
		c := &m.convs[l]
		im2col(c, n, m.acts[l], m.cols[l])
		K, NP := c.inC*c.k*c.k, n*c.outH*c.outW
		y := m.acts[l+1]
		nn.Sgemm(blas.NoTrans, blas.NoTrans, c.outC, NP, K, 1, c.w, K, m.cols[l], NP, 0, y, NP)
		for o := 0; o < c.outC; o++ {
			row := y[o*NP : (o+1)*NP]
			bo := c.b[o]
			for i, v := range row {
				v += bo
				if v < 0 {
					v = 0
				}
				row[i] = v
			}
		}
	}
	last := &m.convs[len(m.convs)-1]
	P := last.outH * last.outW
	a := m.acts[len(m.convs)]
	for i := 0; i < n; i++ {
		f := m.fbuf[i*m.feat : (i+1)*m.feat]
		for c := 0; c < last.outC; c++ {
			copy(f[c*P:(c+1)*P], a[(c*n+i)*P:(c*n+i+1)*P])
		}
		s := float64(m.lb[0])
		for j, v := range f {
			s += float64(v) * float64(m.lw[j])
		}
		m.out[i] = float32(math.Tanh(s))
	}
	return m.out
}

// Backward accumulates into Grads (after zeroing them) the gradient of a
// loss whose derivative with respect to the last Forward's outputs is dy.
func (m *CNN) Backward(dy []float32) {
	n := m.n
	clear(m.Grads)
	last := &m.convs[len(m.convs)-1]
	P := last.outH * last.outW
	L := len(m.convs)
	da := make([]float32, len(m.acts[L]))
	for i := 0; i < n; i++ {
		o := float64(m.out[i])
		d := float32(float64(dy[i]) * (1 - o*o))
		m.glb[0] += d
		f := m.fbuf[i*m.feat : (i+1)*m.feat]
		for j, v := range f {
			m.glw[j] += d * v
		}
		for c := 0; c < last.outC; c++ {
			dst := da[(c*n+i)*P : (c*n+i+1)*P]
			w := m.lw[c*P : (c+1)*P]
			for p := range dst {
				dst[p] = d * w[p]
			}
		}
	}
	for l := L - 1; l >= 0; l-- {
		c := &m.convs[l]
		K, NP := c.inC*c.k*c.k, n*c.outH*c.outW
		y := m.acts[l+1]
		for i, v := range y { // ReLU mask
			if v <= 0 {
				da[i] = 0
			}
		}
		for o := 0; o < c.outC; o++ {
			s := float32(0)
			for _, v := range da[o*NP : (o+1)*NP] {
				s += v
			}
			c.gb[o] += s
		}
		// dW += dZ·colsᵀ (outC×K), dcols = Wᵀ·dZ (K×NP)
		nn.Sgemm(blas.NoTrans, blas.Trans, c.outC, K, NP, 1, da, NP, m.cols[l], NP, 1, c.gw, K)
		if l == 0 {
			break
		}
		dcol := make([]float32, K*NP)
		nn.Sgemm(blas.Trans, blas.NoTrans, K, NP, c.outC, 1, c.w, K, da, NP, 0, dcol, NP)
		din := make([]float32, len(m.acts[l]))
		col2im(c, n, dcol, din)
		da = din
	}
}

// im2col: col[(ci·k + ky)·k + kx][(i·outH + oy)·outW + ox] = x[ci][i][oy·s+ky][ox·s+kx].
func im2col(c *conv, n int, x, col []float32) {
	NP := n * c.outH * c.outW
	HW := c.inH * c.inW
	for ci := 0; ci < c.inC; ci++ {
		for ky := 0; ky < c.k; ky++ {
			for kx := 0; kx < c.k; kx++ {
				row := col[((ci*c.k+ky)*c.k+kx)*NP:]
				j := 0
				for i := 0; i < n; i++ {
					img := x[(ci*n+i)*HW:]
					for oy := 0; oy < c.outH; oy++ {
						src := img[(oy*c.s+ky)*c.inW+kx:]
						for ox := 0; ox < c.outW; ox++ {
							row[j] = src[ox*c.s]
							j++
						}
					}
				}
			}
		}
	}
}

// col2im is im2col's adjoint: it accumulates dcol into dx.
func col2im(c *conv, n int, dcol, dx []float32) {
	NP := n * c.outH * c.outW
	HW := c.inH * c.inW
	for ci := 0; ci < c.inC; ci++ {
		for ky := 0; ky < c.k; ky++ {
			for kx := 0; kx < c.k; kx++ {
				row := dcol[((ci*c.k+ky)*c.k+kx)*NP:]
				j := 0
				for i := 0; i < n; i++ {
					img := dx[(ci*n+i)*HW:]
					for oy := 0; oy < c.outH; oy++ {
						dst := img[(oy*c.s+ky)*c.inW+kx:]
						for ox := 0; ox < c.outW; ox++ {
							dst[ox*c.s] += row[j]
							j++
						}
					}
				}
			}
		}
	}
}
