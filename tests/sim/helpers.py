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
