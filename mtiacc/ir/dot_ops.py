"""The matrix product ``tt.dot`` (``tl.dot``, ``a @ b``).

``tt.dot %a, %b, %acc`` is ``a @ b + acc`` over the last two dimensions: ``a`` is ``[B,] M x K``, ``b`` is
``[B,] K x N`` and ``acc`` (which is also the result type: Triton's ``out_dtype``) ``[B,] M x N``; a leading batch
dimension ``B``, when present, is the same on all three.  ``tl.dot`` without ``acc`` passes a block of zeros.

The operand and accumulator element types Triton accepts:

* ``f16`` or ``bf16`` operands (both the same), ``f32`` accumulator (``f16`` operands also accumulate in ``f16``);
* 8-bit float operands (any two of the fp8 formats), ``f32`` or ``f16`` accumulator;
* ``i8`` operands, ``i32`` accumulator; ``u8`` operands, ``u32`` or ``i32`` accumulator;
* ``f32`` operands, ``f32`` accumulator, with ``input_precision`` ``ieee`` (exact products), ``tf32``, ``tf32x3``,
  ``bf16x3`` or ``bf16x6`` (what these mean on this machine: ``docs/language.md``); ``f64`` operands with ``f64`` accumulator (``ieee``).

``max_num_imprecise_acc`` is kept as Triton's hint (this machine always accumulates in the accumulator type).

``accumulator = "engine"`` (the ``dot-accumulators`` pass decides it) says that the accumulator stays in the matrix
engine across the enclosing ``scf.for``: the dot is one of a chain in the loop body that starts at a carried value
(``acc`` is the loop's block argument, or the previous dot of the chain) and ends at the loop's yield, each link
used only by the next.  Codegen then clears or loads the accumulators once before the loop and stores them once
after it.

``read_back = "f16"`` or ``"bf16"`` (also ``dot-accumulators``'s decision, with its ``read-back`` option) says
that the engine's store of the fp32 accumulators (``acc.st``) writes that type, rounded to nearest even
(configuration register 6, ``out_type``), for the ``arith.truncf`` that is the only use of the result: of the
dot's result itself, or, on the last resident dot of a loop's chain (the one the yield passes on), of the loop's
result.  The ``arith.truncf`` then costs nothing (its result is the stored block).
"""
from __future__ import annotations

from typing import Optional

from mtiacc.ir.core import BlockLike, Operation, OpResult, Pure, Value, attribute, operand, result
from mtiacc.ir.types import FloatType, IntType, Type

INPUT_PRECISIONS = ("ieee", "tf32", "tf32x3", "bf16x3", "bf16x6")
SPLIT_PRECISIONS = ("tf32", "tf32x3", "bf16x3", "bf16x6")     # f32 operands split into bf16 parts for the engine


def split_parts(input_precision: str) -> int:
    """How many bf16 parts the engine's passes take of each f32 operand at ``input_precision`` (0: not split)."""
    if input_precision not in SPLIT_PRECISIONS:
        return 0
    return 3 if input_precision == "bf16x6" else 2
ACCUMULATOR_HOMES = ("engine",)
READ_BACK_TYPES = ("f16", "bf16")


def _kind(t: Type) -> str:
    if isinstance(t, FloatType):
        return "fp8" if t.is_fp8 else t.kind
    if isinstance(t, IntType) and t.width == 8:
        return "i8" if t.signed else "u8"
    return str(t)


# operand kind -> the accumulator types allowed with it
ACCUMULATORS = {"f16": ("f32", "f16"), "bf16": ("f32",), "fp8": ("f32", "f16"), "i8": ("i32",),
                "u8": ("u32", "i32"), "f32": ("f32",), "f64": ("f64",)}


