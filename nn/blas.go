package nn

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync/atomic"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// sgemmer is the one BLAS routine family the package needs. Matrices are
// row-major, as in gonum's blas32 and CBLAS with CblasRowMajor.
type sgemmer interface {
	Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int)
	Sgemv(tA blas.Transpose, m, n int, alpha float32, a []float32, lda int, x []float32, incX int, beta float32, y []float32, incY int)
}

// kernels are the element-wise loops of a backend. The pure-Go versions
// below serve gonum; the OpenBLAS backend supplies vectorised C ones.
type kernels interface {
	biasAct(y, b []float32, rows, cols int, relu bool) // y[r,:] += b; then ReLU if relu (b may be nil)
	reluMask(g, x []float32)                           // g[i] = 0 where x[i] <= 0
	sumSq(g []float32) float64                         // Σ g² in float64
	adam(p, g, m, v []float32, b1, b2, step, isq, eps, scale float32)
	polyak(t, s []float32, tau float32) // t = τ·s + (1−τ)·t
}

type goKernels struct{}

func (goKernels) biasAct(y, b []float32, rows, cols int, relu bool) {
	for r := 0; r < rows; r++ {
		row := y[r*cols : (r+1)*cols]
		if b != nil {
			for j, bj := range b[:len(row)] {
				row[j] += bj
			}
		}
		if relu {
			reluGo(row)
		}
	}
}

func (goKernels) reluMask(g, x []float32) { reluMaskGo(g, x) }

func (goKernels) sumSq(g []float32) float64 {
	var s float64
	for _, v := range g {
		s += float64(v) * float64(v)
	}
	return s
}

func (goKernels) adam(p, g, m, v []float32, b1, b2, step, isq, eps, scale float32) {
	c1, c2 := 1-b1, 1-b2
	v = v[:len(m)]
	p, g = p[:len(m)], g[:len(m)]
	for i := range m {
		gi := g[i] * scale
		mi := b1*m[i] + c1*gi
		vi := b2*v[i] + c2*gi*gi
		m[i], v[i] = mi, vi
		p[i] -= step * mi / (sqrt32(vi)*isq + eps)
	}
}

func (goKernels) polyak(t, s []float32, tau float32) {
	s = s[:len(t)]
	for i := range t {
		t[i] = tau*s[i] + (1-tau)*t[i]
	}
}

type backend struct {
	name string
	impl sgemmer
	k    kernels
	// setThreads sets the library's thread count; nil when the library
	// follows GOMAXPROCS instead.
	setThreads func(n int)
	// library reports a C library's kernel (core) and build configuration;
	// nil for pure-Go backends.
	library func() (core, config string)
}

var (
	backends = map[string]backend{
		"gonum": {name: "gonum", impl: gonum.Implementation{}, k: goKernels{}},
	}
	current atomic.Pointer[backend]
	threads atomic.Int64
)

func init() {
	b := backends["gonum"]
	current.Store(&b)
	threads.Store(1)
	if name := os.Getenv("VLMRB_BLAS"); name != "" {
		if err := SetBackend(name); err != nil {
			fmt.Fprintf(os.Stderr, "nn: VLMRB_BLAS=%q ignored: %v\n", name, err)
		}
	}
	if s := os.Getenv("VLMRB_BLAS_THREADS"); s != "" {
		var n int
		if _, err := fmt.Sscan(s, &n); err == nil && n > 0 {
			SetThreads(n)
		}
	}
}

// Backends lists the BLAS backends compiled into this binary, default first.
func Backends() []string {
	out := []string{"gonum"}
	if _, ok := backends["openblas"]; ok {
		out = append(out, "openblas")
	}
	return out
}

// SetBackend selects the BLAS backend used by every network in the process:
// "gonum" (pure Go), "openblas" (cgo; absent from CGO_ENABLED=0 builds) or
// "auto" (OpenBLAS when compiled in, else gonum). It returns an error for
// unknown or unavailable backends and leaves the selection unchanged.
// Call it before training starts, not while GEMMs run on other goroutines.
func SetBackend(name string) error {
	name, err := ResolveBackend(name)
	if err != nil {
		return err
	}
	b := backends[name]
	current.Store(&b)
	if b.setThreads != nil {
		b.setThreads(int(threads.Load()))
	}
	return nil
}

