"""The SSA core: values, operations declared as classes, blocks, regions.

An op is declared once, as a class, and everything else derives from the declaration::

    class AddIOp(Operation):
        name = "arith.addi"
        lhs = operand(IntLike)
        rhs = operand(IntLike)
        result = result(IntLike)
        traits = frozenset({Pure, Elementwise, SameOperandsAndResultType})

The declaration gives the accessors (``op.lhs``, ``op.result``), a generic verifier (arity and
type constraints), the registry used by the printer and the parser, and the generic text form.
An op adds only its own rules in ``verify_`` and its folding in ``fold``.
"""
from __future__ import annotations

import itertools
from typing import Any, Callable, ClassVar, Dict, Iterator, List, Optional, Sequence

from mtiacc.diagnostics import CompileError, SourceLocation
from mtiacc.ir.types import Type


class VerifyError(CompileError):
    """The IR broke one of its invariants."""


# --------------------------------------------------------------------------- values

_VALUE_SEQ = itertools.count()


class Value:
    __slots__ = ("type", "uses", "name_hint", "seq")

    def __init__(self, type: Type, name_hint: Optional[str] = None):
        self.type = type
        self.uses: List["Use"] = []
        self.name_hint = name_hint
        # Creation order: a deterministic key where values must be ordered (``id()`` differs from run to run).
        self.seq = next(_VALUE_SEQ)

    @property
    def owner(self):
        raise NotImplementedError

    def replace_all_uses_with(self, new: "Value") -> None:
        for use in list(self.uses):
            use.op.set_operand(use.index, new)

    def has_uses(self) -> bool:
        return bool(self.uses)


class OpResult(Value):
    __slots__ = ("op", "index")

    def __init__(self, type: Type, op: "Operation", index: int):
        super().__init__(type)
        self.op = op
        self.index = index

    @property
    def owner(self) -> "Operation":
        return self.op


class BlockArgument(Value):
    __slots__ = ("block", "index")

    def __init__(self, type: Type, block: "Block", index: int, name_hint: Optional[str] = None):
        super().__init__(type, name_hint)
        self.block = block
        self.index = index

    @property
    def owner(self) -> "Block":
        return self.block


class Use:
    __slots__ = ("op", "index")

    def __init__(self, op: "Operation", index: int):
        self.op = op
        self.index = index


# --------------------------------------------------------------------------- declarations

class Constraint:
    """A predicate on types, with a name for messages."""

    def __init__(self, name: str, pred: Callable[[Type], bool]):
        self.name = name
        self.pred = pred

    def __call__(self, t: Type) -> bool:
        return self.pred(t)


AnyType = Constraint("any type", lambda t: True)
IntLike = Constraint("integer or block of integers", lambda t: t.is_int())
FloatLike = Constraint("float or block of floats", lambda t: t.is_float())
NumLike = Constraint("number or block of numbers", lambda t: t.is_int() or t.is_float())
BoolLike = Constraint("i1 or block of i1", lambda t: t.is_bool())
PtrLike = Constraint("pointer or block of pointers", lambda t: t.is_ptr())
ScalarInt = Constraint("scalar integer", lambda t: t.is_int() and not t.is_block())
ScalarBool = Constraint("i1 scalar", lambda t: t.is_bool() and not t.is_block())
BlockLike = Constraint("block", lambda t: t.is_block())


class _Def:
    order = 0

    def __init__(self):
        _Def.order += 1
        self.order = _Def.order
        self.name = ""

    def __set_name__(self, owner, name):
        self.name = name


class operand(_Def):
    def __init__(self, constraint: Constraint = AnyType, optional: bool = False, variadic: bool = False):
        super().__init__()
        self.constraint = constraint
        self.optional = optional
        self.variadic = variadic

    def __get__(self, op, owner=None):
        if op is None:
            return self
        start, size = op._segment(self.index)
        if self.variadic:
            return op.operands[start:start + size]
        return op.operands[start] if size else None


def opt_operand(constraint: Constraint = AnyType) -> operand:
    return operand(constraint, optional=True)


def var_operand(constraint: Constraint = AnyType) -> operand:
    return operand(constraint, variadic=True)


class result(_Def):
    def __init__(self, constraint: Constraint = AnyType, variadic: bool = False):
        super().__init__()
        self.constraint = constraint
        self.variadic = variadic

    def __get__(self, op, owner=None):
        if op is None:
            return self
        if self.variadic:
            return op.results
        return op.results[self.index]


class attribute(_Def):
    """A declared attribute: its Python ``kind`` (a type or a tuple of types; ``int`` does not admit ``bool``
    unless ``bool`` is listed too), ``of`` the kind of a list's items, whether the op must carry it, the value
    ``op.NAME`` reads when an optional one is absent, and ``doc``: what it says, in a phrase (and, for a marker
    a pass leaves, which pass). The verifier rejects an attribute an op does not declare; docs/architecture.md
    lists every op's (``python -m mtiacc.ir --write``)."""

    def __init__(self, kind: type | tuple = object, optional: bool = False, default: Any = None, doc: str = "",
                 of: type | tuple | None = None):
        super().__init__()
        self.kind = kind
        self.optional = optional
        self.default = default
        self.doc = doc
        self.of = of

    def __get__(self, op, owner=None):
        if op is None:
            return self
        return op.attrs.get(self.name, self.default)

    def admits(self, value: Any) -> bool:
        """Whether ``value`` is of the declared kind (and its items of ``of``)."""
        if not _is_kind(value, self.kind):
            return False
        return self.of is None or all(_is_kind(x, self.of) for x in value)

    def kind_name(self) -> str:
        """The kind as the docs spell it: ``int``, ``str | int``, ``list of str``."""
        spelled = " | ".join(k.__name__ for k in _kinds(self.kind))
        return spelled + (f" of {' | '.join(k.__name__ for k in _kinds(self.of))}" if self.of is not None else "")


def _kinds(kind) -> tuple:
    return kind if isinstance(kind, tuple) else (kind,)


def _is_kind(value: Any, kind) -> bool:
    kinds = _kinds(kind)
    if isinstance(value, bool) and bool not in kinds and object not in kinds:
        return False   # True is an int to Python, not to an attribute declared int
    return isinstance(value, kinds)


class region(_Def):
    def __get__(self, op, owner=None):
        if op is None:
            return self
        return op.regions[self.index]


# Traits: plain marker classes, tested with `Trait in op.traits`.
class Pure: """No side effects: removable when unused."""
class Elementwise: """Applies per element to blocks."""
class SameOperandsAndResultType: """Every operand and the result share one type."""
class Commutative: """lhs and rhs may be swapped."""
class Terminator: """Ends a block."""
class ConstantLike: """Materializes a constant attribute `value`."""
class IsolatedFromAbove: """Its regions use no value defined outside them (passes stop at the boundary)."""


OP_REGISTRY: Dict[str, type] = {}


