"""Helpers the memory strategies share: scalar address arithmetic, and the loop over the runs of a split index.

* ``affine_scalar`` puts an affine scalar (``sum(coef * value) + const``) in a register;
  ``element_address`` is ``base + index * esize``; ``clamp`` bounds a count to ``[0, hi]``.
* ``AccessPlanError``: a load or store without a fitting plan (a compiler bug).
* The run loop (``runs.py`` and ``split_tiles.py``): with ``x = xs + i`` and ``G`` the period of a split
  form (``split_index.Split``), the elements fall into runs that end at the multiples of ``G``, inside
  which the index moves by a constant slope.  ``for_each_run`` loops over them at run time, computing each
  run's first index with shifts and masks (``divu``/``remu`` for divisors that are not powers of two);
  ``per_run`` moves each run with one DMA (slope 1), one element (slope 0) or element by element.
* N-d polynomials (``affine_nd.Poly``, the ``tiles`` and ``wrapped-tiles`` plans): ``poly_reg`` puts one in a
  register, ``scaled`` multiplies it by a constant (a constant itself when it is one), ``clamp_count``
  bounds it to ``[0, hi]``.
* 2-D DMA: ``dma2d_config`` sets the DMA configuration registers (rows, DRAM and local row strides in
  bytes; they keep their values, so a loop of transfers of the same shape sets them once) and ``dma2d``
  issues one ``mtia.dma.in2d`` / ``out2d`` of such rows.
"""
from __future__ import annotations

from typing import Callable, Dict, Optional

from mtiacc.codegen.context import Lowering
from mtiacc.codegen.machine.mir import MBuilder, VReg
from mtiacc.codegen.vector.blocks import lower_fill
from mtiacc.codegen.vector.nest import Step
from mtiacc.codegen.vector.vloop import Src, sew_of
from mtiacc.ir.analysis.affine import Affine
from mtiacc.ir.analysis.affine_nd import Poly
from mtiacc.ir.analysis.split_index import Cond, Split


class AccessPlanError(RuntimeError):
    """A load or store reached codegen without its access plan, or with one its operands do not fit:
    a compiler bug (the ``access-plan`` pass runs right before codegen), never a user error."""

    def __init__(self, op, why: str):
        plan = op.attrs.get("access")
        super().__init__(f"'{op.name}' at {op.loc}: " + (f'access = "{plan}": ' if plan else "") + why)


# --------------------------------------------------------------------------- scalar addresses

def affine_scalar(lw: Lowering, aff: Affine) -> VReg:
    """A register holding the scalar ``sum(coef * term) + const``."""
    b: MBuilder = lw.b
    acc: Optional[VReg] = None
    for v, coef in aff.terms:
        r, negate = lw.get(v), coef < 0
        k = abs(coef)
        if k != 1:
            scaled = b.x()
            if k & (k - 1) == 0:
                b("slli", scaled, r, k.bit_length() - 1)
            else:
                b("mul", scaled, r, b.li(k))
            r = scaled
        s = b.x()
        if acc is None:
            if not negate:
                acc = r
                continue
            b("neg", s, r)
        else:
            b("sub" if negate else "add", s, acc, r)
        acc = s
    if acc is None:
        return b.li(aff.const)
    if aff.const:
        s = b.x()
        if -2048 <= aff.const < 2048:
            b("addi", s, acc, aff.const)
        else:
            b("add", s, acc, b.li(aff.const))
        acc = s
    return acc


def element_address(lw: Lowering, base: VReg, index: VReg, esize: int) -> VReg:
    """``base + index * esize`` (a byte address from an element index)."""
    b = lw.b
    r = b.x("addr")
    if esize > 1:
        scaled = b.x()
        b("slli", scaled, index, esize.bit_length() - 1)
        index = scaled
    b("add", r, base, index)
    return r


def clamp(lw: Lowering, value: VReg, hi: int) -> VReg:
    """min(max(value, 0), hi)."""
    b = lw.b
    r = b.x("count")
    ok_lo, ok_hi = b.new_label("clamp"), b.new_label("clamp")
    b("mv", r, value)
    b("bge", r, "zero", ok_lo)
    b("mv", r, "zero")
    b.label(ok_lo)
    limit = b.li(hi)
    b("ble", r, limit, ok_hi)
    b("mv", r, limit)
    b.label(ok_hi)
    return r


# --------------------------------------------------------------------------- the run loop

class Consts:
    """Registers for constants, made before a loop so the loop body does not rebuild them."""

    def __init__(self, b: MBuilder):
        self.b = b
        self.regs: Dict[int, VReg] = {}

    def make(self, *ks: int) -> None:
        for k in ks:
            if k not in self.regs:
                self.regs[k] = self.b.li(k)

    def __call__(self, k: int) -> VReg:
        return self.regs[k]  # made by make() before any branch or loop


def _is_pow2(k: int) -> bool:
    return k > 0 and k & (k - 1) == 0


def _mod(b: MBuilder, k: Consts, x: VReg, m: int) -> VReg:
    r = b.x()
    if _is_pow2(m) and m - 1 < 2048:
        b("andi", r, x, m - 1)
    else:
        b("remu", r, x, k(m))
    return r


def _div(b: MBuilder, k: Consts, x: VReg, d: int) -> VReg:
    if d == 1:
        return x
    r = b.x()
    if _is_pow2(d):
        b("srli", r, x, d.bit_length() - 1)
    else:
        b("divu", r, x, k(d))
    return r


def prepare_consts(b: MBuilder, sp: Split, *extra: int) -> Consts:
    k = Consts(b)
    for t in sp.terms:
        k.make(t.div, t.mod or 1, abs(t.coef))
    if sp.period is not None:
        k.make(sp.period)
    k.make(sp.slope, *extra)
    return k


def run_index(b: MBuilder, k: Consts, sp: Split, x: VReg) -> VReg:
    """``sum(coef * ((x // div) % mod))`` for the run starting at ``x``."""
    acc: Optional[VReg] = None
    for t in sp.terms:
        v = _div(b, k, x, t.div)
        if t.mod is not None:
            v = _mod(b, k, v, t.mod)
        c = abs(t.coef)
        if c != 1:
            s = b.x()
            if _is_pow2(c):
                b("slli", s, v, c.bit_length() - 1)
            else:
                b("mul", s, v, k(c))
            v = s
        s = b.x()
        if acc is None:
            if t.coef > 0:
                acc = v
                continue
            b("neg", s, v)
        else:
            b("add" if t.coef > 0 else "sub", s, acc, v)
        acc = s
    return acc if acc is not None else b.li(0)


def for_each_run(b: MBuilder, sp: Split, k: Consts, xs: VReg, cnt: VReg,
                 body: Callable[[Optional[VReg], VReg, VReg], None], with_index: bool = True) -> None:
    """A loop over the runs of elements ``[0, cnt)``: ``body(index, pos, length)`` per run, where
    ``index`` is the run's first index (None unless ``with_index``) and ``pos`` its block position."""
    g = sp.period
    pos, x = b.li(0, "pos"), b.x("x")
    b("mv", x, xs)
    top, done = b.new_label("run"), b.new_label("runsdone")
    b("bge", pos, cnt, done)
    b.label(top)
    ln = b.x("len")
    b("sub", ln, cnt, pos)
    if g is not None:
        run, keep = b.x("runlen"), b.new_label("cut")
        b("sub", run, k(g), _mod(b, k, x, g))
        b("bge", run, ln, keep)
        b("mv", ln, run)
        b.label(keep)
    body(run_index(b, k, sp, x) if with_index else None, pos, ln)
    b("add", pos, pos, ln)
    b("add", x, x, ln)
    b("blt", pos, cnt, top)
    b.label(done)


def byte_offset(b: MBuilder, r: VReg, esize: int) -> VReg:
    """``r * esize`` (``r`` itself for bytes)."""
    if esize == 1:
        return r
    s = b.x()
    b("slli", s, r, esize.bit_length() - 1)
    return s


def add(b: MBuilder, base: VReg, off: VReg) -> VReg:
    """A new register holding ``base + off``."""
    s = b.x()
    b("add", s, base, off)
    return s


