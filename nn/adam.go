package nn

import "math"

// Adam is the Adam optimiser (Kingma & Ba) over one flat parameter slice,
// with PyTorch's bias correction and ε placement:
//
//	m ← β1·m + (1−β1)·g;  v ← β2·v + (1−β2)·g²
//	p ← p − (lr/(1−β1ᵗ)) · m / (√v/√(1−β2ᵗ) + ε)
//
// If MaxGradNorm > 0 the gradient is first scaled so its L2 norm is at most
// MaxGradNorm (torch.nn.utils.clip_grad_norm_). Step does not allocate.
type Adam struct {
	LR          float64 // step size
	Beta1       float64 // first-moment decay (0.9)
	Beta2       float64 // second-moment decay (0.999)
	Eps         float64 // denominator term (1e-8)
	MaxGradNorm float64 // global gradient-norm clip; 0 disables

	T int64     // steps taken
	M []float32 // first moments, one per parameter
	V []float32 // second moments
}

// NewAdam returns an Adam for n parameters with PyTorch's defaults
// (β1 0.9, β2 0.999, ε 1e-8) and the given step size.
func NewAdam(n int, lr float64) *Adam {
	return &Adam{LR: lr, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, M: make([]float32, n), V: make([]float32, n)}
}

// Step applies one update to params from grads (both of the length given
// to NewAdam). It returns the gradient L2 norm before clipping. When that
// norm is NaN or ±Inf, Step changes nothing (neither params nor moments)
// and the caller should treat the returned norm as divergence.
func (a *Adam) Step(params, grads []float32) float64 {
	if len(params) != len(a.M) || len(grads) != len(a.M) {
		panic("nn: Adam.Step length mismatch")
	}
	k := kern()
	norm := math.Sqrt(k.sumSq(grads))
	if math.IsNaN(norm) || math.IsInf(norm, 0) {
		return norm
	}
	scale := float32(1)
	if a.MaxGradNorm > 0 && norm > a.MaxGradNorm {
		scale = float32(a.MaxGradNorm / (norm + 1e-6))
	}
	a.T++
	bc1 := 1 - math.Pow(a.Beta1, float64(a.T))
	bc2 := 1 - math.Pow(a.Beta2, float64(a.T))
	step := float32(a.LR / bc1)
	isq := float32(1 / math.Sqrt(bc2))
	k.adam(params, grads, a.M, a.V, float32(a.Beta1), float32(a.Beta2), step, isq, float32(a.Eps), scale)
	return norm
}

func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }

// Reset clears the moments and the step count.
func (a *Adam) Reset() {
	clear(a.M)
	clear(a.V)
	a.T = 0
}
