#include "textflag.h"

// Arguments of every kernel: func(vec, mat *float32, rows *int32, n, stride int).
// vec is the 32 or 128 floats held in registers, mat the weight (or
// gradient) matrix whose rows rows[0:n] are visited, stride its row length.
#define ARGS \
	MOVQ vec+0(FP), DI \
	MOVQ mat+8(FP), SI \
	MOVQ rows+16(FP), BX \
	MOVQ n+24(FP), CX \
	MOVQ stride+32(FP), DX \
	SHLQ $2, DX

// AX = the address of row rows[0] of mat (plus the column offset in SI).
#define ROWADDR \
	MOVLQSX (BX), AX \
	IMULQ   DX, AX \
	ADDQ    SI, AX

#define LOADX8(p) \
	MOVUPS 0(p), X0; MOVUPS 16(p), X1; MOVUPS 32(p), X2; MOVUPS 48(p), X3 \
	MOVUPS 64(p), X4; MOVUPS 80(p), X5; MOVUPS 96(p), X6; MOVUPS 112(p), X7

#define STOREX8(p) \
	MOVUPS X0, 0(p); MOVUPS X1, 16(p); MOVUPS X2, 32(p); MOVUPS X3, 48(p) \
	MOVUPS X4, 64(p); MOVUPS X5, 80(p); MOVUPS X6, 96(p); MOVUPS X7, 112(p)

#define LOADY14(p) \
	VMOVUPS 0(p), Y0; VMOVUPS 32(p), Y1; VMOVUPS 64(p), Y2; VMOVUPS 96(p), Y3 \
	VMOVUPS 128(p), Y4; VMOVUPS 160(p), Y5; VMOVUPS 192(p), Y6; VMOVUPS 224(p), Y7 \
	VMOVUPS 256(p), Y8; VMOVUPS 288(p), Y9; VMOVUPS 320(p), Y10; VMOVUPS 352(p), Y11 \
	VMOVUPS 384(p), Y12; VMOVUPS 416(p), Y13

#define STOREY16(p) \
	VMOVUPS Y0, 0(p); VMOVUPS Y1, 32(p); VMOVUPS Y2, 64(p); VMOVUPS Y3, 96(p) \
	VMOVUPS Y4, 128(p); VMOVUPS Y5, 160(p); VMOVUPS Y6, 192(p); VMOVUPS Y7, 224(p) \
	VMOVUPS Y8, 256(p); VMOVUPS Y9, 288(p); VMOVUPS Y10, 320(p); VMOVUPS Y11, 352(p) \
	VMOVUPS Y12, 384(p); VMOVUPS Y13, 416(p); VMOVUPS Y14, 448(p); VMOVUPS Y15, 480(p)

// func sumRows32(vec, mat *float32, rows *int32, n, stride int)
//
// vec[0:32] += mat[rows[k]·stride : rows[k]·stride+32] for k = 0 … n−1, in
// that order, with the 32 sums held in eight SSE registers: one load and
// one add per element and row, where an axpy per row also loads and
// stores vec. Each element sees the same additions in the same order as
// the axpy loop, so the results are bit-identical. The caller checks the
// bounds.
TEXT ·sumRows32(SB), NOSPLIT, $0-40
	ARGS
	LOADX8(DI)
	TESTQ CX, CX
	JEQ   done

loop:
	ROWADDR
	MOVUPS  0(AX), X8
	MOVUPS  16(AX), X9
	MOVUPS  32(AX), X10
	MOVUPS  48(AX), X11
	ADDPS   X8, X0
	ADDPS   X9, X1
	ADDPS   X10, X2
	ADDPS   X11, X3
	MOVUPS  64(AX), X12
	MOVUPS  80(AX), X13
	MOVUPS  96(AX), X14
	MOVUPS  112(AX), X15
	ADDPS   X12, X4
	ADDPS   X13, X5
	ADDPS   X14, X6
	ADDPS   X15, X7
	ADDQ    $4, BX
	DECQ    CX
	JNE     loop

