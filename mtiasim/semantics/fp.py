"""RV64F and RV64D semantics families: float loads/stores, arithmetic, compare, convert, move, fused multiply-add.

The f registers are 64 bits (``m.F`` uint64, viewed as ``m.FD`` float64).  A single lives NaN-boxed: its bits in
the low half (``m.FF`` float32, ``m.FI`` int32, ``m.FW`` uint32), the upper half (``m.FH``) all ones; every write
of a single boxes it and a single read of a register that is not properly boxed gives the canonical NaN, as the
spec requires.  ``fmv``/``fsgnj`` are bit exact.  Arithmetic rounds to nearest even whatever the ``rm`` field
says; conversions honour ``rm`` (dyn = round to nearest even).  NaN results of arithmetic are canonicalized
(0x7fc00000, 0x7ff8000000000000) as RISC-V requires.  The D families (``dpu`` ...) are the F functions run
with the double-precision register access :data:`D`.
"""
from __future__ import annotations

from fractions import Fraction

import numpy as np

from .common import lm_fault

U64 = np.uint64
CANON32 = np.uint32(0x7FC00000)
SIGN32 = np.uint32(0x80000000)
MAG32 = np.uint32(0x7FFFFFFF)
SIGN64 = np.uint64(1 << 63)
MAG64 = np.uint64((1 << 63) - 1)
BOX = np.uint64(0xFFFFFFFF00000000)
ONES32 = np.uint32(0xFFFFFFFF)


def _nop(g):
    return None


def canon(r: np.ndarray) -> np.ndarray:
    """Raw bits of float array ``r`` (float32 or float64) with every NaN made the canonical NaN."""
    ut = np.uint32 if r.dtype == np.float32 else np.uint64
    bits = r.view(ut)
    nan = r != r
    if nan.any():
        bits = np.where(nan, canonical_nan(r.dtype).view(ut), bits)
    return bits
def fminmax(a, b, is_max: bool):
    """RISC-V fmin/fmax on equal-width float arrays: NaN operands are ignored; -0 < +0; both NaN -> canonical."""
    ut = {2: np.uint16, 4: np.uint32, 8: np.uint64}[a.dtype.itemsize]
    r = np.fmax(a, b) if is_max else np.fmin(a, b)
    z = (a == 0) & (b == 0)
    if z.any():
        ab, bb = a.view(ut), b.view(ut)
        bits = (ab & bb) if is_max else (ab | bb)
        r = np.where(z, bits.view(a.dtype), r)
    both = (a != a) & (b != b)
    if both.any():
        r = np.where(both, canonical_nan(a.dtype), r)
    return r


def canonical_nan(dt):
    dt = np.dtype(dt)
    if dt == np.float16:
        return np.uint16(0x7E00).view(np.float16)
    if dt == np.float32:
        return CANON32.view(np.float32)
    return np.uint64(0x7FF8000000000000).view(np.float64)


def sgnj(abits, bbits, op, sign, mag):
    if op == "sgnj":
        return (abits & mag) | (bbits & sign)
    if op == "sgnjn":
        return (abits & mag) | (~bbits & sign)
    return abits ^ (bbits & sign)


class _Single:
    """Register access at single precision (NaN-boxed)."""
    dtype, ut, sign, mag, size = np.float32, np.uint32, SIGN32, MAG32, 4

    @staticmethod
    def bits(m, r, g):
        """The 32 bits of single ``f[r]``: the canonical NaN unless the register is properly boxed."""
        boxed = m.FH[r, g] == ONES32
        b = m.FW[r, g]
        return b if boxed.all() else np.where(boxed, b, CANON32)

    @classmethod
    def read(cls, m, r, g):
        return cls.bits(m, r, g).view(np.float32)

    @staticmethod
    def put(m, r, g, bits):
        m.F[r, g] = np.asarray(bits).astype(np.uint32).astype(np.uint64) | BOX

    @staticmethod
    def mem_put(m, r, g, bits):
        _Single.put(m, r, g, bits)


