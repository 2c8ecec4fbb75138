"""Codegen for N-d blocks: shape ops, and loads/stores of 2-D and 3-D tiles.

Blocks live row-major in local memory, so elementwise ops run over the flattened block (isel) and:

* ``tt.expand_dims``, ``tt.reshape`` and a ``tt.broadcast`` that stretches nothing are free: the
  result aliases its source's buffer (isel keeps the source alive as long as the alias).
* ``tt.broadcast`` and ``tt.trans`` materialize with a strided copy: loops over the outer result
  dimensions and, per row, a strip-mined ``vlse`` (source stride: 0 for a stretched dimension, the
  permuted stride for a transpose) and a unit-stride ``vse``.
* Loads and stores of N-d pointer blocks with affine structure (``affine_nd``): one DMA per row
  when the last stride is 1 (a row is clipped to a prefix-box mask), else one DMA per element; a
  last stride known only at run time branches between the two on its value; a
  general mask is read from its buffer per element.  Masked-off elements of a load take ``other``
  (the whole tile is filled with it first).
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, List, Optional, Sequence, Union

from mtiacc.codegen.context import Lowering
from mtiacc.ir.analysis.affine_nd import Poly, pointer_nd, prefix_box
from mtiacc.codegen.machine.mir import MBuilder, Mem, VMem, VReg
from mtiacc.codegen.vector.vloop import Src, elem_bytes, sew_of
from mtiacc.diagnostics import CompileError
from mtiacc.ir import ops as O
from mtiacc.ir.core import OpResult, Value
from mtiacc.ir.shape_ops import ExpandDimsOp, ReshapeOp, TransOp

Step = Union[int, VReg]


def dense_strides(shape: Sequence[int]) -> List[int]:
    out, s = [], 1
    for d in reversed(shape):
        out.append(s)
        s *= d
    return out[::-1]


def is_alias(op) -> bool:
    """Ops whose result shares its source's buffer."""
    if isinstance(op, (ExpandDimsOp, ReshapeOp)):
        return op.result.type.is_block() and op.src.type.is_block()
    return isinstance(op, O.BroadcastOp) and op.src.type.shape == op.result.type.shape


def alias_chain(v: Value) -> List[int]:
    """Ids of ``v`` and of the values whose buffer it aliases (all must outlive a store of ``v``)."""
    out = [id(v)]
    while isinstance(v, OpResult) and is_alias(v.op):
        v = v.op.src
        out.append(id(v))
    return out


# --------------------------------------------------------------------------- scalar helpers

def poly_reg(lw: Lowering, p: Poly) -> VReg:
    """A register holding the polynomial's value (64-bit arithmetic)."""
    b: MBuilder = lw.b
    acc: Optional[VReg] = None
    const = 0
    for coef, vals in p.monomials():
        if not vals:
            const += coef
            continue
        r = lw.get(vals[0])
        for v in vals[1:]:
            t = b.x()
            b("mul", t, r, lw.get(v))
            r = t
        if coef != 1:
            t = b.x()
            if coef > 0 and coef & (coef - 1) == 0:
                b("slli", t, r, coef.bit_length() - 1)
            else:
                b("mul", t, r, b.li(coef))
            r = t
        if acc is None:
            acc = r
        else:
            t = b.x()
            b("add", t, acc, r)
            acc = t
    if acc is None:
        return b.li(const)
    if const:
        t = b.x()
        if -2048 <= const < 2048:
            b("addi", t, acc, const)
        else:
            b("add", t, acc, b.li(const))
        acc = t
    return acc


def scaled(lw: Lowering, p: Poly, k: int) -> Step:
    """``p * k`` as a constant when ``p`` is one, else in a register."""
    c = p.as_const()
    if c is not None:
        return c * k
    return poly_reg(lw, p * Poly.const(k))


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


