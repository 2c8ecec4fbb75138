"""A hand-written assembly row softmax, the expert baseline of ``make bench-roofline``.

``Y[r, :] = exp(X[r, :] - max) / sum(exp(X[r, :] - max))`` for fp32 rows of ``N`` elements (a multiple of 128, at
most 4096).  What an expert writes for the machine directly: one program per PE (the grid is the PE count),
each looping over rows ``pid, pid + P, ...``; the next row's DMA is issued as soon as this row's has arrived,
so it runs under this row's compute and the previous row's store (two input and two output row buffers, one
completion barrier a row).  Per row, three passes over local memory at the widest vector group (128 lanes):
the maximum into a vector accumulator, then ``exp(x - max)`` on the SIMD engine written out and summed into a
second accumulator, then a multiply by the reciprocal of the sum (the expert's choice: one scalar division a
row, not one a element).

``kernel_source()`` writes the assembly; ``run_softmax(...)`` assembles it, runs it on mtiasim, checks the result
against numpy and returns the simulated cycles.
"""
from __future__ import annotations

import numpy as np

from handwritten import rows
from handwritten.rows import row_head, row_tail

X0, X1, Y0, Y1 = 0x400, 0x400 + 0x4000, 0x400 + 0x8000, 0x400 + 0xC000   # four 16 KB row buffers
NEG_INF = 0xFF800000
ONE = 0x3F800000


def kernel_source() -> str:
    L = []
    e = L.append
    # arguments: X, Y (DRAM addresses), M, N
    e("kernel:")
    e("    ld s0, 0(zero)")               # X
    e("    ld s1, 8(zero)")               # Y
    e("    ld s2, 16(zero)")              # M
    e("    ld s3, 24(zero)")              # N
    e("    mtia.pid s4, 0")               # this PE's first row
    e("    mtia.nprogs s5, 0")            # the row step
    e("    slli s6, s3, 2")               # row bytes
    e(f"    li t0, {NEG_INF}")
    e("    fmv.w.x fs0, t0")              # -inf
    e(f"    li t0, {ONE}")
    e("    fmv.w.x fs1, t0")              # 1.0
    e("    fmv.w.x fs2, zero")            # 0.0
    e("    bge s4, s2, done")
    e("    mul t0, s4, s6")
    e("    add t0, s0, t0")
    e(f"    li s7, {X0}")                  # this row's input buffer
    e(f"    li s8, {X1}")                  # the next row's
    e(f"    li s9, {Y0}")                  # this row's output buffer
    e(f"    li s10, {Y1}")                 # the previous row's (being stored)
    e("    mtia.dma.in s7, t0, s6")
    e("    vsetvli t0, s3, e32, m8, ta, ma")   # 128 lanes (N is a multiple of 128)
    row_head(e, "s5", "s2")
    # pass 1: the maximum
    e("    vfmv.v.f v16, fs0")
    e("    mv t1, s7")
    e("    add t2, s7, s6")
    e("max:")
    e("    vle32.v v8, (t1)")
    e("    addi t1, t1, 512")
    e("    vfmax.vv v16, v16, v8")
    e("    bltu t1, t2, max")
    e("    vfmv.s.f v1, fs0")
    e("    vfredmax.vs v1, v16, v1")
    e("    vfmv.f.s fa0, v1")
    # pass 2: e = exp(x - max) into the output buffer, summed
    e("    vfmv.v.f v24, fs2")
    e("    mv t1, s7")
    e("    mv t3, s9")
    e("exp:")
    e("    vle32.v v8, (t1)")
    e("    addi t1, t1, 512")
    e("    vfsub.vf v8, v8, fa0")
    e("    mtia.se.exp.v v8, v8")
    e("    vse32.v v8, (t3)")
    e("    addi t3, t3, 512")
    e("    vfadd.vv v24, v24, v8")
    e("    bltu t1, t2, exp")
    e("    vfmv.s.f v1, fs2")
    e("    vfredusum.vs v1, v24, v1")
    e("    vfmv.f.s fa1, v1")
    e("    fdiv.s fa2, fs1, fa1")         # 1 / sum
    # pass 3: scale in place
    e("    mv t3, s9")
    e("    add t4, s9, s6")
    e("scale:")
    e("    vle32.v v8, (t3)")
    e("    vfmul.vf v8, v8, fa2")
    e("    vse32.v v8, (t3)")
    e("    addi t3, t3, 512")
    e("    bltu t3, t4, scale")
    row_tail(e, "s2")
    e("done:")
    e("    mtia.dma.wait")
    e("    ret")
    return "\n".join(L) + "\n"


def build() -> bytes:
    params = [{"name": "X", "type": "*fp32"}, {"name": "Y", "type": "*fp32"}, {"name": "M", "type": "i64"},
              {"name": "N", "type": "i64"}]
    return rows.build(kernel_source(), "softmax", params)


def run_softmax(x: np.ndarray, cfg=None):
    """``(cycles, stats)`` of the hand-written kernel on ``x`` (M x N fp32, in DRAM), after checking its result."""
    from mtiacc.machine.simulator import load_config
    from mtiasim.runner import run
    m, n = x.shape
    if n % 128 or n > 4096:
        raise ValueError("the hand-written softmax takes rows of a multiple of 128 elements, at most 4096")
    cfg = cfg or load_config()
    res = run(build(), {"X": x.astype(np.float32).ravel(), "Y": np.zeros(m * n, np.float32),
                        "M": np.array(m, np.int64), "N": np.array(n, np.int64)}, grid=(cfg.n_pes,), max_cycles=1e9)
    z = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(res.outputs["Y"].reshape(m, n), z / z.sum(axis=1, keepdims=True), rtol=1e-4,
                               atol=1e-7)
    return int(res.stats.cycles), res.stats
