"""A hand-written assembly GEMM, the baseline of ``make bench-gemm``: what an expert writes for the machine directly.

``C = A @ B`` for row-major ``A`` (M x K), ``B`` (K x N) of fp16 / bf16 / int8, ``C`` (M x N) of the input type
(fp32 accumulation, converted by the engine as it reads the accumulators back; int32 for int8).  Each program
computes one ``BM x BN`` tile of ``C`` (program ``pid``: tile row ``pid / (N / BN)``, column ``pid % (N / BN)``);
M, N and K are multiples of the block sizes.  The K loop is double-buffered: while the engine multiplies step
``k`` from one pair of buffers, the DMA engine fills the other pair with step ``k + 1`` (one 2-D DMA per operand
tile); the accumulators stay in the engine for the whole loop, and are read back (converted) and stored once at
the end.

``kernel_source(...)`` writes the assembly for one configuration; ``run_gemm(...)`` assembles it, runs it on
mtiasim, checks the result against numpy and returns the simulated cycles.
"""
from __future__ import annotations

from typing import Tuple

import numpy as np

from mtiacc.asm.assembler import assemble
from mtiacc.asm.elf import build_elf

ESIZE = {"fp16": 2, "bf16": 2, "int8": 1}
TYPE_CODE = {"fp16": 0, "bf16": 1, "int8": 2}
OUT_ESIZE = {"fp16": 2, "bf16": 2, "int8": 4}
OUT_TYPE = {"fp16": 1, "bf16": 2, "int8": 0}     # the engine's out_type: what acc.st writes


