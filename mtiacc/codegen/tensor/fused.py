"""Instruction selection for ``tt.fused_elementwise``: a chain of elementwise ops in one vector loop.

The loop walks the elements in chunks of ``vl``.  Each chunk loads every block input once (at its
first use), broadcasts scalar inputs and the region's constants, evaluates the region's ops on
vector register groups, and stores only the values used outside the chain (right after computing
them).  Intermediates stay in registers.

Registers: the widest element type runs at LMUL 4 (groups ``v4, v8, ..., v28``: seven) when the
chain fits, else at LMUL 2 (``v2, ..., v30``: fifteen); narrower types run at a proportionally
smaller (possibly fractional) LMUL so that one ``vl`` serves every type.  ``v0`` is the mask
register of the moment.  ``i1`` values live as masks (the first register of a group); they are
read from and written to local memory as 0/1 bytes.  Groups are handed out at a value's definition
and taken back after its last use; ``math.*`` ops run the device math library's expansions
(``mathlib/``) with the free groups as temporaries, their constants hoisted out of the loop.

When even fifteen groups do not hold a chain (long math chains with many live values), it is cut
into consecutive segments, each its own loop; values crossing a cut go through local memory.

A chain of at least ``PAIR_MIN_OPS`` ops runs two chunks an iteration at LMUL 2, each in seven groups of its own,
emitted op by op (:func:`_emit_pairs`): the in-order vector unit then finds the other chunk's step between two
dependent ones.  Index ranges (``off + arange(n)``) are computed per chunk (``vid``, one add), and
``codegen/vector/masks.py`` decides where a compare goes straight into ``v0`` and where a multiply by a bool becomes a
masked multiply by zero.

A chain reading a prefix mask (``off + arange(n) < N``, computed per chunk) is versioned: when every such mask
is whole (``N - off >= n``, one scalar compare) a copy of the loop runs with the masks known true, so a
``tl.where`` on them is its chosen operand and an ``and`` with them the other operand, without instructions
(``known`` in :class:`Segment`); the masked loop runs otherwise (the last, partial chunk of a row).

A chain over ``[R, C]`` blocks that reads a column broadcast along its rows (``x[:, None]`` of an ``[R]`` block,
``tt.broadcast`` of ``[R, 1]`` to ``[R, C]``, with ``C >= ROW_MIN``) runs *by rows*: a loop over the ``R`` rows
loads element ``r`` of each such column into a scalar register (``flw``) and runs the chunks of the row's ``C``
elements with it as a scalar operand (``vfsub.vf``), so the broadcast block is never built (:func:`reads` names
the ``[R, 1]`` block, not the broadcast, as what the loop reads).  Where a row fits one chunk at LMUL 4 and the
chain fits three groups, two rows run an iteration, each in three groups of its own, emitted op by op (as
:func:`_emit_pairs` does): the in-order vector unit finds the other row's step between two dependent ones.
"""
from __future__ import annotations

from typing import Dict, FrozenSet, List, Optional, Set

from mtiacc.codegen import control, mathlib
from mtiacc.codegen.vector import masks as fused_masks
from mtiacc.codegen.vector.blocks import (CASTS, FLOAT_COMPARE, INT_COMPARE, SCALAR_COMPARE, SCALAR_FORMS, SWAPPED,
                                          VECTOR_BINARY, pick_scalar_form)
from mtiacc.codegen.context import Lowering
from mtiacc.codegen.machine.mir import Mem, VMem, VReg
from mtiacc.codegen.vector.lmem import Buffer
from mtiacc.codegen.arith.scalar import constant
from mtiacc.codegen.vector.vloop import Src, elem_bytes, sew_of
from mtiacc.diagnostics import CompileError
from mtiacc.ir import ops as O
from mtiacc.ir.analysis.affine import index_range
from mtiacc.ir.core import Operation, OpResult, Value
from mtiacc.ir.fused import BOOL_CASTS, FusedElementwiseOp
from mtiacc.ir.types import f16, f32, f64, i1, i32, i64

# The bits of +1.0 and -1.0 (a bool cast to a float: 1 or, signed, -1), by element type.
_FLOAT_BITS = {(f32, 1): 0x3F800000, (f32, -1): 0xBF800000,
               (f64, 1): 0x3FF0000000000000, (f64, -1): 0xBFF0000000000000}
POOLS = {4: tuple(f"v{i}" for i in range(4, 32, 4)), 2: tuple(f"v{i}" for i in range(2, 32, 2))}
# i1 blocks live in mask registers; arithmetic on them wraps at one bit (Triton keeps `a + b` of two
# booleans int1): + and - are xor, * is and
# comparisons of i1 blocks as mask logicals (vs2, vs1 = the operands, swapped when the flag says so): unsigned,
# true (1) > false (0), so a > b is a & ~b (vmandn) and a >= b is a | ~b (vmorn); signed, true is -1 < false
BOOL_COMPARE = {"eq": ("vmxnor.mm", False), "ne": ("vmxor.mm", False),
                "ugt": ("vmandn.mm", False), "ult": ("vmandn.mm", True), "uge": ("vmorn.mm", False),
                "ule": ("vmorn.mm", True), "sgt": ("vmandn.mm", True), "slt": ("vmandn.mm", False),
                "sge": ("vmorn.mm", True), "sle": ("vmorn.mm", False)}
MASK_BINARY = {O.AndIOp: "vmand.mm", O.OrIOp: "vmor.mm", O.XOrIOp: "vmxor.mm",
               O.AddIOp: "vmxor.mm", O.SubIOp: "vmxor.mm", O.MulIOp: "vmand.mm"}


