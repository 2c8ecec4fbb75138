# The plan of an fp8 dot loop as codegen allocates it (--emit=ir --remarks): legalize-fp8 (after the plan) widens
# the 128x128 and 128x256 fp8 tiles to f16 for the engine, 98,304 bytes of scratch at the dot; the engine keeps the
# 128x256 f32 accumulator while the loops run and hands its rows from the pipelined loop to the loop of the last
# iterations (K is not a constant), whose result has its 131,072-byte home from that loop on.  Three stages of
# tiles fit (147,456 bytes), and the loop of the last iterations holds no second copy of the accumulator, so
# pipeline-dots takes the kernel's 3 stages without a remark (it used to count the accumulator's home twice and
# ran the loop in 1 stage), and persistent-programs fetches the next program's first tiles.  The f32 tile, stored
# as the loop leaves it, goes under the next program's work (`store_under_next`: its 131,072 bytes from the slot
# loop's start, a peak of 376,896 bytes; 327,744 before 4-byte tiles were stored so).  Codegen agrees (the
# plan's peak is codegen's bytes: tests/opt/test_lmem_plan_agrees.py); tests/language/test_dot_lmem_fallback.py
# runs it.
# RUN: mtiacc %s -s '*fp8e5,*fp8e5,*fp32,i32' -D BM=128 -D BN=256 -D BK=128 -D STAGES=3 --emit=ir --remarks 2>&1 | filecheck %s
# CHECK-NOT: remark: pipeline-dots
# CHECK: lmem_peak = 376896, lmem_blocks = [{{.*}}"acc 49152 131072",
# CHECK: "scf.for"{{.*}}persistent = 64{{.*}}store_under_next = true
# CHECK: "scf.for"{{.*}}pipeline_stages = 3
# CHECK: "scf.for"{{.*}}pipeline_stages = 1
# CHECK-NOT: "scf.for"
import triton
import triton.language as tl


@triton.jit
def k(A, B, C, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, STAGES: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in tl.range(0, K, BK, num_stages=STAGES):
        a = tl.load(A + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(B + (k0 + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(C + rm[:, None] * BN + rn[None, :], acc)
