"""``tl.dot_scaled``: the matrix product of microscaled (MX) operands, built from the ops this chip has.

Same conventions as :mod:`mtiacc.frontend.language.dot`.  The matrix engine takes fp16 and bf16 operands
(no fp8 or fp4 ones, no per-group scales), so the product is decomposed in the frontend, and every step
is an ordinary op in the IR dump (bit operations, casts, ``tt.join``/``tt.trans``/``tt.reshape``, a
broadcast, ``arith.select``, then one ``tt.dot``):

* Formats: ``"e2m1"`` (two fp4 values per ``uint8`` byte, the even element in the low nibble),
  ``"e4m3"`` and ``"e5m2"`` (``uint8`` bytes or ``float8e4nv`` / ``float8e5`` blocks), ``"bf16"`` and
  ``"fp16"`` (``uint16`` bits or the float type).  fp4 is packed along K (``lhs [M, K/2]``,
  ``rhs [K/2, N]``); with ``lhs_k_pack=False`` (``rhs_k_pack=False``) along M (N) instead.
* Scales: ``uint8`` e8m0 blocks, one per 32 elements along K: ``lhs_scale [M, K/32]``, ``rhs_scale
  [N, K/32]`` (not transposed), or None.  Byte ``s`` is ``2**(s - 127)`` built as the f32 bits
  ``s << 23`` -- so ``s = 0`` gives 0, as the reference of Triton's ``test_scaled_dot`` has it -- and
  ``s = 255`` is NaN.
* The compute type is fp16 if either format is ``"fp16"``, else bf16.  Each operand is decoded to its
  exact value in f32 (fp4 and fp8 values are exact there), multiplied by its scale in f32 (exact: a
  power of two times a short significand stays within f32's range, subnormals included), and rounded
  once to the compute type; then ``tl.dot`` with f32 accumulation.
* ``acc`` (an f32 block of the result's shape) is added; ``out_dtype`` must be ``tl.float32``, as in
  Triton.  ``fast_math`` is accepted and changes nothing (NaN and infinity always propagate).
* Operands are 2-D or both 3-D (a batch; the scales then ``[B, M, K/32]``), with M, N, K at least 16.
"""
from __future__ import annotations

from typing import Dict, Optional

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language import shapes
from mtiacc.frontend.language.dot import MIN_DOT_SIZE, dot
from mtiacc.frontend.language.join import join
from mtiacc.frontend.language.semantic import Semantic, describe
from mtiacc.frontend.values import Builtin
from mtiacc.ir.core import Value
from mtiacc.ir.types import Type, bf16, f8e4nv, f8e5, f16, f32, u8, u16, u32

FN = "tl.dot_scaled"
GROUP = 32   # elements along K per e8m0 scale
# format -> (the float type of its values, the unsigned type holding their bits); e2m1 has no IR type
FORMATS = {"e2m1": (None, u8), "e4m3": (f8e4nv, u8), "e5m2": (f8e5, u8), "bf16": (bf16, u16), "fp16": (f16, u16)}


def _fail(msg: str) -> None:
    raise CompileError(f"{FN}: {msg}")


def _format(fmt, which: str) -> str:
    if not isinstance(fmt, str) or fmt not in FORMATS:
        got = repr(fmt) if isinstance(fmt, str) else describe(fmt)
        _fail(f"{which}_format must be one of {', '.join(map(repr, FORMATS))}, got {got}")
    return fmt


def _operand(sem: Semantic, x, fmt: str, which: str) -> Value:
    """The operand as a block of its format's IR type (bits are bitcast), or the ``uint8`` bytes of e2m1."""
    if not isinstance(x, Value) or not x.type.is_block():
        _fail(f"{which} must be a 2-D or 3-D block (not a scalar), got {describe(x)}")
    ftype, bits = FORMATS[fmt]
    elem = x.type.element_type
    if fmt == "e2m1":
        if elem != u8:
            _fail(f"e2m1 format must be packed as uint8 (two fp4 values per byte); {which} is {elem}")
        return x
    if elem == ftype:
        return x
    if elem != bits:
        _fail(f"unexpected dtype for {fmt}: {which} is {elem} (expected {bits} bits or {ftype})")
    return sem.cast(x, ftype, bitcast=True)