def kernel_source(dtype: str, BM: int, BN: int, BK: int) -> Tuple[str, int]:
    """The kernel's assembly and the local memory it uses."""
    es, oes = ESIZE[dtype], OUT_ESIZE[dtype]
    a_bytes, b_bytes = BM * BK * es, BK * BN * es
    A0 = 0x400
    A1 = A0 + a_bytes
    B0 = A1 + a_bytes
    B1 = B0 + b_bytes
    C = B1 + b_bytes                      # the BM x BN tile of C, read back from the engine in C's type
    end = C + BM * BN * oes
    nb, kb = BN // 32, BK // 32
    L = []
    e = L.append
    # arguments: A, B, C (DRAM addresses), M, N, K
    e("kernel:")
    e("    ld s0, 0(zero)")               # A
    e("    ld s1, 8(zero)")               # B
    e("    ld s2, 16(zero)")              # C
    e("    ld s4, 32(zero)")              # N
    e("    ld s5, 40(zero)")              # K
    e("    mtia.pid t0, 0")
    e(f"    li t1, {BN}")
    e("    divu t2, s4, t1")              # tiles per row of C
    e("    divu t3, t0, t2")              # pid_m
    e("    remu t4, t0, t2")              # pid_n
    # A tile origin: A + pid_m * BM * K * es; B tile origin: B + pid_n * BN * es; C: C + (pid_m*BM*N + pid_n*BN)*oes
    e(f"    li t5, {BM * es}")
    e("    mul t5, t5, s5")
    e("    mul t5, t5, t3")
    e("    add s0, s0, t5")
    e(f"    li t5, {BN * es}")
    e("    mul t5, t5, t4")
    e("    add s1, s1, t5")
    e(f"    li t5, {BM}")
    e("    mul t5, t5, t3")
    e("    mul t5, t5, s4")
    e(f"    li t6, {BN}")
    e("    mul t6, t6, t4")
    e("    add t5, t5, t6")
    e(f"    li t6, {oes}")
    e("    mul t5, t5, t6")
    e("    add s2, s2, t5")
    # DRAM row strides of A (K * es) and B (N * es); the K step in bytes of A (BK * es) and of B (BK * N * es)
    e(f"    li s6, {es}")
    e("    mul s6, s6, s5")               # A row stride
    e(f"    li s7, {es}")
    e("    mul s7, s7, s4")               # B row stride
    e(f"    li s8, {BK}")
    e("    mul s8, s8, s7")               # B step
    e(f"    li s9, {BK}")
    e("    divu s9, s5, s9")              # K steps
    # the engine: type and strides once
    e(f"    li t0, {TYPE_CODE[dtype]}")
    e("    mtia.dpe.cfg t0, 0")
    e(f"    li t0, {BN * es}")
    e("    mtia.dpe.cfg t0, 1")           # weight rows: a row of the B tile
    e(f"    li t0, {BK * es}")
    e("    mtia.dpe.cfg t0, 2")           # streamed rows: a row of the A tile
    e("    li t0, 0")
    e(f"    li t1, {nb * BM}")
    e("    mtia.dpe.zero t0, t1")
    e(f"    li a6, {BK * es}")             # A tile row bytes
    e(f"    li a7, {BN * es}")             # B tile row bytes

    def dma_a(buf):
        e(f"    li t0, {BM}")
        e("    mtia.dma.cfg t0, 0")
        e("    mtia.dma.cfg s6, 1")
        e("    mtia.dma.cfg a6, 2")
        e(f"    li t1, {buf}")
        e("    mtia.dma.in2d t1, s0, a6")

    def dma_b(buf):
        e(f"    li t0, {BK}")
        e("    mtia.dma.cfg t0, 0")
        e("    mtia.dma.cfg s7, 1")
        e("    mtia.dma.cfg a7, 2")
        e(f"    li t1, {buf}")
        e("    mtia.dma.in2d t1, s1, a7")

    def advance():
        e(f"    addi s0, s0, {BK * es}")
        e("    add s1, s1, s8")

    def engine(abuf, bbuf):
        for k in range(kb):
            for n in range(nb):
                e(f"    li t0, {bbuf + k * 32 * BN * es + n * 32 * es}")
                e("    li t1, 32")
                e("    mtia.dpe.ldw t0, t1")
                e(f"    li t2, {n * BM}")
                e(f"    li t3, {abuf + k * 32 * es}")
                e(f"    li t4, {BM}")
                e("    mtia.dpe.mm t2, t3, t4")

    # prologue: step 0 into buffers 0
    dma_a(A0)
    dma_b(B0)
    advance()
    # two steps per trip (buffers 0 then 1); s9 steps in all (even)
    e("    srli s10, s9, 1")
    e("loop:")
    for cur, nxt in (((A0, B0), (A1, B1)), ((A1, B1), (A0, B0))):
        e("    mtia.dma.wait")             # step k has arrived; the engine still works on step k - 1
        e("    addi s9, s9, -1")
        skip = f"last{int(cur[0] == A1)}"
        e(f"    beqz s9, {skip}")
        dma_a(nxt[0])                      # step k + 1 (the command processor holds it until step k - 1 has read)
        dma_b(nxt[1])
        advance()
        e(f"{skip}:")
        engine(*cur)
    e("    addi s10, s10, -1")
    e("    bnez s10, loop")
    # epilogue: the accumulators to local memory, converted by the engine on the way out (out_type), stored
    e(f"    li t0, {BN * oes}")
    e("    mtia.dpe.cfg t0, 3")
    e(f"    li t0, {OUT_TYPE[dtype]}")
    e("    mtia.dpe.cfg t0, 6")
    for n in range(nb):
        e(f"    li t0, {C + n * 32 * oes}")
        e(f"    li t1, {n * BM}")
        e(f"    li t2, {BM}")
        e("    mtia.dpe.acc.st t0, t1, t2")
    e("    mtia.dpe.wait")
    out = C
    e(f"    li t0, {BM}")
    e("    mtia.dma.cfg t0, 0")
    e(f"    li t0, {oes}")
    e("    mul t0, t0, s4")
    e("    mtia.dma.cfg t0, 1")            # C row stride in DRAM
    e(f"    li t0, {BN * oes}")
    e("    mtia.dma.cfg t0, 2")
    e(f"    li t1, {out}")
    e("    mtia.dma.out2d s2, t1, t0")
    e("    mtia.dma.wait")
    e("    ret")
    return "\n".join(L) + "\n", end


def build(dtype: str, BM: int, BN: int, BK: int) -> bytes:
    src, _end = kernel_source(dtype, BM, BN, BK)
    prog = assemble(src, "gemm.s")
    it = {"fp16": "fp16", "bf16": "bf16", "int8": "i8"}[dtype]
    ot = {"fp16": "fp16", "bf16": "bf16", "int8": "i32"}[dtype]
    params = [{"name": "A", "type": f"*{it}"}, {"name": "B", "type": f"*{it}"}, {"name": "C", "type": f"*{ot}"},
              {"name": "M", "type": "i64"}, {"name": "N", "type": "i64"}, {"name": "K", "type": "i64"}]
    meta = {"format_version": 1, "kernel": "kernel", "target": "mtia2i", "params": params, "constexprs": {},
            "grid": None, "args_base": 0, "source_file": "gemm.s", "source": {}}
    return build_elf(prog.code, entry_symbol="kernel", symbols=prog.symbols, meta=meta, lines=prog.lines)


def operands(rng, M, N, K, dtype):
    """(A, B as stored; A and B as float64; C)."""
    if dtype == "int8":
        a = rng.integers(-128, 128, (M, K), dtype=np.int8)
        b = rng.integers(-128, 128, (K, N), dtype=np.int8)
        return a, b, a.astype(np.float64), b.astype(np.float64), np.zeros((M, N), np.int32)
    a32 = rng.standard_normal((M, K)).astype(np.float32)
    b32 = rng.standard_normal((K, N)).astype(np.float32)
    if dtype == "fp16":
        a, b = a32.astype(np.float16), b32.astype(np.float16)
        return a, b, a.astype(np.float64), b.astype(np.float64), np.zeros((M, N), np.float16)
    a = (a32.view(np.uint32) >> 16).astype(np.uint16)
    b = (b32.view(np.uint32) >> 16).astype(np.uint16)
    return (a, b, (a.astype(np.uint32) << 16).view(np.float32).astype(np.float64),
            (b.astype(np.uint32) << 16).view(np.float32).astype(np.float64), np.zeros((M, N), np.uint16))


def as_float(c, dtype):
    if dtype == "bf16":
        return (c.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    return c.astype(np.float64)


def run_gemm(M, N, K, dtype, place, blocks, cfg=None, rng=None):
    """Simulated cycles of the hand-written kernel (after checking its result), or None if the shape does not fit
    it (M, N, K multiples of the blocks, an even number of K steps)."""
    from mtiasim.runner import run
    BM, BN, BK = blocks
    if M % BM or N % BN or K % BK or (K // BK) % 2 or BN % 32 or BK % 32:
        return None
    rng = rng if rng is not None else np.random.default_rng(0)
    a, b, fa, fb, c = operands(rng, M, N, K, dtype)
    inputs = {"A": a, "B": b, "C": c, "M": np.array(M, np.int64), "N": np.array(N, np.int64),
              "K": np.array(K, np.int64)}
    res = run(build(dtype, BM, BN, BK), inputs, grid=((M // BM) * (N // BN),),
              place={"A": place, "B": place, "C": place})
    got = res.outputs["C"].reshape(M, N)
    if dtype == "int8":
        if not np.array_equal(got, (a.astype(np.int64) @ b.astype(np.int64)).astype(np.int32)):
            raise AssertionError("hand-written GEMM: wrong int8 result")
    else:
        ref = fa @ fb
        err = np.max(np.abs(as_float(got, dtype) - ref)) / np.max(np.abs(ref))
        if err > (1e-2 if dtype == "bf16" else 2e-3):
            raise AssertionError(f"hand-written GEMM: relative error {err:.2e}")
    return int(res.stats.cycles)
