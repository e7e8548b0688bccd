//go:build !purego

#include "textflag.h"

// func terminatorMasksSSE2(p unsafe.Pointer, blocks int, c byte, out *uint64)
TEXT ·terminatorMasksSSE2(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVBQZX c+16(FP), AX
	MOVQ out+24(FP), DI
	// X0 = c in each of its sixteen bytes.
	MOVQ AX, X0
	PUNPCKLBW X0, X0
	PSHUFLW $0, X0, X0
	PUNPCKLQDQ X0, X0
	TESTQ CX, CX
	JLE done

loop:
	MOVOU 0(SI), X1
	MOVOU 16(SI), X2
	MOVOU 32(SI), X3
	MOVOU 48(SI), X4
	PCMPEQB X0, X1
	PCMPEQB X0, X2
	PCMPEQB X0, X3
	PCMPEQB X0, X4
	PMOVMSKB X1, AX
	PMOVMSKB X2, BX
	PMOVMSKB X3, DX
	PMOVMSKB X4, R8
	SHLQ $16, BX
	SHLQ $32, DX
	SHLQ $48, R8
	ORQ BX, AX
	ORQ DX, AX
	ORQ R8, AX
	MOVQ AX, 0(DI)
	ADDQ $64, SI
	ADDQ $8, DI
	DECQ CX
	JNZ loop

done:
	RET

// func terminatorMasksAVX2(p unsafe.Pointer, blocks int, c byte, out *uint64)
TEXT ·terminatorMasksAVX2(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), SI
	MOVQ blocks+8(FP), CX
	MOVBQZX c+16(FP), AX
	MOVQ out+24(FP), DI
	TESTQ CX, CX
	JLE avxdone
	// Y0 = c in each of its 32 bytes.
	MOVQ AX, X0
	VPBROADCASTB X0, Y0

avxloop:
	VPCMPEQB 0(SI), Y0, Y1
	VPCMPEQB 32(SI), Y0, Y2
	VPMOVMSKB Y1, AX
	VPMOVMSKB Y2, BX
	SHLQ $32, BX
	ORQ BX, AX
	MOVQ AX, 0(DI)
	ADDQ $64, SI
	ADDQ $8, DI
	DECQ CX
	JNZ avxloop
	VZEROUPPER

avxdone:
	RET

// func cpuid(eax, ecx uint32) (a, b, c, d uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eax+0(FP), AX
	MOVL ecx+4(FP), CX
	CPUID
	MOVL AX, a+8(FP)
	MOVL BX, b+12(FP)
	MOVL CX, c+16(FP)
	MOVL DX, d+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET
