"""Which earlier stores a load may read the bytes of: the order the DMA engine does not keep for the compiler.

A PE's transfers into local memory and out of it run on two channels, in no order between them, and the machine
compares no DRAM or SRAM addresses between them (docs/architecture.md, "DMA channels"): a load issued while an
earlier store over the same bytes is still in flight may read the old bytes.  Triton promises one program that a
load after its store sees the store, so a load that may read what an earlier store writes waits for the stores in
flight first (codegen asks for the wait; ``insert-waits`` keeps it only where such a store may be in flight).

The rules, for a load and a store that runs before it (earlier in the same trip of the loops around both, or in
an earlier trip of one of them):

* pointers computed from two different parameters: apart, unless the function's ``may_alias`` names both in one
  group (a launch passed memory they share: then they may overlap).  mtiacc assumes that distinct pointer
  parameters do not share memory otherwise (``pointers.py``; ``licm``, ``pipeline-loads``, ``keep-invariant``
  assume it too); the launcher compiles the ``may_alias`` variant for a launch whose arguments share memory.
* a pointer not computed from a parameter by offsets and shape ops (a loop-carried pointer, one chosen by
  ``tl.where``, an integer made a pointer): it may meet any store.
* the same parameter: the offsets' affine forms (``affine_nd``, scalar integer arithmetic expanded) give each
  access an interval of elements; the two are apart when the difference of their starts is a constant that keeps
  the intervals apart.  A store of an earlier trip of a ``scf.for`` with a constant step: the difference grows
  by the loop's step times the coefficient of its induction variable each trip back, and every one of those
  differences must keep them apart; every other value the offsets use must be defined outside that loop.
  Otherwise (a stride or difference not constant, masks aside) they may overlap.
* the earlier trips of ``persistent-programs``' loop over a slot's programs are other programs: Triton orders no
  program's accesses against another's (the sanitizer's data-race rule reports such a pair), so they are not
  compared; nor are two accesses of one trip computed for two of its programs (its copies of the body run the
  programs ``program``, ``program + 64``, ...: ``_programs``), nor a store in the loop and a load after it (the
  loop holds the whole kernel; what follows it is ``pipeline-loads``' odd last trip, a program no trip ran).
  Accesses of one program are compared.

``dram_hazards(func)`` gives each load (``tt.load``, ``mtia.async_copy``) that may read what an earlier store writes
the reason for the first such store, which ``access-plan`` writes on the load (``after_store``).

Atomics: an atomic is performed by the atomic unit of its memory, reached over the network apart from the DMA
engine, which compares no addresses with it either.  An atomic whose ``sem`` has a release (``release``,
``acq_rel``: the machine's ``.rl``) issues only once every earlier transfer has completed, and one whose ``sem``
has an acquire (``acquire``, ``acq_rel``: ``.aq``) holds the core until it is performed; the others need the
compiler's order, by the same rules:

* an atomic without release that may update bytes an earlier store writes is one more reader of
  ``dram_hazards`` (``after_store`` on it: it waits for the stores in flight first);
* a load, async copy or store that may access bytes an earlier atomic without acquire updates:
  ``atomic_hazards(func)`` gives the reason for the first such atomic, which ``access-plan`` writes on the op
  (``after_atomic``: a ``fence``, which waits for the program's atomics, precedes its transfers).
"""
from __future__ import annotations

from typing import Callable, Dict, FrozenSet, List, Optional, Tuple

from mtiacc.ir import ops as O
from mtiacc.ir.analysis.affine_nd import Poly, nd_affine, pointer_nd
from mtiacc.ir.analysis.pointers import may_share, root_pointer
from mtiacc.ir.atomic_ops import ATOMIC_OPS, AtomicCASOp, AtomicRMWOp
from mtiacc.ir.core import BlockArgument, Operation, OpResult, Value
from mtiacc.ir.mtia import AsyncCopyOp
from mtiacc.ir.mtia.kept import SlotFlushOp
from mtiacc.ir.scf import ForOp, WhileOp
from mtiacc.ir.shape_ops import ExpandDimsOp, ReshapeOp

_SHAPE = (O.SplatOp, O.BroadcastOp, ExpandDimsOp, ReshapeOp)
_EXPAND = (O.AddIOp, O.SubIOp, O.MulIOp, O.ConstantOp, O.ExtSIOp)