class _Double:
    """Register access at double precision (all 64 bits)."""
    dtype, ut, sign, mag, size = np.float64, np.uint64, SIGN64, MAG64, 8

    @staticmethod
    def bits(m, r, g):
        return m.F[r, g]

    @staticmethod
    def read(m, r, g):
        return m.FD[r, g]

    @staticmethod
    def put(m, r, g, bits):
        m.F[r, g] = bits


S, D = _Single, _Double


def _prec(d):
    return D if d.spec.sem_family in _D_FAMILIES or d.spec.sem_op == "d" else S


_D_FAMILIES = {"dpu", "dsqrt", "dcmp", "dfma"}


def fload(d, m, pc):
    p = _prec(d)
    size = p.size
    view = m.LMv["u32" if size == 4 else "u64"]
    lim, X, r1, imm, rows, rd = m.lmb - size, m.X, d.rs1, int(d.imm), m.rows, d.rd

    def ex(g):
        a = X[r1, g] + imm
        if int(a.view(U64).max()) > lim or (a & (size - 1)).any():
            lm_fault(m, g, a, size, "load")
        p.put(m, rd, g, view[rows[g], a >> (size.bit_length() - 1)])
    return ex


def fstore(d, m, pc):
    p = _prec(d)
    size = p.size
    view = m.LMv["u32" if size == 4 else "u64"]
    lim, X, r1, imm, rows, r2 = m.lmb - size, m.X, d.rs1, int(d.imm), m.rows, d.rs2
    src = m.FW if size == 4 else m.F   # fsw stores the low 32 bits whatever the upper half holds

    def ex(g):
        a = X[r1, g] + imm
        if int(a.view(U64).max()) > lim or (a & (size - 1)).any():
            lm_fault(m, g, a, size, "store")
        view[rows[g], a >> (size.bit_length() - 1)] = src[r2, g]
    return ex


_FPU = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}


def fpu(d, m, pc):
    op, p = d.spec.sem_op, _prec(d)
    rd, r1, r2 = d.rd, d.rs1, d.rs2
    if op in _FPU:
        f = _FPU[op]

        def ex(g):
            with np.errstate(all="ignore"):
                p.put(m, rd, g, canon(f(p.read(m, r1, g), p.read(m, r2, g))))
    elif op in ("min", "max"):
        is_max = op == "max"

        def ex(g):
            p.put(m, rd, g, fminmax(p.read(m, r1, g), p.read(m, r2, g), is_max).view(p.ut))
    elif op in ("sgnj", "sgnjn", "sgnjx"):
        def ex(g):
            p.put(m, rd, g, sgnj(p.bits(m, r1, g), p.bits(m, r2, g), op, p.sign, p.mag))
    else:
        raise KeyError(op)
    return ex


def fsqrt(d, m, pc):
    p, rd, r1 = _prec(d), d.rd, d.rs1

    def ex(g):
        with np.errstate(all="ignore"):
            p.put(m, rd, g, canon(np.sqrt(p.read(m, r1, g))))
    return ex


_FCMP = {"eq": np.equal, "lt": np.less, "le": np.less_equal}


def fcmp(d, m, pc):
    f, p = _FCMP[d.spec.sem_op], _prec(d)
    X, rd, r1, r2 = m.X, d.rd, d.rs1, d.rs2
    if rd == 0:
        return _nop

    def ex(g):
        X[rd, g] = f(p.read(m, r1, g), p.read(m, r2, g))
    return ex


# ------------------------------------------------------------------------------------------------------------
# Conversions
# ------------------------------------------------------------------------------------------------------------
RNE, RTZ, RDN, RUP, RMM, DYN = 0, 1, 2, 3, 4, 7


def round_float(x: np.ndarray, rm: int) -> np.ndarray:
    """Round float64 values to integral float64 values with RISC-V rounding mode ``rm``."""
    if rm == RTZ:
        return np.trunc(x)
    if rm == RDN:
        return np.floor(x)
    if rm == RUP:
        return np.ceil(x)
    if rm == RMM:
        return np.copysign(np.floor(np.abs(x) + 0.5), x)
    return np.rint(x)


