package vlmreward

import (
	"math"
	"math/rand/v2"
	"sort"
)

// LossKind selects the rating loss.
type LossKind int

const (
	// LossMAE is ERL-VLM's class-weighted mean absolute error between the
	// softmax class probabilities and the one-hot label, summed over classes.
	LossMAE LossKind = iota
	// LossCE is (class-weighted) cross-entropy on the same logits (RbRL).
	LossCE
)

// String returns "mae" or "ce".
func (k LossKind) String() string {
	if k == LossCE {
		return "ce"
	}
	return "mae"
}

// minMaxEps guards the per-batch min-max normalisation (reference: 1e-6).
const minMaxEps = 1e-6

// Boundaries writes the n+1 class boundaries R̄_0..R̄_n of a batch into dst
// (len n+1) and returns, for j = 1..n−1, the batch index whose normalised
// value R̄_j is (−1 for a constant boundary) in src (len n+1).
//
// norm are the batch's normalised rewards R̃ in [0,1], labels their classes.
// With the batch's label counts n_0..n_{n−1} and c_j = n_0+…+n_{j−1}:
// R̄_0 = 0, R̄_n = 1, R̄_j = sorted(R̃)[c_j − 1]. Explicit rule for absent
// classes: when c_j = 0 (no label below class j in the batch) R̄_j = 0; an
// absent middle class gets c_{j+1} = c_j, i.e. repeats the previous boundary.
// (The reference indexes sorted[−1], the maximum, when c_j = 0.)
func Boundaries(norm []float64, labels []int, n int, dst []float64, src []int) {
	order := make([]int, len(norm))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return norm[order[a]] < norm[order[b]] })
	counts := make([]int, n)
	for _, y := range labels {
		counts[y]++
	}
	dst[0], dst[n] = 0, 1
	src[0], src[n] = -1, -1
	c := 0
	for j := 1; j < n; j++ {
		c += counts[j-1]
		if c == 0 {
			dst[j], src[j] = 0, -1
			continue
		}
		src[j] = order[c-1]
		dst[j] = norm[src[j]]
	}
}

// ClassWeights returns ERL-VLM's class weights for a dataset's label
// counts: w_c = (N − n_c)/N, divided by min_c w_c; all 1 when any class
// is absent (or all labels are one class).
func ClassWeights(counts []int) []float64 {
	w := make([]float64, len(counts))
	total := 0
	for _, c := range counts {
		total += c
	}
	ones := func() []float64 {
		for i := range w {
			w[i] = 1
		}
		return w
	}
	if total == 0 {
		return ones()
	}
	lo := math.Inf(1)
	for i, c := range counts {
		if c == 0 {
			return ones()
		}
		w[i] = float64(total-c) / float64(total)
		lo = min(lo, w[i])
	}
	if lo <= 0 {
		return ones()
	}
	for i := range w {
		w[i] /= lo
	}
	return w
}