def clamp_count(lw: Lowering, p: Poly, hi: int) -> Step:
    """min(max(p, 0), hi) (a constant when p is one)."""
    c = p.as_const()
    if c is not None:
        return max(0, min(c, hi))
    from mtiacc.codegen.memory.dma import clamp
    return clamp(lw, poly_reg(lw, p), hi)


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

def strided_copy(lw: Lowering, dst: int, shape: Sequence[int], src: int, src_strides: Sequence[int], elem) -> None:
    """``dst[i] = src[sum(i_j * src_strides[j])]`` for every index of the dense block ``shape``."""
    b: MBuilder = lw.b
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


def materialize_scalar(lw: Lowering, root: Value, res: Value, buf) -> None:
    """Fill ``buf`` (block ``res``) with the broadcast scalar behind ``root`` (a splat or constant)."""
    from mtiacc.codegen.vector.blocks import lower_fill
    lower_fill(lw.b, res.type.numel, lw.src(root), Src(res.type.element_type, addr=buf.offset))


def scalar_root(lw: Lowering, v: Value) -> Optional[Value]:
    """The splat/constant behind ``v`` through shape ops, when the whole block is one scalar."""
    while isinstance(v, OpResult):
        op = v.op
        if isinstance(op, (O.SplatOp, O.ConstantOp)):
            return v
        if isinstance(op, (ExpandDimsOp, ReshapeOp, O.BroadcastOp, TransOp)) and op.src.type.is_block():
            v = op.src
            continue
        return None
    return None


def lower_shape_op(lw: Lowering, op) -> None:
    """Lower ``tt.expand_dims``/``tt.reshape``/``tt.broadcast``/``tt.trans`` with a block result."""
    res = op.result
    root = scalar_root(lw, res)
    if root is not None:
        materialize_scalar(lw, root, res, lw.alloc(res))
        return
    if is_alias(op):
        lw.bufs[id(res)] = lw.buffer(op.src)
        return
    src_shape, shape = op.src.type.shape, res.type.shape
    sstr = dense_strides(src_shape)
    if isinstance(op, O.BroadcastOp):
        strides = [0 if s == 1 and r != 1 else st for s, r, st in zip(src_shape, shape, sstr)]
    elif isinstance(op, TransOp):
        strides = [sstr[d] for d in op.order]
    else:
        raise CompileError(f"'{op.name}' is not supported by codegen yet")
    dst = lw.alloc(res)
    strided_copy(lw, dst.offset, shape, lw.buffer(op.src).offset, strides, res.type.element_type)


# --------------------------------------------------------------------------- loads and stores

class NdAccess:
    def __init__(self, op):
        self.op = op
        self.pointer = pointer_nd(op.ptr)
        self.box = prefix_box(op.mask) if op.mask is not None else None
        self.general_mask = op.mask is not None and self.box is None


def needs_buffers(op) -> List[Value]:
    acc = NdAccess(op)
    if acc.pointer is None:
        raise CompileError("loads and stores through unstructured pointer blocks (gather/scatter) "
                           "are not supported yet")
    out = [op.mask] if acc.general_mask else []
    if isinstance(op, O.StoreOp):
        out.append(op.value)
    return out


