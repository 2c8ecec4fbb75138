# The local-memory ladder's steps as remarks (--remarks): stages of this K loop's tiles (128x256 and 256x256 f16:
# 196,608 bytes a stage) take more than pipeline-dots' share (half of local memory), so band-accumulators runs the
# loop once per band of 64 columns (two stages of a band's tiles fit: 40,979 cycles for K = 1024 against 49,390 in
# one stage unbanded) and pipeline-dots then takes 2 stages of the 4 it wants; each says so, with the op and the
# estimated cost; without --remarks a compile says nothing.  --Werror=spill makes the first step an error.
# RUN: mtiacc %s -s '*fp16,*fp16,*fp16,i32' -D BM=128 -D BN=256 -D BK=256 --emit=ir -O2 --remarks 2>&1 | filecheck %s
# CHECK: lmem_remarks.py:31:9: remark: band-accumulators: two stages of the loop's tiles (393216 bytes) are over what pipeline-dots may take (196608 bytes: half of local memory, no more than is free beside the loop's blocks, its result's home of 131072 bytes among them): bands of 128x64 take two stages: the loop runs once per band of 128 rows and 64 columns (estimated cost: the loop runs 4 times, 196608 bytes of tiles read again per trip of its K loop)
# CHECK-NEXT: acc += tl.dot(a, b)
# CHECK-NEXT: ^~~~
# CHECK: lmem_remarks.py:28:5: remark: pipeline-dots: loop pipelined in 2 stage(s) instead of 4: 4 copies of its tiles take 393216 bytes of local memory, 196608 bytes are available to them while it runs (estimated cost: 196608 bytes of tiles no longer fetched ahead per 4 iterations)
# CHECK-NEXT: for k in range(0, K, BK):
# CHECK-NEXT: ^
# RUN: mtiacc %s -s '*fp16,*fp16,*fp16,i32' -D BM=128 -D BN=256 -D BK=256 --emit=ir -O2 2>&1 | filecheck %s --check-prefix=QUIET
# QUIET-NOT: : remark:
# RUN: not mtiacc %s -s '*fp16,*fp16,*fp16,i32' -D BM=128 -D BN=256 -D BK=256 --emit=ir -O2 --Werror=spill 2>&1 | filecheck %s --check-prefix=ERR
# ERR: lmem_remarks.py:31:9: error: band-accumulators: {{.*}} [--Werror=spill]
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