INT_RANGES = {  # (signed, bits) -> (lo, hi) as Python ints
    (True, 8): (-(1 << 7), (1 << 7) - 1), (False, 8): (0, (1 << 8) - 1),
    (True, 16): (-(1 << 15), (1 << 15) - 1), (False, 16): (0, (1 << 16) - 1),
    (True, 32): (-(1 << 31), (1 << 31) - 1), (False, 32): (0, (1 << 32) - 1),
    (True, 64): (-(1 << 63), (1 << 63) - 1), (False, 64): (0, (1 << 64) - 1),
}


def float_to_int(x: np.ndarray, rm: int, signed: bool, bits: int) -> np.ndarray:
    """RISC-V float -> integer conversion with saturation (NaN -> the maximum); returns int64 or uint64 bits."""
    lo, hi = INT_RANGES[(signed, bits)]
    xf = round_float(x.astype(np.float64), rm)
    nan = xf != xf
    over = nan | (xf >= float(hi) + 1.0) if bits < 64 else nan | (xf >= 2.0 ** (bits - (1 if signed else 0)))
    under = xf < float(lo)
    safe = np.where(over | under, 0.0, xf)
    if signed or bits < 64:
        r = safe.astype(np.int64)
        r = np.where(over, np.int64(hi), np.where(under, np.int64(lo), r))
        return r if signed or bits < 64 else r.view(np.uint64)
    r = safe.astype(np.uint64)
    r = np.where(over, np.uint64(hi), np.where(under, np.uint64(0), r))
    return r


def _round_directed(r: np.ndarray, x: np.ndarray, rm: int, wide) -> np.ndarray:
    """``r``, the values ``x`` rounded to nearest even, rounded by ``rm`` instead: a directed mode steps ``r`` one
    ulp (toward zero, -inf or +inf) where it lies beyond the exact value (both compared as dtype ``wide``)."""
    if rm in (RNE, DYN, RMM):  # RMM differs from RNE only at exact ties; treated as RNE (noted)
        return r
    exact, back = x.astype(wide, copy=False), r.astype(wide)
    if rm == RTZ:
        fix = np.abs(back) > np.abs(exact)   # false for inf and NaN: they stay
        toward = np.zeros_like(r)
    elif rm == RDN:
        fix = back > exact
        toward = np.full_like(r, -np.inf)
    else:
        fix = back < exact
        toward = np.full_like(r, np.inf)
    if fix.any():
        r = np.where(fix, np.nextafter(r, toward), r)
    return r


def int_to_float(x: np.ndarray, rm: int, ft) -> np.ndarray:
    """Integer array (int64 or uint64) -> float dtype ``ft`` with rounding mode ``rm``."""
    return _round_directed(x.astype(ft), x, rm, np.longdouble)   # long double holds any 64-bit integer


def _rm(d) -> int:
    return int(getattr(d, "rm", DYN) if getattr(d, "rm", None) is not None else DYN)


def _to_int(p, rd, r1, rm, signed, bits, m):
    X = m.X
    if rd == 0:
        return _nop

    def ex(g):
        r = float_to_int(p.read(m, r1, g), rm, signed, bits)
        if bits == 32:
            r = r.astype(np.int32)  # 32-bit results are sign-extended into the 64-bit register
        X[rd, g] = r.view(np.int64) if r.dtype == np.uint64 else r
    return ex


_INT_SRC = {"w": np.int32, "wu": np.uint32, "l": np.int64, "lu": np.uint64}


def _from_int(p, rd, r1, rm, src, m):
    X = m.X

    def ex(g):
        x = X[r1, g].astype(src)
        p.put(m, rd, g, canon(int_to_float(x.astype(np.uint64 if src == np.uint64 else np.int64), rm, p.dtype)))
    return ex


def fcvt(d, m, pc):
    """Single <-> integer: ``w.s`` (to int32) ... ``s.lu`` (from uint64)."""
    dst, src = d.spec.sem_op.split(".")
    if src == "s":
        return _to_int(S, d.rd, d.rs1, _rm(d), dst in ("w", "l"), 32 if dst[0] == "w" else 64, m)
    return _from_int(S, d.rd, d.rs1, _rm(d), _INT_SRC[src], m)