// ResolveBackend returns the backend SetBackend(name) selects, without
// selecting it, or SetBackend's error.
func ResolveBackend(name string) (string, error) {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "auto" {
		name = "gonum"
		if _, ok := backends["openblas"]; ok {
			name = "openblas"
		}
	}
	if _, ok := backends[name]; !ok {
		return "", fmt.Errorf("nn: BLAS backend %q is not available (compiled in: %s; build with cgo and libopenblas-dev for openblas)", name, strings.Join(Backends(), ", "))
	}
	return name, nil
}

// Backend returns the name of the selected BLAS backend.
func Backend() string { return current.Load().name }

// BLASInfo says which arithmetic the GEMMs run: floating-point sums depend
// on the kernel, so a run reproduces bit for bit only on the same one.
type BLASInfo struct {
	Backend string `json:"backend"` // the selected backend (see SetBackend)
	// OpenBLASCore is the kernel OpenBLAS dispatched to
	// (openblas_get_corename: "Haswell", "SkylakeX", "Zen", …; forced with
	// the OPENBLAS_CORETYPE environment variable), and OpenBLASConfig its
	// build line (openblas_get_config: version, DYNAMIC_ARCH, …). Both are
	// empty where OpenBLAS is not compiled in; they are filled when it is,
	// even if the gonum backend is selected.
	OpenBLASCore    string `json:"openblas_core,omitempty"`
	OpenBLASConfig  string `json:"openblas_config,omitempty"`
	OpenBLASVersion string `json:"openblas_version,omitempty"` // from the build line, e.g. "0.3.21"
}

// Library describes the selected backend and, where compiled in, OpenBLAS.
func Library() BLASInfo {
	info := BLASInfo{Backend: Backend()}
	if ob, ok := backends["openblas"]; ok && ob.library != nil {
		info.OpenBLASCore, info.OpenBLASConfig = ob.library()
		info.OpenBLASVersion = openBLASVersion(info.OpenBLASConfig)
	}
	return info
}

// openBLASVersion returns the version in an openblas_get_config line
// ("OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64"), or "".
func openBLASVersion(config string) string {
	f := strings.Fields(config)
	if len(f) >= 2 && strings.EqualFold(f[0], "OpenBLAS") {
		return f[1]
	}
	return ""
}

// SetThreads sets the number of threads the BLAS library may use for one
// GEMM (n ≥ 1). OpenBLAS gets exactly n threads (openblas_set_num_threads),
// which avoids oversubscribing the cores that Go itself uses; gonum's GEMM
// follows GOMAXPROCS instead, so for it this only records n.
func SetThreads(n int) {
	if n < 1 {
		panic("nn: SetThreads needs n >= 1")
	}
	threads.Store(int64(n))
	if b := current.Load(); b.setThreads != nil {
		b.setThreads(n)
	}
}

// Threads returns the thread count last given to SetThreads (1 by default)
// or, for the gonum backend, GOMAXPROCS.
func Threads() int {
	if current.Load().setThreads == nil {
		return runtime.GOMAXPROCS(0)
	}
	return int(threads.Load())
}

func impl() sgemmer { return current.Load().impl }

func kern() kernels { return current.Load().k }

// Sgemm computes C = alpha·op(A)·op(B) + beta·C on row-major matrices with
// the selected backend (see SetBackend): op(A) is m×k, op(B) k×n, C m×n,
// with leading dimensions lda, ldb, ldc. It is for layers built outside
// this package (vlmreward's convolutions) that should run on the same BLAS
// as the networks here.
func Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	current.Load().impl.Sgemm(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// Sgemv computes y = alpha·op(A)·x + beta·y on a row-major m×n matrix A
// with the selected backend, for the same callers as Sgemm.
func Sgemv(tA blas.Transpose, m, n int, alpha float32, a []float32, lda int, x []float32, incX int, beta float32, y []float32, incY int) {
	current.Load().impl.Sgemv(tA, m, n, alpha, a, lda, x, incX, beta, y, incY)
}