class Operation:
    name: ClassVar[str] = ""
    traits: ClassVar[frozenset] = frozenset()
    _operand_defs: ClassVar[List[operand]] = []
    _result_defs: ClassVar[List[result]] = []
    _attr_defs: ClassVar[List[attribute]] = []
    _attr_by_name: ClassVar[Dict[str, attribute]] = {}
    _region_defs: ClassVar[List[region]] = []

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        defs = [v for k in reversed(cls.__mro__) for v in vars(k).values() if isinstance(v, _Def)]
        # Keep declaration order; a subclass may redeclare a name.
        by_name: Dict[str, _Def] = {}
        for d in defs:
            by_name[d.name] = d
        ordered = sorted(by_name.values(), key=lambda d: d.order)
        cls._operand_defs = [d for d in ordered if isinstance(d, operand)]
        cls._result_defs = [d for d in ordered if isinstance(d, result)]
        cls._attr_defs = [d for d in ordered if isinstance(d, attribute)]
        cls._attr_by_name = {d.name: d for d in cls._attr_defs}
        cls._region_defs = [d for d in ordered if isinstance(d, region)]
        for group in (cls._operand_defs, cls._result_defs, cls._region_defs):
            for i, d in enumerate(group):
                d.index = i
        if cls.name:
            if cls.name in OP_REGISTRY and OP_REGISTRY[cls.name] is not cls:
                raise TypeError(f"op {cls.name} declared twice")
            OP_REGISTRY[cls.name] = cls

    def __init__(self, operands: Sequence[Value] = (), result_types: Sequence[Type] = (),
                 attrs: Optional[Dict[str, Any]] = None, loc: Optional[SourceLocation] = None,
                 regions: Sequence["Region"] = (), segments: Optional[Sequence[int]] = None):
        self.operands: List[Value] = []
        self.results: List[OpResult] = [OpResult(t, self, i) for i, t in enumerate(result_types)]
        self.attrs: Dict[str, Any] = dict(attrs or {})
        self.loc = loc
        self.parent: Optional[Block] = None
        self.regions: List[Region] = []
        for r in regions:
            self.add_region(r)
        self.segments: Optional[List[int]] = list(segments) if segments is not None else None
        for v in operands:
            self._append_operand(v)

    # ---- operands
    def _append_operand(self, v: Value) -> None:
        if not isinstance(v, Value):
            raise TypeError(f"{self.name}: operand {v!r} is not an IR value")
        self.operands.append(v)
        v.uses.append(Use(self, len(self.operands) - 1))

    def set_operand(self, index: int, new: Value) -> None:
        old = self.operands[index]
        old.uses = [u for u in old.uses if not (u.op is self and u.index == index)]
        self.operands[index] = new
        new.uses.append(Use(self, index))

    def drop_operands(self) -> None:
        for i, v in enumerate(self.operands):
            v.uses = [u for u in v.uses if not (u.op is self and u.index == i)]
        self.operands = []

    def _segment(self, index: int):
        """(start, size) of operand group `index`."""
        if self.segments is None:
            return index, 1
        start = sum(self.segments[:index])
        # trailing optional operands may be left out of the segments (absent): an op that gained one keeps the
        # segments it printed before
        return start, self.segments[index] if index < len(self.segments) else 0

    @property
    def result(self) -> OpResult:
        if len(self.results) != 1:
            raise ValueError(f"{self.name} has {len(self.results)} results")
        return self.results[0]

    # ---- structure
    def add_region(self, r: "Region") -> None:
        r.parent = self
        self.regions.append(r)

    def walk(self) -> Iterator["Operation"]:
        """This op and every op nested in its regions, in pre-order."""
        yield self
        for r in self.regions:
            for b in r.blocks:
                for op in list(b.ops):
                    yield from op.walk()

    def erase(self) -> None:
        for r in self.results:
            if r.uses:
                raise ValueError(f"erasing {self.name} whose result is still used")
        for r in self.regions:
            for b in r.blocks:
                for op in reversed(list(b.ops)):
                    op.drop_operands()
        self.drop_operands()
        if self.parent is not None:
            self.parent.ops.remove(self)
            self.parent = None

    def has_trait(self, trait) -> bool:
        return trait in self.traits

    # ---- verification
    def verify(self) -> None:
        """Generic checks from the declaration, then the op's own `verify_`."""
        n_defs = len(self._operand_defs)
        if self.segments is not None:
            missing = self._operand_defs[len(self.segments):]
            if len(self.segments) > n_defs or sum(self.segments) != len(self.operands) \
                    or any(not (d.optional or d.variadic) for d in missing):
                self._fail(f"operand segments {self.segments} do not match {len(self.operands)} operands")
        elif len(self.operands) != n_defs:
            self._fail(f"expected {n_defs} operands, got {len(self.operands)}")
        if self.segments is None:       # one value an operand, in order
            for d, v in zip(self._operand_defs, self.operands):
                if not d.constraint(v.type):
                    self._fail(f"operand '{d.name}' must be {d.constraint.name}, got {v.type}")
        else:
            for d in self._operand_defs:
                start, size = self._segment(d.index)
                if size == 0 and not (d.optional or d.variadic):
                    self._fail(f"operand '{d.name}' is required")
                if size > 1 and not d.variadic:
                    self._fail(f"operand '{d.name}' takes one value")
                for v in self.operands[start:start + size]:
                    if not d.constraint(v.type):
                        self._fail(f"operand '{d.name}' must be {d.constraint.name}, got {v.type}")
        variadic_results = any(d.variadic for d in self._result_defs)
        if not variadic_results and len(self.results) != len(self._result_defs):
            self._fail(f"expected {len(self._result_defs)} results, got {len(self.results)}")
        if not variadic_results:
            for d, r in zip(self._result_defs, self.results):
                if not d.constraint(r.type):
                    self._fail(f"result '{d.name}' must be {d.constraint.name}, got {r.type}")
        self.verify_attributes()
        if len(self.regions) != len(self._region_defs):
            self._fail(f"expected {len(self._region_defs)} regions, got {len(self.regions)}")
        if SameOperandsAndResultType in self.traits:
            types = {v.type for v in self.operands} | {r.type for r in self.results}
            if len(types) > 1:
                self._fail("operands and result must have the same type, got "
                           + ", ".join(sorted(map(str, types))))
        self.verify_()

    def verify_attributes(self, require: bool = True) -> None:
        """Every attribute the op carries is one it declares, of its declared kind; with ``require``, every
        required one is there."""
        for key in self.attrs:
            if key not in self._attr_by_name:
                self._fail(self.undeclared_attribute(key))
        for d in self._attr_defs:
            if d.name not in self.attrs:
                if require and not d.optional:
                    self._fail(f"missing attribute '{d.name}'")
            elif not d.admits(self.attrs[d.name]):
                self._fail(self.attribute_of_another_kind(d.name, self.attrs[d.name]))

    @classmethod
    def undeclared_attribute(cls, key: str) -> str:
        """What the verifier and the IR parser say of an attribute ``key`` the op does not declare."""
        names = ", ".join(f"'{d}'" for d in cls._attr_by_name) or "none"
        return f"has attribute '{key}', which '{cls.name}' does not declare (it declares: {names})"

    @classmethod
    def attribute_of_another_kind(cls, key: str, value: Any) -> str:
        """What the verifier and the IR parser say of a declared attribute ``key`` whose ``value`` is not of its
        kind."""
        return f"attribute '{key}' must be {cls._attr_by_name[key].kind_name()}, got {value!r}"

    def verify_(self) -> None:
        """Op-specific rules; override."""

    def fold(self):
        """Return a constant attribute value (or an existing Value) this op folds to, or None."""
        return None

    def _fail(self, message: str):
        raise VerifyError(f"'{self.name}' op {message}", self.loc)

    def __repr__(self) -> str:
        return f"<{self.name} at {self.loc}>"


