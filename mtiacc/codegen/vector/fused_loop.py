"""The loop of a ``tt.fused_elementwise``: register allocation and emission of one run of the region's ops
(:class:`Segment`), the inputs the loop computes rather than reads (prefix masks, index ranges), and the pointers
it walks.  ``codegen/tensor/fused.py`` (its docstring says how a chain runs) builds the loops from segments.
"""
from __future__ import annotations

from typing import Dict, FrozenSet, List, Optional, Set, Tuple

from mtiacc.codegen import mathlib
from mtiacc.codegen.vector import masks as fused_masks
from mtiacc.codegen.vector.blocks import (CASTS, FLOAT_COMPARE, INT_COMPARE, SCALAR_COMPARE, SCALAR_FORMS, SWAPPED,
                                          VECTOR_BINARY, pick_scalar_form)
from mtiacc.codegen.machine.mir import VMem, VReg
from mtiacc.codegen.vector.vloop import Src, elem_bytes, sew_of
from mtiacc.diagnostics import CompileError
from mtiacc.ir import ops as O
from mtiacc.ir.analysis.fused_inputs import iota, prefix_mask  # noqa: F401  (fused.py reads them here)
from mtiacc.ir.core import Operation, OpResult, Value
from mtiacc.ir.fused import BOOL_CASTS
from mtiacc.ir.types import f16, f32, f64, i1, i32


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


def _half_cast(op) -> bool:
    """Whether ``op`` is ``arith.truncf`` f32 -> f16 or ``arith.extf`` f16 -> f32 (fuse-elementwise fuses these
    width changes: the narrow side runs at half the LMUL, at the same ``vl``)."""
    pair = (op.src.type.element_type, op.result.type.element_type)
    return pair == ((f32, f16) if isinstance(op, O.TruncFOp) else (f16, f32))


# the vector unit's float arithmetic -> the SE ALU instruction computing the same (mathlib/se.py: ALU)
SE_ALU = {f"vf{op}.{form}": f"mtia.se.f{op}.{form}" for op in ("add", "sub", "mul", "min", "max")
          for form in ("vv", "vf")}
SE_ALU["vfrsub.vf"] = "mtia.se.frsub.vf"