def narrow_double(x: np.ndarray, rm: int) -> np.ndarray:
    """float64 -> float32 with rounding mode ``rm`` (directed modes step the nearest-even result)."""
    with np.errstate(all="ignore"):
        r = x.astype(np.float32)
    return _round_directed(r, x, rm, np.float64)


def dcvt(d, m, pc):
    """Double <-> integer and double <-> single: ``w.d`` ... ``d.lu``, ``s.d``, ``d.s``."""
    op, rd, r1, rm = d.spec.sem_op, d.rd, d.rs1, _rm(d)
    dst, src = op.split(".")
    if op == "s.d":
        def ex(g):
            S.put(m, rd, g, canon(narrow_double(D.read(m, r1, g), rm)))
        return ex
    if op == "d.s":
        def ex(g):
            D.put(m, rd, g, canon(S.read(m, r1, g).astype(np.float64)))
        return ex
    if src == "d":
        return _to_int(D, rd, r1, rm, dst in ("w", "l"), 32 if dst[0] == "w" else 64, m)
    return _from_int(D, rd, r1, rm, _INT_SRC[src], m)


_TO_X = {"x.w": lambda m, r, g: m.FI[r, g],                 # the low 32 bits, sign-extended, boxed or not
         "x.d": lambda m, r, g: m.F[r, g].view(np.int64)}
_FROM_X = {"w.x": S, "d.x": D}                                # a single is boxed


def fmv(d, m, pc):
    """Bit moves between x and f registers: ``x.w``, ``w.x`` (``fmv`` family), ``x.d``, ``d.x`` (``dmv``)."""
    op, X, rd, r1 = d.spec.sem_op, m.X, d.rd, d.rs1
    if op in _FROM_X:
        p = _FROM_X[op]

        def ex(g):
            p.put(m, rd, g, X[r1, g].view(np.uint64))
        return ex
    to_x = _TO_X[op]
    if rd == 0:
        return _nop

    def ex(g):
        X[rd, g] = to_x(m, r1, g)
    return ex


def fused(a, b, c, neg_prod, neg_add, dtype):
    """``(+-a*b) + (+-c)`` rounded once to ``dtype`` (RISC-V's fused multiply-adds, scalar and vector).

    float16/float32: the product is exact in float64 and the sum ``s`` rounds once there; rounding ``s``
    again to ``dtype`` gives the fused result except where ``s`` lands exactly on a midpoint of ``dtype``
    while the float64 sum was inexact (every midpoint is a double, so a non-midpoint ``s`` lies in the same
    rounding interval as the exact sum).  Those lanes take the neighbour on the side of the float64
    rounding error (TwoSum's ``e``).  float64: error-free transformations (:func:`_fused_double`), and
    exact rationals for the lanes outside their range."""
    if dtype != np.float64:
        return _fused_narrow(a, b, c, neg_prod, neg_add, np.dtype(dtype).type)
    a, b, c = np.broadcast_arrays(a, b, c)    # a vector-scalar form's operand is one value per group
    a = np.asarray(a, np.float64)
    b = -np.asarray(b, np.float64) if neg_prod else np.asarray(b, np.float64)
    c = -np.asarray(c, np.float64) if neg_add else np.asarray(c, np.float64)
    out, exact = _fused_double(a, b, c)
    if not exact.all():
        bad = ~exact
        out[bad] = fused_exact(a[bad], b[bad], c[bad])
    return out


def _two_sum(x, y):
    """``(s, e)``: ``s = x + y`` rounded to nearest, ``e`` its error (``s + e == x + y`` exactly)."""
    s = x + y
    bb = s - x
    return s, (x - (s - bb)) + (y - bb)


def _split(x):
    """Veltkamp's split of a double into two halves of 26 significant bits (``x == hi + lo``)."""
    t = 134217729.0 * x          # 2^27 + 1
    hi = t - (t - x)
    return hi, x - hi


