# The local-memory ladder's steps as remarks (--remarks): 4 stages of this K loop's tiles (128x256 and 256x256
# f16: 196,608 bytes a stage) do not fit next to the rest, so pipeline-dots runs it in 1 stage and says so, with
# the op and the estimated cost; without --remarks a compile says nothing.  --Werror=spill makes the step an error.
# RUN: mtiacc %s -s '*fp16,*fp16,*fp16,i32' -D BM=128 -D BN=256 -D BK=256 --emit=ir -O2 --remarks 2>&1 | filecheck %s
# CHECK: lmem_remarks.py:23:5: remark: pipeline-dots: loop pipelined in 1 stage(s) instead of 4: 4 copies of its tiles take 786432 bytes of local memory, 196608 bytes are available to them while it runs (estimated cost: 589824 bytes of tiles no longer fetched ahead per 4 iterations)
# CHECK-NEXT: for k in range(0, K, BK):
# CHECK-NEXT: ^
# RUN: mtiacc %s -s '*fp16,*fp16,*fp16,i32' -D BM=128 -D BN=256 -D BK=256 --emit=ir -O2 2>&1 | filecheck %s --check-prefix=QUIET
# QUIET-NOT: : remark:
# RUN: not mtiacc %s -s '*fp16,*fp16,*fp16,i32' -D BM=128 -D BN=256 -D BK=256 --emit=ir -O2 --Werror=spill 2>&1 | filecheck %s --check-prefix=ERR
# ERR: lmem_remarks.py:23:5: error: pipeline-dots: loop pipelined in 1 stage(s) instead of 4: {{.*}} [--Werror=spill]
# ERR-NOT: Traceback
import triton
import triton.language as tl


@triton.jit
def mm(A, B, C, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(A + rm[:, None] * K + (k + rk)[None, :])
        b = tl.load(B + (k + rk)[:, None] * BN + rn[None, :])
        acc += tl.dot(a, b)
    tl.store(C + rm[:, None] * BN + rn[None, :], acc.to(tl.float16))