def _is(v: Value, cls) -> bool:
    return isinstance(v, OpResult) and isinstance(v.op, cls)



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

    def __init__(self, b, ops: List, lmul: int, wmax: int, srcs: Dict[Value, Src], scalars: Dict[Value, VReg],
                 stores: Dict[Value, Src], consts: Dict[tuple, Optional[VReg]], dry: bool,
                 se: FrozenSet[str] = mathlib.NO_SE, prefix: Optional[Dict[Value, VReg]] = None,
                 known: Optional[Dict[Value, bool]] = None, iotas: Optional[Dict[Value, VReg]] = None,
                 pool: Optional[tuple] = None, se_mem: bool = False):
        self.b, self.ops, self.lmul, self.wmax, self.se = b, ops, lmul, wmax, se
        self.se_alu = mathlib.se_unit.ALU in se
        # the SE's own loads and stores (mtia.se.vle / vse) move the 16- and 32-bit blocks (:meth:`move`)
        self.se_mem = se_mem and self.se_alu
        self.prefix = prefix or {}   # mask inputs computed per chunk: id -> the bound (elements from the start)
        self.iotas = iotas or {}     # index inputs computed per chunk: id -> the start (the first element's value)
        self.known: Dict[Value, bool] = dict(known or {})   # i1 values known whole (true) or empty (false)
        self.base: Optional[VReg] = None   # the chunk's first element (when there are prefix masks or iotas)
        self.srcs, self.scalars, self.stores, self.consts, self.dry = srcs, scalars, stores, consts, dry
        self.free: List[str] = list(pool or POOLS[lmul])
        self.reg: Dict[Value, str] = {}
        self.ptrs: Dict[Value, VReg] = {}
        self.cur = None
        # stores held back until this segment's next step (None: stored at once): see :meth:`flush`
        self.pending: Optional[List[Tuple[Value, str]]] = None
        # values whose row sum the loop computes in place of storing them: value -> (the m1 register of the sum,
        # the pointer to the row's sum); their groups wait in ``sums`` for the pair loop (tensor/fused.py)
        self.row_sums: Dict[Value, Tuple[str, VReg]] = {}
        self.sums: List[Tuple[str, str, VReg]] = []
        self.last: Dict[Value, int] = {}
        for j, op in enumerate(ops):
            for v in op.operands:
                self.last[v] = j
        self.masks = fused_masks.plan(ops, stores)
        for j, mm in self.masks.masked.items():   # a masked multiply reads its mask, not the cast
            self.last[mm.mask] = max(self.last.get(mm.mask, -1), j)

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
        if v in self.scalars:
            return self.scalars[v]
        src = self.srcs.get(v)
        return src.scalar if src is not None and src.is_scalar else None

    def _scalar(self, v: Value):
        """The x or f register of ``v`` when it is a scalar broadcast not already in a vector group."""
        if v in self.reg or v.type.element_type.is_bool():
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
        if v in self.reg:
            return self.reg[v]
        g = self.alloc()
        elem = v.type
        if v in self.known:    # a mask known whole or empty, where an op needs it as a register
            self.ensure(i1)
            self("vmset.m" if self.known[v] else "vmclr.m", g)
        elif v in self.iotas:    # element i of the chunk: start + base + i
            at = self.b.x("at")
            self("add", at, self.iotas[v], self.base)
            self.ensure(i32)
            self("vid.v", g)
            self("vadd.vx", g, g, at)
        elif v in self.prefix:   # element i of the chunk: i < bound - base (the scalar core subtracts)
            t, rel = self.alloc(), self.b.x("rel")
            self("sub", rel, self.prefix[v], self.base)
            self.ensure(i32)
            self("vid.v", t)
            self("vmslt.vx", g, t, rel)
            self.release(t)
        elif v in self.scalars or v in self.srcs and self.srcs[v].is_scalar:
            r = self.scalars[v] if v in self.scalars else self.srcs[v].scalar
            if elem.is_bool():
                self.ensure(i1)
                self("vmv.v.x", g, r)
                self("vmsne.vi", g, g, 0)
            else:
                self.ensure(elem)
                self("vfmv.v.f" if elem.is_float() else "vmv.v.x", g, r)
        else:
            sew = self.ensure(elem)
            self(self.move("vle", sew), g, VMem(self.ptrs.get(v)))
            if elem.is_bool():
                self("vmsne.vi", g, g, 0)
        self.reg[v] = g
        return g

    def store(self, v: Value, g: str) -> None:
        elem = v.type
        if v in self.row_sums:
            self.sums.append((g, *self.row_sums[v]))
            return
        if self.pending is not None and not elem.is_bool():
            self.pending.append((v, g))
            return
        if elem.is_bool():
            t = self.alloc()
            self.ensure(i1)
            self("vmand.mm", "v0", g, g)
            self("vmv.v.i", t, 0)
            self("vmerge.vim", t, t, 1, "v0")
            self("vse8.v", t, VMem(self.ptrs.get(v)))
            self.release(t)
            return
        sew = self.ensure(elem)
        self(self.move("vse", sew), g, VMem(self.ptrs.get(v)))

    def move(self, kind: str, sew: int) -> str:
        """The unit-stride load (``kind`` ``vle``) or store (``vse``) of ``sew``-bit elements: the SE's own
        (``mtia.se.vle32.v``) where this loop moves its blocks through the SE (``se_mem``: the rows of a loop by rows,
        ``tensor/fused.py``), so that the vector unit, at 32 bytes a cycle, keeps only the
        conversions and reductions; else the vector unit's."""
        return f"mtia.se.{kind}{sew}.v" if self.se_mem and sew in (16, 32) else f"{kind}{sew}.v"

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
        if sa == sb or (a if sb else b) in self.scalars:
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

    def arith(self, mn: str, elem) -> str:
        """``mn`` (a vector-unit instruction of float arithmetic) or, at fp32 and fp16 when the target has an SE, the
        SE ALU instruction computing the same bits: the SE takes 32 elements a cycle beside the vector unit (8 fp32
        or 16 fp16 a cycle), which keeps the loop's loads, stores, conversions and reductions."""
        return SE_ALU[mn] if self.se_alu and mn in SE_ALU and elem in (f32, f16) else mn

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
                self(self.arith(VECTOR_BINARY[type(op)], elem), d, g[0], g[1])
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
            if isinstance(op, O.TruncFOp):   # on the SE where its rows move through it (the vector unit reduces)
                self("mtia.se.fncvt.f.f.w" if self.se_mem else "vfncvt.f.f.w", d, g[0])
            else:
                self("vfwcvt.f.f.v", d, g[0])
        elif type(op) in CASTS and sew_of(op.src.type) == sew_of(op.result.type):
            self.ensure(op.result.type)
            self(CASTS[type(op)], d, g[0])
        elif isinstance(op, O.BitcastOp) and sew_of(op.src.type) == sew_of(op.result.type):
            self.ensure(op.result.type)
            self("vmv.v.v", d, g[0])
        else:
            raise CompileError(f"'{op.name}' on blocks of {op.result.type} is not supported yet")
        return d

    def flush(self) -> None:
        """Emit the stores held back (``pending``): a segment that runs beside another (two rows an iteration)
        holds a result's store until its own next step, so that the other's step (its load, its arithmetic)
        issues first on the in-order vector unit instead of waiting behind a store that waits for this result.
        Its group is not reused before then: the segments' pools are their own, and the next step comes after."""
        if not self.pending:
            return
        held, self.pending = self.pending, None
        for v, g in held:
            self.store(v, g)
        self.pending = []

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
                self.known[op.result] = what
                if op.result in self.stores:
                    self.store(op.result, self.value(op.result))
            else:
                res = self.take(what, j)
                self.reg[op.result] = res
                if op.result in self.stores:
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
                self(self.arith(mn, vec.type), res, g, sreg)
            elif self._renames(op, j):   # the same bits under another type, in the register they are in
                res = self.reg.pop(op.src) if op.src in self.reg else self.value(op.src)
                self.reg.pop(op.src, None)
            else:
                regs = self.scalar_operands(op)
                g = [self.scalar(v) if i in regs else self.value(v) for i, v in enumerate(op.operands)]
                res = self.compute(op, g, pred)
            if j in self.masks.to_v0 and self.masks.to_v0[j] and pred == op.predicate:
                self("vmnand.mm", "v0", "v0", "v0")   # no inverse predicate: v0 = not m
        except CompileError as e:
            e.loc = e.loc or op.loc
            raise
        self.reg[op.result] = res
        if op.result in self.stores:
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
        f = next((i for i, v in enumerate((a, b)) if self.scalar(v) is not None and v not in self.reg), None)
        if f is not None and a is not b:
            fs, v = self.scalar((a, b)[f]), (a, b)[1 - f]
            if self.last.get(v) == j and v in self.reg and self.last.get(c) != j:
                d = self.take(v, j)
                self("vfmadd.vf", d, fs, self.value(c))
                return d
            gv = self.value(v)
            d = self.take(c, j)
            self("vfmacc.vf", d, fs, gv)
            return d
        ga, gb = self.value(a), self.value(b)
        if a is not b and self.last.get(c) != j:
            for x, other in ((a, gb), (b, ga)):
                if x is not c and self.last.get(x) == j and x in self.reg:
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
        known = self.known.get(mm.mask)
        if known is True:
            return self.take(mm.x, j)
        m = self.value(mm.mask) if known is None else None
        d = self.take(mm.x, j)
        if m is not None and m != "v0":
            self("vmnand.mm", "v0", m, m)
        self.ensure(elem)
        self("vfmul.vf", d, d, self.consts[zero], *(() if known is False else ("v0.t",)))
        if self.last.get(mm.mask) == j and mm.mask in self.reg:
            self.release(self.reg.pop(mm.mask))
        return d

    def _release_after(self, op, j: int) -> None:
        """Take back the groups of ``op``'s operands used last here, and of its result when nothing reads it."""
        for v in {v: v for v in op.operands}.values():
            if self.last.get(v) == j and v in self.reg:
                self.release(self.reg.pop(v))
        if op.result not in self.last and op.result in self.reg:
            self.release(self.reg.pop(op.result))

    def fold_known(self, op):
        """``("known", bool)`` or ``("alias", value)`` when ``op`` reads a mask in ``known`` and needs no
        instruction: a select on it is its chosen operand, ``and`` / ``or`` with it a constant or the other
        operand; else None."""
        if not self.known:
            return None
        k = [self.known.get(v) for v in op.operands]
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
        if self.last.get(v) == j:
            self.reg.pop(v, None)
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
            and self.last.get(op.src) == j and not op.src.type.is_bool() and op.src not in self.prefix

    # ---- the loop
    def memory(self) -> Dict[Value, Src]:
        """The local-memory operands this loop reads or writes (key: id of the IR value)."""
        used = {v for op in self.ops for v in op.operands}
        mem = {k: s for k, s in self.srcs.items() if k in used and not s.is_scalar}
        mem.update({op.result: self.stores[op.result] for op in self.ops
                    if op.result in self.stores and op.result not in self.row_sums})
        return mem

    def per_chunk(self) -> bool:
        """Whether the loop computes masks or index ranges from the chunk's first element (``base``)."""
        return any(v in self.prefix or v in self.iotas for op in self.ops for v in op.operands)

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
