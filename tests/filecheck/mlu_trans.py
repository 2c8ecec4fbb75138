# A K-major first operand of tl.dot (tl.trans of a [K, M] block) is transposed by the memory layout unit:
# one mtia.mlu.trans per K panel (32 rows of the source), in the engine's command order before the mm that
# streams it, no vector copy.
# RUN: mtiacc %s --emit=asm -O0 --signature '*fp16,*fp16,*fp32' | filecheck %s
import triton
import triton.language as tl


@triton.jit
def dot_at(AT, B, C):
    rm = tl.arange(0, 32)
    rn = tl.arange(0, 64)
    rk = tl.arange(0, 32)
    at = tl.load(AT + rk[:, None] * 32 + rm[None, :])
    b = tl.load(B + rk[:, None] * 64 + rn[None, :])
    tl.store(C + rm[:, None] * 64 + rn[None, :], tl.dot(tl.trans(at), b))

# CHECK-LABEL: dot_at:
# CHECK-NOT: vlse
# CHECK: li [[SHAPE:[a-z0-9]+]], 2097184
# CHECK-NOT: mtia.dpe.wait
# CHECK: mtia.mlu.trans.e16 {{[a-z0-9]+}}, {{[a-z0-9]+}}, [[SHAPE]] # K panel 0: 32 x 32 -> 32 x 32
# CHECK-NOT: vlse
# CHECK-NOT: mtia.dpe.wait
# CHECK: mtia.dpe.mm
# CHECK: mtia.dpe.acc.st
# CHECK: mtia.dpe.wait
