//go:build cgo && !noopenblas

package nn

/*
#cgo CFLAGS: -O3
#cgo LDFLAGS: -lopenblas -lm
#include <cblas.h>
#include <math.h>
#include <immintrin.h>
void openblas_set_num_threads(int num_threads);

// Element-wise kernels beside the GEMMs. Go does not vectorise loops; gcc
// does, and target_clones picks an AVX2 version at load time where the CPU
// has it (plain SSE2 otherwise), so the binary stays portable.
// Adam needs an exact vector square root, which gcc only emits for sqrtf
// under -ffast-math (and then as an approximate rsqrt); it is written with
// AVX intrinsics instead, behind a run-time CPU check.
#define VEC __attribute__((target_clones("avx2", "default")))

VEC static void vlmrb_bias_act(float *y, const float *b, long rows, long cols, int relu) {
	for (long r = 0; r < rows; r++) {
		float *row = y + r * cols;
		if (b) for (long j = 0; j < cols; j++) row[j] += b[j];
		if (relu) for (long j = 0; j < cols; j++) row[j] = row[j] > 0.0f ? row[j] : 0.0f;
	}
}

VEC static void vlmrb_relu_mask(float *g, const float *x, long n) {
	for (long i = 0; i < n; i++) g[i] = x[i] > 0.0f ? g[i] : 0.0f;
}

VEC static double vlmrb_sumsq(const float *g, long n) {
	double s[8] = {0};
	long i = 0;
	for (; i + 8 <= n; i += 8)
		for (int k = 0; k < 8; k++) s[k] += (double)g[i + k] * (double)g[i + k];
	for (; i < n; i++) s[0] += (double)g[i] * (double)g[i];
	return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

static void vlmrb_adam_scalar(float *p, const float *g, float *m, float *v, long i, long n,
		float b1, float b2, float step, float isq, float eps, float scale) {
	float c1 = 1.0f - b1, c2 = 1.0f - b2;
	for (; i < n; i++) {
		float gi = g[i] * scale;
		float mi = b1 * m[i] + c1 * gi;
		float vi = b2 * v[i] + c2 * gi * gi;
		m[i] = mi;
		v[i] = vi;
		p[i] -= step * mi / (sqrtf(vi) * isq + eps);
	}
}

__attribute__((target("avx2")))
static long vlmrb_adam_avx2(float *p, const float *g, float *m, float *v, long n,
		float b1, float b2, float step, float isq, float eps, float scale) {
	__m256 vb1 = _mm256_set1_ps(b1), vb2 = _mm256_set1_ps(b2);
	__m256 vc1 = _mm256_set1_ps(1.0f - b1), vc2 = _mm256_set1_ps(1.0f - b2);
	__m256 vstep = _mm256_set1_ps(step), visq = _mm256_set1_ps(isq);
	__m256 veps = _mm256_set1_ps(eps), vscale = _mm256_set1_ps(scale);
	long i = 0;
	for (; i + 8 <= n; i += 8) {
		__m256 gi = _mm256_mul_ps(_mm256_loadu_ps(g + i), vscale);
		__m256 mi = _mm256_add_ps(_mm256_mul_ps(vb1, _mm256_loadu_ps(m + i)), _mm256_mul_ps(vc1, gi));
		__m256 vi = _mm256_add_ps(_mm256_mul_ps(vb2, _mm256_loadu_ps(v + i)), _mm256_mul_ps(_mm256_mul_ps(vc2, gi), gi));
		_mm256_storeu_ps(m + i, mi);
		_mm256_storeu_ps(v + i, vi);
		__m256 den = _mm256_add_ps(_mm256_mul_ps(_mm256_sqrt_ps(vi), visq), veps);
		_mm256_storeu_ps(p + i, _mm256_sub_ps(_mm256_loadu_ps(p + i), _mm256_div_ps(_mm256_mul_ps(vstep, mi), den)));
	}
	return i;
}

static void vlmrb_adam(float *p, const float *g, float *m, float *v, long n,
		float b1, float b2, float step, float isq, float eps, float scale) {
	long i = 0;
	if (__builtin_cpu_supports("avx2"))
		i = vlmrb_adam_avx2(p, g, m, v, n, b1, b2, step, isq, eps, scale);
	vlmrb_adam_scalar(p, g, m, v, i, n, b1, b2, step, isq, eps, scale);
}

VEC static void vlmrb_polyak(float *t, const float *s, long n, float tau) {
	float c = 1.0f - tau;
	for (long i = 0; i < n; i++) t[i] = tau * s[i] + c * t[i];
}
*/
import "C"

import (
	"unsafe"

	"gonum.org/v1/gonum/blas"
)

// openBLAS calls cblas_sgemm/cblas_sgemv of the system OpenBLAS (apt
// libopenblas-dev). Slices are passed without copies; cgo pointer rules hold
// because the float32 slices contain no Go pointers.
type openBLAS struct{}

// registerOpenBLAS runs during package variable initialisation, before
// blas.go's init reads VLMRB_BLAS.
var _ = registerOpenBLAS()

