"""A hand-written assembly layer norm (forward), the expert baseline of ``make bench-roofline``.

``Y[r] = (X[r] - mean) * rstd * W + B`` with ``rstd = 1 / sqrt(var + eps)``, and ``Mean[r]``, ``Rstd[r]``, for
fp32 rows of ``N`` elements (a multiple of 128, at most 4096), as tutorial 05's forward kernel computes them
(two passes for the variance).  What an expert writes for the machine directly: one program per PE (the grid is
the PE count), each taking a contiguous block of rows; ``W`` and ``B`` are read into local memory once per PE,
and the next row's DMA is issued as soon as this row's has arrived (two input and two output row buffers, one
completion barrier a row).  Per row, three passes at 128 lanes: the sum, the sum of squared deviations, and
``(x - mean) * rstd * w + b`` (one multiply-add).  The block's means and reciprocal deviations collect in local
memory and leave in one DMA each at the end.

``kernel_source()`` writes the assembly; ``run_layer_norm(...)`` assembles it, runs it on mtiasim, checks the result
against numpy and returns the simulated cycles.
"""
from __future__ import annotations

import numpy as np

from handwritten import rows
from handwritten.rows import row_head, row_tail

ROW = 0x4000                          # a 4096-element fp32 row
W, B = 0x400, 0x400 + ROW
X0, X1, Y0, Y1 = 0x400 + 2 * ROW, 0x400 + 3 * ROW, 0x400 + 4 * ROW, 0x400 + 5 * ROW
MEAN = 0x400 + 6 * ROW                # up to 1024 rows a PE
RSTD = MEAN + 0x1000


def kernel_source() -> str:
    L = []
    e = L.append
    # arguments: X, Y, W, B, Mean, Rstd (DRAM addresses), M, N, eps (fp32)
    e("kernel:")
    e("    ld s0, 0(zero)")               # X
    e("    ld s1, 8(zero)")               # Y
    e("    ld a2, 16(zero)")              # W
    e("    ld a3, 24(zero)")              # B
    e("    ld a4, 32(zero)")              # Mean
    e("    ld a5, 40(zero)")              # Rstd
    e("    ld s2, 48(zero)")              # M
    e("    ld s3, 56(zero)")              # N
    e("    flw fs3, 64(zero)")            # eps
    e("    fcvt.s.l fs4, s3")             # N as a float
    e("    fmv.w.x fs2, zero")            # 0.0
    e("    mtia.pid t0, 0")
    e("    mtia.nprogs t1, 0")
    e("    add a6, s2, t1")
    e("    addi a6, a6, -1")
    e("    divu a6, a6, t1")              # rows a PE: ceil(M / P)
    e("    mul s4, t0, a6")               # this PE's first row
    e("    add a7, s4, a6")
    e("    bge s4, s2, done")
    e("    blt a7, s2, inside")
    e("    mv a7, s2")                    # this PE's end row
    e("inside:")
    e("    mv a1, s4")                    # the first row, for the Mean / Rstd block
    e("    slli s6, s3, 2")               # row bytes
    e(f"    li t0, {W}")
    e("    mtia.dma.in t0, a2, s6")
    e(f"    li t0, {B}")
    e("    mtia.dma.in t0, a3, s6")
    e("    mul t0, s4, s6")
    e("    add t0, s0, t0")
    e(f"    li s7, {X0}")                  # this row's input buffer
    e(f"    li s8, {X1}")                  # the next row's
    e(f"    li s9, {Y0}")                  # this row's output buffer
    e(f"    li s10, {Y1}")                 # the previous row's (being stored)
    e("    mtia.dma.in s7, t0, s6")
    e(f"    li a0, {MEAN}")
    e(f"    li t5, {RSTD}")
    e("    vsetvli t0, s3, e32, m8, ta, ma")   # 128 lanes (N is a multiple of 128)
    row_head(e, "1", "a7")
    # pass 1: the mean
    e("    vfmv.v.f v16, fs2")
    e("    mv t1, s7")
    e("    add t2, s7, s6")
    e("sum:")
    e("    vle32.v v8, (t1)")
    e("    addi t1, t1, 512")
    e("    vfadd.vv v16, v16, v8")
    e("    bltu t1, t2, sum")
    e("    vfmv.s.f v1, fs2")
    e("    vfredusum.vs v1, v16, v1")
    e("    vfmv.f.s fa0, v1")
    e("    fdiv.s fa0, fa0, fs4")         # mean
    # pass 2: the variance
    e("    vfmv.v.f v16, fs2")
    e("    mv t1, s7")
    e("var:")
    e("    vle32.v v8, (t1)")
    e("    addi t1, t1, 512")
    e("    vfsub.vf v8, v8, fa0")
    e("    vfmacc.vv v16, v8, v8")
    e("    bltu t1, t2, var")
    e("    vfmv.s.f v1, fs2")
    e("    vfredusum.vs v1, v16, v1")
    e("    vfmv.f.s fa1, v1")
    e("    fdiv.s fa1, fa1, fs4")         # var
    e("    fadd.s fa1, fa1, fs3")
    e("    fsqrt.s fa1, fa1")
    e(f"    li t0, {0x3F800000}")
    e("    fmv.w.x fa2, t0")
    e("    fdiv.s fa2, fa2, fa1")         # rstd
    e("    fsw fa0, 0(a0)")
    e("    fsw fa2, 0(t5)")
    e("    addi a0, a0, 4")
    e("    addi t5, t5, 4")
    # pass 3: y = (x - mean) * rstd * w + b
    e("    mv t1, s7")
    e(f"    li t3, {W}")
    e(f"    li t4, {B}")
    e("    mv t6, s9")
    e("norm:")
    e("    vle32.v v8, (t1)")
    e("    vle32.v v16, (t3)")
    e("    vle32.v v24, (t4)")
    e("    addi t1, t1, 512")
    e("    addi t3, t3, 512")
    e("    addi t4, t4, 512")
    e("    vfsub.vf v8, v8, fa0")
    e("    vfmul.vf v8, v8, fa2")
    e("    vfmacc.vv v24, v8, v16")
    e("    vse32.v v24, (t6)")
    e("    addi t6, t6, 512")
    e("    bltu t1, t2, norm")
    row_tail(e, "a7")
    # the block's Mean and Rstd
    e("    sub t1, a7, a1")
    e("    slli t1, t1, 2")
    e("    slli t2, a1, 2")
    e("    add t0, a4, t2")
    e(f"    li t3, {MEAN}")
    e("    mtia.dma.out t0, t3, t1")
    e("    add t0, a5, t2")
    e(f"    li t3, {RSTD}")
    e("    mtia.dma.out t0, t3, t1")
    e("done:")
    e("    mtia.dma.wait")
    e("    ret")
    return "\n".join(L) + "\n"


