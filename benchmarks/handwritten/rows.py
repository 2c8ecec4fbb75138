"""What the hand-written row kernels (softmax.py, layer_norm.py) share: the double-buffered row loop's head and
tail, and packing the assembly into a binary.

Registers of the row loop: ``s0`` the input (DRAM), ``s1`` the output, ``s4`` this row, ``s6`` the row bytes,
``s7`` / ``s8`` this row's and the next row's input buffer, ``s9`` / ``s10`` this row's and the previous row's
output buffer, ``s11`` the next row.
"""
from __future__ import annotations

from typing import Callable, List

from mtiacc.asm.assembler import assemble
from mtiacc.asm.elf import build_elf


def row_head(e: Callable[[str], None], step: str, end: str) -> None:
    """``row:``: wait for this row (and the previous row's store), then start the next row's DMA (``s4 + step``,
    while below ``end``) into the other input buffer."""
    e("row:")
    e("    mtia.dma.wait")                # this row has arrived; the row before it is stored
    e(f"    add{'i' if step.lstrip('-').isdigit() else ''} s11, s4, {step}")   # the next row
    e(f"    bge s11, {end}, nofetch")
    e("    mul t0, s11, s6")
    e("    add t0, s0, t0")
    e("    mtia.dma.in s8, t0, s6")
    e("nofetch:")


def row_tail(e: Callable[[str], None], end: str) -> None:
    """Store this row from its output buffer, swap the buffers, and go on with the next row below ``end``."""
    e("    mul t0, s4, s6")
    e("    add t0, s1, t0")
    e("    mtia.dma.out t0, s9, s6")
    e("    mv t0, s7")
    e("    mv s7, s8")
    e("    mv s8, t0")
    e("    mv t0, s9")
    e("    mv s9, s10")
    e("    mv s10, t0")
    e("    mv s4, s11")
    e(f"    blt s4, {end}, row")


def build(source: str, name: str, params: List[dict]) -> bytes:
    """The ELF binary of ``source`` (entry ``kernel``; arguments from local address 0, 8 bytes each)."""
    prog = assemble(source, f"{name}.s")
    meta = {"format_version": 1, "kernel": "kernel", "target": "mtia2i", "params": params, "constexprs": {},
            "grid": None, "args_base": 0, "source_file": f"{name}.s", "source": {}}
    return build_elf(prog.code, entry_symbol="kernel", symbols=prog.symbols, meta=meta, lines=prog.lines)
