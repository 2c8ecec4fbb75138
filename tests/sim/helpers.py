"""Build small kernel binaries from assembly text for the simulator tests."""
from __future__ import annotations

import textwrap
from typing import Dict, List, Optional

import numpy as np

from mtiacc.asm.assembler import assemble
from mtiacc.asm.elf import build_elf
from mtiasim.runner import run

PROLOGUE = "kernel:\n"


def build(asm: str, params: Optional[List[Dict[str, str]]] = None, grid=None, constexprs=None,
          source: Optional[Dict[int, str]] = None, source_file: str = "kernel.py", lines=None) -> bytes:
    """An ELF kernel binary from assembly text (the text should start with the label ``kernel:``)."""
    text = textwrap.dedent(asm)
    if not text.lstrip().startswith("kernel:"):
        text = PROLOGUE + text
    text = f'    .file 1 "{source_file}"\n' + text
    prog = assemble(text, "test.s")
    meta = {
        "format_version": 1, "kernel": "kernel", "target": "mtia2i",
        "params": params or [], "constexprs": constexprs or {}, "grid": grid,
        "lmem_bytes": 393216, "args_base": 0, "source_file": source_file,
        "source": {str(k): v for k, v in (source or {}).items()},
    }
    return build_elf(prog.code, entry_symbol="kernel", symbols=prog.symbols, meta=meta,
                     lines=lines if lines is not None else prog.lines)


def P(name: str, ty: str) -> Dict[str, str]:
    return {"name": name, "type": ty}


def run_asm(asm: str, inputs=None, params=None, grid=(1,), args=None, **kw):
    """Assemble, run and return the RunResult."""
    binary = build(asm, params=params, grid=kw.pop("meta_grid", None), **kw)
    return run(binary, inputs or {}, grid=grid, args=args)


def out_buffer(n: int, dtype=np.int64):
    return np.zeros(n, dtype)


# one program per element: DMA A[pid], B[pid] in to 1024 and 1032, {loads}, {body}, DMA a2 out to C[pid]
PER_ELEMENT = """
kernel:
    ld s0, 0(zero)
    ld s1, 8(zero)
    ld s2, 16(zero)
    mtia.pid t0, 0
    slli t1, t0, {in_shift}
    add s0, s0, t1
    add s1, s1, t1
    {c_offset}
    add s2, s2, t1
    li t2, 1024
    li t3, 1032
    li t4, {in_bytes}
    mtia.dma.in t2, s0, t4
    mtia.dma.in t3, s1, t4
    mtia.dma.wait
    {loads}
    {body}
    sd a2, 1040(zero)
    li t5, 1040
    {c_bytes}
    mtia.dma.out s2, t5, t4
    mtia.dma.wait
    ret
"""
_POINTER = {np.dtype(np.int64): "*i64", np.dtype(np.float64): "*fp64", np.dtype(np.float32): "*fp32"}


def run_per_element(body: str, loads, a, b):
    """Run `body` once per element pair, one program each: program i DMAs a[i] and b[i] (their item size
    each) to local addresses 1024 and 1032, runs the `loads` lines, then `body`, and DMAs the 8 bytes of a2
    out to C[i] (int64). Returns the RunResult."""
    size = a.dtype.itemsize
    wide = size == 8   # C's offset and transfer size are the inputs' own: no extra instructions
    asm = PER_ELEMENT.format(in_shift=size.bit_length() - 1, in_bytes=size, loads="\n    ".join(loads),
                             body=body, c_offset="" if wide else "slli t1, t0, 3",
                             c_bytes="" if wide else "li t4, 8")
    params = [P("A", _POINTER[a.dtype]), P("B", _POINTER[b.dtype]), P("C", "*i64")]
    return run_asm(asm, {"A": a, "B": b, "C": np.zeros(len(a), np.int64)}, params=params, grid=(len(a),))
