"""``tt.dot`` on the matrix engine: the operands as the engine reads them, the batch, the accumulators.

* f16 / bf16 / i8 / u8 operands go to the engine as they are; f32 operands with ``input_precision`` ``tf32``,
  ``tf32x3`` or ``bf16x3`` are split on the vector unit into bf16 ``hi = bf16(x)`` and ``lo = bf16(x - hi)``, and
  three passes (``lo @ hi``, ``hi @ lo``, then ``hi @ hi``) accumulate into the same rows; ``bf16x6`` splits into
  three parts (``mid = bf16(x - hi)``, ``lo = x - hi - mid``, each difference exact, ``lo`` exact in bf16) and
  takes six passes, the smallest first (``lo @ hi``, ``hi @ lo``, ``mid @ mid``, ``mid @ hi``, ``hi @ mid``,
  ``hi @ hi``), as Triton's ``bf16x6``.  One loop per operand reads it once and writes all its parts
  (:func:`split_loop`).  ``ieee`` f32 and f64 dots are ``exact.py``'s.
* A ``tt.trans`` feeding ``b`` is not materialized: the engine reads its source with ``w_trans``.
* A ``tt.trans`` feeding ``a`` of a 2-D dot is not materialized either: the dot transposes its ``[K, M]``
  source on the MLU itself, one K panel of at most 32 rows at a time, each right before the products that
  stream it (``tiles.panel_products``), so that the transposes overlap the engine's streaming instead of
  preceding all of it.
* The accumulators are fp32 (int32 for 8-bit integers).  They start cleared (``acc`` a zero constant) or loaded
  from ``acc`` (``acc.ld``; an f16 ``acc`` is widened to fp32 first, another constant filled in); at the end they
  are stored (``acc.st``) into the result, or into an fp32 scratch block that the vector unit narrows to f16
  (``out_dtype`` f16: Triton accumulates in f16, this machine in fp32 and rounds once at the end).  With
  ``read_back`` (f16 / bf16) the engine's store writes that type for the result's ``arith.truncf``, which is
  then the same buffer (isel's alias).
* Rows: the largest free run of accumulator rows; a result larger than that goes in chunks of column groups
  (and of rows, when ``M`` alone is larger).  A dot whose accumulator stays in the engine across its loop
  (``accumulator = "engine"``, rows taken by ``resident.py``) only adds its products.
* A 3-D dot is a run-time loop over the batch of the 2-D one.
"""
from __future__ import annotations

from typing import List, Optional, Tuple

from mtiacc.codegen.arith.casts import run_steps
from mtiacc.codegen.arith.conversions import plan, widest, width, norm
from mtiacc.codegen.context import SCALAR_BACKED, Lowering, carried_home
from mtiacc.codegen.machine.mir import VMem, VReg
from mtiacc.codegen.mathlib.se import ALU
from mtiacc.codegen.matrix import engine as E
from mtiacc.codegen.matrix.engine import Addr
from mtiacc.codegen.matrix.mlu import MAX_SIDE
from mtiacc.codegen.matrix.tiles import (ACC_BYTES, Geometry, configure, counted, init_rows, out_bytes,
                                         panel_products, products, store_rows, transpose_panel)
from mtiacc.codegen.vector.blocks import lower_fill
from mtiacc.codegen.vector.lmem import Buffer, LocalMemoryFull
from mtiacc.codegen.vector.vloop import Src, emit_loop, elem_bytes
from mtiacc.diagnostics import CompileError
from mtiacc.ir import ops as O
from mtiacc.ir.core import OpResult, Value
from mtiacc.ir.dot_ops import DotOp, split_parts
from mtiacc.ir.shape_ops import TransOp
from mtiacc.ir.types import FloatType, IntType

F32, I32, U16 = FloatType("f32"), IntType(32), IntType(16, False)


# --------------------------------------------------------------------------- operands