def cond_flag(lw: Lowering, c: Cond) -> VReg:
    """1 when the condition holds, else 0."""
    b = lw.b
    if c.flag is not None:
        r = b.x("flag")
        b("snez", r, lw.get(c.flag))
        return r
    lhs, rhs = affine_scalar(lw, c.lhs), affine_scalar(lw, c.rhs)
    r = b.x("flag")
    if c.pred in ("slt", "sge"):
        b("slt", r, lhs, rhs)
    else:
        b("slt", r, rhs, lhs)
    if c.pred in ("sge", "sle"):
        b("xori", r, r, 1)
    return r


def per_run(lw: Lowering, sp: Split, k: Consts, dram0: VReg, xs: VReg, cnt: VReg, lmem: VReg, esize: int,
             inbound: bool) -> bool:
    """One DMA per run (slope 1), one element per run (slope 0), else element by element.
    Returns whether a load's runs still need spreading (slope 0)."""
    b = lw.b
    slope = sp.slope
    mnemonic = "mtia.dma.in" if inbound else "mtia.dma.out"

    def dma(dram: VReg, local: VReg, nbytes: VReg) -> None:
        b(mnemonic, *((local, dram) if inbound else (dram, local)), nbytes)

    size = k(esize)
    step = k(slope * esize)

    def body(g: VReg, pos: VReg, ln: VReg) -> None:
        dram = add(b, dram0, byte_offset(b, g, esize))
        local = add(b, lmem, byte_offset(b, pos, esize))
        if slope == 1:
            dma(dram, local, byte_offset(b, ln, esize))
        elif slope == 0 and inbound:
            dma(dram, local, size)
        elif slope == 0:  # the run's last element
            last = b.x()
            b("addi", last, ln, -1)
            dma(dram, add(b, local, byte_offset(b, last, esize)), size)
        else:
            j, top = b.li(0, "j"), b.new_label("elem")
            b.label(top)
            dma(dram, local, size)
            b("add", dram, dram, step)
            b("addi", local, local, esize)
            b("addi", j, j, 1)
            b("blt", j, ln, top)
    for_each_run(b, sp, k, xs, cnt, body)
    return inbound and slope == 0


# --------------------------------------------------------------------------- 2-D DMA

def _reg(b: MBuilder, v, hint: str = "") -> VReg:
    return b.li(v, hint) if isinstance(v, int) else v


def dma2d_config(b: MBuilder, rows, dram_stride, local_stride) -> None:
    """The shape of the next 2-D transfers: ``rows`` rows, ``dram_stride`` / ``local_stride`` bytes apart
    (each an int or a register)."""
    for k, (v, hint) in enumerate(((rows, "rows"), (dram_stride, "dstride"), (local_stride, "lstride"))):
        b("mtia.dma.cfg", _reg(b, v, hint), k)


PREFETCH_WAIT = "the tiles in flight complete before the next prefetch"


def dma2d(b: MBuilder, inbound: bool, dram: VReg, local: VReg, row_bytes) -> None:
    """One 2-D transfer of the configured rows of ``row_bytes`` (an int or a register) each."""
    n = _reg(b, row_bytes, "bytes")
    if inbound:
        b("mtia.dma.in2d", local, dram, n)
    else:
        b("mtia.dma.out2d", dram, local, n)


def stored_value_addr(lw: Lowering, op) -> int:
    """Local-memory address of the block a store writes: its buffer, or (for a splat or a block
    constant) a buffer filled here, which stays allocated until the DMA-out is done."""
    src = lw.src(op.value)
    if not src.is_scalar:
        return src.addr
    n = op.value.type.numel
    tmp = lw.lmem.alloc(n * (sew_of(op.value.type) // 8), "stored value", op.loc)
    lower_fill(lw.b, n, src, Src(src.elem, addr=tmp.offset))
    return tmp.offset


# --------------------------------------------------------------------------- polynomials (affine_nd.Poly)

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


def clamp_count(lw: Lowering, p: Poly, hi: int) -> Step:
    """min(max(p, 0), hi) (a constant when p is one)."""
    c = p.as_const()
    if c is not None:
        return max(0, min(c, hi))
    return clamp(lw, poly_reg(lw, p), hi)