# An access: (the parameter, the offset of its first element as a polynomial, its elements' interval relative to
# that (lo, hi), the element's bytes), the offset None when the rules cannot follow it; None when the pointer is not
# computed from a parameter.
Access = Optional[Tuple[BlockArgument, Poly, Tuple[int, int], int]]


def _expand(p: Poly, depth: int = 0) -> Poly:
    """``p`` with every scalar integer its terms name that is a sum, difference, product, constant or
    sign-extension of others written out (an induction variable, a parameter, a loaded scalar stay names)."""
    out = Poly()
    for coef, vals in p.monomials():
        term = Poly.const(coef)
        for v in vals:
            if depth < 16 and isinstance(v, OpResult) and isinstance(v.op, _EXPAND) and not v.type.is_block():
                op = v.op
                if isinstance(op, O.ConstantOp):
                    sub = Poly.const(int(op.value))
                elif isinstance(op, O.ExtSIOp):
                    sub = _expand(Poly.var(op.src), depth + 1)
                else:
                    a, b = _expand(Poly.var(op.lhs), depth + 1), _expand(Poly.var(op.rhs), depth + 1)
                    sub = a + b if isinstance(op, O.AddIOp) else a - b if isinstance(op, O.SubIOp) else a * b
            else:
                sub = Poly.var(v)
            term = term * sub
        out = out + term
    return out


def _offsets(v: Value):
    """(the pointer's scalar base, the offset of element 0, the per-axis strides) of a pointer (block), or None."""
    op = v.op if isinstance(v, OpResult) else None
    if not v.type.is_block():
        if isinstance(op, O.AddPtrOp):
            inner, off = _offsets(op.ptr), nd_affine(op.offset)
            if inner is None or off is None:
                return None
            return inner[0], inner[1] + off.start, []
        return v, Poly(), []
    if isinstance(op, O.SplatOp):
        inner = _offsets(op.src)
        return None if inner is None else (inner[0], inner[1], [Poly() for _ in v.type.shape])
    if isinstance(op, _SHAPE):   # (the affine analysis knows the strides of a shape op's result)
        nd = pointer_nd(v)
        if nd is None:
            return None
        inner = _offsets(nd[0])
        return None if inner is None else (inner[0], inner[1] + nd[1].start, nd[1].strides)
    if isinstance(op, O.AddPtrOp):
        inner, off = _offsets(op.ptr), nd_affine(op.offset)
        if inner is None or off is None:
            return None
        return inner[0], inner[1] + off.start, [a + b for a, b in zip(inner[2], off.strides)]
    return None


def access_of(ptr: Value) -> Access:
    """What the rules know of an access through ``ptr`` (``Access``)."""
    param = root_pointer(ptr)
    if param is None:
        return None
    got = _offsets(ptr)
    if got is None or got[0] is not param:
        return param, None, (0, 0), 0
    _base, start, strides = got
    lo = hi = 0
    shape = ptr.type.shape if ptr.type.is_block() else ()
    for s, n in zip(strides, shape):
        k = s.as_const()
        if k is None:
            return param, None, (0, 0), 0
        lo, hi = lo + min(0, k * (n - 1)), hi + max(0, k * (n - 1))
    return param, _expand(start), (lo, hi), param.type.pointee.bytes


def _inside(v: Value, loop: Operation) -> bool:
    """Whether ``v`` is defined inside ``loop``'s regions (an argument of one of its blocks included)."""
    op = v.block.parent.parent if isinstance(v, BlockArgument) else v.op
    while op is not None:
        if op is loop:
            return True
        block = op.parent
        op = block.parent.parent if block is not None and block.parent is not None else None
    return False


def _meets(d: int, r: Tuple[int, int], w: Tuple[int, int]) -> bool:
    """Whether elements ``d + r[0] .. d + r[1]`` meet ``w[0] .. w[1]``."""
    return w[0] - r[1] <= d <= w[1] - r[0]