def weight_source(op: DotOp) -> Tuple[Value, bool]:
    """The value the engine reads as ``b``, and whether it is ``b``'s transpose (``tt.trans`` of the last two
    dimensions feeding ``b``: the engine reads the source with ``w_trans``)."""
    b = op.b
    if op.on_engine() and isinstance(b, OpResult) and isinstance(b.op, TransOp):
        rank = len(b.type.shape)
        if list(b.op.order) == list(range(rank - 2)) + [rank - 1, rank - 2]:
            return b.op.src, True
    return b, False


def stream_source(op: DotOp) -> Tuple[Value, bool]:
    """The block the lowering reads for ``a``, and whether it is ``a``'s ``[K, M]`` transpose (``tt.trans`` of a
    2-D block of 1- or 2-byte elements feeding ``a``: the dot transposes it on the MLU in K panels)."""
    a = op.a
    if not (op.on_engine() and isinstance(a, OpResult) and isinstance(a.op, TransOp)
            and len(a.type.shape) == 2 and list(a.op.order) == [1, 0]):
        return a, False
    src = a.op.src
    if isinstance(src, OpResult) and isinstance(src.op, SCALAR_BACKED):
        return a, False
    if elem_bytes(src.type) not in (1, 2) or max(src.type.shape) > MAX_SIDE:
        return a, False
    return src, True


def reads(op: DotOp) -> List[Value]:
    """The blocks the lowering reads (isel's table): what it reads for ``a`` and ``b``, ``acc``."""
    return [stream_source(op)[0], weight_source(op)[0], op.acc]


def is_zero(v: Value) -> bool:
    if not (isinstance(v, OpResult) and isinstance(v.op, SCALAR_BACKED)):
        return False
    c = O.const_value(v) if isinstance(v.op, O.ConstantOp) else O.const_value(v.op.src)
    return c is not None and c == 0 and not isinstance(c, bool)


def convert(lw: Lowering, n: int, src: Src, dst: Src) -> None:
    """``dst[i] = src[i]`` converted between element types on the vector unit (storage types: bf16 as u16)."""
    steps = plan(src.elem, dst.elem)
    lmul = 8 * max(width(norm(src.elem)), width(norm(dst.elem))) // widest(steps, src.elem, dst.elem)

    def store_type(t):
        return U16 if isinstance(t, FloatType) and t.kind == "bf16" else t

    emit_loop(lw.b, n, [Src(store_type(src.elem), addr=src.addr, scalar=src.scalar)],
              Src(store_type(dst.elem), addr=dst.addr), lambda loop, g: run_steps(lw.b, loop, steps, g[0]),
              comment="tt.dot: convert", lmul=lmul)


def scratch(lw: Lowering, nbytes: int, what: str, loc) -> Buffer:
    return lw.lmem.alloc(nbytes, what, loc)


def operand_buffer(lw: Lowering, v: Value, loc, own: Optional[List[Buffer]] = None) -> Buffer:
    """The buffer of operand ``v``; a splat or constant is filled into a scratch block, freed at the next drain, or
    added to ``own`` when given: the caller defers it once the drains of its own later fills are behind it (a drain
    frees every deferred block, and the next fill would be written over this one)."""
    if not (isinstance(v, OpResult) and isinstance(v.op, SCALAR_BACKED)):
        return lw.buffer(v)
    E.drain(lw, "the engine is done with memory the operand's fill writes")
    t = v.type.element_type
    buf = scratch(lw, v.type.numel * elem_bytes(v.type), f"the constant operand {v.type} of tt.dot", loc)
    store_t = U16 if isinstance(t, FloatType) and t.kind == "bf16" else t
    src = lw.src(v)
    if store_t is not t:   # a bf16 constant: its bit pattern, from the NaN-boxed f register
        bits = lw.b.x()
        lw.b("fmv.x.w", bits, src.scalar)
        src = Src(store_t, scalar=bits)
    lower_fill(lw.b, v.type.numel, src, Src(store_t, addr=buf.offset))
    (lw.engine.deferred if own is None else own).append(buf)
    return buf