class DotOp(Operation):
    """``a @ b + acc`` (2-D, or batched 3-D)."""

    name = "tt.dot"
    a = operand(BlockLike)
    b = operand(BlockLike)
    acc = operand(BlockLike)
    result = result(BlockLike)
    input_precision = attribute(str, optional=True,
                                doc="how f32 operands are multiplied: ieee, tf32, tf32x3, bf16x3 or bf16x6")
    max_num_imprecise_acc = attribute(int, optional=True, doc="Triton's hint, kept (the engine accumulates exactly)")
    accumulator = attribute(str, optional=True,
                            doc='"engine": the accumulator stays in the matrix engine across the loop '
                                "(`dot-accumulators`)")
    split = attribute(str, optional=True, doc="`split-dots`: which sub-tile of a dot too big for local memory this "
                      "dot adds (\"K 512 by 64: 2\", the third of the chain)")
    read_back = attribute(str, optional=True,
                          doc="the engine writes the result back as this narrower float, f16 or bf16 "
                              "(`dot-accumulators`)")
    early = attribute(bool, optional=True,
                      doc="`issue-dots-early`: moved up to just after the product the vector unit works on meanwhile")
    traits = frozenset({Pure})

    @classmethod
    def get(cls, a: Value, b: Value, acc: Value, input_precision: Optional[str] = None,
            max_num_imprecise_acc: Optional[int] = None, loc=None):
        attrs = {}
        if input_precision is not None:
            attrs["input_precision"] = input_precision
        if max_num_imprecise_acc is not None:
            attrs["max_num_imprecise_acc"] = max_num_imprecise_acc
        return cls([a, b, acc], [acc.type], attrs, loc=loc)

    @property
    def shape(self):
        """``(batch, M, N, K)``; batch is 1 for a 2-D dot."""
        sa, sb = self.a.type.shape, self.b.type.shape
        return (sa[0] if len(sa) == 3 else 1, sa[-2], sb[-1], sa[-1])

    def verify_(self):
        sa, sb, sc = self.a.type.shape, self.b.type.shape, self.acc.type.shape
        if len(sa) not in (2, 3) or len(sb) != len(sa) or len(sc) != len(sa):
            self._fail(f"operands must all be 2-D or all 3-D, got {self.a.type}, {self.b.type}, {self.acc.type}")
        if sa[-1] != sb[-2]:
            self._fail(f"the inner dimensions differ: {self.a.type} @ {self.b.type}")
        if tuple(sc[-2:]) != (sa[-2], sb[-1]) or (len(sa) == 3 and not sa[0] == sb[0] == sc[0]):
            self._fail(f"accumulator {self.acc.type} does not fit {self.a.type} @ {self.b.type}")
        if self.result.type != self.acc.type:
            self._fail("the result must have the accumulator's type")
        ka, kb = _kind(self.a.type.element_type), _kind(self.b.type.element_type)
        if ka != kb or ka not in ACCUMULATORS:
            self._fail(f"unsupported operand types {self.a.type.element_type} and {self.b.type.element_type}")
        if ka != "fp8" and self.a.type.element_type != self.b.type.element_type:
            self._fail(f"operand types differ: {self.a.type.element_type} and {self.b.type.element_type}")
        acc = str(self.acc.type.element_type)
        if acc not in ACCUMULATORS[ka]:
            self._fail(f"{ka} operands cannot accumulate in {acc} (allowed: {', '.join(ACCUMULATORS[ka])})")
        p = self.input_precision
        if p is not None and p not in INPUT_PRECISIONS:
            self._fail(f"unknown input_precision '{p}' (expected one of {', '.join(INPUT_PRECISIONS)})")
        if p not in (None, "ieee") and ka != "f32":
            self._fail(f"input_precision '{p}' applies to f32 operands only")
        if self.accumulator is not None:
            self._verify_resident()
        if self.read_back is not None:
            self._verify_read_back()

    def on_engine(self) -> bool:
        """Whether the matrix engine computes this dot (else exact products on the vector unit)."""
        ka = _kind(self.a.type.element_type)
        return ka in ("f16", "bf16", "fp8", "i8", "u8") or (ka == "f32" and self.input_precision in SPLIT_PRECISIONS)

    def read_back_cast(self) -> Optional[Operation]:
        """The ``arith.truncf`` to f16 / bf16 that is the only use of this dot's fp32 result (through the
        loop's result for the yielded dot of a resident chain), or None."""
        from mtiacc.ir.ops import TruncFOp
        from mtiacc.ir.scf import ForOp, YieldOp
        v = self.result
        if str(v.type.element_type) != "f32" or len(v.uses) != 1:
            return None
        use = v.uses[0]
        if self.accumulator == "engine":
            loop = self.parent.parent.parent if self.parent is not None and self.parent.parent is not None \
                else None
            if not (isinstance(use.op, YieldOp) and isinstance(loop, ForOp) and use.op.parent is loop.block):
                return None
            v = loop.results[use.index]
            if len(v.uses) != 1:
                return None
            use = v.uses[0]
        op = use.op
        if isinstance(op, TruncFOp) and op.fp8 is None and str(op.result.type.element_type) in READ_BACK_TYPES:
            return op
        return None

    def _verify_read_back(self):
        if self.read_back not in READ_BACK_TYPES:
            self._fail(f"unknown read_back '{self.read_back}' (expected one of {', '.join(READ_BACK_TYPES)})")
        if not self.on_engine() or str(self.acc.type.element_type) != "f32":
            self._fail("read_back applies to a dot the engine computes with an f32 accumulator")
        cast = self.read_back_cast()
        if cast is None or str(cast.result.type.element_type) != self.read_back:
            where = "the loop's result" if self.accumulator == "engine" else "the result"
            self._fail(f"read_back = \"{self.read_back}\": {where} must be used only by an arith.truncf to "
                       f"{self.read_back}")

    def _verify_resident(self):
        from mtiacc.ir.scf import ForOp, YieldOp
        if self.accumulator not in ACCUMULATOR_HOMES:
            self._fail(f"unknown accumulator '{self.accumulator}' (expected one of {', '.join(ACCUMULATOR_HOMES)})")
        if not self.on_engine():
            self._fail("accumulator = \"engine\" on a dot the engine does not compute")
        block = self.parent
        loop = block.parent.parent if block is not None and block.parent is not None else None
        if not isinstance(loop, ForOp):
            self._fail("accumulator = \"engine\" outside the body of an scf.for")
        acc = self.acc
        link = isinstance(acc, OpResult) and isinstance(acc.op, DotOp) and acc.op.accumulator == "engine" \
            and acc.op.parent is block
        if not (link or (acc in list(loop.iter_args))) or len(acc.uses) != 1:
            self._fail("accumulator = \"engine\": the accumulator must be the loop's carried value or the previous "
                       "resident dot, used only here")
        uses = self.result.uses
        if len(uses) != 1 or not (isinstance(uses[0].op, YieldOp) and uses[0].op.parent is block
                                  or isinstance(uses[0].op, DotOp) and uses[0].index == 2
                                  and uses[0].op.accumulator == "engine"):
            self._fail("accumulator = \"engine\": the result must feed only the next resident dot or the yield")


def read_back_bands(m: int, n: int) -> int:
    """Row bands the engine writes an ``m x n`` accumulator block back in (``acc.st`` band by band, each band's
    column groups in turn), so that a store can move each band while the engine writes the next: bands of at
    least 32 rows, and at most 16 ``acc.st`` commands in all (the engine's queue, and the command processor's
    record of the local bytes they write, which times a transfer after the commands writing its bytes)."""
    groups = -(-n // 32)
    bands = 1
    while m % (2 * bands) == 0 and m // (2 * bands) >= 32 and 2 * bands * groups <= 16:
        bands *= 2
    return bands


def read_back_source(op: Operation) -> Optional[DotOp]:
    """For an ``arith.truncf`` the engine's store of a dot's accumulators does (``read_back``): that dot."""
    from mtiacc.ir.scf import ForOp
    if op.name != "arith.truncf" or not op.operands:
        return None
    v = op.operands[0]
    if not isinstance(v, OpResult):
        return None
    d = v.op
    if isinstance(d, ForOp):
        y = d.block.terminator.operands[v.index]
        d = y.op if isinstance(y, OpResult) else None
    if isinstance(d, DotOp) and d.read_back is not None and d.read_back_cast() is op:
        return d
    return None