def _fused_double(a, b, c):
    """``a*b + c`` rounded once to float64, with the lanes where that is exact: Dekker's product
    ``a*b = uh + ul`` and TwoSum ``c + uh = th + tl`` are error-free, ``v = tl + ul`` rounded to odd
    (truncated, its last bit set when inexact) and ``th + v`` rounded to nearest is the correctly rounded
    sum (Boldo and Melquiond's emulation of the FMA by rounding to odd).  Exact where nothing overflows
    and the product's error term is not below the subnormals: ``|a|, |b| < 2^995``,
    ``2^-900 <= |a*b| < 2^1000``, ``|c| < 2^1000``, and the result is not zero (its sign)."""
    with np.errstate(all="ignore"):
        uh = a * b
        ah, al = _split(a)
        bh, bl = _split(b)
        ul = ((ah * bh - uh) + ah * bl + al * bh) + al * bl
        th, tl = _two_sum(c, uh)
        v, ve = _two_sum(tl, ul)
        inexact = ve != 0
        over = inexact & ((v > 0) != (ve > 0))            # |v| above the exact sum: truncation steps down
        v = np.where(over, np.nextafter(v, 0.0), v)
        v = (v.view(np.int64) | inexact.astype(np.int64)).view(np.float64)
        out = th + v
        au, aa, ab = np.abs(uh), np.abs(a), np.abs(b)
        exact = ((aa < 2.0 ** 995) & (ab < 2.0 ** 995) & (au >= 2.0 ** -900) & (au < 2.0 ** 1000)
                 & (np.abs(c) < 2.0 ** 1000) & (out != 0))
    return np.array(out, np.float64), exact


def fused_exact(a, b, c):
    """``a*b + c`` rounded once to float64, by exact rationals (element by element: slow)."""
    out = np.empty(np.shape(a), np.float64)
    for i, (x, y, z) in enumerate(zip(np.ravel(a).tolist(), np.ravel(b).tolist(), np.ravel(c).tolist())):
        if not all(np.isfinite([x, y, z])):
            with np.errstate(all="ignore"):
                out.flat[i] = x * y + z
            continue
        pr = Fraction(x) * Fraction(y)
        r = pr + Fraction(z)
        if r == 0:   # exact zero: signed zeros add as IEEE says; a cancellation is +0 (round to nearest)
            out.flat[i] = x * y + z if pr == 0 and z == 0 else 0.0
        else:
            try:
                out.flat[i] = float(r)   # int / int true division rounds correctly
            except OverflowError:
                out.flat[i] = np.inf if r > 0 else -np.inf
    return out


def _fused_narrow(a, b, c, neg_prod, neg_add, dtype):
    """:func:`fused` for float16 / float32 (operands broadcast together; a vector-scalar form's operand is one
    value per group).  Only a float64 sum whose bits below ``dtype``'s rounding bit are all zero can be a
    midpoint of ``dtype`` (every midpoint, subnormal or at the overflow threshold, has them zero): the other
    lanes' float64 sums round once to the fused result, and only these few go through the midpoint check."""
    p = np.multiply(a, b, dtype=np.float64)                      # exact: at most 2 x 24 significant bits
    if neg_prod:
        np.negative(p, out=p)
    cc = np.asarray(c, np.float64)
    if neg_add:
        cc = -cc
    with np.errstate(all="ignore"):
        s = p + cc
        r = s.astype(dtype)
        low = np.uint64((1 << (52 - np.finfo(dtype).nmant - 1)) - 1)
        cand = (s.view(np.uint64) & low) == 0
        if not cand.any():
            return r
        if r.ndim == 0:
            return _narrow_midpoints(p, cc, s, r, dtype)
        r[cand] = _narrow_midpoints(np.broadcast_to(p, s.shape)[cand], np.broadcast_to(cc, s.shape)[cand],
                                    s[cand], r[cand], dtype)
        return r