def prefix_mask(v: Value):
    """``(start, bound)`` scalars when block ``v`` is ``splat(start) + tl.arange(0, n) < splat(bound)`` (1-D):
    a mask the loop computes for each chunk (``vid``, add, compare) instead of reading it from memory."""
    if not (isinstance(v, OpResult) and isinstance(v.op, O.CmpIOp) and v.op.predicate == "slt"
            and len(v.type.shape) == 1):
        return None
    cols, bound = v.op.lhs, v.op.rhs
    start = iota(cols)
    return (start, bound.op.src) if start is not None and _is(bound, O.SplatOp) else None


def iota(v: Value):
    """The scalar ``start`` when i32 block ``v`` is ``splat(start) + tl.arange(0, n)``: a block the loop computes
    for each chunk (``vid``, one add) instead of reading it from memory."""
    found = index_range(v) if _is(v, O.AddIOp) and v.type.element_type == i32 else None
    return found[0] if found else None


def _half_cast(op) -> bool:
    """Whether ``op`` is ``arith.truncf`` f32 -> f16 or ``arith.extf`` f16 -> f32 (fuse-elementwise fuses these
    width changes: the narrow side runs at half the LMUL, at the same ``vl``)."""
    pair = (op.src.type.element_type, op.result.type.element_type)
    return pair == ((f32, f16) if isinstance(op, O.TruncFOp) else (f16, f32))


def _is(v: Value, cls) -> bool:
    return isinstance(v, OpResult) and isinstance(v.op, cls)


# A column broadcast along rows of at least this many elements is read a scalar a row (the module docstring); a
# shorter row would spend more on the loop over rows than the broadcast block costs
ROW_MIN = 16
# the scalar load of a row's element, by element type
ROW_LOADS = {f32: "flw", f64: "fld", i32: "lw", i64: "ld"}


def row_source(v: Value, shape) -> Optional[Value]:
    """The ``[R, 1]`` block that block ``v`` broadcasts along the rows of ``[R, C]`` blocks (``shape``), when the
    fused loop reads it a scalar a row (the module docstring); else None."""
    if len(shape) != 2 or shape[1] < ROW_MIN or not _is(v, O.BroadcastOp):
        return None
    src = v.op.src
    if not src.type.is_block() or list(src.type.shape) != [shape[0], 1] or src.type.element_type not in ROW_LOADS:
        return None
    return src


def reads(op: FusedElementwiseOp) -> List[Value]:
    """The inputs the loop reads from local memory: all but its prefix masks and index ranges (:func:`prefix_mask`,
    :func:`iota`), which it computes; a column broadcast along the rows (:func:`row_source`) as its column."""
    shape = op.results[0].type.shape
    out = []
    for v in op.operands:
        if prefix_mask(v) is None and iota(v) is None:
            src = row_source(v, shape) if v.type.is_block() else None
            out.append(v if src is None else src)
    return out


class OutOfRegisters(Exception):
    pass


class _Math(mathlib.VMath):
    """The math library's emitter on the fused loop's free groups; it never writes a live group."""

    def __init__(self, b, consts, dry, free: List[str], live: Set[str]):
        super().__init__(b, consts, dry)
        self.free = list(free)
        self.given: Set[str] = set()
        self.live = live

    def __call__(self, *args) -> None:
        if len(args) > 1 and args[1] in self.live:
            raise CompileError(f"internal: the math library would overwrite live group {args[1]}")
        super().__call__(*args)

    def tmp(self) -> str:
        if not self.free:
            raise OutOfRegisters()
        r = self.free.pop(0)
        self.given.add(r)
        return r

    def release(self, *regs: str) -> None:
        for r in regs:
            if r in self.given and r not in self.free:
                self.free.insert(0, r)