def _transfer(lw: Lowering, acc: NdAccess, shape: Sequence[int], lmem: int, esize: int, inbound: bool,
              mask_addr: Optional[int]) -> None:
    b: MBuilder = lw.b
    base, off = acc.pointer
    rank = len(shape)
    dram = b.x("dram")
    start = scaled(lw, off.start, esize)
    if isinstance(start, int):
        if -2048 <= start < 2048:
            b("addi", dram, lw.get(base), start)
        else:
            b("add", dram, lw.get(base), b.li(start))
    else:
        b("add", dram, lw.get(base), start)
    dsteps = [scaled(lw, s, esize) for s in off.strides]
    lsteps = [st * esize for st in dense_strides(shape)]
    mask_steps = dense_strides(shape)
    box = acc.box or [None] * rank
    counts = [clamp_count(lw, c, d) if c is not None else d for c, d in zip(box, shape)]
    mnemonic = "mtia.dma.in" if inbound else "mtia.dma.out"
    last_stride = off.strides[-1].as_const()
    contiguous = last_stride == 1 and mask_addr is None
    # a run-time last stride: branch to the row path when it is 1 at run time
    checked = last_stride is None and mask_addr is None
    ptrs = [dram, b.li(lmem, "lmem")] + ([b.li(mask_addr, "mask")] if mask_addr is not None else [])
    steps = [dsteps, lsteps] + ([mask_steps] if mask_addr is not None else [])

    def dma(d: VReg, l: VReg, nbytes: Step) -> None:
        n = b.li(nbytes, "bytes") if isinstance(nbytes, int) else nbytes
        b(mnemonic, *((l, d) if inbound else (d, l)), n)

    if contiguous or checked:
        last = counts[-1]

        def row(cur: List[VReg]) -> None:
            if isinstance(last, int):
                if last:
                    dma(cur[0], cur[1], last * esize)
                return
            nbytes = b.x("bytes")
            b("slli", nbytes, last, esize.bit_length() - 1)
            skip = b.new_label("nodma")
            b("beqz", nbytes, skip)
            dma(cur[0], cur[1], nbytes)
            b.label(skip)
        if not checked:
            nest(b, counts[:-1], ptrs, [s[:-1] for s in steps], row)
            return
        by_element, done = b.new_label("strided"), b.new_label("rowsdone")
        b("bne", dsteps[-1], b.li(esize, "esize"), by_element)
        nest(b, counts[:-1], ptrs, [s[:-1] for s in steps], row)
        b("j", done)
        b.label(by_element)

    size = b.li(esize, "esize")

    def element(cur: List[VReg]) -> None:
        with masked_element(b, cur[2] if mask_addr is not None else None):
            b(mnemonic, *((cur[1], cur[0]) if inbound else (cur[0], cur[1])), size)
    nest(b, counts, ptrs, steps, element)
    if checked:
        b.label(done)


def lower_load(lw: Lowering, op) -> None:
    from mtiacc.codegen.vector.blocks import lower_fill
    acc = NdAccess(op)
    elem = op.result.type.element_type
    esize = elem_bytes(elem)
    dst = lw.alloc(op.result)
    if op.other is not None:
        lower_fill(lw.b, op.result.type.numel, lw.src(op.other), Src(elem, addr=dst.offset))
    mask_addr = lw.buffer(op.mask).offset if acc.general_mask else None
    _transfer(lw, acc, op.result.type.shape, dst.offset, esize, True, mask_addr)
    lw.b("mtia.dma.wait")


def lower_store(lw: Lowering, op) -> None:
    from mtiacc.codegen.vector.blocks import stored_value_addr
    acc = NdAccess(op)
    elem = op.value.type.element_type
    esize = elem_bytes(elem)
    addr = stored_value_addr(lw, op)
    mask_addr = lw.buffer(op.mask).offset if acc.general_mask else None
    _transfer(lw, acc, op.value.type.shape, addr, esize, False, mask_addr)


# --------------------------------------------------------------------------- dispatch

def handles(op) -> bool:
    """Shape ops that move data between N-d blocks (a same-shape broadcast is an alias)."""
    if isinstance(op, (ExpandDimsOp, ReshapeOp, TransOp)):
        return True
    return isinstance(op, O.BroadcastOp) and op.src.type.shape != op.result.type.shape


def lower(lw: Lowering, op) -> None:
    """Shape ops (reductions and scans are ``reduce.py``'s and ``scan.py``'s rows of isel's table)."""
    if not op.result.type.is_block():
        raise CompileError(f"'{op.name}' to a scalar is not supported by codegen yet")
    else:
        lower_shape_op(lw, op)