def _narrow_midpoints(p, cc, s, r, dtype):
    """``p + cc`` rounded once to ``dtype``, given ``s`` (its float64 sum) and ``r`` (``s`` rounded to
    ``dtype``): where ``s`` lands exactly on a midpoint of ``dtype`` while the float64 sum was inexact, the
    neighbour of ``r`` on the side of the float64 rounding error (TwoSum's ``e``)."""
    bp = s - cc
    e = (p - bp) + (cc - (s - bp))      # TwoSum: s + e == p + cc exactly
    suspect = np.isfinite(s) & (e != 0)
    if not suspect.any():
        return r
    top = 2.0 ** (np.finfo(dtype).maxexp)           # where dtype's rounding overflows to inf
    rd = np.where(np.isinf(r), np.copysign(top, s), r.astype(np.float64))
    toward = np.where(s > rd, np.inf, -np.inf).astype(dtype)
    other = np.nextafter(r, toward)                  # the neighbour on s's side of r
    od = np.where(np.isinf(other), np.copysign(top, s), other.astype(np.float64))
    mid = suspect & (s != rd) & ((rd + od) * 0.5 == s)
    hi, lo = np.maximum(r, other), np.minimum(r, other)
    return np.where(mid, np.where(e > 0, hi, lo), r).astype(dtype)


def fma(d, m, pc):
    op, p = d.spec.sem_op, _prec(d)
    rd, r1, r2, r3 = d.rd, d.rs1, d.rs2, d.rs3
    neg_prod = op in ("nmsub", "nmadd")
    neg_add = op in ("msub", "nmadd")
    if op not in ("madd", "msub", "nmsub", "nmadd"):
        raise KeyError(op)

    def ex(g):
        r = fused(p.read(m, r1, g), p.read(m, r2, g), p.read(m, r3, g), neg_prod, neg_add, p.dtype)
        p.put(m, rd, g, canon(np.asarray(r, p.dtype)))
    return ex


def fclass(d, m, pc):
    """One-hot class of double ``f[rs1]``: bit 0 -inf, 1 negative normal, 2 negative subnormal, 3 -0, 4 +0,
    5 positive subnormal, 6 positive normal, 7 +inf, 8 signalling NaN, 9 quiet NaN."""
    X, rd, r1 = m.X, d.rd, d.rs1
    if rd == 0:
        return _nop

    def ex(g):
        b = m.F[r1, g]
        neg = (b >> np.uint64(63)) != 0
        exp = (b >> np.uint64(52)) & np.uint64(0x7FF)
        man = b & np.uint64((1 << 52) - 1)
        quiet = (man >> np.uint64(51)) != 0
        cls = np.select(
            [(exp == 0x7FF) & (man != 0) & quiet, (exp == 0x7FF) & (man != 0), exp == 0x7FF,
             (exp == 0) & (man == 0), exp == 0],
            [np.int64(9), np.int64(8), np.where(neg, 0, 7), np.where(neg, 3, 4), np.where(neg, 2, 5)],
            np.where(neg, 1, 6))
        X[rd, g] = np.left_shift(np.int64(1), cls.astype(np.int64))
    return ex


FAMILIES = {"fload": fload, "fstore": fstore, "fpu": fpu, "fsqrt": fsqrt, "fcmp": fcmp, "fcvt": fcvt,
            "fmv": fmv, "fma": fma, "dpu": fpu, "dsqrt": fsqrt, "dcmp": fcmp, "dcvt": dcvt, "dmv": fmv,
            "dfma": fma, "fclass": fclass}
_FP_OPS = set(_FPU) | {"min", "max", "sgnj", "sgnjn", "sgnjx"}
OPS = {"fload": {"w", "d"}, "fstore": {"w", "d"}, "fpu": _FP_OPS, "dpu": _FP_OPS,
       "fcmp": set(_FCMP), "dcmp": set(_FCMP), "fcvt": {"w.s", "wu.s", "l.s", "lu.s", "s.w", "s.wu", "s.l", "s.lu"},
       "dcvt": {"w.d", "wu.d", "l.d", "lu.d", "d.w", "d.wu", "d.l", "d.lu", "s.d", "d.s"},
       "fmv": {"x.w", "w.x"}, "dmv": {"x.d", "d.x"}, "fma": {"madd", "msub", "nmsub", "nmadd"},
       "dfma": {"madd", "msub", "nmsub", "nmadd"}, "fclass": {"d"}}