HALF = 0x8000          # added to an f32's bits, then its low 16 bits dropped: rounded to bf16, ties away from zero
HIGH = -0x10000        # 0xFFFF0000: an f32's bits with its low 16 dropped (the bf16 part as an f32)


def split_tf32(lw: Lowering, v: Value, loc, parts: int = 2) -> List[Buffer]:
    """f32 block ``v`` as ``parts`` bf16 blocks, the largest first: ``hi = bf16(x)``, then each ``bf16`` of what the
    parts before leave (``x - hi``, ``x - hi - mid``: exact in f32); the third part of ``bf16x6`` is what is left,
    exact in bf16 (:func:`split_loop`)."""
    n = v.type.numel
    x = operand_buffer(lw, v, loc).offset
    name = v.name_hint or "operand"
    what = ("high", "low") if parts == 2 else ("high", "middle", "low")
    bufs: List[Buffer] = []
    try:
        for w in what:
            bufs.append(scratch(lw, 2 * n, f"the bf16 {w} part of `{name}` ({v.type}) for tt.dot", loc))
    except LocalMemoryFull:
        for buf in bufs:
            lw.lmem.free(buf)
        raise
    split_loop(lw, n, x, [p.offset for p in bufs], exact_last=parts == 3)
    return bufs


def split_loop(lw: Lowering, n: int, x: int, parts: List[int], exact_last: bool) -> None:
    """One strip-mined loop, 128 f32 elements a trip (LMUL 8), that reads ``x`` once and writes each bf16 part.

    A part is rounded to nearest (ties away from zero) by integer arithmetic on the bits: ``t = bits + 0x8000``,
    the part is ``t >> 16`` (a narrowing shift, stored as 16 bits), the part as an f32 is ``t & 0xFFFF0000``, and
    subtracting it leaves the rest exactly in f32 (the SE's ALU subtracts when the target has one, beside the
    vector unit).  Rounded to nearest, each part leaves at most 2^-8 of the value before it, a multiple of the
    value's last bit, so after two parts at most 8 significant bits are left: ``bf16x6``'s third part is that rest
    itself (``exact_last``: its high 16 bits, nothing dropped), and ``x = hi + mid + lo`` exactly.  A NaN stays
    a NaN in the rest (so in the parts after the first), an inf makes the rest a NaN, as ``x - bf16(x)``
    does."""
    b = lw.b
    sub = "mtia.se.fsub.vv" if ALU in lw.se else "vfsub.vv"
    count = b.x("n")
    b("li", count, n, comment="tt.dot: bf16 split")
    src = b.li(x, "p")
    dsts = [b.li(p, "p") for p in parts]
    half, high = b.li(HALF, "half"), b.li(HIGH, "high")
    top = b.new_label("vsplit")
    vl = b.x("vl")
    b.label(top)
    b("vsetvli", vl, count, "e32, m8, ta, ma")
    b("vle32.v", "v8", VMem(src))
    # at e32: the rest in v8, each rounded part's t in its own group (v16, v24), the part as an f32 in the next
    # free group (v24, then v0: no mask is live here); then at e16 every part narrowed into v0, v4 (v16 for the
    # exact third) and stored: two vtype changes a trip
    wide = ["v16", "v24"]
    held: List[str] = []
    for i in range(len(dsts)):
        if i == len(dsts) - 1 and exact_last:
            held.append("v8")
            break
        t = wide[i]
        b("vadd.vx", t, "v8", half)
        held.append(t)
        if i < len(dsts) - 1:
            f = wide[i + 1] if i + 1 < len(wide) else "v0"
            b("vand.vx", f, t, high)
            b(sub, "v8", "v8", f)
    b("vsetvli", "zero", vl, "e16, m4, ta, ma")
    narrow = ["v0", "v4", "v16"]
    for t, d in zip(held, narrow):
        b("vnsrl.wi", d, t, 16)
    for d, dst in zip(narrow, dsts):
        b("vse16.v", d, VMem(dst))
    b("sub", count, count, vl)
    s4, s2 = b.x("step"), b.x("step")
    b("slli", s4, vl, 2)
    b("slli", s2, vl, 1)
    b("add", src, src, s4)
    for dst in dsts:
        b("add", dst, dst, s2)
    b("bnez", count, top)


