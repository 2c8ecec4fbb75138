# A tt.trans feeding tl.dot's b is not materialized: the engine reads its source with w_trans = 1 (cfg 5) and
# the row stride of the stored [N, K] source (K * 2 bytes).
# RUN: mtiacc %s --emit=asm -O2 --signature '*fp16,*fp16,*fp32' | filecheck %s
import triton
import triton.language as tl


@triton.jit
def dot_bt(A, BT, C):
    rm = tl.arange(0, 32)
    rn = tl.arange(0, 64)
    rk = tl.arange(0, 128)
    a = tl.load(A + rm[:, None] * 128 + rk[None, :])
    bt = tl.load(BT + rn[:, None] * 128 + rk[None, :])
    tl.store(C + rm[:, None] * 64 + rn[None, :], tl.dot(a, bt.T))

# CHECK-LABEL: dot_bt:
# CHECK-NOT: vlse
# CHECK: mtia.dpe.cfg {{.*}}# type = 0{{$}}
# CHECK: mtia.dpe.cfg {{.*}}# w_stride = 256{{$}}
# CHECK: mtia.dpe.cfg {{.*}}# w_trans = 1{{$}}
# CHECK: mtia.dpe.ldw
# CHECK-NOT: vlse
# CHECK: mtia.dpe.acc.st
