"""Loop nests over N-d blocks in local memory: counted loops around a row body, strided copies.

Shared by the shape ops, reductions, scans and sorts (``tensor/``) and the tile loads and stores
(``memory/``): a block of shape ``(d0, .., dn)`` is walked as ``nest`` levels over the outer axes with
one pointer per operand advanced by its stride at each level, the innermost axis left to the body.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, List, Optional, Sequence, Union

from mtiacc.codegen.machine.mir import MBuilder, Mem, VMem, VReg
from mtiacc.codegen.vector.vloop import elem_bytes, sew_of

Step = Union[int, VReg]


def dense_strides(shape: Sequence[int]) -> List[int]:
    out, s = [], 1
    for d in reversed(shape):
        out.append(s)
        s *= d
    return out[::-1]


def add_step(b: MBuilder, reg: VReg, step: Step) -> None:
    if isinstance(step, int):
        if step == 0:
            return
        if -2048 <= step < 2048:
            b("addi", reg, reg, step)
        else:
            b("add", reg, reg, b.li(step))
    else:
        b("add", reg, reg, step)


@contextmanager
def masked_element(b: MBuilder, mask_ptr: Optional[VReg], label: str = "masked"):
    """What the ``with`` body emits runs only when the mask byte at ``mask_ptr`` is non-zero (always
    when there is no mask); the body gets the skip label, to leave early."""
    skip = b.new_label(label)
    if mask_ptr is not None:
        m = b.x("m")
        b("lbu", m, Mem(mask_ptr, 0))
        b("beqz", m, skip)
    yield skip
    b.label(skip)


def nest(b: MBuilder, counts: Sequence[Step], ptrs: Sequence[VReg], steps: Sequence[Sequence[Step]],
         body: Callable[[List[VReg]], None], index_regs: Optional[List[VReg]] = None) -> None:
    """Loops over ``counts`` (outermost first); pointer ``k`` advances by ``steps[k][level]`` per
    iteration of ``level``; ``body`` gets the current pointers (and ``index_regs`` the indices)."""
    def level(lv: int, cur: List[VReg]) -> None:
        if lv == len(counts):
            body(cur)
            return
        n = counts[lv]
        if isinstance(n, int) and n <= 0:
            return
        mine = []
        for p in cur:
            q = b.x("p")
            b("mv", q, p)
            mine.append(q)
        i = b.li(0, "i")
        if index_regs is not None:
            index_regs.append(i)
        limit = b.li(n) if isinstance(n, int) else n
        top, done = b.new_label("nest"), b.new_label("nestdone")
        if not isinstance(n, int):
            b("bge", i, limit, done)
        b.label(top)
        level(lv + 1, mine)
        for q, st in zip(mine, steps):
            add_step(b, q, st[lv])
        b("addi", i, i, 1)
        b("blt", i, limit, top)
        b.label(done)
    level(0, list(ptrs))


# --------------------------------------------------------------------------- strided copies

def strided_copy(b: MBuilder, dst: int, shape: Sequence[int], src: int, src_strides: Sequence[int], elem) -> None:
    """``dst[i] = src[sum(i_j * src_strides[j])]`` for every index of the dense block ``shape``."""
    esize, sew = elem_bytes(elem), sew_of(elem)
    dstr = dense_strides(shape)
    inner, inner_stride = shape[-1], src_strides[-1] * esize
    stride_reg = b.li(inner_stride, "stride")

    def row(cur: List[VReg]) -> None:
        s, d = b.x("s"), b.x("d")
        b("mv", s, cur[0])
        b("mv", d, cur[1])
        count = b.li(inner, "n")
        top = b.new_label("copy")
        vl = b.x("vl")
        b.label(top)
        b("vsetvli", vl, count, f"e{sew}, m8, ta, ma")
        if inner_stride == esize:
            b(f"vle{sew}.v", "v8", VMem(s))
        else:
            b(f"vlse{sew}.v", "v8", VMem(s), stride_reg)
        b(f"vse{sew}.v", "v8", VMem(d))
        b("sub", count, count, vl)
        t = b.x()
        b("mul", t, vl, stride_reg)
        b("add", s, s, t)
        t2 = b.x()
        b("slli", t2, vl, esize.bit_length() - 1)
        b("add", d, d, t2)
        b("bnez", count, top)

    nest(b, shape[:-1], [b.li(src, "src"), b.li(dst, "dst")],
         [[st * esize for st in src_strides[:-1]], [st * esize for st in dstr[:-1]]], row)
