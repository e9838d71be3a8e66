package train

import (
	"math"
	"math/rand/v2"

	"github.com/vlmrb/vlmrb/replay"
)

// entropyRefs is how many replay states the k-NN distances are measured
// against (PEBBLE uses the whole buffer; a fresh uniform sample per update
// estimates the same quantity at a fixed cost).
const entropyRefs = 1024

// stateEntropy is PEBBLE's unsupervised exploration reward, used by ERL-VLM
// before its first reward fit: the distance from a state to its k-th
// nearest neighbour among replay states (a particle estimate of the state
// distribution's entropy), divided by the running standard deviation of
// those distances. Maximising it spreads the visited states, so the first
// rating session sees more than the start pose.
type stateEntropy struct {
	k    int
	u    *replay.Uniform
	ref  *replay.Batch
	best []float32 // the k smallest squared distances of one row
	// Welford running moments of the distances
	n       int64
	mu, m2  float64
	lastStd float64
}

func newStateEntropy(buf *replay.Buffer, k int) *stateEntropy {
	c := buf.Config()
	return &stateEntropy{k: max(1, k), u: replay.NewUniform(buf), ref: replay.NewBatch(entropyRefs, c.ObsDim, c.ActDim),
		best: make([]float32, max(1, k))}
}

// apply overwrites b.Rewards with the normalised k-NN distance of each
// row's observation.
func (e *stateEntropy) apply(b *replay.Batch, rng *rand.Rand) {
	if !e.u.Sample(e.ref, rng) {
		return
	}
	O := b.ObsDim
	for i := range b.Len() {
		x := b.Obs[i*O : (i+1)*O]
		d := math.Sqrt(float64(e.kth(x, O)))
		e.n++
		dm := d - e.mu
		e.mu += dm / float64(e.n)
		e.m2 += dm * (d - e.mu)
		b.Rewards[i] = float32(d)
	}
	std := 1.0
	if e.n > 1 {
		std = math.Sqrt(e.m2 / float64(e.n-1))
	}
	if !(std > 1e-8) {
		std = 1
	}
	e.lastStd = std
	for i := range b.Len() {
		b.Rewards[i] = float32(float64(b.Rewards[i]) / std)
	}
}

// kth returns the k-th smallest positive squared distance from x to the
// reference observations (an exact copy of x, the state itself, is not
// its own neighbour).
func (e *stateEntropy) kth(x []float32, O int) float32 {
	best := e.best
	for j := range best {
		best[j] = math.MaxFloat32
	}
	ref := e.ref.Obs
	for j := range e.ref.Len() {
		y := ref[j*O : (j+1)*O]
		var s float32
		for t, v := range x {
			dv := v - y[t]
			s += dv * dv
		}
		if s == 0 || s >= best[len(best)-1] {
			continue
		}
		// insert into the sorted k smallest
		p := len(best) - 1
		for p > 0 && best[p-1] > s {
			best[p] = best[p-1]
			p--
		}
		best[p] = s
	}
	if best[len(best)-1] == math.MaxFloat32 {
		return 0
	}
	return best[len(best)-1]
}
