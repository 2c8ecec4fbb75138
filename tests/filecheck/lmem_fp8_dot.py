# The plan of an fp8 dot loop as codegen allocates it (--emit=ir --remarks): legalize-fp8 (after the plan) widens
# the 128x128 and 128x256 fp8 tiles to f16 for the engine, 98,304 bytes of scratch at the dot; the loop's result
# (the 128x256 f32 accumulator the engine keeps while the loop runs) has its 131,072-byte home from before the
# loop.  Three stages of tiles would fit (147,456 bytes), but K is not a constant: the loop of the last
# iterations would hold the accumulator's home a second time while the pipelined loop's result is live, which
# leaves 110,528 bytes for 131,072, so pipeline-dots runs the loop in 1 stage and says so.  Codegen agrees:
# tests/language/test_dot_lmem_fallback.py runs it.
# RUN: mtiacc %s -s '*fp8e5,*fp8e5,*fp32,i32' -D BM=128 -D BN=256 -D BK=128 -D STAGES=3 --emit=ir --remarks 2>&1 | filecheck %s
# CHECK: lmem_fp8_dot.py:23:5: remark: pipeline-dots: loop pipelined in 1 stage(s) instead of 3: the loop after it for the last iterations holds its carried blocks a second time (131072 bytes), 110528 bytes are free while it runs (estimated cost: 98304 bytes of tiles no longer fetched ahead per 3 iterations)
# CHECK: lmem_peak = 278528, lmem_blocks = ["acc 0 131072", "a 131072 16384", "b 147456 32768"]
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
