#include "textflag.h"

// func prefetchGroups(base *float32, node []int32)
TEXT ·prefetchGroups(SB), NOSPLIT, $0-32
	MOVQ base+0(FP), AX
	MOVQ node_base+8(FP), SI
	MOVQ node_len+16(FP), CX
	TESTQ CX, CX
	JEQ done
loop:
	MOVLQSX (SI), DX
	SHLQ $6, DX
	PREFETCHT0 (AX)(DX*1)
	ADDQ $4, SI
	DECQ CX
	JNE loop
done:
	RET

// func prefetchGroups64(base *float64, node []int32)
TEXT ·prefetchGroups64(SB), NOSPLIT, $0-32
	MOVQ base+0(FP), AX
	MOVQ node_base+8(FP), SI
	MOVQ node_len+16(FP), CX
	TESTQ CX, CX
	JEQ done64
loop64:
	MOVLQSX (SI), DX
	SHLQ $7, DX
	PREFETCHT0 (AX)(DX*1)
	PREFETCHT0 64(AX)(DX*1)
	ADDQ $4, SI
	DECQ CX
	JNE loop64
done64:
	RET