func registerOpenBLAS() bool {
	backends["openblas"] = backend{
		name: "openblas",
		impl: openBLAS{},
		k:    openBLAS{},
		setThreads: func(n int) {
			C.openblas_set_num_threads(C.int(n))
		},
		library: func() (string, string) {
			return C.GoString(C.openblas_get_corename()), C.GoString(C.openblas_get_config())
		},
	}
	// Start single-threaded, matching threads' default, so that a process
	// that never calls SetThreads does not spawn one BLAS thread per core
	// next to Go's own threads.
	C.openblas_set_num_threads(1)
	return true
}

func cTrans(t blas.Transpose) C.enum_CBLAS_TRANSPOSE {
	if t == blas.NoTrans {
		return C.CblasNoTrans
	}
	return C.CblasTrans
}

func (openBLAS) Sgemm(tA, tB blas.Transpose, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	// bounds checks equivalent to gonum's, so misuse panics instead of
	// corrupting memory.
	ra, ca := m, k
	if tA != blas.NoTrans {
		ra, ca = k, m
	}
	rb, cb := k, n
	if tB != blas.NoTrans {
		rb, cb = n, k
	}
	if k > 0 && (len(a) < lda*(ra-1)+ca || len(b) < ldb*(rb-1)+cb) || len(c) < ldc*(m-1)+n {
		panic("nn: sgemm slice too short")
	}
	var pa, pb *float32
	if k > 0 {
		pa, pb = &a[0], &b[0]
	}
	C.cblas_sgemm(C.CblasRowMajor, cTrans(tA), cTrans(tB), C.blasint(m), C.blasint(n), C.blasint(k),
		C.float(alpha), (*C.float)(unsafe.Pointer(pa)), C.blasint(lda),
		(*C.float)(unsafe.Pointer(pb)), C.blasint(ldb),
		C.float(beta), (*C.float)(unsafe.Pointer(&c[0])), C.blasint(ldc))
}

func (openBLAS) Sgemv(tA blas.Transpose, m, n int, alpha float32, a []float32, lda int, x []float32, incX int, beta float32, y []float32, incY int) {
	if m == 0 || n == 0 {
		return
	}
	lx, ly := n, m
	if tA != blas.NoTrans {
		lx, ly = m, n
	}
	if len(a) < lda*(m-1)+n || len(x) < 1+(lx-1)*incX || len(y) < 1+(ly-1)*incY {
		panic("nn: sgemv slice too short")
	}
	C.cblas_sgemv(C.CblasRowMajor, cTrans(tA), C.blasint(m), C.blasint(n),
		C.float(alpha), (*C.float)(unsafe.Pointer(&a[0])), C.blasint(lda),
		(*C.float)(unsafe.Pointer(&x[0])), C.blasint(incX),
		C.float(beta), (*C.float)(unsafe.Pointer(&y[0])), C.blasint(incY))
}

func (openBLAS) biasAct(y, b []float32, rows, cols int, relu bool) {
	if rows == 0 || cols == 0 {
		return
	}
	if len(y) < rows*cols || (b != nil && len(b) < cols) {
		panic("nn: biasAct slice too short")
	}
	var pb *C.float
	if b != nil {
		pb = (*C.float)(unsafe.Pointer(&b[0]))
	}
	r := C.int(0)
	if relu {
		r = 1
	}
	C.vlmrb_bias_act((*C.float)(unsafe.Pointer(&y[0])), pb, C.long(rows), C.long(cols), r)
}

func (openBLAS) reluMask(g, x []float32) {
	if len(g) == 0 {
		return
	}
	if len(x) < len(g) {
		panic("nn: reluMask slice too short")
	}
	C.vlmrb_relu_mask((*C.float)(unsafe.Pointer(&g[0])), (*C.float)(unsafe.Pointer(&x[0])), C.long(len(g)))
}

func (openBLAS) sumSq(g []float32) float64 {
	if len(g) == 0 {
		return 0
	}
	return float64(C.vlmrb_sumsq((*C.float)(unsafe.Pointer(&g[0])), C.long(len(g))))
}

func (openBLAS) adam(p, g, m, v []float32, b1, b2, step, isq, eps, scale float32) {
	n := len(m)
	if n == 0 {
		return
	}
	if len(p) < n || len(g) < n || len(v) < n {
		panic("nn: adam slice too short")
	}
	C.vlmrb_adam((*C.float)(unsafe.Pointer(&p[0])), (*C.float)(unsafe.Pointer(&g[0])),
		(*C.float)(unsafe.Pointer(&m[0])), (*C.float)(unsafe.Pointer(&v[0])), C.long(n),
		C.float(b1), C.float(b2), C.float(step), C.float(isq), C.float(eps), C.float(scale))
}

func (openBLAS) polyak(t, s []float32, tau float32) {
	if len(t) == 0 {
		return
	}
	if len(s) < len(t) {
		panic("nn: polyak slice too short")
	}
	C.vlmrb_polyak((*C.float)(unsafe.Pointer(&t[0])), (*C.float)(unsafe.Pointer(&s[0])), C.long(len(t)), C.float(tau))
}