def build() -> bytes:
    params = [{"name": n, "type": "*fp32"} for n in ("X", "Y", "W", "B", "Mean", "Rstd")] + \
        [{"name": "M", "type": "i64"}, {"name": "N", "type": "i64"}, {"name": "eps", "type": "fp32"}]
    return rows.build(kernel_source(), "layer_norm", params)


def run_layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float = 1e-5, cfg=None):
    """``(cycles, stats)`` of the hand-written kernel (inputs in DRAM), after checking Y, Mean and Rstd."""
    from mtiacc.machine.simulator import load_config
    from mtiasim.runner import run
    m, n = x.shape
    cfg = cfg or load_config()
    if n % 128 or n > 4096 or -(-m // cfg.n_pes) > 1024:
        raise ValueError("the hand-written layer norm takes rows of a multiple of 128 elements (at most 4096), "
                         "and at most 1024 rows a PE")
    f32 = np.float32
    res = run(build(), {"X": x.astype(f32).ravel(), "Y": np.zeros(m * n, f32), "W": w.astype(f32),
                        "B": b.astype(f32), "Mean": np.zeros(m, f32), "Rstd": np.zeros(m, f32),
                        "M": np.array(m, np.int64), "N": np.array(n, np.int64), "eps": np.array(eps, f32)},
              grid=(cfg.n_pes,), max_cycles=1e9)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=1)
    rstd = 1 / np.sqrt(((x64 - mean[:, None]) ** 2).mean(axis=1) + eps)
    y = (x64 - mean[:, None]) * rstd[:, None] * w + b
    np.testing.assert_allclose(res.outputs["Y"].reshape(m, n), y, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(res.outputs["Mean"], mean, rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(res.outputs["Rstd"], rstd, rtol=1e-4)
    return int(res.stats.cycles), res.stats
