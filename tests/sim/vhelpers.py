"""A vector test harness: each program loads chunks of A, B, C and a mask source M, runs one vector instruction
with its own vl (N[pid]), stores C back.  Elements past vl and masked-off elements must keep C's value."""
from __future__ import annotations

import numpy as np

from tests.sim.helpers import P, run_asm

UT = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}
ST = {8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}
FT = {16: np.float16, 32: np.float32, 64: np.float64}
VLEN = 512

KERNEL = """
kernel:
    mtia.pid t0, 0
    ld s5, 48(zero)
    mul t1, t0, s5
    ld s0, 0(zero)
    add s0, s0, t1
    ld s1, 8(zero)
    add s1, s1, t1
    ld s2, 16(zero)
    add s2, s2, t1
    ld s6, 24(zero)
    add s6, s6, t1
    ld s3, 32(zero)
    slli t2, t0, 3
    add s3, s3, t2
    li a1, 4096
    li a2, 12288
    li a3, 20480
    li a4, 28672
    li a6, 36864
    li t3, 8
    mtia.dma.in a1, s0, s5
    mtia.dma.in a2, s1, s5
    mtia.dma.in a3, s2, s5
    mtia.dma.in a4, s6, s5
    mtia.dma.in a6, s3, t3
    mtia.dma.wait
    ld s3, 0(a6)
    ld a5, 40(zero)
    fmv.w.x fa5, a5
    vsetvli t0, zero, e{sew}, m{lmul}, ta, ma
    vle{sew}.v v24, (a4)
    vmsne.vi v0, v24, 0
    vle{sew}.v v8, (a1)
    vle{sew}.v v16, (a2)
    vle{sew}.v v24, (a3)
    vsetvli t0, s3, e{sew}, m{lmul}, ta, ma
    {body}
    vsetvli t0, zero, e{sew}, m{lmul}, ta, ma
    vse{sew}.v v24, (a3)
    mtia.dma.out s2, a3, s5
    mtia.dma.wait
    ret
"""


def vlmax(sew, lmul):
    return VLEN // sew * lmul


def vrun(sew, lmul, body, A, B, C, M=None, N=None, scalar=0, dtype=None):
    """Run ``body`` (uses v8=A, v16=B, v24=C, v0=mask M != 0, a5/fa5 = scalar bits) per program chunk.

    A, B, C: [programs, VLMAX] arrays of the element type; M: same shape (nonzero = active); N: vl per program.
    Returns C after the run, [programs, VLMAX]."""
    progs, vm = C.shape
    assert vm == vlmax(sew, lmul)
    if M is None:
        M = np.ones((progs, vm), UT[sew])
    if N is None:
        N = np.full(progs, vm, np.int64)
    cdt = C.dtype
    inputs = {"A": A.reshape(-1), "B": B.reshape(-1), "C": C.reshape(-1).copy(), "M": M.astype(UT[sew]).reshape(-1),
              "N": np.asarray(N, np.int64), "S": np.array(scalar, np.int64),
              "CH": np.array(vm * sew // 8, np.int64)}
    params = [P("A", _ty(A.dtype)), P("B", _ty(B.dtype)), P("C", _ty(cdt)), P("M", _ty(np.dtype(UT[sew]))),
              P("N", "*i64"), P("S", "i64"), P("CH", "i64")]
    r = run_asm(KERNEL.format(sew=sew, lmul=lmul, body=body), inputs, params=params, grid=(progs,))
    return r.outputs["C"].reshape(progs, vm), r


def _ty(dt):
    dt = np.dtype(dt)
    return "*" + {"f": "fp", "i": "i", "u": "u"}[dt.kind] + str(dt.itemsize * 8)


def expected(C, res, M, N, masked):
    """C with ``res`` written at active body elements."""
    progs, vm = C.shape
    act = np.arange(vm)[None, :] < np.asarray(N)[:, None]
    if masked:
        act &= M != 0
    out = C.copy()
    out[act] = np.broadcast_to(res, C.shape)[act]
    return out


def rand_ints(rng, sew, shape, signed=True):
    info = np.iinfo(ST[sew] if signed else UT[sew])
    v = rng.integers(info.min, info.max, size=shape, dtype=np.int64 if sew < 64 or signed else np.uint64,
                     endpoint=True)
    v = v.astype(ST[sew] if signed else UT[sew])
    # sprinkle edge values
    flat = v.reshape(-1)
    edges = np.array([0, 1, -1, info.min, info.max, 2, -2] if signed else [0, 1, info.max, 2], dtype=object)
    for i, e in enumerate(edges):
        if i * 7 < flat.size:
            flat[i * 7] = e
    return v
