package nn

import (
	"sync"

	"gonum.org/v1/gonum/blas"
)

// Pool is one helper goroutine that runs GEMMs beside the caller's, so that
// the independent products of a backward pass (weight gradient and input
// gradient of a layer) or the two row halves of a forward pass overlap on
// two cores. Hand-offs go through channels of plain structs and do not
// allocate. A Pool serves one caller goroutine at a time; Close stops it.
type Pool struct {
	jobs chan gemmJob
	done chan struct{}
	once sync.Once
}

// gemmJob is C = A·B (with transposes) followed, when post is set, by
// C[r,:] += bias and the activation, and, when mask is set, by the ReLU
// mask of C against mask.
type gemmJob struct {
	ta, tb  blas.Transpose
	m, n, k int
	a       []float32
	lda     int
	b       []float32
	ldb     int
	c       []float32
	ldc     int
	post    bool
	bias    []float32
	act     Activation
	mask    []float32
}

// NewPool starts the helper goroutine.
func NewPool() *Pool {
	p := &Pool{jobs: make(chan gemmJob), done: make(chan struct{})}
	go func() {
		for j := range p.jobs {
			j.run()
			p.done <- struct{}{}
		}
	}()
	return p
}

// Close stops the helper goroutine. The Pool must not be used afterwards.
func (p *Pool) Close() { p.once.Do(func() { close(p.jobs) }) }

func (j *gemmJob) run() {
	impl().Sgemm(j.ta, j.tb, j.m, j.n, j.k, 1, j.a, j.lda, j.b, j.ldb, 0, j.c, j.ldc)
	if j.post {
		kern().biasAct(j.c, j.bias, j.m, j.n, j.act == ReLU)
		if j.act == Tanh {
			tanhInPlace(j.c[:j.m*j.n])
		}
	}
	if j.mask != nil {
		kern().reluMask(j.c[:j.m*j.n], j.mask)
	}
}

// pair runs a on the helper and b on the caller, then waits for both.
func (p *Pool) pair(a, b *gemmJob) {
	p.jobs <- *a
	b.run()
	<-p.done
}
