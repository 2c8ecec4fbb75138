"""Random numbers: ``tl.randint``, ``tl.randint4x``, ``tl.rand``, ``tl.rand4x``, ``tl.randn``, ``tl.randn4x``,
``tl.philox``, ``tl.philox_impl``, ``tl.uint_to_uniform_float``, ``tl.pair_uniform_to_normal``.

Triton writes these in Python on top of its own language (``triton/language/random.py``); here they are
builtins that build the same computation from existing ops (integer ``*``, ``>>``, ``^``, ``+``, casts, and the
float math of :mod:`mtiacc.frontend.language.math`), so the results are Triton's bit for bit (``randn``'s up to
the accuracy of ``log``/``sqrt``/``cos``/``sin``, see docs/language.md).  The rules, as in Triton's current
``random.py`` (the 64-bit offset split is triton-lang/triton#6832):

* ``philox_impl(c0, c1, c2, c3, k0, k1, n_rounds=10)``: ``n_rounds`` rounds of Philox-4xW (Random123's
  ``philox4x32``/``philox4x64``, counters ``c``, key ``k``) with W the width of ``c0``, which must be uint32
  or uint64.  A round is ``c0, c1, c2, c3 = hi(B*c2) ^ c1 ^ k0, lo(B*c2), hi(A*c0) ^ c3 ^ k1, lo(A*c0)``
  and the key moves on by ``(KEY_A, KEY_B)``; the constants are Random123's.
* ``philox(seed, c0, c1, c2, c3, n_rounds=10)``: the seed (an integer, scalar or block) converted to uint64
  (signed seeds sign-extend) is the key: for 32-bit counters its low and high words, for 64-bit counters the
  whole seed and a zero that is a block of shape (1,) (``tl.full((1,), 0, tl.uint64)`` in Triton, so scalar
  counters give (1,)-shaped results).  The counters are reinterpreted (bitcast) as uint32 / uint64; they
  must all have ``c0``'s width, 32 or 64 bits.
* ``randint4x(seed, offset, n_rounds=10)``: 32-bit Philox with counter ``(lo, hi, 0, 0)``: ``lo`` is
  ``offset.to(tl.uint32)`` (truncated, or sign-extended from narrower signed types), ``hi`` the offset's bits
  32..63 when it is wider than 32 bits, else 0.  Four uint32 values of the offset's shape.  ``randint`` is the
  first of them.
* ``uint_to_uniform_float(x)``: ``x`` reinterpreted as int32 (int64 for 64-bit values), negatives folded onto
  the non-negative range (``-x - 1``), converted to fp32 and multiplied by ``4.6566127342e-10``
  (``1.0842020432385337e-19`` for 64 bits): fp32 in [0, 1).
* ``rand`` / ``rand4x``: that of ``randint`` / ``randint4x``.
* ``pair_uniform_to_normal(u1, u2)``: Box-Muller, ``r = sqrt(-2 * log(max(1e-7, u1)))``, ``th = 2*pi * u2``,
  ``(r * cos(th), r * sin(th))``.  ``randn`` is the first of the pair from ``randint4x``'s first two words;
  ``randn4x`` the pairs of ``rand4x``'s (1, 2) and (3, 4).

Seeds and offsets may be Python integers (they take their literal type, as ``tl.to_tensor`` gives them).  A
float seed is an error, as in Triton (``static_assert(seed.dtype.is_int())``).  A float offset is an error here:
Triton's ``offset.to(tl.uint32)`` converts it (``fptoui``, undefined for negative values; older versions bitcast
it instead), which is no stream anyone can rely on.
"""
from __future__ import annotations

from typing import Dict, Tuple, Union

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language import math as tl_math
from mtiacc.frontend.language.semantic import FValue, Semantic, describe, is_const, literal_type
from mtiacc.frontend.values import Builtin
from mtiacc.ir.core import Value
from mtiacc.ir.types import Type, i32, i64, u32, u64

MODULE = "triton.language.random"   # also reachable as `tl.random.<name>`
N_ROUNDS_DEFAULT = 10
# Random123's Philox-4x32 and Philox-4x64 constants: (KEY_A, KEY_B, ROUND_A, ROUND_B)
PHILOX_32 = (0x9E3779B9, 0xBB67AE85, 0xD2511F53, 0xCD9E8D57)
PHILOX_64 = (0x9E3779B97F4A7C15, 0xBB67AE8584CAA73B, 0xD2E7470EE14C6C93, 0xCA5A826395121157)
# uint_to_uniform_float's scales: ((2**23 - 1) / 2**23) * 2**-(N - 1), so that the largest value maps below 1.0
SCALE_32 = 4.6566127342e-10
SCALE_64 = 1.0842020432385337e-19
MASK32 = 0xFFFFFFFF
MASK64 = (1 << 64) - 1

