"""Kernels with tl.dot_scaled for the microscaling tests (compiled with --kernel; constexprs with -D)."""
import triton
import triton.language as tl


@triton.jit
def dot_scaled_2d(A, SA, B, SB, C0, C, sa0, sa1, sb0, sb1, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                  FA: tl.constexpr, FB: tl.constexpr, SCALE_A: tl.constexpr, SCALE_B: tl.constexpr,
                  ACC: tl.constexpr):
    """C = A * SA @ B * SB (+ C0): A is [BM, BK] ([BM, BK/2] bytes for e2m1), B [BK, BN] ([BK/2, BN]), with
    strides (sa0, sa1) and (sb0, sb1); SA is [BM, BK/32], SB [BN, BK/32]."""
    KA: tl.constexpr = BK // 2 if FA == "e2m1" else BK
    KB: tl.constexpr = BK // 2 if FB == "e2m1" else BK
    G: tl.constexpr = BK // 32
    a = tl.load(A + tl.arange(0, BM)[:, None] * sa0 + tl.arange(0, KA)[None, :] * sa1)
    b = tl.load(B + tl.arange(0, KB)[:, None] * sb0 + tl.arange(0, BN)[None, :] * sb1)
    a_scale = None
    b_scale = None
    if SCALE_A:
        a_scale = tl.load(SA + tl.arange(0, BM)[:, None] * G + tl.arange(0, G)[None, :])
    if SCALE_B:
        b_scale = tl.load(SB + tl.arange(0, BN)[:, None] * G + tl.arange(0, G)[None, :])
    offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
    acc = None
    if ACC:
        acc = tl.load(C0 + offs)
    c = tl.dot_scaled(a, a_scale, FA, b, b_scale, FB, acc)
    tl.store(C + offs, c)