// RatingLoss computes the ERL-VLM rating loss of one batch of raw rewards r
// (one ensemble member's outputs) with labels in [0, n), temperature k and
// class weights w (nil: all 1), and writes dL/dr into grad (len(r); nil to
// skip). It returns the loss and the number of samples whose argmax logit
// equals the label.
//
// Steps (papers.md §2.3): R̃ = (r − min r)/(max r − min r + 1e-6);
// boundaries by Boundaries; Q_bj = −k(R̃_b − R̄_j)(R̃_b − R̄_{j+1});
// P_b = softmax(Q_b). MAE: L = Σ_b w_{y_b} Σ_j |P_bj − 1[j=y_b]| / Σ_b w_{y_b}.
// CE: L = Σ_b w_{y_b}(−log P_{b,y_b}) / Σ_b w_{y_b}. The gradient is exact
// (almost everywhere), including the flow through the min, the max and the
// batch elements that define the boundaries, as autograd computes it.
func RatingLoss(r []float64, labels []int, n int, k float64, w []float64, kind LossKind, grad []float64) (loss float64, correct int) {
	B := len(r)
	if B == 0 {
		return 0, 0
	}
	lo, hi, ilo, ihi := r[0], r[0], 0, 0
	for i, v := range r {
		if v < lo {
			lo, ilo = v, i
		}
		if v > hi {
			hi, ihi = v, i
		}
	}
	D := hi - lo + minMaxEps
	norm := make([]float64, B)
	for i, v := range r {
		norm[i] = (v - lo) / D
	}
	bd := make([]float64, n+1)
	src := make([]int, n+1)
	Boundaries(norm, labels, n, bd, src)

	wsum := 0.0
	for _, y := range labels {
		wsum += weightOf(w, y)
	}
	q := make([]float64, n)
	p := make([]float64, n)
	dq := make([]float64, n)
	var dnorm, dbd []float64
	if grad != nil {
		dnorm = make([]float64, B)
		dbd = make([]float64, n+1)
	}
	for b := 0; b < B; b++ {
		x, y := norm[b], labels[b]
		best := 0
		qmax := math.Inf(-1)
		for j := 0; j < n; j++ {
			q[j] = -k * (x - bd[j]) * (x - bd[j+1])
			if q[j] > qmax {
				qmax, best = q[j], j
			}
		}
		if best == y {
			correct++
		}
		s := 0.0
		for j := 0; j < n; j++ {
			p[j] = math.Exp(q[j] - qmax)
			s += p[j]
		}
		for j := range p {
			p[j] /= s
		}
		wb := weightOf(w, y) / wsum
		switch kind {
		case LossCE:
			loss += wb * -math.Log(max(p[y], 1e-300))
			for j := range dq {
				dq[j] = wb * p[j]
			}
			dq[y] -= wb
		default:
			// dL/dP_j = wb·sign(P_j − onehot_j); softmax backward.
			g := make([]float64, n)
			dot := 0.0
			for j := 0; j < n; j++ {
				t := 0.0
				if j == y {
					t = 1
				}
				loss += wb * math.Abs(p[j]-t)
				switch {
				case p[j] > t:
					g[j] = wb
				case p[j] < t:
					g[j] = -wb
				}
				dot += g[j] * p[j]
			}
			for j := range dq {
				dq[j] = p[j] * (g[j] - dot)
			}
		}
		if grad == nil {
			continue
		}
		for j := 0; j < n; j++ {
			// Q_bj = −k(x − R̄_j)(x − R̄_{j+1})
			dnorm[b] += dq[j] * -k * ((x - bd[j+1]) + (x - bd[j]))
			dbd[j] += dq[j] * k * (x - bd[j+1])
			dbd[j+1] += dq[j] * k * (x - bd[j])
		}
	}
	if grad == nil {
		return loss, correct
	}
	for j := 1; j < n; j++ {
		if src[j] >= 0 {
			dnorm[src[j]] += dbd[j]
		}
	}
	// R̃_b = (r_b − lo)/D, D = hi − lo + ε.
	var dlo, dhi float64
	for b := 0; b < B; b++ {
		grad[b] = dnorm[b] / D
		dlo += dnorm[b] * (-1/D + (r[b]-lo)/(D*D))
		dhi += dnorm[b] * -(r[b] - lo) / (D * D)
	}
	grad[ilo] += dlo
	grad[ihi] += dhi
	return loss, correct
}

func weightOf(w []float64, y int) float64 {
	if w == nil {
		return 1
	}
	return w[y]
}

// StratifiedBatches splits the indices 0..len(labels)−1 into
// ceil(N/batch) batches as ERL-VLM's generate_training_indices does: every
// batch takes floor(n_c/iters) of each class c (shuffled per class); the
// remaining slots of a batch are filled first with one item from each
// minority class that still has a remainder (ascending count order), then
// from the largest classes; the final batch takes all leftovers. Every batch
// contains every class whose count is at least the number of batches.
func StratifiedBatches(labels []int, n, batch int, rng *rand.Rand) [][]int {
	N := len(labels)
	if N == 0 || batch <= 0 {
		return nil
	}
	iters := (N + batch - 1) / batch
	byClass := make([][]int, n)
	for i, y := range labels {
		byClass[y] = append(byClass[y], i)
	}
	for _, c := range byClass {
		rng.Shuffle(len(c), func(a, b int) { c[a], c[b] = c[b], c[a] })
	}
	base := make([]int, n)
	surplus := make([]int, n)
	for c := range byClass {
		base[c] = len(byClass[c]) / iters
		surplus[c] = len(byClass[c]) - base[c]*iters
	}
	asc := make([]int, n)
	for i := range asc {
		asc[i] = i
	}
	sort.SliceStable(asc, func(a, b int) bool { return len(byClass[asc[a]]) < len(byClass[asc[b]]) })
	cursor := make([]int, n)
	take := func(c int, dst []int) []int {
		dst = append(dst, byClass[c][cursor[c]])
		cursor[c]++
		return dst
	}
	out := make([][]int, iters)
	for it := 0; it < iters; it++ {
		var bt []int
		for c := 0; c < n; c++ {
			for k := 0; k < base[c]; k++ {
				bt = take(c, bt)
			}
		}
		if it == iters-1 {
			for c := 0; c < n; c++ {
				for cursor[c] < len(byClass[c]) {
					bt = take(c, bt)
				}
			}
			out[it] = bt
			break
		}
		for _, c := range asc { // one from each minority class with a remainder
			if len(bt) >= batch {
				break
			}
			if surplus[c] > 0 && c != asc[n-1] {
				bt = take(c, bt)
				surplus[c]--
			}
		}
		for i := n - 1; i >= 0 && len(bt) < batch; i-- { // top up from the majority
			c := asc[i]
			for surplus[c] > 0 && len(bt) < batch {
				bt = take(c, bt)
				surplus[c]--
			}
		}
		out[it] = bt
	}
	return out
}