def _scale(s, which: str, rows: int, k: int, batch: list) -> Optional[Value]:
    if s is None:
        return None
    want = batch + [rows, k // GROUP]
    if not isinstance(s, Value) or not s.type.is_block():
        _fail(f"{which} must be a uint8 block of shape {want} or None, got {describe(s)}")
    if s.type.element_type != u8:
        _fail(f"{which} must hold e8m0 scales as uint8, got {s.type.element_type}")
    if k % GROUP or list(s.type.shape) != want:
        _fail(f"{which} must be a tensor of shape {want} (one scale per {GROUP} elements along K={k}), "
              f"got {list(s.type.shape)}")
    return s


def _unpack_e2m1(sem: Semantic, x: Value, axis: int) -> Value:
    """fp4 bytes -> their values in f32, the two nibbles of a byte next to each other along ``axis`` (-1 or -2),
    the low one first."""
    lo = sem.binary("and", x, 0xF)
    hi = sem.binary("rshift", x, 4)
    pairs = join(sem, lo, hi)                       # [..., A, B, 2]
    shape = list(x.type.shape)
    rank = len(shape)
    if axis == -2:                                  # -> [..., A, 2, B]
        pairs = shapes.permute(sem, pairs, *range(rank - 1), rank, rank - 1)
    shape[axis] *= 2
    nib = shapes.reshape(sem, pairs, *shape)
    em = sem.cast(sem.binary("and", nib, 0x7), u32)
    sign = sem.binary("lshift", sem.cast(sem.binary("and", nib, 0x8), u32), 28)
    # |value| in {0, .5, 1, 1.5, 2, 3, 4, 6}: em >= 2 is 2**((em >> 1) - 1) * (1 + (em & 1) / 2), i.e. the f32 bits
    # (em << 22) + (126 << 23); em = 1 is 0.5 (126 << 23) and em = 0 is 0
    normal = sem.binary("add", sem.binary("lshift", em, 22), 126 << 23)
    mag = sem.where(sem.compare("ge", em, 2), normal, sem.binary("mul", em, 126 << 23))
    return sem.cast(sem.binary("or", mag, sign), f32, bitcast=True)


def _scale_values(sem: Semantic, s: Value, rhs: bool) -> Value:
    """e8m0 bytes [..., R, K/32] -> f32 scales broadcast to the operand's shape: [..., R, K] for lhs, [..., K, R]
    for rhs; byte 255 is NaN."""
    v = sem.cast(sem.binary("lshift", sem.cast(s, u32), 23), f32, bitcast=True)
    v = sem.where(sem.compare("eq", s, 255), float("nan"), v)
    shape = list(v.type.shape)
    rank = len(shape)
    if rhs:                                          # [..., N, G] -> [..., G, N]
        v = shapes.permute(sem, v, *range(rank - 2), rank - 1, rank - 2)
        shape = shape[:-2] + [shape[-1], shape[-2]]
        v = shapes.expand_dims(sem, v, rank - 1)     # [..., G, 1, N]
        wide = shape[:-1] + [GROUP, shape[-1]]
        out = shape[:-2] + [shape[-2] * GROUP, shape[-1]]
    else:
        v = shapes.expand_dims(sem, v, rank)         # [..., M, G, 1]
        wide = shape + [GROUP]
        out = shape[:-1] + [shape[-1] * GROUP]
    return shapes.reshape(sem, sem.broadcast_to(v, wide), *out)


def _upcast(sem: Semantic, x: Value, fmt: str, scale: Optional[Value], axis: int, rhs: bool, ct: Type) -> Value:
    """The operand's values times its scales, rounded once to the compute type ``ct``."""
    if scale is None and fmt in ("bf16", "fp16"):
        return sem.cast(x, ct)   # nothing to scale: bf16 -> fp16 rounds once, the same type stays
    v = _unpack_e2m1(sem, x, axis) if fmt == "e2m1" else sem.cast(x, f32)
    if scale is not None:
        v = sem.binary("mul", v, _scale_values(sem, scale, rhs))
    return sem.cast(v, ct)


def dot_scaled(sem: Semantic, lhs, lhs_scale, lhs_format, rhs, rhs_scale, rhs_format, acc=None, fast_math=False,
               lhs_k_pack=True, rhs_k_pack=True, out_dtype=f32):
    """``lhs * lhs_scale @ rhs * rhs_scale (+ acc)``; see the module's docstring for the rules."""
    lf, rf = _format(lhs_format, "lhs"), _format(rhs_format, "rhs")
    if not isinstance(out_dtype, Type) or out_dtype != f32:
        _fail(f"only float32 is supported for out_dtype, got {describe(out_dtype)}")
    for flag, name, fmt in ((lhs_k_pack, "lhs_k_pack", lf), (rhs_k_pack, "rhs_k_pack", rf)):
        if not isinstance(flag, bool):
            _fail(f"{name} must be a constexpr bool, got {describe(flag)}")
        if not flag and fmt != "e2m1":
            _fail(f"only e2m1 (mxfp4) operands can be packed along a dimension other than K; {name}=False "
                  f"with {fmt}")
    if not isinstance(fast_math, bool):
        _fail(f"fast_math must be a constexpr bool, got {describe(fast_math)}")
    a, b = _operand(sem, lhs, lf, "lhs"), _operand(sem, rhs, rf, "rhs")
    sa, sb = list(a.type.shape), list(b.type.shape)
    if not (len(sa) == len(sb) == 2 or len(sa) == len(sb) == 3):
        _fail(f"both operands must be either 2-D or 3-D, got shapes {sa} and {sb}")
    m, k_lhs = sa[-2:]
    k_rhs, n = sb[-2:]
    if lf == "e2m1":
        if lhs_k_pack:
            k_lhs *= 2
        else:
            m *= 2
    if rf == "e2m1":
        if rhs_k_pack:
            k_rhs *= 2
        else:
            n *= 2
    if k_lhs != k_rhs:
        _fail(f"the operands must pack the same number of elements along K; lhs {sa} ({lf}) holds {k_lhs}, "
              f"rhs {sb} ({rf}) holds {k_rhs}")
    if len(sa) == 3 and sa[0] != sb[0]:
        _fail(f"the batch dimensions differ: shapes {sa} and {sb}")
    mm, mn, mk = MIN_DOT_SIZE
    if m < mm or n < mn or k_lhs < mk:
        _fail(f"the operands must have M >= {mm}, N >= {mn} and K >= {mk}; got M={m}, N={n}, K={k_lhs}")
    batch = sa[:-2]
    ls = _scale(lhs_scale, "lhs_scale", m, k_lhs, batch)
    rs = _scale(rhs_scale, "rhs_scale", n, k_lhs, batch)
    ct = f16 if "fp16" in (lf, rf) else bf16
    a = _upcast(sem, a, lf, ls, -1 if lhs_k_pack else -2, False, ct)
    b = _upcast(sem, b, rf, rs, -2 if rhs_k_pack else -1, True, ct)
    if acc is not None and not (isinstance(acc, Value) and acc.type.is_block()
                                and acc.type.element_type == f32 and list(acc.type.shape) == batch + [m, n]):
        _fail(f"acc must be a float32 block of shape {batch + [m, n]}, got {describe(acc)}")
    return dot(sem, a, b, acc, out_dtype=f32)


LANGUAGE: Dict[str, object] = {"dot_scaled": Builtin(FN, dot_scaled)}
