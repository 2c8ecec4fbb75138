"""The program model: a random kernel as data, from which both the Triton source (:mod:`.emit`) and the numpy
reference (:mod:`.evaluate`) are derived.

Shapes are symbolic: each dimension is a string naming a product of the kernel's block dimensions
(``"A"``, ``"AB"``; the digits ``"1"`` and ``"2"`` stand for themselves), so the minimizer can shrink a dimension
everywhere at once.  The dims are constexpr parameters of the emitted kernel (``tl.arange(0, A)``).

Every load and store has its own buffer; a buffer is accessed at ``pid * span + offsets`` so programs never
share an output element (atomics excepted: they add integers, whose order does not matter).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

import numpy as np

# Triton dtype name -> (signature name, numpy storage dtype, numpy compute dtype)
DTYPES = {
    "int1": ("i1", np.bool_, np.bool_), "int8": ("i8", np.int8, np.int8), "int16": ("i16", np.int16, np.int16),
    "int32": ("i32", np.int32, np.int32), "int64": ("i64", np.int64, np.int64),
    "uint8": ("u8", np.uint8, np.uint8), "uint16": ("u16", np.uint16, np.uint16),
    "uint32": ("u32", np.uint32, np.uint32), "uint64": ("u64", np.uint64, np.uint64),
    "float16": ("fp16", np.float16, np.float16), "bfloat16": ("bf16", np.uint16, np.float32),
    "float32": ("fp32", np.float32, np.float32), "float64": ("fp64", np.float64, np.float64),
}
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]
# unit roundoff and significand bits (with the hidden bit)
UNIT = {"float16": 2.0 ** -11, "bfloat16": 2.0 ** -8, "float32": 2.0 ** -24, "float64": 2.0 ** -53}
PREC = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}
MAXF = {"float16": 65504.0, "bfloat16": 3.38e38, "float32": 3.4e38, "float64": 1.79e308}
MIN_NORMAL = {"float16": 2.0 ** -14, "bfloat16": 2.0 ** -126, "float32": 2.0 ** -126, "float64": 2.0 ** -1022}


def promote(a: str, b: str, div_or_mod: bool = False) -> str:
    """Triton's computation type of two tensors of dtypes ``a`` and ``b`` (``computation_type_impl``; int1 and
    fp8 left out)."""
    if "float64" in (a, b):
        return "float64"
    if div_or_mod and (is_float(a) or is_float(b)):
        return "float32"
    if "float32" in (a, b):
        return "float32"
    if "float16" in (a, b):
        return "float16"
    if a == b == "bfloat16":
        return "bfloat16"
    if "bfloat16" in (a, b):
        return "float32"
    wa, wb = width(a), width(b)
    ua, ub = a.startswith("u"), b.startswith("u")
    if ua == ub:
        return a if wa > wb else b
    if ua:
        return a if wa >= wb else b
    return b if wb >= wa else a


def is_float(t: str) -> bool:
    return t in FLOATS


def is_int(t: str) -> bool:
    return t in INTS


def width(t: str) -> int:
    return {"int1": 1, "float16": 16, "bfloat16": 16, "float32": 32, "float64": 64}.get(t) or int(t.lstrip("uint"))


Shape = Tuple[str, ...]


@dataclass(frozen=True)
class Ty:
    dtype: str
    shape: Shape = ()

    @property
    def rank(self) -> int:
        return len(self.shape)


# ---------------------------------------------------------------- expressions

@dataclass(frozen=True)
class Expr:
    ty: Ty

    def children(self) -> Tuple["Expr", ...]:
        return tuple(getattr(self, f.name) for f in dataclasses.fields(self)
                     if isinstance(getattr(self, f.name), Expr))

    def with_children(self, kids) -> "Expr":
        kids = list(kids)
        vals = {f.name: (kids.pop(0) if isinstance(getattr(self, f.name), Expr) else getattr(self, f.name))
                for f in dataclasses.fields(self)}
        return type(self)(**vals)


@dataclass(frozen=True)
class Var(Expr):
    name: str = ""


@dataclass(frozen=True)
class Arg(Expr):
    """A scalar kernel argument (run-time value)."""
    name: str = ""


@dataclass(frozen=True)
class ProgramId(Expr):
    pass


@dataclass(frozen=True)
class Full(Expr):
    value: object = 0


@dataclass(frozen=True)
class Arange(Expr):
    """``tl.arange(0, D)`` of the 1-D shape ``ty.shape``."""


@dataclass(frozen=True)
class Access:
    """Where a block of ``shape`` lives in its buffer, per program: ``perm`` orders the axes from outermost to
    innermost in memory, ``scale`` spreads them (strided access), ``bcast`` axes have stride 0 (the same element
    for the whole axis), ``kind``: "affine", "gather" (a random in-range index per element, from an index
    buffer), "scatter" (a permutation of the block's elements), "scalar" (element ``offset``), "block" (a 2-D
    block pointer, ``tl.make_block_ptr`` + ``tl.advance``, loaded with zero padding / stored under
    ``boundary_check``) and "desc" (a 2-D tensor descriptor, ``tl.make_tensor_descriptor`` + ``desc.load`` /
    ``desc.store``): both see the program's part of the buffer as a row-major ``(rows, cols)`` tensor and the
    block at a box offset that may stick out of it (``box``; :func:`box`)."""
    shape: Shape
    perm: Tuple[int, ...] = ()
    scale: int = 1
    bcast: Tuple[int, ...] = ()
    kind: str = "affine"
    index_buf: str = ""             # gather / scatter: the buffer holding the int32 indices
    mask: str = ""                  # "", "arg": flat offset < the scalar argument named by mask_arg, "half",
    #                                 "global": pid * numel + flat offset < mask_arg (programs wholly past it)
    mask_arg: str = ""
    mask_form: str = "lt"           # how the mask is spelled (emit.MASK_FORMS): offs <= N - 1, N > offs, ...
    reverse: bool = False           # affine: every axis runs backwards (negative strides from the block's end)
    far: bool = False               # an address far past the buffer: only in loops that never run (faults if read)
    other: object = 0
    offset: int = 0
    box: Tuple[int, ...] = ()       # block / desc: (rows - D0, cols - D1, off0, off1, adv0, adv1), see box()
    order: Tuple[int, ...] = (1, 0)  # block: make_block_ptr's order


@dataclass(frozen=True)
class Load(Expr):
    buf: str = ""
    access: Access = None


@dataclass(frozen=True)
class Bin(Expr):
    op: str = "+"
    a: Expr = None
    b: Expr = None


@dataclass(frozen=True)
class BinLit(Expr):
    """``a op literal`` (the literal takes ``a``'s type, Triton's rule for a literal of the same kind)."""
    op: str = "+"
    a: Expr = None
    lit: object = 0


@dataclass(frozen=True)
class Un(Expr):
    op: str = "neg"
    a: Expr = None


@dataclass(frozen=True)
class Cast(Expr):
    a: Expr = None
    bitcast: bool = False


@dataclass(frozen=True)
class Where(Expr):
    c: Expr = None
    a: Expr = None
    b: Expr = None


@dataclass(frozen=True)
class Reduce(Expr):
    """kind: sum, max, min, argmax, argmin, xor_sum, radd / rmax / rxor (tl.reduce with a combine function)."""
    kind: str = "sum"
    a: Expr = None
    axis: Optional[int] = 0
    keep: bool = False


@dataclass(frozen=True)
class Scan(Expr):
    """kind: cumsum, cumprod, sadd / smax (tl.associative_scan with a combine function)."""
    kind: str = "cumsum"
    a: Expr = None
    axis: int = 0
    reverse: bool = False


@dataclass(frozen=True)
class Reshape(Expr):
    a: Expr = None
    spelling: str = "reshape"       # "reshape", "view", "reorder" (can_reorder=True: kept in order, docs/language.md)


@dataclass(frozen=True)
class Promote(Expr):
    """``a op b`` of two different dtypes: Triton promotes both to ``ty.dtype`` (comparisons: to their
    computation type ``ctype``) before computing (``computation_type_impl``)."""
    op: str = "+"
    a: Expr = None
    b: Expr = None
    ctype: str = ""


@dataclass(frozen=True)
class Sort(Expr):
    """``tl.sort(a, descending=...)`` along the last dimension."""
    a: Expr = None
    descending: bool = False


@dataclass(frozen=True)
class Gather(Expr):
    """``tl.gather(src, index & (D - 1), axis)``: ``D`` is ``src``'s size along ``axis`` (a power of two)."""
    src: Expr = None
    index: Expr = None
    axis: int = 0