def _meets_any(d0: int, m: int, r, w) -> bool:
    """Whether ``d0 + m * k`` meets (``_meets``) for some trip back ``k >= 1``."""
    lo, hi = w[0] - r[1], w[1] - r[0]
    if m == 0:
        return lo <= d0 <= hi
    if m < 0:
        d0, m, lo, hi = -d0, -m, -hi, -lo
    k = max(1, -((d0 - lo) // m))      # the first trip back whose difference reaches lo
    return d0 + m * k <= hi


def _why_overlap(load: Access, store: Access, loops: List[Operation], same_trip: bool) -> Optional[str]:
    """Why the load may read what the store writes (None: provably apart).  ``loops``: the loops around both,
    outermost first; ``same_trip``: the store comes first in the same trip of all of them."""
    if load is None or store is None:
        return "a pointer not computed from a parameter by offsets"
    if load[0] is not store[0]:
        if may_share(load[0], store[0]):    # the launch passed memory both share: offsets of two bases
            return "parameters the launch passes shared memory for (may_alias)"
        return None       # distinct parameters: apart (the module docstring)
    if load[1] is None or store[1] is None:
        return "the same parameter, at offsets the analysis cannot follow"
    if load[3] != store[3]:
        return "the same parameter, through pointers of different element sizes"
    d = load[1] - store[1]
    dc = d.as_const()
    if same_trip:
        if dc is None:
            return "the same parameter, at offsets whose difference is not a constant"
        if _meets(dc, load[2], store[2]):
            return "the same parameter, at overlapping offsets"
    for loop in loops:
        # the store in an earlier trip of ``loop`` (the same trip of the loops around it)
        if isinstance(loop, ForOp) and loop.persistent:
            continue      # its trips are other programs, which Triton does not order against this one
        values = [v for _c, vals in list(load[1].monomials()) + list(store[1].monomials()) for v in vals]
        iv = loop.induction_var if isinstance(loop, ForOp) else None
        if any(_inside(v, loop) and v is not iv for v in values):
            return "the same parameter, at offsets that change across the trips of a loop around both"
        if dc is None:
            return "the same parameter, at offsets whose difference is not a constant"
        coef = 0
        for c, vals in store[1].monomials():
            if iv is not None and any(v is iv for v in vals):
                if len(vals) != 1:
                    return "the same parameter, at offsets not linear in a loop's induction variable"
                coef = c
        step = _const(loop.step) if coef else 0
        if step is None:
            return "the same parameter, in a loop whose step is not a constant"
        if _meets_any(dc, coef * step, load[2], store[2]):
            return "the same parameter, at offsets an earlier trip of a loop around both stores to"
    return None


def _programs(ptr: Value, loop: ForOp) -> FrozenSet[int]:
    """Which of the programs a trip of ``persistent-programs``' ``loop`` runs the pointer ``ptr`` is computed for:
    ``c`` for each value its computation reads that is the loop's program (0) or that program plus a constant
    ``c`` (the loop's copies of the body run the programs ``program``, ``program + 64`` ...)."""
    iv, seen, found, todo = loop.induction_var, set(), set(), [ptr]
    while todo:
        v = todo.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if v is iv:
            found.add(0)
            continue
        if not isinstance(v, OpResult):
            continue
        op = v.op
        if isinstance(op, O.AddIOp) and (op.lhs is iv or op.rhs is iv):
            c = _const(op.rhs if op.lhs is iv else op.lhs)
            if c is not None:
                found.add(c)
                continue
        todo.extend(op.operands)
    return frozenset(found)


def _const(v: Value) -> Optional[int]:
    if isinstance(v, OpResult) and isinstance(v.op, O.ConstantOp):
        return int(v.op.value)
    return None


def _other_program(load: Value, store: Value, loop: Operation) -> bool:
    """Whether, in a trip of ``persistent-programs``' ``loop``, the two pointers are computed for two different
    programs (the loop's copies of the body, ``pipeline-loads``' next program's tiles)."""
    if not (isinstance(loop, ForOp) and loop.persistent):
        return False
    a, b = _programs(load, loop), _programs(store, loop)
    return len(a) == 1 and len(b) == 1 and a != b


_NO_RELEASE, _NO_ACQUIRE = ("relaxed", "acquire"), ("relaxed", "release")


def _reader(op: Operation) -> Optional[Value]:
    """The pointer of a load, an async copy, or an atomic that does not wait for the transfers before it."""
    if isinstance(op, (O.LoadOp, AsyncCopyOp)):
        return op.ptr
    return op.ptr if isinstance(op, ATOMIC_OPS) and op.sem in _NO_RELEASE else None


def _writer(op: Operation) -> Optional[Value]:
    if isinstance(op, O.StoreOp):
        return op.ptr
    return op.dst if isinstance(op, SlotFlushOp) else None


def _transfer(op: Operation) -> Optional[Value]:
    """The pointer of an op whose DMA transfers move DRAM bytes: a load, an async copy, a store."""
    return op.ptr if isinstance(op, (O.LoadOp, AsyncCopyOp, O.StoreOp)) else None


def _atomic(op: Operation) -> Optional[Value]:
    """The pointer of an atomic that the core does not wait for (no acquire): it may be in flight after it."""
    return op.ptr if isinstance(op, ATOMIC_OPS) and op.sem in _NO_ACQUIRE else None


def _name(op: Operation) -> str:
    if isinstance(op, O.StoreOp):
        return "tl.store"
    if isinstance(op, AtomicCASOp):
        return "tl.atomic_cas"
    if isinstance(op, AtomicRMWOp):
        return "tl.atomic_" + {"fadd": "add", "umax": "max", "umin": "min"}.get(op.kind, op.kind)
    return op.name


def _hazards(func: O.FuncOp, reader: Callable[[Operation], Optional[Value]],
             writer: Callable[[Operation], Optional[Value]], every: bool = False) -> Dict[Operation, object]:
    """Each op ``reader`` gives a pointer for that may access bytes an earlier op ``writer`` gives a pointer for
    writes: why, naming the first such writer (``every``: the list of every such writer, in program order)."""
    order: List[Tuple[Operation, Tuple[Operation, ...]]] = []   # every op, in program order, with its loops

    def visit(op: Operation, loops: Tuple[Operation, ...]) -> None:
        order.append((op, loops))
        inner = loops + (op,) if isinstance(op, (ForOp, WhileOp)) else loops
        for r in op.regions:
            for b in r.blocks:
                for o in b.ops:
                    visit(o, inner)
    for r in func.regions:
        for b in r.blocks:
            for o in b.ops:
                visit(o, ())
    stores = [(i, op, loops, writer(op)) for i, (op, loops) in enumerate(order) if writer(op) is not None]
    stores = [(i, op, loops, ptr, access_of(ptr)) for i, op, loops, ptr in stores]
    out: Dict[Operation, str] = {}
    for i, (op, loops) in enumerate(order):
        ptr = reader(op) if stores else None
        if ptr is None:
            continue
        load = access_of(ptr)
        for j, st, st_loops, st_ptr, store in stores:
            if st is op:
                continue
            common = [lp for lp, other in zip(loops, st_loops) if lp is other]
            if j > i and not common:
                continue        # after the load, and no loop brings it back before it
            if any(_other_program(ptr, st_ptr, lp) for lp in common) \
                    or any(isinstance(lp, ForOp) and lp.persistent and lp not in loops for lp in st_loops):
                continue        # another program's store: Triton does not order it against this load
            why = _why_overlap(load, store, common, same_trip=j < i)
            if why is not None and every:
                out.setdefault(op, []).append(st)
            elif why is not None:
                line = f" at line {st.loc.line}" if st.loc is not None else ""
                out[op] = f"{_name(st)}{line}: {why}"
                break
    return out


def dram_hazards(func: O.FuncOp) -> Dict[Operation, str]:
    """Each load of ``func`` (and atomic whose ``sem`` has no release) that may read DRAM (or SRAM) bytes an
    earlier store writes: why, naming the first such store (``"tl.store at line 8: the same parameter, at
    overlapping offsets"``)."""
    return _hazards(func, _reader, _writer)


def hazard_stores(func: O.FuncOp) -> Dict[Operation, FrozenSet[Operation]]:
    """For each op ``dram_hazards`` gives a reason for, every earlier store (``tt.store``, ``mtia.slot_flush``) it
    may read the bytes of, not only the first: codegen's wait before it waits for those stores and leaves the
    transfers issued after the last of them in flight (``waits.after_store``)."""
    return {op: frozenset(sts) for op, sts in _hazards(func, _reader, _writer, every=True).items()}


def atomic_hazards(func: O.FuncOp) -> Dict[Operation, str]:
    """Each load, async copy and store of ``func`` that may access DRAM (or SRAM) bytes an earlier atomic whose
    ``sem`` has no acquire updates: why, naming the first such atomic (``"tl.atomic_add at line 8: the same
    parameter, at overlapping offsets"``)."""
    return _hazards(func, _transfer, _atomic)


__all__ = ["dram_hazards", "hazard_stores", "atomic_hazards", "access_of"]
