"""Helpers of the matrix-engine tests: a kernel around engine commands, operand data, the numpy reference."""
from __future__ import annotations

import numpy as np

from tests.sim.helpers import P, run_asm

IN_BASE = 4096          # each program's input blob lands here in local memory
OUT_BASE = 200_000      # and its output blob is DMAed out from here

KERNEL = """
kernel:
    ld s0, 0(zero)
    ld s1, 8(zero)
    mtia.pid t0, 0
    li t1, {in_bytes}
    mul t2, t0, t1
    add s0, s0, t2
    li t3, {in_base}
    mtia.dma.in t3, s0, t1
    mtia.dma.wait
{body}
    mtia.dpe.wait
    li t1, {out_bytes}
    mul t2, t0, t1
    add s1, s1, t2
    li t3, {out_base}
    mtia.dma.out s1, t3, t1
    mtia.dma.wait
    ret
"""


def run_engine(body: str, blobs, out_bytes: int, **kw):
    """Run ``body`` (assembly; ``t0`` is the program id) once per blob, program ``i`` with ``blobs[i]`` (bytes) at
    local ``IN_BASE``; returns (the programs' ``out_bytes`` bytes from local ``OUT_BASE`` as ``uint8 [n, out]``,
    the RunResult)."""
    n = len(blobs)
    size = max(len(b) for b in blobs)
    size += -size % 8
    data = np.zeros((n, size), np.uint8)
    for i, b in enumerate(blobs):
        data[i, :len(b)] = np.frombuffer(bytes(b), np.uint8)
    asm = KERNEL.format(in_bytes=size, in_base=IN_BASE, out_bytes=out_bytes, out_base=OUT_BASE, body=body)
    out = np.zeros(n * out_bytes, np.uint8)
    r = run_asm(asm, {"X": data.reshape(-1), "OUT": out}, params=[P("X", "*u8"), P("OUT", "*u8")], grid=(n,), **kw)
    return r.outputs["OUT"].reshape(n, out_bytes), r


def li(**regs) -> str:
    return "".join(f"    li {r}, {v}\n" for r, v in regs.items())


def cfg(**vals) -> str:
    """``mtia.dpe.cfg`` lines: type, w_stride, x_stride, acc_stride, n, w_trans."""
    names = ("type", "w_stride", "x_stride", "acc_stride", "n", "w_trans")
    return "".join(f"    li a7, {v}\n    mtia.dpe.cfg a7, {names.index(k)}\n" for k, v in vals.items())


def ldw(addr, k) -> str:
    return li(a0=addr, a1=k) + "    mtia.dpe.ldw a0, a1\n"


def mm(acc_row, addr, rows) -> str:
    return li(a2=acc_row, a0=addr, a1=rows) + "    mtia.dpe.mm a2, a0, a1\n"


def zero(row, rows) -> str:
    return li(a0=row, a1=rows) + "    mtia.dpe.zero a0, a1\n"


def accst(addr, row, rows) -> str:
    return li(a2=addr, a0=row, a1=rows) + "    mtia.dpe.acc.st a2, a0, a1\n"


def accld(row, addr, rows) -> str:
    return li(a2=row, a0=addr, a1=rows) + "    mtia.dpe.acc.ld a2, a0, a1\n"


# element types ------------------------------------------------------------------------------------------------
TYPE_CODE = {"fp16": 0, "bf16": 1, "int8": 2, "uint8": 3}


def random_elems(rng, ty: str, shape):
    """(raw storage array, exact float64 values) of type ``ty``."""
    if ty == "fp16":
        raw = (rng.standard_normal(shape) * 2).astype(np.float16)
        return raw, raw.astype(np.float64)
    if ty == "bf16":
        f = (rng.standard_normal(shape) * 3).astype(np.float32)
        raw = (f.view(np.uint32) >> 16).astype(np.uint16)
        return raw, (raw.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if ty == "int8":
        raw = rng.integers(-128, 128, shape).astype(np.int8)
    else:
        raw = rng.integers(0, 256, shape).astype(np.uint8)
    return raw, raw.astype(np.float64)


def strided(raw, stride: int) -> bytes:
    """Rows of ``raw`` (2-D) laid out ``stride`` bytes apart."""
    rows, rb = raw.shape[0], raw.shape[1] * raw.itemsize
    assert stride >= rb
    buf = np.zeros(rows * stride, np.uint8)
    for i in range(rows):
        buf[i * stride:i * stride + rb] = np.ascontiguousarray(raw[i]).view(np.uint8)
    return buf.tobytes()


def ref_mm(acc, x, w, ty):
    """``acc [R, 32]`` (fp32 or int32) after ``acc[:, :n] += x @ w`` with the engine's numerics."""
    acc = acc.copy()
    n = w.shape[1]
    y = x @ w
    if ty in ("fp16", "bf16"):
        acc[:, :n] = acc[:, :n] + y.astype(np.float32)
    else:
        acc[:, :n] = acc[:, :n] + y.astype(np.int64).astype(np.int32)
    return acc
