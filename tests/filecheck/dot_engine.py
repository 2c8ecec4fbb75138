# tl.dot on the matrix engine: configuration once, then per 32-column group the weight tiles (ldw) and a's
# streamed rows (mm, all 32 rows at once), the accumulators stored (acc.st) and, before the vector unit
# reads the result, mtia.dpe.wait.
# RUN: mtiacc %s --emit=asm -O2 --signature '*bf16,*bf16,*fp32' | filecheck %s
import triton
import triton.language as tl


@triton.jit
def small_dot(A, B, C):
    rm = tl.arange(0, 32)
    rn = tl.arange(0, 64)
    rk = tl.arange(0, 64)
    a = tl.load(A + rm[:, None] * 64 + rk[None, :])
    b = tl.load(B + rk[:, None] * 64 + rn[None, :])
    c = tl.dot(a, b) * 2.0
    tl.store(C + rm[:, None] * 64 + rn[None, :], c)

# CHECK-LABEL: small_dot:
# CHECK: mtia.dpe.cfg {{.*}}, 0 {{.*}}# type = 1{{$}}
# CHECK: mtia.dpe.cfg {{.*}}, 1 {{.*}}# w_stride = 128{{$}}
# CHECK: mtia.dpe.cfg {{.*}}, 2 {{.*}}# x_stride = 128{{$}}
# CHECK: mtia.dpe.cfg {{.*}}, 3 {{.*}}# acc_stride = 256{{$}}
# CHECK: mtia.dpe.zero
# CHECK: mtia.dpe.cfg {{.*}}, 4 {{.*}}# n = 32{{$}}
# CHECK: mtia.dpe.ldw
# CHECK: mtia.dpe.mm
# CHECK: mtia.dpe.ldw
# CHECK: mtia.dpe.mm
# CHECK: mtia.dpe.acc.st
# CHECK: mtia.dpe.zero
# CHECK-NOT: mtia.dpe.cfg {{.*}}, 4
# CHECK: mtia.dpe.acc.st
# CHECK: mtia.dpe.wait
# CHECK: vfmul