@dataclass(frozen=True)
class Cat(Expr):
    """``tl.cat(a, b, dim=dim)``: ``ty.shape[dim]`` is ``"2" + a.ty.shape[dim]``."""
    a: Expr = None
    b: Expr = None
    dim: int = 0


@dataclass(frozen=True)
class Fp8(Expr):
    """``a.to(tl.<fmt>).to(a's type)``: rounded to an fp8 format (nearest even, saturating) and back."""
    a: Expr = None
    fmt: str = "float8e5"


@dataclass(frozen=True)
class Permute(Expr):
    a: Expr = None
    perm: Tuple[int, ...] = ()
    spelling: str = "permute"       # "permute", "trans" (tl.trans(x)), "method" (x.T is not Triton: x.trans())


@dataclass(frozen=True)
class ExpandDims(Expr):
    a: Expr = None
    axis: int = 0
    spelling: str = "call"          # "call" or "index" (x[:, None])


@dataclass(frozen=True)
class Broadcast(Expr):
    a: Expr = None


@dataclass(frozen=True)
class Join(Expr):
    a: Expr = None
    b: Expr = None


@dataclass(frozen=True)
class SplitHalf(Expr):
    a: Expr = None
    which: int = 0


@dataclass(frozen=True)
class Dot(Expr):
    a: Expr = None
    b: Expr = None
    acc: Optional[Expr] = None