done:
	STOREX8(DI)
	RET

// func sumRows128AVX(vec, mat *float32, rows *int32, n, stride int)
//
// sumRows32 for 128 columns at once, in the sixteen AVX registers: each
// row is read once, front to back. The same additions in the same order.
TEXT ·sumRows128AVX(SB), NOSPLIT, $0-40
	ARGS
	LOADY14(DI)
	VMOVUPS 448(DI), Y14
	VMOVUPS 480(DI), Y15
	TESTQ CX, CX
	JEQ   avxdone

avxloop:
	ROWADDR
	VADDPS  0(AX), Y0, Y0
	VADDPS  32(AX), Y1, Y1
	VADDPS  64(AX), Y2, Y2
	VADDPS  96(AX), Y3, Y3
	VADDPS  128(AX), Y4, Y4
	VADDPS  160(AX), Y5, Y5
	VADDPS  192(AX), Y6, Y6
	VADDPS  224(AX), Y7, Y7
	VADDPS  256(AX), Y8, Y8
	VADDPS  288(AX), Y9, Y9
	VADDPS  320(AX), Y10, Y10
	VADDPS  352(AX), Y11, Y11
	VADDPS  384(AX), Y12, Y12
	VADDPS  416(AX), Y13, Y13
	VADDPS  448(AX), Y14, Y14
	VADDPS  480(AX), Y15, Y15
	ADDQ    $4, BX
	DECQ    CX
	JNE     avxloop

avxdone:
	STOREY16(DI)
	VZEROUPPER
	RET

// func addToRows128AVX(vec, mat *float32, rows *int32, n, stride int)
//
// mat[rows[k]·stride : +128] += vec[0:128] for k = 0 … n−1, in that order,
// vec[0:112] held in fourteen AVX registers: the first layer's weight
// gradient for one sample. Rows are loaded and stored each time, so a
// repeated row adds twice.
TEXT ·addToRows128AVX(SB), NOSPLIT, $0-40
	ARGS
	LOADY14(DI)
	TESTQ CX, CX
	JEQ   scdone

scloop:
	ROWADDR
	VADDPS  0(AX), Y0, Y14
	VMOVUPS Y14, 0(AX)
	VADDPS  32(AX), Y1, Y14
	VMOVUPS Y14, 32(AX)
	VADDPS  64(AX), Y2, Y14
	VMOVUPS Y14, 64(AX)
	VADDPS  96(AX), Y3, Y14
	VMOVUPS Y14, 96(AX)
	VADDPS  128(AX), Y4, Y14
	VMOVUPS Y14, 128(AX)
	VADDPS  160(AX), Y5, Y14
	VMOVUPS Y14, 160(AX)
	VADDPS  192(AX), Y6, Y14
	VMOVUPS Y14, 192(AX)
	VADDPS  224(AX), Y7, Y14
	VMOVUPS Y14, 224(AX)
	VADDPS  256(AX), Y8, Y14
	VMOVUPS Y14, 256(AX)
	VADDPS  288(AX), Y9, Y14
	VMOVUPS Y14, 288(AX)
	VADDPS  320(AX), Y10, Y14
	VMOVUPS Y14, 320(AX)
	VADDPS  352(AX), Y11, Y14
	VMOVUPS Y14, 352(AX)
	VADDPS  384(AX), Y12, Y14
	VMOVUPS Y14, 384(AX)
	VADDPS  416(AX), Y13, Y14
	VMOVUPS Y14, 416(AX)
	VMOVUPS 448(DI), Y15
	VADDPS  448(AX), Y15, Y15
	VMOVUPS Y15, 448(AX)
	VMOVUPS 480(DI), Y15
	VADDPS  480(AX), Y15, Y15
	VMOVUPS Y15, 480(AX)
	ADDQ    $4, BX
	DECQ    CX
	JNE     scloop

scdone:
	VZEROUPPER
	RET
