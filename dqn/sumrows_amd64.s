#include "textflag.h"

// func sumRows32(h, w *float32, rows *int32, n, stride int)
//
// h[0:32] += w[rows[k]·stride : rows[k]·stride+32] for k = 0 … n−1, in
// that order, with the 32 sums held in eight SSE registers: one load and
// one add per element and row, where an axpy per row also loads and
// stores h. Each element sees the same additions in the same order as
// the axpy loop, so the results are bit-identical. The caller checks the
// bounds.
TEXT ·sumRows32(SB), NOSPLIT, $0-40
	MOVQ h+0(FP), DI
	MOVQ w+8(FP), SI
	MOVQ rows+16(FP), BX
	MOVQ n+24(FP), CX
	MOVQ stride+32(FP), DX
	SHLQ $2, DX
	MOVUPS 0(DI), X0
	MOVUPS 16(DI), X1
	MOVUPS 32(DI), X2
	MOVUPS 48(DI), X3
	MOVUPS 64(DI), X4
	MOVUPS 80(DI), X5
	MOVUPS 96(DI), X6
	MOVUPS 112(DI), X7
	TESTQ CX, CX
	JEQ   done

loop:
	MOVLQSX (BX), AX
	IMULQ   DX, AX
	ADDQ    SI, AX
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
	MOVUPS X0, 0(DI)
	MOVUPS X1, 16(DI)
	MOVUPS X2, 32(DI)
	MOVUPS X3, 48(DI)
	MOVUPS X4, 64(DI)
	MOVUPS X5, 80(DI)
	MOVUPS X6, 96(DI)
	MOVUPS X7, 112(DI)
	RET

// func sumRows128AVX(h, w *float32, rows *int32, n, stride int)
//
// sumRows32 for 128 columns at once, in the sixteen AVX registers: each
// row is read once, front to back. The same additions in the same order.
TEXT ·sumRows128AVX(SB), NOSPLIT, $0-40
	MOVQ h+0(FP), DI
	MOVQ w+8(FP), SI
	MOVQ rows+16(FP), BX
	MOVQ n+24(FP), CX
	MOVQ stride+32(FP), DX
	SHLQ $2, DX
	VMOVUPS 0(DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VMOVUPS 128(DI), Y4
	VMOVUPS 160(DI), Y5
	VMOVUPS 192(DI), Y6
	VMOVUPS 224(DI), Y7
	VMOVUPS 256(DI), Y8
	VMOVUPS 288(DI), Y9
	VMOVUPS 320(DI), Y10
	VMOVUPS 352(DI), Y11
	VMOVUPS 384(DI), Y12
	VMOVUPS 416(DI), Y13
	VMOVUPS 448(DI), Y14
	VMOVUPS 480(DI), Y15
	TESTQ CX, CX
	JEQ   avxdone

avxloop:
	MOVLQSX (BX), AX
	IMULQ   DX, AX
	ADDQ    SI, AX
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
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	VMOVUPS Y4, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	VMOVUPS Y7, 224(DI)
	VMOVUPS Y8, 256(DI)
	VMOVUPS Y9, 288(DI)
	VMOVUPS Y10, 320(DI)
	VMOVUPS Y11, 352(DI)
	VMOVUPS Y12, 384(DI)
	VMOVUPS Y13, 416(DI)
	VMOVUPS Y14, 448(DI)
	VMOVUPS Y15, 480(DI)
	VZEROUPPER
	RET

// func addToRows128AVX(w, x *float32, rows *int32, n, stride int)
//
// w[rows[k]·stride : +128] += x[0:128] for k = 0 … n−1, in that order, x held
// in the sixteen AVX registers: the first layer's weight gradient for one
// sample. Rows are loaded and stored each time, so a repeated row adds twice.
TEXT ·addToRows128AVX(SB), NOSPLIT, $0-40
	MOVQ w+0(FP), SI
	MOVQ x+8(FP), DI
	MOVQ rows+16(FP), BX
	MOVQ n+24(FP), CX
	MOVQ stride+32(FP), DX
	SHLQ $2, DX
	VMOVUPS 0(DI), Y0
	VMOVUPS 32(DI), Y1
	VMOVUPS 64(DI), Y2
	VMOVUPS 96(DI), Y3
	VMOVUPS 128(DI), Y4
	VMOVUPS 160(DI), Y5
	VMOVUPS 192(DI), Y6
	VMOVUPS 224(DI), Y7
	VMOVUPS 256(DI), Y8
	VMOVUPS 288(DI), Y9
	VMOVUPS 320(DI), Y10
	VMOVUPS 352(DI), Y11
	VMOVUPS 384(DI), Y12
	VMOVUPS 416(DI), Y13
	TESTQ CX, CX
	JEQ   scdone

scloop:
	MOVLQSX (BX), AX
	IMULQ   DX, AX
	ADDQ    SI, AX
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