Key = Union[int, Value]   # a constant key word, or a run-time one


def _rounds(n_rounds, fname: str) -> int:
    if isinstance(n_rounds, bool) or not isinstance(n_rounds, int):
        raise CompileError(f"{fname}(): n_rounds must be a constexpr integer, got {describe(n_rounds)}")
    if n_rounds < 0:
        raise CompileError(f"{fname}(): n_rounds must be >= 0, got {n_rounds}")
    return n_rounds


def _tensor(sem: Semantic, x: FValue, what: str, fname: str) -> Value:
    """``tl.to_tensor(x)``: a run-time value (a Python number takes its literal type)."""
    if is_const(x):
        return sem.materialize(x)
    if not isinstance(x, Value):
        raise CompileError(f"{fname}(): {what} must be a number or a block, got {describe(x)}")
    if x.type.is_ptr():
        raise CompileError(f"{fname}(): {what} must be a number or a block, not a pointer")
    return x


def _seed(sem: Semantic, seed: FValue, fname: str):
    """The seed as uint64: a Python int (for a constant seed) or a run-time value."""
    if isinstance(seed, (bool, int)):
        literal_type(seed)                        # in 64 bits, or an error
        return int(seed) & MASK64                 # i32/i64 sign-extend, u32/u64 as they are
    s = _tensor(sem, seed, "the seed", fname)
    t = s.type.element_type
    if not t.is_int():
        raise CompileError(f"{fname}(): the seed must be an integer (a scalar or a block), got {t}; "
                           "Triton asserts seed.dtype.is_int()")
    return sem.cast(s, u64)


# ------------------------------------------------------------------------------------------ Philox

def _mulhilo(sem: Semantic, m: int, x: Value) -> Tuple[Value, Value]:
    """The high and low words of the unsigned product ``m * x`` (``x`` uint32 or uint64, ``m`` a constant)."""
    return sem.binary("mulhi", x, m), sem.binary("mul", x, m)


def _bump(sem: Semantic, k: Key, inc: int, mask: int) -> Key:
    return (k + inc) & mask if isinstance(k, int) else sem.binary("add", k, inc)


def _xor3(sem: Semantic, a: Value, b: Value, k: Key) -> Value:
    """``a ^ b ^ k`` with ``a`` this round's high product and ``b`` the previous round's low one, associated as
    ``a ^ (b ^ k)`` (xor is associative: the bits are the same).  ``b ^ k`` does not wait for this round's
    multiply, so a round's dependent chain is a multiply and one xor instead of two; and when ``b`` is a scalar
    (with a 32-bit offset the second and third rounds mix the counter with words computed from the key alone),
    a block meets one scalar instead of two (one vector instruction fewer)."""
    if b.type.is_block() and not a.type.is_block():
        a, b = b, a
    return sem.binary("xor", a, sem.binary("xor", b, k))


def _rounds_of(sem: Semantic, c, k0: Key, k1: Key, n: int):
    """``n`` Philox rounds on counters ``c`` (Values of one unsigned type, u32 or u64) with key ``(k0, k1)``."""
    wide = c[0].type.element_type == u64
    key_a, key_b, round_a, round_b = PHILOX_64 if wide else PHILOX_32
    mask = MASK64 if wide else MASK32
    c0, c1, c2, c3 = c
    for r in range(n):
        hi_b, lo_b = _mulhilo(sem, round_b, c2)
        hi_a, lo_a = _mulhilo(sem, round_a, c0)
        c0 = _xor3(sem, hi_b, c1, k0)
        c2 = _xor3(sem, hi_a, c3, k1)
        c1, c3 = lo_b, lo_a
        if r + 1 < n:                   # Triton raises the key after the last round too; nothing reads it
            k0, k1 = _bump(sem, k0, key_a, mask), _bump(sem, k1, key_b, mask)
    return c0, c1, c2, c3