# --------------------------------------------------------------------------- blocks, regions

class Block:
    def __init__(self, arg_types: Sequence[Type] = (), arg_names: Sequence[Optional[str]] = ()):
        names = list(arg_names) + [None] * (len(arg_types) - len(arg_names))
        self.args: List[BlockArgument] = [BlockArgument(t, self, i, n)
                                          for i, (t, n) in enumerate(zip(arg_types, names))]
        self.ops: List[Operation] = []
        self.parent: Optional[Region] = None

    def add_arg(self, t: Type, name: Optional[str] = None) -> BlockArgument:
        a = BlockArgument(t, self, len(self.args), name)
        self.args.append(a)
        return a

    def append(self, op: Operation) -> Operation:
        op.parent = self
        self.ops.append(op)
        return op

    def insert_before(self, anchor: Operation, op: Operation) -> Operation:
        op.parent = self
        self.ops.insert(self.ops.index(anchor), op)
        return op

    @property
    def terminator(self) -> Optional[Operation]:
        if self.ops and Terminator in self.ops[-1].traits:
            return self.ops[-1]
        return None


class Region:
    def __init__(self, blocks: Sequence[Block] = ()):
        self.blocks: List[Block] = []
        self.parent: Optional[Operation] = None
        for b in blocks:
            self.add_block(b)

    def add_block(self, b: Block) -> Block:
        b.parent = self
        self.blocks.append(b)
        return b

    @property
    def block(self) -> Block:
        return self.blocks[0]


class Builder:
    """Appends ops to a block at the current source location."""

    def __init__(self, block: Block, loc: Optional[SourceLocation] = None):
        self.block = block
        self.loc = loc

    def insert(self, op: Operation) -> Operation:
        """Append `op`, giving it the builder's location unless it has its own."""
        if op.loc is None:
            op.loc = self.loc
        return self.block.append(op)
