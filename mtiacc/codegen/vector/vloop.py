"""Strip-mined vector loops over blocks in local memory.

A loop walks ``n`` elements in chunks of ``vl`` (set by ``vsetvli`` at the target's vector length,
LMUL 8 for the widest element type of the loop).  Each chunk loads the block operands from local
memory into fixed register groups, broadcasts scalar operands, runs a compute callback, and stores
the result.  The register groups are ``v8``, ``v16`` and ``v24``; ``v0`` holds masks.

Element types narrower than the widest use a proportionally smaller LMUL, so every type in the
loop has the same VLMAX and one ``vl`` serves them all.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, List, Optional, Union

from mtiacc.codegen.machine.mir import MBuilder, VMem, VReg
from mtiacc.diagnostics import CompileError
from mtiacc.ir.types import FloatType, IntType, PointerType, Type

GROUPS = ("v8", "v16", "v24")


def sew_of(t: Type) -> int:
    """Element width in bits in local memory and vector registers (i1 is stored as one byte)."""
    e = t.element_type
    if isinstance(e, IntType):
        return max(e.width, 8)
    if isinstance(e, FloatType):
        return e.width  # bf16 is stored as 16 bits; its arithmetic goes through f32 (casts.py)
    if isinstance(e, PointerType):
        return 64
    raise CompileError(f"no vector form for type {t}")


def elem_bytes(t: Type) -> int:
    return sew_of(t) // 8


@dataclasses.dataclass
class Src:
    """A loop operand: a block in local memory at ``addr``, or a scalar register broadcast."""

    elem: Type
    addr: Union[int, VReg, None] = None
    scalar: Optional[VReg] = None

    @property
    def is_scalar(self) -> bool:
        return self.scalar is not None


class VLoop:
    """State while emitting one loop body: tracks the current vtype, emits `vsetvli` on change."""

    def __init__(self, b: MBuilder, wmax: int, vl: VReg, lmul: int = 8):
        self.b = b
        self.wmax = wmax
        self.vl = vl
        self.cur = None
        self.base_lmul = lmul  # LMUL of the widest type (8; smaller leaves registers for temporaries)

    def lmul(self, elem: Type) -> int:
        return self.base_lmul * sew_of(elem) // self.wmax

    def ensure(self, elem: Type) -> int:
        """Make ``elem`` the current element type; return its SEW."""
        sew = sew_of(elem)
        key = (sew, self.lmul(elem))
        if key != self.cur:
            self.b("vsetvli", "zero", self.vl, f"e{sew}, m{key[1]}, ta, ma")
            self.cur = key
        return sew

    def broadcast(self, group: str, src: Src) -> None:
        self.ensure(src.elem)
        if src.scalar.cls == "f":
            self.b("vfmv.v.f", group, src.scalar)
        else:
            self.b("vmv.v.x", group, src.scalar)


Compute = Callable[[VLoop, List[str]], str]


def emit_loop(b: MBuilder, n: Union[int, VReg], srcs: List[Src], dst: Optional[Src],
              compute: Compute, index: Optional[VReg] = None, comment: str = "", lmul: int = 8) -> None:
    """Emit ``dst[i] = compute(srcs[i])`` for ``i < n``; ``index`` (if given) tracks the chunk start.

    ``lmul`` is the register-group size of the widest type (8 by default; math expansions use 2
    so that registers other than the operand groups v8, v16, v24 stay free for temporaries)."""
    if len(srcs) > len(GROUPS):
        raise CompileError("internal: too many operands for one vector loop")
    types = [s.elem for s in srcs] + ([dst.elem] if dst is not None else [])
    wmax = max(sew_of(t) for t in types) if types else 32
    count = b.x("n")
    if isinstance(n, int):
        b("li", count, n, comment=comment)
    else:
        b("mv", count, n, comment=comment)
    ptrs: List[Optional[VReg]] = []
    for s in srcs + ([dst] if dst is not None else []):
        if s.is_scalar:
            ptrs.append(None)
            continue
        p = b.x("p")
        if isinstance(s.addr, int):
            b("li", p, s.addr)
        else:
            b("mv", p, s.addr)
        ptrs.append(p)
    skip = b.new_label("done")
    if not isinstance(n, int):
        b("beqz", count, skip)
    elif n == 0:
        return
    top = b.new_label("vloop")
    vl = b.x("vl")
    b.label(top)
    b("vsetvli", vl, count, f"e{wmax}, m{lmul}, ta, ma")
    loop = VLoop(b, wmax, vl, lmul)
    loop.cur = (wmax, lmul)
    groups = list(GROUPS[:len(srcs)])
    for g, s, p in zip(groups, srcs, ptrs):
        if s.is_scalar:
            loop.broadcast(g, s)
        else:
            sew = loop.ensure(s.elem)
            b(f"vle{sew}.v", g, VMem(p))
    result = compute(loop, groups)
    if dst is not None:
        sew = loop.ensure(dst.elem)
        b(f"vse{sew}.v", result, VMem(ptrs[-1]))
    b("sub", count, count, vl)
    steps = {}
    for s, p in zip(srcs + ([dst] if dst is not None else []), ptrs):
        if p is None:
            continue
        nb = elem_bytes(s.elem)
        if nb not in steps:
            step = b.x("step")
            shift = nb.bit_length() - 1
            if shift:
                b("slli", step, vl, shift)
            else:
                b("mv", step, vl)
            steps[nb] = step
        b("add", p, p, steps[nb])
    if index is not None:
        b("add", index, index, vl)
    b("bnez", count, top)
    b.label(skip)