def _key_word(sem: Semantic, k: FValue, t: Type, name: str, fname: str) -> Key:
    if isinstance(k, (bool, int)):
        return int(k) & ((1 << t.width) - 1)
    v = _tensor(sem, k, name, fname)
    kt = v.type.element_type
    if not kt.is_int() or kt.width != t.width:
        raise CompileError(f"{fname}(): the key {name} must be a {t.width}-bit integer like the counters, got {kt}")
    return sem.cast(v, t, bitcast=True)


def _word(sem: Semantic, c: FValue, t: Type, name: str, fname: str) -> Value:
    """Counter word ``c`` reinterpreted as ``t`` (uint32 or uint64).  A Python integer takes ``t`` directly (Triton
    types it int32 first, so with 64-bit counters its bitcast fails; its value is what is meant)."""
    if isinstance(c, int) and not isinstance(c, bool) and -(1 << (t.width - 1)) <= c < (1 << t.width):
        return sem.constant(c, t)
    v = _tensor(sem, c, name, fname)
    ct = v.type.element_type
    if ct.width != t.width:
        raise CompileError(f"{fname}(): the counters must all have c0's width ({t.width} bits); {name} is {ct}")
    return sem.cast(v, t, bitcast=True)


def philox_impl(sem: Semantic, c0, c1, c2, c3, k0, k1, n_rounds=N_ROUNDS_DEFAULT):
    """``n_rounds`` rounds of Philox-4x32 (``c0`` uint32) or Philox-4x64 (``c0`` uint64) on the counters
    ``(c0, c1, c2, c3)`` with the key ``(k0, k1)``; four values of ``c0``'s type."""
    fname = "tl.philox_impl"
    n = _rounds(n_rounds, fname)
    first = _tensor(sem, c0, "c0", fname)
    t = first.type.element_type
    if t not in (u32, u64):
        raise CompileError(f"{fname}(): dtype not supported in philox_impl: c0 must be uint32 or uint64, got {t}")
    cs = [first] + [_word(sem, c, t, f"c{i}", fname) for i, c in enumerate((c1, c2, c3), 1)]
    keys = [_key_word(sem, k, t, name, fname) for name, k in (("k0", k0), ("k1", k1))]
    return _rounds_of(sem, cs, keys[0], keys[1], n)


def _philox(sem: Semantic, seed, counters, n: int, fname: str):
    s = _seed(sem, seed, fname)
    first = _tensor(sem, counters[0], "c0", fname)
    width = first.type.element_type.width
    if width == 32:
        t = u32
        if isinstance(s, int):
            k0, k1 = s & MASK32, s >> 32
        else:
            k0, k1 = sem.cast(s, u32), sem.cast(sem.binary("rshift", s, 32), u32)
    elif width == 64:
        t = u64
        k0, k1 = s, sem.broadcast_to(sem.constant(0, u64), (1,))
    else:
        raise CompileError(f"{fname}(): bitwidth not supported in philox: the counters must be 32- or 64-bit, "
                           f"c0 is {first.type.element_type}")
    words = [_word(sem, c, t, f"c{i}", fname) for i, c in enumerate(counters)]
    return _rounds_of(sem, words, k0, k1, n)


def philox(sem: Semantic, seed, c0, c1, c2, c3, n_rounds=N_ROUNDS_DEFAULT):
    """Philox with the key taken from ``seed``: its low and high words for 32-bit counters (the result is four
    uint32), the seed itself and 0 for 64-bit counters (four uint64)."""
    return _philox(sem, seed, (c0, c1, c2, c3), _rounds(n_rounds, "tl.philox"), "tl.philox")


# ------------------------------------------------------------------------------------------ integers

def _randint4x(sem: Semantic, seed, offset, n_rounds, fname: str):
    n = _rounds(n_rounds, fname)
    off = _tensor(sem, offset, "the offset", fname)
    ot = off.type.element_type
    if not ot.is_int():
        raise CompileError(f"{fname}(): the offset must be an integer (a block or a scalar of int32, int64, ...), "
                           f"got {ot}")
    lo = sem.cast(off, u32)
    seed_is_block = isinstance(seed, Value) and seed.type.is_block()
    # Triton's zero words are `offset_lo * 0`, blocks of the offset's shape.  With a scalar seed every result has
    # that shape whatever the zeros' shape, so they are scalars here (the first round's products on them fold)
    # and the results are broadcast at the end.
    zero = sem.binary("mul", lo, 0) if seed_is_block else sem.constant(0, u32)
    hi = sem.cast(sem.binary("rshift", off, 32), u32) if ot.width > 32 else zero
    words = _philox(sem, seed, (lo, hi, zero, zero), n, fname)
    if seed_is_block:
        return words
    return tuple(sem.broadcast_to(w, off.type.shape) for w in words)


