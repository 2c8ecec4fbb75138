"""Codegen for ``tt.join``, ``tt.split``, ``tt.cat`` and ``tt.flip``: copies inside local memory.

Each op is one or two strided copies (:func:`copy`): loops over the outer dimensions and, along
the innermost, a strip-mined vector load and store -- ``vle``/``vse`` where the stride is one
element, ``vlse``/``vsse`` otherwise (negative strides included).  With ``n`` the elements of one
operand:

* join: per operand ``k``, ``n`` elements at stride 1 to ``dst + k`` at stride 2;
* split: ``n`` elements from ``src + index`` at stride 2 to ``dst`` at stride 1;
* cat along ``d``: the operands are ``outer`` rows of ``chunk`` elements (``outer`` the product of
  the dimensions before ``d``); operand ``k``'s row ``o`` goes to ``dst + (2 o + k) chunk``;
* flip along ``d``: the source viewed as ``(outer, n_d, inner)``, read from its last row along
  ``d`` with stride ``-inner``.

An operand that is a splat or a constant (no buffer) is filled into a temporary buffer first.
"""
from __future__ import annotations

from typing import List, Sequence

from mtiacc.codegen.context import Lowering
from mtiacc.codegen.vector.blocks import lower_fill
from mtiacc.codegen.machine.mir import MBuilder, VMem, VReg
from mtiacc.codegen.vector.nest import nest
from mtiacc.codegen.vector.vloop import Src, elem_bytes, sew_of
from mtiacc.ir.core import Value
from mtiacc.ir.permute_ops import JOIN_SPLIT_OPS, CatOp, FlipOp, JoinOp, SplitOp


def handles(op) -> bool:
    return isinstance(op, JOIN_SPLIT_OPS)


def _step(b: MBuilder, ptr: VReg, vl: VReg, stride_bytes: int, stride_reg: VReg) -> None:
    """ptr += vl * stride_bytes."""
    t = b.x()
    if stride_bytes > 0 and stride_bytes & (stride_bytes - 1) == 0:
        b("slli", t, vl, stride_bytes.bit_length() - 1)
    else:
        b("mul", t, vl, stride_reg)
    b("add", ptr, ptr, t)


def copy(lw: Lowering, shape: Sequence[int], dst: int, dst_strides: Sequence[int], src: int,
         src_strides: Sequence[int], elem) -> None:
    """``dst[sum(i_k dst_strides[k])] = src[sum(i_k src_strides[k])]`` for every index ``i`` of
    ``shape``; addresses are local-memory byte addresses, strides are in elements."""
    b: MBuilder = lw.b
    esize, sew = elem_bytes(elem), sew_of(elem)
    keep = [k for k, d in enumerate(shape) if d != 1] or [len(shape) - 1]
    shape = [shape[k] for k in keep]
    dst_strides = [dst_strides[k] * esize for k in keep]
    src_strides = [src_strides[k] * esize for k in keep]
    s_in, d_in = src_strides[-1], dst_strides[-1]
    s_reg = b.li(s_in, "sstride") if s_in != esize else None
    d_reg = b.li(d_in, "dstride") if d_in != esize else None

    def row(cur: List[VReg]) -> None:
        s, d = b.x("s"), b.x("d")
        b("mv", s, cur[0])
        b("mv", d, cur[1])
        count = b.li(shape[-1], "n")
        vl = b.x("vl")
        top = b.new_label("copy")
        b.label(top)
        b("vsetvli", vl, count, f"e{sew}, m8, ta, ma")
        if s_reg is None:
            b(f"vle{sew}.v", "v8", VMem(s))
        else:
            b(f"vlse{sew}.v", "v8", VMem(s), s_reg)
        if d_reg is None:
            b(f"vse{sew}.v", "v8", VMem(d))
        else:
            b(f"vsse{sew}.v", "v8", VMem(d), d_reg)
        b("sub", count, count, vl)
        _step(b, s, vl, s_in, s_reg)
        _step(b, d, vl, d_in, d_reg)
        b("bnez", count, top)

    nest(b, shape[:-1], [b.li(src, "src"), b.li(dst, "dst")],
         [src_strides[:-1], dst_strides[:-1]], row)


def _operand(lw: Lowering, v: Value, temps: list) -> int:
    """The local-memory address of block ``v`` (a splat or constant is filled into a temporary)."""
    src = lw.src(v)
    if not src.is_scalar:
        return src.addr
    n = v.type.numel
    tmp = lw.lmem.alloc(n * elem_bytes(v.type), "a broadcast operand", None)
    temps.append(tmp)
    lower_fill(lw.b, n, src, Src(src.elem, addr=tmp.offset))
    return tmp.offset


def _numel(shape: Sequence[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def lower(lw: Lowering, op) -> None:
    res = op.result
    elem = res.type.element_type
    esize = elem_bytes(elem)
    temps: list = []
    srcs = [_operand(lw, v, temps) for v in op.operands]
    dst = lw.alloc(res).offset
    if isinstance(op, JoinOp):
        n = op.lhs.type.numel
        for k, s in enumerate(srcs):
            copy(lw, (n,), dst + k * esize, (2,), s, (1,), elem)
    elif isinstance(op, SplitOp):
        n = res.type.numel
        copy(lw, (n,), dst, (1,), srcs[0] + op.index * esize, (2,), elem)
    elif isinstance(op, CatOp):
        shape = op.lhs.type.shape
        outer, chunk = _numel(shape[:op.dim]), _numel(shape[op.dim:])
        for k, s in enumerate(srcs):
            copy(lw, (outer, chunk), dst + k * chunk * esize, (2 * chunk, 1), s, (chunk, 1), elem)
    elif isinstance(op, FlipOp):
        shape = op.src.type.shape
        outer, nd, inner = _numel(shape[:op.dim]), shape[op.dim], _numel(shape[op.dim + 1:])
        start = srcs[0] + (nd - 1) * inner * esize
        copy(lw, (outer, nd, inner), dst, (nd * inner, inner, 1), start, (nd * inner, -inner, 1), elem)
    for t in temps:
        lw.lmem.free(t)