class Segment:
    """One loop over a run of the region's ops: register allocation and emission (dry: allocation only)."""

    def __init__(self, b, ops: List, lmul: int, wmax: int, srcs: Dict[int, Src], scalars: Dict[int, VReg],
                 stores: Dict[int, Src], consts: Dict[tuple, Optional[VReg]], dry: bool,
                 se: FrozenSet[str] = mathlib.NO_SE, prefix: Optional[Dict[int, VReg]] = None,
                 known: Optional[Dict[int, bool]] = None, iotas: Optional[Dict[int, VReg]] = None,
                 pool: Optional[tuple] = None):
        self.b, self.ops, self.lmul, self.wmax, self.se = b, ops, lmul, wmax, se
        self.prefix = prefix or {}   # mask inputs computed per chunk: id -> the bound (elements from the start)
        self.iotas = iotas or {}     # index inputs computed per chunk: id -> the start (the first element's value)
        self.known: Dict[int, bool] = dict(known or {})   # i1 values known whole (true) or empty (false)
        self.base: Optional[VReg] = None   # the chunk's first element (when there are prefix masks or iotas)
        self.srcs, self.scalars, self.stores, self.consts, self.dry = srcs, scalars, stores, consts, dry
        self.free: List[str] = list(pool or POOLS[lmul])
        self.reg: Dict[int, str] = {}
        self.ptrs: Dict[int, VReg] = {}
        self.cur = None
        self.last: Dict[int, int] = {}
        for j, op in enumerate(ops):
            for v in op.operands:
                self.last[id(v)] = j
        self.masks = fused_masks.plan(ops, stores)
        for j, mm in self.masks.masked.items():   # a masked multiply reads its mask, not the cast
            self.last[id(mm.mask)] = max(self.last.get(id(mm.mask), -1), j)

    # ---- emission helpers
    def __call__(self, *args) -> None:
        if not self.dry:
            self.b(*args)

    def ensure(self, elem) -> int:
        sew = sew_of(elem)
        num, den = self.lmul * sew, self.wmax
        key = (sew, num // den if num >= den else -(den // num))
        if key != self.cur:
            m = f"m{key[1]}" if key[1] > 0 else f"mf{-key[1]}"
            self("vsetvli", "zero", self.vl, f"e{sew}, {m}, {self.masks.policy}")
            self.cur = key
        return sew

    def alloc(self) -> str:
        if not self.free:
            raise OutOfRegisters()
        return self.free.pop(0)

    def release(self, g: str) -> None:
        if g != "v0" and g not in self.free:
            self.free.insert(0, g)

    def live(self) -> Set[str]:
        return set(self.reg.values())

    # ---- values
    def _scalar_reg(self, v: Value):
        """The x or f register of ``v`` when it is a scalar input or constant of the region."""
        if id(v) in self.scalars:
            return self.scalars[id(v)]
        src = self.srcs.get(id(v))
        return src.scalar if src is not None and src.is_scalar else None

    def _scalar(self, v: Value):
        """The x or f register of ``v`` when it is a scalar broadcast not already in a vector group."""
        if id(v) in self.reg or v.type.element_type.is_bool():
            return None
        return self._scalar_reg(v)

    def scalar_form(self, op: Operation, pred: Optional[str] = None):
        """``(mnemonic, vector operand, scalar register)`` when ``op`` can read one operand from a scalar
        register (``vxor.vx``, ``vfmul.vf``, ``vmfgt.vf``, ...), saving the splat into a vector group (an
        instruction as long as the operation itself); else None.  Floats only at f32 and f64 (how f registers
        hold scalars).  ``pred``: a compare's predicate in place of its own."""
        compare = isinstance(op, (O.CmpIOp, O.CmpFOp))
        if compare:
            pred = pred or op.predicate
            forms = (SCALAR_COMPARE.get(pred), SCALAR_COMPARE.get(SWAPPED.get(pred, "")))
        else:
            forms = SCALAR_FORMS.get(VECTOR_BINARY.get(type(op), ""))
        if forms is None or len(op.operands) != 2 or (not compare and op.result.type.element_type.is_bool()):
            return None
        picked = pick_scalar_form(forms, op.operands[0].type.element_type, *map(self._scalar, op.operands))
        if picked is None:
            return None
        mn, i, reg = picked
        return mn, op.operands[i], reg

    def value(self, v: Value) -> str:
        if id(v) in self.reg:
            return self.reg[id(v)]
        g = self.alloc()
        elem = v.type
        if id(v) in self.known:    # a mask known whole or empty, where an op needs it as a register
            self.ensure(i1)
            self("vmset.m" if self.known[id(v)] else "vmclr.m", g)
        elif id(v) in self.iotas:    # element i of the chunk: start + base + i
            at = self.b.x("at")
            self("add", at, self.iotas[id(v)], self.base)
            self.ensure(i32)
            self("vid.v", g)
            self("vadd.vx", g, g, at)
        elif id(v) in self.prefix:   # element i of the chunk: i < bound - base (the scalar core subtracts)
            t, rel = self.alloc(), self.b.x("rel")
            self("sub", rel, self.prefix[id(v)], self.base)
            self.ensure(i32)
            self("vid.v", t)
            self("vmslt.vx", g, t, rel)
            self.release(t)
        elif id(v) in self.scalars or id(v) in self.srcs and self.srcs[id(v)].is_scalar:
            r = self.scalars[id(v)] if id(v) in self.scalars else self.srcs[id(v)].scalar
            if elem.is_bool():
                self.ensure(i1)
                self("vmv.v.x", g, r)
                self("vmsne.vi", g, g, 0)
            else:
                self.ensure(elem)
                self("vfmv.v.f" if elem.is_float() else "vmv.v.x", g, r)
        else:
            sew = self.ensure(elem)
            self(f"vle{sew}.v", g, VMem(self.ptrs.get(id(v))))
            if elem.is_bool():
                self("vmsne.vi", g, g, 0)
        self.reg[id(v)] = g
        return g

    def store(self, v: Value, g: str) -> None:
        elem = v.type
        if elem.is_bool():
            t = self.alloc()
            self.ensure(i1)
            self("vmand.mm", "v0", g, g)
            self("vmv.v.i", t, 0)
            self("vmerge.vim", t, t, 1, "v0")
            self("vse8.v", t, VMem(self.ptrs.get(id(v))))
            self.release(t)
            return
        sew = self.ensure(elem)
        self(f"vse{sew}.v", g, VMem(self.ptrs.get(id(v))))

    def scalar(self, v: Value) -> Optional[VReg]:
        """The f register of ``v`` when it is a float scalar input or constant (an f32 or f64 one)."""
        r = self._scalar_reg(v)
        return r if r is not None and v.type in (f32, f64) and getattr(r, "cls", None) == "f" else None

    def scalar_operands(self, op) -> FrozenSet[int]:
        """The operands ``op`` takes as f registers (no broadcast group): the float scalar of a select between a
        block and a scalar (``vfmerge.vfm``; binary ops and compares take theirs through :meth:`scalar_form`)."""
        if isinstance(op, O.SelectOp) and op.result.type in (f32, f64):
            pair = (1, 2)
        else:
            return frozenset()
        a, b = (op.operands[i] for i in pair)
        if a is b:
            return frozenset()
        sa, sb = self.scalar(a) is not None, self.scalar(b) is not None
        if sa == sb or id(a if sb else b) in self.scalars:
            return frozenset()
        return frozenset({pair[1] if sb else pair[0]})

    def compute_scalar(self, op, g: List) -> str:
        """A select with one value operand an f register (:meth:`scalar_operands`): v0 ? f : block, v0 the mask
        or its complement (a one-cycle mask op)."""
        d = self.alloc()
        m, t, f = g
        scalar_true = not isinstance(t, str)
        if not (scalar_true and m == "v0"):
            self("vmand.mm" if scalar_true else "vmnand.mm", "v0", m, m)
        self.ensure(op.result.type)
        self("vfmerge.vfm", d, f if scalar_true else t, t if scalar_true else f, "v0")
        return d

    # ---- one op
    def compute(self, op, g: List[str], pred: Optional[str] = None) -> str:
        if any(not isinstance(x, str) for x in g):
            return self.compute_scalar(op, g)
        if mathlib.is_math(op) and op.name == "math.sqrt" and op.result.type == f64:
            d = self.alloc()
            self.ensure(f64)
            self("vfsqrt.v", d, g[0])
            return d
        if mathlib.is_math(op):
            fn = mathlib.expansion(op, self.se)     # f32 (or its SE instruction), or f64; else a CompileError
            self.ensure(op.result.type)
            e = _Math(self.b, self.consts, self.dry, self.free, self.live())
            res = fn(e, *g)
            self.free = [r for r in self.free if r != res]
            return res
        d = "v0" if pred is not None else self.alloc()
        pred = pred or getattr(op, "predicate", None)
        elem = op.operands[0].type
        if type(op) in VECTOR_BINARY:
            if elem.is_bool():
                if type(op) not in MASK_BINARY:
                    raise CompileError(f"'{op.name}' on i1 blocks is not supported yet")
                self(MASK_BINARY[type(op)], d, g[0], g[1])
            else:
                self.ensure(elem)
                self(VECTOR_BINARY[type(op)], d, g[0], g[1])
        elif isinstance(op, (O.CmpIOp, O.CmpFOp)):
            table = FLOAT_COMPARE if isinstance(op, O.CmpFOp) else INT_COMPARE
            if elem.is_bool():
                if pred not in BOOL_COMPARE:
                    raise CompileError(f"comparison predicate '{pred}' on i1 blocks is not supported yet")
                mn, swap = BOOL_COMPARE[pred]
                self(mn, d, *((g[1], g[0]) if swap else (g[0], g[1])))
            elif pred == "one":
                self.ensure(elem)
                self("vmflt.vv", d, g[1], g[0])
                self("vmflt.vv", "v0", g[0], g[1])
                self("vmor.mm", d, d, "v0")
            elif pred in table:
                self.ensure(elem)
                mn, swap = table[pred]
                self(mn, d, *((g[1], g[0]) if swap else (g[0], g[1])))
            else:
                raise CompileError(f"comparison predicate '{pred}' on blocks is not supported yet")
        elif isinstance(op, O.SelectOp):
            if op.result.type.is_bool():
                t = self.alloc()
                self("vmand.mm", d, g[1], g[0])
                self("vmandn.mm", t, g[2], g[0])
                self("vmor.mm", d, d, t)
                self.release(t)
            else:
                if g[0] != "v0":
                    self("vmand.mm", "v0", g[0], g[0])
                self.ensure(op.result.type)
                self("vmerge.vvm", d, g[2], g[1], "v0")
        elif isinstance(op, BOOL_CASTS) and op.src.type.is_bool():   # fuse-elementwise's bool_to_number
            if g[0] != "v0":
                self("vmand.mm", "v0", g[0], g[0])
            self.ensure(op.result.type)
            self("vmv.v.i", d, 0)
            one = -1 if isinstance(op, (O.ExtSIOp, O.SIToFPOp)) else 1
            bits = _FLOAT_BITS.get((op.result.type.element_type, one))
            if bits is not None:   # +-1.0's bits from an x register: no conversion after the merge
                self.consts.setdefault(("x", bits), None)
                self("vmerge.vxm", d, d, self.consts[("x", bits)], "v0")
            else:
                self("vmerge.vim", d, d, one, "v0")
                if op.result.type.is_float():
                    self("vfcvt.f.x.v", d, d)
        elif isinstance(op, O.NegFOp):
            self.ensure(elem)
            self("vfsgnjn.vv", d, g[0], g[0])
        elif isinstance(op, (O.TruncFOp, O.ExtFOp)) and _half_cast(op):
            self.ensure(f16)     # the narrow side's type: vfncvt writes it, vfwcvt reads it
            self("vfncvt.f.f.w" if isinstance(op, O.TruncFOp) else "vfwcvt.f.f.v", d, g[0])
        elif type(op) in CASTS and sew_of(op.src.type) == sew_of(op.result.type):
            self.ensure(op.result.type)
            self(CASTS[type(op)], d, g[0])
        elif isinstance(op, O.BitcastOp) and sew_of(op.src.type) == sew_of(op.result.type):
            self.ensure(op.result.type)
            self("vmv.v.v", d, g[0])
        else:
            raise CompileError(f"'{op.name}' on blocks of {op.result.type} is not supported yet")
        return d

    def body(self) -> None:
        for j, op in enumerate(self.ops):
            self.step(j, op)

    def step(self, j: int, op) -> None:
        """Emit op ``j`` of the chain."""
        if isinstance(op, O.ConstantOp):
            return
        folded = self.fold_known(op)
        if folded is not None:
            kind, what = folded
            if kind == "known":
                self.known[id(op.result)] = what
                if id(op.result) in self.stores:
                    self.store(op.result, self.value(op.result))
            else:
                res = self.take(what, j)
                self.reg[id(op.result)] = res
                if id(op.result) in self.stores:
                    self.store(op.result, res)
            self._release_after(op, j)
            return
        if j in self.masks.skip:      # the cast of a masked multiply
            self._release_after(op, j)
            return
        try:   # an error inside the region points at the inner op's expression, not the region's
            pred = self._v0_predicate(op, j)
            if j in self.masks.masked:
                res = self.masked_mul(j)
            elif isinstance(op, O.MathFmaOp):
                res = self.fma(op, j)
            elif (form := self.scalar_form(op, pred)) is not None:   # a binary op or compare reading a scalar
                mn, vec, sreg = form
                g = self.value(vec)
                res = "v0" if pred is not None else self.alloc()
                self.ensure(vec.type)
                self(mn, res, g, sreg)
            elif self._renames(op, j):   # the same bits under another type, in the register they are in
                res = self.reg.pop(id(op.src)) if id(op.src) in self.reg else self.value(op.src)
                self.reg.pop(id(op.src), None)
            else:
                regs = self.scalar_operands(op)
                g = [self.scalar(v) if i in regs else self.value(v) for i, v in enumerate(op.operands)]
                res = self.compute(op, g, pred)
            if j in self.masks.to_v0 and self.masks.to_v0[j] and pred == op.predicate:
                self("vmnand.mm", "v0", "v0", "v0")   # no inverse predicate: v0 = not m
        except CompileError as e:
            e.loc = e.loc or op.loc
            raise
        self.reg[id(op.result)] = res
        if id(op.result) in self.stores:
            self.store(op.result, res)
        self._release_after(op, j)

    def _v0_predicate(self, op, j: int) -> Optional[str]:
        """The predicate compare ``j`` writes into ``v0`` with (:mod:`mtiacc.codegen.vector.masks`), inverted where its reader
        wants ``not m`` and an integer inverse keeps the scalar form it had; None for a compare into a group."""
        if j not in self.masks.to_v0:
            return None
        pred = op.predicate
        inverse = fused_masks.INVERSE.get(pred) if isinstance(op, O.CmpIOp) else None
        if self.masks.to_v0[j] and inverse is not None \
                and (self.scalar_form(op, inverse) is None) == (self.scalar_form(op) is None):
            return inverse
        return pred

    def fma(self, op, j: int) -> str:
        """``a * b + c`` in one instruction where an operand's group can take the result: ``vfmacc`` into ``c``'s
        (``vd = a * b + vd``), ``vfmadd`` into a factor's (``vd = b * vd + c``), a scalar factor from its f
        register (``.vf``); a copy of ``c`` first when every operand is read later."""
        a, b, c = op.operands
        self.ensure(op.result.type)
        f = next((i for i, v in enumerate((a, b)) if self.scalar(v) is not None and id(v) not in self.reg), None)
        if f is not None and a is not b:
            fs, v = self.scalar((a, b)[f]), (a, b)[1 - f]
            if self.last.get(id(v)) == j and id(v) in self.reg and self.last.get(id(c)) != j:
                d = self.take(v, j)
                self("vfmadd.vf", d, fs, self.value(c))
                return d
            gv = self.value(v)
            d = self.take(c, j)
            self("vfmacc.vf", d, fs, gv)
            return d
        ga, gb = self.value(a), self.value(b)
        if a is not b and self.last.get(id(c)) != j:
            for x, other in ((a, gb), (b, ga)):
                if x is not c and self.last.get(id(x)) == j and id(x) in self.reg:
                    d = self.take(x, j)
                    self("vfmadd.vv", d, other, self.value(c))
                    return d
        d = self.take(c, j)
        self("vfmacc.vv", d, ga, gb)
        return d

    def masked_mul(self, j: int) -> str:
        """``uitofp(m) * x`` as ``x`` with ``x * 0.0`` where ``m`` is false: one multiply under ``not m`` in ``v0``
        (:mod:`mtiacc.codegen.vector.masks`), in ``x``'s group when the multiply reads ``x`` last."""
        mm = self.masks.masked[j]
        elem = self.ops[j].result.type
        zero = ("d" if sew_of(elem) == 64 else "f", 0)
        self.consts.setdefault(zero, None)
        known = self.known.get(id(mm.mask))
        if known is True:
            return self.take(mm.x, j)
        m = self.value(mm.mask) if known is None else None
        d = self.take(mm.x, j)
        if m is not None and m != "v0":
            self("vmnand.mm", "v0", m, m)
        self.ensure(elem)
        self("vfmul.vf", d, d, self.consts[zero], *(() if known is False else ("v0.t",)))
        if self.last.get(id(mm.mask)) == j and id(mm.mask) in self.reg:
            self.release(self.reg.pop(id(mm.mask)))
        return d

    def _release_after(self, op, j: int) -> None:
        """Take back the groups of ``op``'s operands used last here, and of its result when nothing reads it."""
        for v in {id(v): v for v in op.operands}.values():
            if self.last.get(id(v)) == j and id(v) in self.reg:
                self.release(self.reg.pop(id(v)))
        if id(op.result) not in self.last and id(op.result) in self.reg:
            self.release(self.reg.pop(id(op.result)))

    def fold_known(self, op):
        """``("known", bool)`` or ``("alias", value)`` when ``op`` reads a mask in ``known`` and needs no
        instruction: a select on it is its chosen operand, ``and`` / ``or`` with it a constant or the other
        operand; else None."""
        if not self.known:
            return None
        k = [self.known.get(id(v)) for v in op.operands]
        if all(x is None for x in k):
            return None
        if isinstance(op, O.SelectOp) and k[0] is not None:
            return "alias", op.operands[1 if k[0] else 2]
        if isinstance(op, (O.AndIOp, O.OrIOp)) and op.result.type.element_type.is_bool():
            absorbing = not isinstance(op, O.AndIOp)      # and: false absorbs; or: true absorbs
            for i in (0, 1):
                if k[i] is not None:
                    return ("known", absorbing) if k[i] == absorbing else ("alias", op.operands[1 - i])
        return None

    def take(self, v: Value, j: int) -> str:
        """A group holding ``v`` for the result of op ``j``: ``v``'s own when ``j`` reads it last, else a copy."""
        g = self.value(v)
        if self.last.get(id(v)) == j:
            self.reg.pop(id(v), None)
            return g
        return self._copy(g, v)

    def _copy(self, g: str, v: Value) -> str:
        d = self.alloc()
        if v.type.element_type.is_bool():
            self("vmand.mm", d, g, g)
        else:
            self.ensure(v.type)
            self("vmv.v.v", d, g)
        return d

    def _renames(self, op, j: int) -> bool:
        """Whether ``op`` is a same-width bitcast at its operand's last use (its result can take the register)."""
        return isinstance(op, O.BitcastOp) and sew_of(op.src.type) == sew_of(op.result.type) \
            and self.last.get(id(op.src)) == j and not op.src.type.is_bool() and id(op.src) not in self.prefix

    # ---- the loop
    def memory(self) -> Dict[int, Src]:
        """The local-memory operands this loop reads or writes (key: id of the IR value)."""
        used = {id(v) for op in self.ops for v in op.operands}
        mem = {k: s for k, s in self.srcs.items() if k in used and not s.is_scalar}
        mem.update({id(op.result): self.stores[id(op.result)] for op in self.ops if id(op.result) in self.stores})
        return mem

    def per_chunk(self) -> bool:
        """Whether the loop computes masks or index ranges from the chunk's first element (``base``)."""
        return any(id(v) in self.prefix or id(v) in self.iotas for op in self.ops for v in op.operands)

    def emit(self, n: int, comment: str, start: int = 0) -> None:
        """The loop over elements ``start`` to ``start + n``."""
        count = self.b.x("n")
        self.b("li", count, n, comment=comment)
        self.setup(start)
        self.chunks(count)

    def setup(self, start: int) -> None:
        """The pointers (and the first element's index) at element ``start``."""
        b = self.b
        for k, s in self.memory().items():
            self.ptrs[k] = _pointer(b, s, start)
        if self.per_chunk():
            self.base = b.li(start, "base")

    def chunks(self, count: VReg) -> None:
        """The loop over the ``count`` elements from the pointers on, leaving them past the last."""
        b = self.b
        mem = self.memory()
        top = b.new_label("fused")
        self.vl = b.x("vl")
        b.label(top)
        m = f"m{self.lmul}"
        b("vsetvli", self.vl, count, f"e{self.wmax}, {m}, {self.masks.policy}")
        self.cur = (self.wmax, self.lmul)
        self.body()
        b("sub", count, count, self.vl)
        if self.base is not None:
            b("add", self.base, self.base, self.vl)
        steps: Dict[int, VReg] = {}
        for k, s in mem.items():
            nb = elem_bytes(s.elem)
            if nb not in steps:
                steps[nb] = b.x("step")
                shift = nb.bit_length() - 1
                b("slli", steps[nb], self.vl, shift) if shift else b("mv", steps[nb], self.vl)
            b("add", self.ptrs[k], self.ptrs[k], steps[nb])
        b("bnez", count, top)


def _pointer(b, s: Src, start: int) -> VReg:
    """A register pointing at element ``start`` of local-memory operand ``s``."""
    p = b.x("p")
    off = start * elem_bytes(s.elem)
    if isinstance(s.addr, int):
        b("li", p, s.addr + off)
    elif off == 0:
        b("mv", p, s.addr)
    else:
        b("add", p, s.addr, b.li(off))
    return p


def _emit_pairs(b, a: Segment, c: Segment, pairs: int, vlmax: int, comment: str) -> None:
    """``pairs`` iterations over two chunks of ``vlmax`` elements each, ``a`` computing the first and ``c`` the
    second in registers of their own: two independent chains the scheduler interleaves, so that each fills the
    other's latencies (a long dependent chain alone stalls the in-order vector unit at every step)."""
    count = b.x("n")
    b("li", count, pairs, comment=comment + ", two chunks an iteration")
    steps: Dict[int, int] = {}
    for k, s in a.memory().items():
        a.ptrs[k], c.ptrs[k] = _pointer(b, s, 0), _pointer(b, s, vlmax)
        steps[k] = 2 * vlmax * elem_bytes(s.elem)
    if a.per_chunk():
        a.base = b.li(0, "base")
        c.base = b.x("base")
    avl = b.li(vlmax, "vlmax")
    top = b.new_label("fused")
    b.label(top)
    a.vl = c.vl = b.x("vl")
    b("vsetvli", a.vl, avl, f"e{a.wmax}, m{a.lmul}, {a.masks.policy}")
    a.cur = (a.wmax, a.lmul)
    if c.base is not None:
        b("addi", c.base, a.base, vlmax)
    j = 0
    while j < len(a.ops):   # op by op: each chunk's chain between the other's dependent steps; from a compare
        run = a.masks.reader.get(j, j) + 1 - j        # into v0 to its reader, one chunk's run and then the other's
        for seg in (a, c):
            for i in range(j, j + run):
                seg.step(i, a.ops[i])
            (c if seg is a else a).cur = seg.cur
        j += run
    b("addi", count, count, -1)
    if a.base is not None:
        b("addi", a.base, a.base, 2 * vlmax)
    for k, step in steps.items():
        for p in (a.ptrs[k], c.ptrs[k]):
            b("addi", p, p, step) if -2048 <= step < 2048 else b("add", p, p, b.li(step))
    b("bnez", count, top)


# A chain of at least this many ops runs two chunks an iteration (:func:`_emit_pairs`) where it fits
PAIR_MIN_OPS = 24
# the register groups of the two chunks at LMUL 2
PAIR_POOLS = (POOLS[2][:7], POOLS[2][7:14])


def _loop(b, lw: Lowering, work, lmul, wmax, srcs, scalars, stores, consts, numel, comment, prefix=None, known=None,
          iotas=None) -> None:
    """The loop of a one-segment chain: pairs of chunks at LMUL 2 where the chain is long and fits, the rest
    (or all of it) one chunk an iteration at ``lmul``."""
    args = (b, work)
    kw = dict(se=lw.se, prefix=prefix, known=known, iotas=iotas)
    vlmax = lw.target.vlen_bits * 2 // wmax
    pairs = numel // (2 * vlmax)
    done = 0
    if len(work) >= PAIR_MIN_OPS and pairs and lmul == 4 \
            and all(_fits(*args, 2, wmax, srcs, scalars, stores, consts, pool=pool, **kw) for pool in PAIR_POOLS):
        a, c = (Segment(*args, 2, wmax, srcs, scalars, stores, consts, dry=False, pool=pool, **kw)
                for pool in PAIR_POOLS)
        _emit_pairs(b, a, c, pairs, vlmax, comment)
        done = pairs * 2 * vlmax
    if done < numel:
        Segment(*args, lmul, wmax, srcs, scalars, stores, consts, dry=False, **kw).emit(numel - done, comment, done)


# the register groups of the two rows of a pair at LMUL 4
ROW_PAIR_POOLS = (POOLS[4][:3], POOLS[4][3:6])


def _by_row_pairs(b, lw: Lowering, work, wmax, srcs, scalars, stores, consts, rows: Dict[int, tuple], shape,
                  comment: str) -> bool:
    """Two rows an iteration (the module docstring), when ``R`` is even, a row fits one chunk at LMUL 4 and the
    chain fits :data:`ROW_PAIR_POOLS`; False (nothing emitted) otherwise."""
    R, C = shape
    if R % 2 or C > lw.target.vlen_bits * 4 // wmax:
        return False
    segs = []
    for pool in ROW_PAIR_POOLS:
        own = {k: (b.f("row") if src.elem.is_float() else b.x("row"), src) for k, (_, src) in rows.items()}
        mine = dict(srcs)
        mine.update({k: Src(src.elem, scalar=reg) for k, (reg, src) in own.items()})
        if not _fits(b, work, 4, wmax, mine, scalars, stores, consts, lw.se, pool=pool):
            return False
        segs.append((Segment(b, work, 4, wmax, mine, scalars, stores, consts, dry=False, se=lw.se, pool=pool), own))
    (a, a_rows), (c, c_rows) = segs
    count = b.x("rows")
    b("li", count, R // 2, comment=comment + ", two rows at a time")
    steps: Dict[int, int] = {}
    for k, s in a.memory().items():
        a.ptrs[k], c.ptrs[k] = _pointer(b, s, 0), _pointer(b, s, C)
        steps[k] = 2 * C * elem_bytes(s.elem)
    cols = [(_pointer(b, src, 0), _pointer(b, src, 1), ra, c_rows[k][0], src) for k, (ra, src) in a_rows.items()]
    avl = b.li(C, "n")
    top = b.new_label("rows")
    b.label(top)
    for pa, pc, ra, rc, src in cols:
        b(ROW_LOADS[src.elem], ra, Mem(pa, 0))
        b(ROW_LOADS[src.elem], rc, Mem(pc, 0))
    a.vl = c.vl = b.x("vl")
    b("vsetvli", a.vl, avl, f"e{wmax}, m4, {a.masks.policy}")
    a.cur = c.cur = (wmax, 4)
    j = 0
    while j < len(work):   # op by op, a compare into v0 and its reader kept together (as in _emit_pairs)
        run = a.masks.reader.get(j, j) + 1 - j
        for seg in (a, c):
            for i in range(j, j + run):
                seg.step(i, work[i])
            (c if seg is a else a).cur = seg.cur
        j += run
    for pa, pc, _, _, src in cols:
        b("addi", pa, pa, 2 * elem_bytes(src.elem))
        b("addi", pc, pc, 2 * elem_bytes(src.elem))
    for k, step in steps.items():
        for p in (a.ptrs[k], c.ptrs[k]):
            b("addi", p, p, step) if -2048 <= step < 2048 else b("add", p, p, b.li(step))
    b("addi", count, count, -1)
    b("bnez", count, top)
    return True


def _by_rows(b, seg: Segment, rows: Dict[int, tuple], shape, comment: str) -> None:
    """``seg``'s loop run a row at a time: each row loads its element of the row-broadcast columns (``rows``:
    id of a region argument -> (its scalar register, the column's :class:`Src`)) into their scalar registers,
    then runs the chunks of the row."""
    used = {id(v) for op in seg.ops for v in op.operands}
    mine = [(reg, src) for k, (reg, src) in rows.items() if k in used]
    count = b.x("rows")
    b("li", count, shape[0], comment=comment + ", a row at a time")
    seg.setup(0)
    ptrs = [(_pointer(b, src, 0), reg, src) for reg, src in mine]
    top = b.new_label("rows")
    b.label(top)
    for p, reg, src in ptrs:
        b(ROW_LOADS[src.elem], reg, Mem(p, 0))
        b("addi", p, p, elem_bytes(src.elem))
    seg.chunks(b.li(shape[1], "n"))
    b("addi", count, count, -1)
    b("bnez", count, top)


def _fits(b, ops, lmul, wmax, srcs, scalars, stores, consts, se=mathlib.NO_SE, prefix=None, known=None,
          iotas=None, pool=None) -> bool:
    seg = Segment(b, ops, lmul, wmax, srcs, scalars, stores, consts, dry=True, se=se, prefix=prefix, known=known,
                  iotas=iotas, pool=pool)
    seg.vl = None
    try:
        seg.body()
    except OutOfRegisters:
        return False
    return True


def lower(lw: Lowering, op: FusedElementwiseOp) -> None:
    """Emit the loop(s) of ``op``: inputs from ``lw``'s buffers and registers, results to new buffers."""
    b = lw.b
    outs = [r for r in op.results if id(r) in lw.demanded]
    if not outs:
        return
    inner = op.inner_ops()
    yielded = op.block.terminator.values
    srcs: Dict[int, Src] = {}
    prefix: Dict[int, VReg] = {}
    iotas: Dict[int, VReg] = {}
    shape = op.results[0].type.shape
    rows: Dict[int, tuple] = {}     # region argument -> (scalar register, column): read a scalar a row
    for a, v in zip(op.block.args, op.inputs):
        col = row_source(v, shape) if v.type.is_block() else None
        if col is not None:
            s = lw.src(col)
            if s.is_scalar:
                srcs[id(a)] = Src(a.type, scalar=s.scalar)
            else:
                reg = b.f("row") if a.type.is_float() else b.x("row")
                rows[id(a)] = (reg, Src(a.type, addr=s.addr))
                srcs[id(a)] = Src(a.type, scalar=reg)
            continue
        pm = prefix_mask(v) if v.type.is_block() else None
        if pm is not None:   # bound - start: how many of the block's elements are set
            prefix[id(a)] = b.x("bound")
            b("subw", prefix[id(a)], lw.get(pm[1]), lw.get(pm[0]))
            continue
        start = iota(v) if v.type.is_block() else None
        if start is not None:
            iotas[id(a)] = lw.get(start)
            continue
        srcs[id(a)] = lw.src(v) if v.type.is_block() else Src(v.type, scalar=lw.get(v))
    stores: Dict[int, Src] = {}
    work_last = next((c for c in reversed(inner) if not isinstance(c, O.ConstantOp)), None)
    for r, y in zip(op.results, yielded):
        if id(r) in lw.demanded:
            home = (control.carried_home(lw, op, r) if len(op.results) == 1 and getattr(y, "op", None) is work_last else None)
            stores[id(y)] = Src(r.type.element_type, addr=home.offset if home else lw.result_addr_in_place(op, r))
            if id(y) in srcs:  # a yielded input: copy it through the loop
                raise CompileError("internal: tt.fused_elementwise yields one of its inputs")
    scalars: Dict[int, VReg] = {}
    for c in inner:
        if isinstance(c, O.ConstantOp):
            scalars[id(c.result)] = constant(b, c.value, c.result.type)
    types = [a.type for a in op.block.args] + [c.result.type for c in inner]
    wmax = max(sew_of(t) for t in types)
    consts: Dict[tuple, Optional[VReg]] = {}
    work = [c for c in inner if not isinstance(c, O.ConstantOp)]
    comment = f"{op.name} ({len(work)} ops)"
    temps: List[Buffer] = []
    numel = op.results[0].type.numel
    whole = {k: True for k in prefix}
    if _fits(b, work, 4, wmax, srcs, scalars, stores, consts, lw.se, prefix, iotas=iotas):
        plan = [(work, 4)]
    else:
        plan = _split(b, work, wmax, srcs, scalars, stores, consts, lw, numel, temps, prefix, iotas)
    # one loop: its whole-chunk version at the same LMUL (a loop cut in segments keeps its masks)
    lmul = plan[0][1]
    versioned = bool(prefix) and len(plan) == 1 and _fits(b, work, lmul, wmax, srcs, scalars, stores, consts, lw.se,
                                                         known=whole, iotas=iotas)
    mathlib._materialize(b, consts)
    if rows:    # no prefix masks or index ranges (1-D only) in a loop over 2-D blocks
        if len(plan) == 1 and _by_row_pairs(b, lw, work, wmax, srcs, scalars, stores, consts, rows, shape, comment):
            return
        for ops, seg_lmul in plan:
            _by_rows(b, Segment(b, ops, seg_lmul, wmax, srcs, scalars, stores, consts, dry=False, se=lw.se),
                     rows, shape, comment)
        for buf in temps:
            lw.lmem.free(buf)
        return
    if versioned:   # every prefix mask whole (bound >= numel): the loop without them
        partial, join = b.new_label("partial"), b.new_label("whole")
        n = b.li(numel, "n")
        for bound in prefix.values():
            b("blt", bound, n, partial)
        _loop(b, lw, work, lmul, wmax, srcs, scalars, stores, consts, numel, comment + ", its masks whole",
              known=whole, iotas=iotas)
        b("j", join)
        b.label(partial)
    if len(plan) == 1:
        _loop(b, lw, work, lmul, wmax, srcs, scalars, stores, consts, numel, comment, prefix=prefix, iotas=iotas)
    else:
        for ops, seg_lmul in plan:
            Segment(b, ops, seg_lmul, wmax, srcs, scalars, stores, consts, dry=False, se=lw.se, prefix=prefix,
                    iotas=iotas).emit(numel, comment)
    if versioned:
        b.label(join)
    for buf in temps:  # intermediates between segments
        lw.lmem.free(buf)


def _split(b, work, wmax, srcs, scalars, stores, consts, lw: Lowering, numel: int, temps: List[Buffer], prefix,
           iotas):
    """Cut ``work`` into segments that each fit at LMUL 2; values crossing a cut go through memory."""
    plan = []
    start = 0
    n = len(work)
    while start < n:
        end = n
        while end > start + 1 and not _fits(b, work[start:end], 2, wmax, srcs, scalars, stores, consts, lw.se,
                                            prefix, iotas=iotas):
            end -= 1
        if not _fits(b, work[start:end], 2, wmax, srcs, scalars, stores, consts, lw.se, prefix, iotas=iotas):
            raise CompileError(f"internal: '{work[start].name}' does not fit the vector registers")
        seg = work[start:end]
        later = {id(v) for op in work[end:] for v in op.operands}
        for op in seg:
            r = op.result
            if id(r) in later and id(r) not in stores:
                buf = lw.lmem.alloc(numel * elem_bytes(r.type), f"a fused intermediate of type {r.type}", op.loc)
                temps.append(buf)
                stores[id(r)] = Src(r.type, addr=buf.offset)
                srcs[id(r)] = Src(r.type, addr=buf.offset)
            elif id(r) in later:
                srcs[id(r)] = stores[id(r)]
        plan.append((seg, 2))
        start = end
    return plan