def geometry(op: DotOp, trans: bool, esize: int, code: int, panels: bool = False) -> Geometry:
    _, M, N, K = op.shape
    return Geometry(M, N, K, esize, trans, code, panels)


def operands(lw: Lowering, op: DotOp) -> Tuple[Geometry, List[Tuple[int, int]], List[Buffer], List[Buffer],
                                               Optional[int]]:
    """The geometry, the (a, b) address pairs of the passes, the buffers the engine reads, the scratch blocks
    among them, which the caller defers (:func:`operand_buffer`), and the address of ``a``'s ``[K, M]`` source
    when the dot transposes it into K panels (the pass's ``a`` address is then the panels' scratch block)."""
    a_t = op.a.type.element_type
    bsrc, trans = weight_source(op)
    if isinstance(a_t, FloatType) and a_t.kind == "f32":
        E.drain(lw, "the engine is done with memory the operand split writes")
        parts = split_parts(op.input_precision)
        a = split_tf32(lw, op.a, op.loc, parts)
        try:
            b = split_tf32(lw, bsrc, op.loc, parts)
        except LocalMemoryFull:
            # the f32 `a` is dead once split when the dot is its last reader: its bytes take b's parts
            if not lw.release_dead(op, op.a):
                raise
            b = split_tf32(lw, bsrc, op.loc, parts)
        order = [(1, 0), (0, 1), (0, 0)] if parts == 2 else [(2, 0), (0, 2), (1, 1), (1, 0), (0, 1), (0, 0)]
        passes = [(a[i].offset, b[j].offset) for i, j in order]
        return geometry(op, trans, 2, 1), passes, a + b, a + b, None
    if isinstance(a_t, FloatType) and a_t.is_fp8:
        raise CompileError("tt.dot of fp8 operands is not supported by codegen yet")
    own: List[Buffer] = []
    asrc, panels = stream_source(op)
    if panels:
        src, b = lw.buffer(asrc), operand_buffer(lw, bsrc, op.loc, own)
        a = scratch(lw, op.a.type.numel * elem_bytes(op.a.type), f"the K panels of `{asrc.name_hint or 'a'}` "
                    f"transposed for tt.dot", op.loc)
        own.append(a)
        g = geometry(op, trans, elem_bytes(op.a.type), E.type_code(a_t), panels=True)
        return g, [(a.offset, b.offset)], [src, a, b], own, src.offset
    a, b = operand_buffer(lw, op.a, op.loc, own), operand_buffer(lw, bsrc, op.loc, own)
    return geometry(op, trans, elem_bytes(op.a.type), E.type_code(a_t)), [(a.offset, b.offset)], [a, b], own, None


def acc_source(lw: Lowering, acc: Value, nbytes: int, loc) -> Optional[int]:
    """Where ``acc.ld`` reads the initial accumulators (fp32 / int32), or None to clear them."""
    if is_zero(acc):
        return None
    t = acc.type.element_type
    wide = t if t.is_int() else F32
    if isinstance(t, FloatType) and t.kind == "f16" or isinstance(acc, OpResult) and isinstance(acc.op, SCALAR_BACKED):
        E.drain(lw, "the engine is done with memory the accumulator's conversion writes")
        tmp = scratch(lw, nbytes, f"the fp32 accumulators of tt.dot ({acc.type})", loc)
        src = lw.src(acc)
        if src.is_scalar and t != wide:
            raise CompileError(f"internal: a constant {t} accumulator")
        if src.is_scalar:
            lower_fill(lw.b, acc.type.numel, src, Src(wide, addr=tmp.offset))
        else:
            convert(lw, acc.type.numel, src, Src(wide, addr=tmp.offset))
        lw.engine.deferred.append(tmp)
        return tmp.offset
    buf = lw.buffer(acc)
    E.hold(lw, buf)
    return buf.offset


