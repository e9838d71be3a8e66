//go:build cgo && !noopenblas

package nn

/*
#cgo LDFLAGS: -lopenblas
#include <cblas.h>
void openblas_set_num_threads(int num_threads);
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

// registered is evaluated during package variable initialisation, before
// blas.go's init reads VLMRB_BLAS.
var registered = registerOpenBLAS()

func registerOpenBLAS() bool {
	backends["openblas"] = backend{
		name: "openblas",
		impl: openBLAS{},
		setThreads: func(n int) {
			C.openblas_set_num_threads(C.int(n))
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