def randint4x(sem: Semantic, seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """Four blocks of random uint32 for ``seed`` and ``offset``: Philox-4x32 of the counter
    ``(offset's low word, its high word or 0, 0, 0)`` keyed by the seed."""
    return _randint4x(sem, seed, offset, n_rounds, "tl.randint4x")


def randint(sem: Semantic, seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """The first of :func:`randint4x`'s four blocks."""
    return _randint4x(sem, seed, offset, n_rounds, "tl.randint")[0]


# ------------------------------------------------------------------------------------------ floats

def _uniform(sem: Semantic, x: FValue, fname: str) -> Value:
    v = _tensor(sem, x, "the value", fname)
    t = v.type.element_type
    if t in (u32, i32):
        signed, scale = i32, SCALE_32
    elif t in (u64, i64):
        signed, scale = i64, SCALE_64
    else:
        raise CompileError(f"{fname}(): needs int32, uint32, int64 or uint64 values, got {t}")
    s = sem.cast(v, signed, bitcast=True)
    # Triton's `tl.where(x < 0, -x - 1, x)` (wrapping), which is `x ^ (x >> (N - 1))` bit for bit
    folded = sem.binary("xor", s, sem.binary("rshift", s, signed.width - 1))
    return sem.binary("mul", folded, scale)          # int -> fp32 (round to nearest even), then one fp32 multiply


def uint_to_uniform_float(sem: Semantic, x):
    """A random 32- or 64-bit integer as an fp32 in [0, 1)."""
    return _uniform(sem, x, "tl.uint_to_uniform_float")


def rand(sem: Semantic, seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """A block of fp32 uniform in [0, 1): :func:`uint_to_uniform_float` of :func:`randint`."""
    return _uniform(sem, _randint4x(sem, seed, offset, n_rounds, "tl.rand")[0], "tl.rand")


def _rand4x(sem: Semantic, seed, offsets, n_rounds, fname: str):
    return tuple(_uniform(sem, w, fname) for w in _randint4x(sem, seed, offsets, n_rounds, fname))


def rand4x(sem: Semantic, seed, offsets, n_rounds=N_ROUNDS_DEFAULT):
    """Four blocks of fp32 uniform in [0, 1), from :func:`randint4x`."""
    return _rand4x(sem, seed, offsets, n_rounds, "tl.rand4x")


def _math(sem: Semantic, name: str, x):
    return tl_math.TL_MATH[name].impl(sem, x)


def _box_muller(sem: Semantic, u1, u2, both: bool = True):
    u1 = sem.binary("maximum", 1.0e-7, u1)
    th = sem.binary("mul", 6.283185307179586, u2)
    r = _math(sem, "sqrt", sem.binary("mul", -2.0, _math(sem, "log", u1)))
    n1 = sem.binary("mul", r, _math(sem, "cos", th))
    return (n1, sem.binary("mul", r, _math(sem, "sin", th))) if both else n1


def pair_uniform_to_normal(sem: Semantic, u1, u2):
    """Box-Muller: two standard normal values from two uniform ones."""
    return _box_muller(sem, u1, u2)


def randn(sem: Semantic, seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """A block of fp32 from N(0, 1): the first of :func:`pair_uniform_to_normal` of the first two uniforms."""
    w = _randint4x(sem, seed, offset, n_rounds, "tl.randn")
    return _box_muller(sem, _uniform(sem, w[0], "tl.randn"), _uniform(sem, w[1], "tl.randn"), both=False)


def randn4x(sem: Semantic, seed, offset, n_rounds=N_ROUNDS_DEFAULT):
    """Four blocks of fp32 from N(0, 1): Box-Muller on :func:`rand4x`'s pairs (1, 2) and (3, 4)."""
    u = _rand4x(sem, seed, offset, n_rounds, "tl.randn4x")
    return _box_muller(sem, u[0], u[1]) + _box_muller(sem, u[2], u[3])


# ------------------------------------------------------------------------------------------ names

_FUNCTIONS = (randint, randint4x, rand, rand4x, randn, randn4x, philox, philox_impl, uint_to_uniform_float,
              pair_uniform_to_normal)
LANGUAGE: Dict[str, object] = {f.__name__: Builtin(f"tl.{f.__name__}", f) for f in _FUNCTIONS}