# --------------------------------------------------------------------------- the lowering

def lower(lw: Lowering, op: DotOp) -> None:
    batch = op.shape[0]
    g, passes, bufs, own, src = operands(lw, op)
    rows = lw.engine.resident.get(op.acc) if op.accumulator == "engine" else None
    init = acc_source(lw, op.acc, batch * g.acc_bytes, op.loc) if rows is None else None
    lw.engine.deferred.extend(own)        # after the accumulators' fill, whose drain would free them
    E.hold(lw, *bufs)
    configure(lw, g)
    ptrs: List[Tuple[Addr, int]] = [(p, s) for a, b in passes for p, s in ((a, g.a_bytes), (b, g.b_bytes))]
    if rows is not None:   # the accumulators stay in the engine: only the products
        lw.engine.resident[op.result] = rows
        if src is not None:   # a 2-D dot: no batch loop
            panel_products(lw, g, src, passes[0][0], passes[0][1], rows)
            return
        with counted(lw, batch, ptrs + [(rows, g.rows)]) as regs:
            ps = [(regs[2 * i], regs[2 * i + 1]) for i in range(len(passes))]
            for j, (n0, w) in enumerate(g.groups):
                products(lw, g, ps, regs[-1], j * g.M, 0, g.M, n0, w)
        return
    acc_t = op.acc.type.element_type
    narrow = isinstance(acc_t, FloatType) and acc_t.kind == "f16"
    rb = op.read_back     # acc.st writes f16 / bf16: the result's arith.truncf is this buffer (an alias)
    total = batch * g.acc_bytes
    # a loop's carried block that only this dot and ops before it read is written in place, so the yield copies
    # nothing (each band of rows is loaded into the engine before its products are stored over it)
    res = carried_home(lw, op, op.result) if not narrow else None
    if res is None:
        res = lw.alloc(op.result)
    out = scratch(lw, total, f"the fp32 result of tt.dot before it narrows to {op.result.type}", op.loc) \
        if narrow else res
    E.hold(lw, out)
    first, avail = E.largest_free(lw.engine)
    if avail == 0:
        raise CompileError("tt.dot: every accumulator row of the matrix engine is taken by accumulators kept "
                           "across loops")
    mc = min(g.M, avail)
    slots = avail // mc
    ptrs.append((out.offset, g.M * g.N * out_bytes(rb)))
    if init is not None:
        ptrs.append((init, g.acc_bytes))
    if src is not None:   # a 2-D dot: the panels once, before the chunks that stream them
        for k0, _ in g.ktiles:
            transpose_panel(lw, g, src, passes[0][0], k0)
    with counted(lw, batch, ptrs) as regs:
        ps = [(regs[2 * i], regs[2 * i + 1]) for i in range(len(passes))]
        o = regs[2 * len(passes)]
        src = regs[-1] if init is not None else None
        j = 0
        for m0 in range(0, g.M, mc):
            m = min(mc, g.M - m0)
            for n0, w in g.groups:
                r = first + (j % slots) * mc
                j += 1
                init_rows(lw, g, src, r, 0, m0, m, n0, w)
                products(lw, g, ps, r, 0, m0, m, n0, w)
                store_rows(lw, g, o, r, 0, m0, m, n0, w, rb)
    if narrow:
        E.drain(lw, "the accumulators are stored before they narrow to f16")
        convert(lw, op.result.type.numel, Src(F32, addr=out.offset), Src(acc_t, addr=res.offset))
        lw.lmem.free(out)


__all__ = ["lower", "reads", "weight_source", "stream_source", "is_zero", "convert", "acc_source"]