# ---------------------------------------------------------------- statements

@dataclass(frozen=True)
class Assign:
    name: str
    expr: Expr


@dataclass(frozen=True)
class Store:
    buf: str
    access: Access
    value: Expr


@dataclass(frozen=True)
class AtomicAdd:
    """``tl.atomic_add(buf + (flat(value's shape) % slots), value)``: integer adds into ``slots`` cells shared
    by every program."""
    buf: str
    value: Expr
    slots: int = 4


@dataclass(frozen=True)
class If:
    cond: Expr
    then: Tuple = ()
    orelse: Tuple = ()


@dataclass(frozen=True)
class For:
    var: str
    lo: int
    hi: object                      # int (static) or an Arg name (dynamic)
    body: Tuple = ()
    static: bool = False            # tl.static_range


@dataclass(frozen=True)
class While:
    var: str
    hi: object                      # int or Arg name
    body: Tuple = ()


@dataclass(frozen=True)
class Buffer:
    name: str
    dtype: str
    role: str                       # "in", "out", "index" (int32 indices of a gather or scatter), "atomic"


@dataclass(frozen=True)
class Kernel:
    dims: Dict[str, int]
    grid: int
    buffers: Tuple[Buffer, ...]
    args: Tuple[Tuple[str, str, int], ...]    # (name, dtype, value) scalar arguments
    body: Tuple
    seed: int = 0                   # the data's seed
    name: str = "kern"

    def replace(self, **kw) -> "Kernel":
        return dataclasses.replace(self, **kw)

    def size(self, entry: str) -> int:
        n = 1
        for ch in entry:
            n *= int(ch) if ch.isdigit() else self.dims[ch]
        return n

    def shape(self, shape: Shape) -> Tuple[int, ...]:
        return tuple(self.size(e) for e in shape)

    def buffer(self, name: str) -> Buffer:
        return next(b for b in self.buffers if b.name == name)


def numel(k: Kernel, shape: Shape) -> int:
    return int(np.prod(k.shape(shape), dtype=np.int64))


def strides(k: Kernel, acc: Access) -> Tuple[int, ...]:
    """Element strides of an affine access (0 on broadcast axes)."""
    dims = k.shape(acc.shape)
    perm = acc.perm or tuple(range(len(dims)))
    out = [0] * len(dims)
    s = acc.scale
    for ax in reversed(perm):
        if ax in acc.bcast:
            continue
        out[ax] = s
        s *= dims[ax]
    return tuple(out)


def box(k: Kernel, acc: Access) -> Tuple[int, int, int, int, int, int]:
    """(rows, cols, off0, off1, adv0, adv1) of a "block" or "desc" access: the program's tensor is ``rows x cols``
    (row-major, contiguous), the block of ``acc.shape`` starts at ``(off0, off1)`` (a block pointer is made at
    ``(off0 - adv0, off1 - adv1)`` and advanced by ``(adv0, adv1)``); elements outside the tensor read 0 and are
    not written."""
    d0, d1 = k.shape(acc.shape)
    dr, dc, o0, o1, a0, a1 = acc.box
    return max(1, d0 + dr), max(1, d1 + dc), o0, o1, a0, a1


def span(k: Kernel, acc: Access) -> int:
    """Elements one program reaches in its buffer (the buffer holds grid * span elements)."""
    if acc.kind in ("block", "desc"):
        rows, cols = box(k, acc)[:2]
        return rows * cols
    if acc.kind == "scalar":
        return acc.offset + 1
    if acc.kind in ("gather", "scatter"):
        return max(2 * numel(k, acc.shape), 1) if acc.kind == "gather" else numel(k, acc.shape)
    dims = k.shape(acc.shape)
    return 1 + sum((d - 1) * s for d, s in zip(dims, strides(k, acc)))


def walk_stmts(body):
    for s in body:
        yield s
        if isinstance(s, If):
            yield from walk_stmts(s.then)
            yield from walk_stmts(s.orelse)
        elif isinstance(s, (For, While)):
            yield from walk_stmts(s.body)


def walk_expr(e: Expr):
    yield e
    for c in e.children():
        yield from walk_expr(c)


def stmt_exprs(s):
    if isinstance(s, Assign):
        return [s.expr]
    if isinstance(s, (Store, AtomicAdd)):
        return [s.value]
    if isinstance(s, If):
        return [s.cond]
    return []


def count_nodes(k: Kernel) -> int:
    n = 0
    for s in walk_stmts(k.body):
        n += 1 + sum(sum(1 for _ in walk_expr(e)) for e in stmt_exprs(s))
    return n + k.grid + sum(k.dims.values())

