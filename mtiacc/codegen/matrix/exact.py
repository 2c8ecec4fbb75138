"""``tt.dot`` with exact products on the vector unit: ``ieee`` f32 and f64 (the engine multiplies 16-bit floats
and 8-bit integers only).

``out = acc``, then for each row ``m`` and each ``k`` in order ``out[m, :] += a[m, k] * b[k, :]`` (``vfmacc.vf``:
each product is rounded once with its addition, as a fused multiply-add).  Run-time loops over the batch, the
rows and ``K``, a strip-mined vector loop over ``N``: the code stays small whatever the block sizes.  When an
output row fits one register group (``N`` up to 8 registers), it stays in ``v8`` over the ``K`` loop: one load
and one store per row instead of one per product.
"""
from __future__ import annotations

from typing import List

from mtiacc.codegen.context import Lowering
from mtiacc.codegen.machine.mir import Mem, VMem
from mtiacc.codegen.matrix import engine as E
from mtiacc.codegen.matrix.dot import operand_buffer
from mtiacc.codegen.matrix.tiles import counted
from mtiacc.codegen.vector.lmem import Buffer
from mtiacc.codegen.vector.blocks import lower_fill
from mtiacc.codegen.vector.vloop import Src, VLoop, elem_bytes, emit_loop
from mtiacc.ir.dot_ops import DotOp


def lower(lw: Lowering, op: DotOp) -> None:
    E.drain(lw, "the engine is done with memory the vector unit writes")
    B, M, N, K = op.shape
    elem = op.result.type.element_type
    e = elem_bytes(op.result.type)
    b = lw.b
    res = lw.alloc(op.result)
    lower_fill(b, op.result.type.numel, lw.src(op.acc), Src(elem, addr=res.offset))
    own: List[Buffer] = []     # deferred once both fills are done (the second one's drain would free the first)
    a, w = operand_buffer(lw, op.a, op.loc, own).offset, operand_buffer(lw, op.b, op.loc, own).offset
    lw.engine.deferred.extend(own)
    load = "fld" if e == 8 else "flw"
    if N * e * 8 <= 8 * lw.target.vlen_bits:   # an output row fits one register group: it stays there over K
        _row_in_registers(lw, B, M, N, K, e, a, w, res.offset, load)
        return
    with counted(lw, B, [(a, M * K * e), (w, K * N * e), (res.offset, M * N * e)]) as (pa, pb, po):
        with counted(lw, M, [(pa, K * e), (po, N * e)]) as (row_a, row_o):
            with counted(lw, K, [(row_a, e), (pb, N * e)]) as (pk, pw):
                s = b.f("a_mk")
                b(load, s, Mem(E.reg_of(b, pk)))

                def fma(loop: VLoop, g: List[str]) -> str:
                    loop.ensure(elem)
                    b("vfmacc.vf", g[0], s, g[1])
                    return g[0]

                emit_loop(b, N, [Src(elem, addr=row_o), Src(elem, addr=pw)], Src(elem, addr=row_o), fma,
                          comment="tt.dot: out[m, :] += a[m, k] * b[k, :]")


UNROLL_K = 32   # a K this small is unrolled in the register-resident form (a's row offsets fit 12 bits)


def _row_in_registers(lw: Lowering, B: int, M: int, N: int, K: int, e: int, a, w, out: int, load: str) -> None:
    """``out[m, :]`` loaded into ``v8`` once, ``K`` multiply-adds of rows of ``b`` (``v16``) into it, stored once."""
    b = lw.b
    vtype = f"e{8 * e}, m8, ta, ma"
    with counted(lw, B, [(a, M * K * e), (w, K * N * e), (out, M * N * e)]) as (pa, pb, po):
        with counted(lw, M, [(pa, K * e), (po, N * e)]) as (row_a, row_o):
            b("vsetvli", "zero", b.li(N, "n"), vtype)
            b(f"vle{8 * e}.v", "v8", VMem(E.reg_of(b, row_o)), comment="tt.dot: the output row, kept over K")
            if K <= UNROLL_K:       # straight-line products: no loop counter, a's elements at offsets
                ra, pw = E.reg_of(b, row_a), b.x("b_row")
                b("mv", pw, E.reg_of(b, pb))
                step = b.li(N * e, "b_stride")
                for k in range(K):
                    s = b.f("a_mk")
                    b(load, s, Mem(ra, k * e))
                    b(f"vle{8 * e}.v", "v16", VMem(pw))
                    b("vfmacc.vf", "v8", s, "v16", comment=f"tt.dot: out[m, :] += a[m, {k}] * b[{k}, :]")
                    if k + 1 < K:
                        b("add", pw, pw, step)
            else:
                with counted(lw, K, [(row_a, e), (pb, N * e)]) as (pk, pw):
                    s = b.f("a_mk")
                    b(load, s, Mem(E.reg_of(b, pk)))
                    b(f"vle{8 * e}.v", "v16", VMem(E.reg_of(b, pw)))
                    b("vfmacc.vf", "v8", s, "v16", comment="tt.dot: out[m, :] += a[m, k] * b[k, :]")
            b(f"vse{8 * e}.v", "v8", VMem(E.reg_of(b, row_o)))


__all__ = ["lower"]
