"""RV64F semantics families: float loads/stores, arithmetic, compare, convert, move, fused multiply-add.

The f registers hold raw float32 bits (``m.F``, viewed as ``m.FF`` float32 and ``m.FI`` int32), so ``fmv`` is bit
exact.  Arithmetic rounds to nearest even whatever the ``rm`` field says; conversions honour ``rm``
(dyn = round to nearest even).  NaN results of arithmetic are canonicalized (0x7fc00000) as RISC-V requires.
"""
from __future__ import annotations

import numpy as np

from .common import lm_fault

U64 = np.uint64
CANON32 = np.uint32(0x7FC00000)
SIGN32 = np.uint32(0x80000000)
MAG32 = np.uint32(0x7FFFFFFF)


def _nop(g):
    return None


def canon(r: np.ndarray) -> np.ndarray:
    """Raw float32 bits of ``r`` with every NaN made the canonical NaN."""
    bits = r.view(np.uint32)
    nan = r != r
    if nan.any():
        bits = np.where(nan, CANON32, bits)
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


def _mem(d, m, store):
    view = m.LMv["u32"]
    return view, m.lmb - 4, m.X, m.F, d.rs1, int(d.imm), m.rows


def fload(d, m, pc):
    view, lim, X, F, r1, imm, rows = _mem(d, m, False)
    rd = d.rd

    def ex(g):
        a = X[r1, g] + imm
        if int(a.view(U64).max()) > lim or (a & 3).any():
            lm_fault(m, g, a, 4, "load")
        F[rd, g] = view[rows[g], a >> 2]
    return ex


def fstore(d, m, pc):
    view, lim, X, F, r1, imm, rows = _mem(d, m, True)
    r2 = d.rs2

    def ex(g):
        a = X[r1, g] + imm
        if int(a.view(U64).max()) > lim or (a & 3).any():
            lm_fault(m, g, a, 4, "store")
        view[rows[g], a >> 2] = F[r2, g]
    return ex


_FPU = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}


def fpu(d, m, pc):
    op = d.spec.sem_op
    F, FF, rd, r1, r2 = m.F, m.FF, d.rd, d.rs1, d.rs2
    if op in _FPU:
        f = _FPU[op]

        def ex(g):
            F[rd, g] = canon(f(FF[r1, g], FF[r2, g]))
    elif op in ("min", "max"):
        is_max = op == "max"

        def ex(g):
            FF[rd, g] = fminmax(FF[r1, g], FF[r2, g], is_max)
    elif op in ("sgnj", "sgnjn", "sgnjx"):
        def ex(g):
            F[rd, g] = sgnj(F[r1, g], F[r2, g], op, SIGN32, MAG32)
    else:
        raise KeyError(op)
    return ex


def fsqrt(d, m, pc):
    F, FF, rd, r1 = m.F, m.FF, d.rd, d.rs1

    def ex(g):
        F[rd, g] = canon(np.sqrt(FF[r1, g]))
    return ex


_FCMP = {"eq": np.equal, "lt": np.less, "le": np.less_equal}


def fcmp(d, m, pc):
    f = _FCMP[d.spec.sem_op]
    X, FF, rd, r1, r2 = m.X, m.FF, d.rd, d.rs1, d.rs2
    if rd == 0:
        return _nop

    def ex(g):
        X[rd, g] = f(FF[r1, g], FF[r2, g])
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


def int_to_float(x: np.ndarray, rm: int, ft) -> np.ndarray:
    """Integer array (int64 or uint64) -> float dtype ``ft`` with rounding mode ``rm``."""
    r = x.astype(ft)
    if rm in (RNE, DYN, RMM):  # RMM differs from RNE only at exact ties; treated as RNE (noted)
        return r
    # directed rounding: compare the rounded value with the exact one (long double holds any 64-bit integer)
    ld = np.longdouble
    exact = x.astype(ld)
    back = r.astype(ld)
    if rm == RTZ:
        fix = np.abs(back) > np.abs(exact)
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


def fcvt(d, m, pc):
    op = d.spec.sem_op
    X, F, FF, rd, r1 = m.X, m.F, m.FF, d.rd, d.rs1
    rm = int(getattr(d, "rm", DYN) if getattr(d, "rm", None) is not None else DYN)
    if op.endswith(".s"):  # float -> integer
        signed = op in ("w.s", "l.s")
        bits = 32 if op[0] == "w" else 64
        if rd == 0:
            return _nop

        def ex(g):
            r = float_to_int(FF[r1, g], rm, signed, bits)
            if bits == 32:
                r = r.astype(np.int32)  # 32-bit results are sign-extended into the 64-bit register
            X[rd, g] = r.view(np.int64) if r.dtype == np.uint64 else r
        return ex
    src = {"s.w": np.int32, "s.wu": np.uint32, "s.l": np.int64, "s.lu": np.uint64}[op]

    def ex(g):
        x = X[r1, g].astype(src)
        F[rd, g] = canon(int_to_float(x, rm, np.float32))
    return ex


def fmv(d, m, pc):
    op = d.spec.sem_op
    X, FI, rd, r1 = m.X, m.FI, d.rd, d.rs1
    if op == "x.w":
        if rd == 0:
            return _nop

        def ex(g):
            X[rd, g] = FI[r1, g]
    elif op == "w.x":
        def ex(g):
            FI[rd, g] = X[r1, g]
    else:
        raise KeyError(op)
    return ex


def fma(d, m, pc):
    op = d.spec.sem_op
    F, FF, rd, r1, r2, r3 = m.F, m.FF, d.rd, d.rs1, d.rs2, d.rs3
    neg_prod = op in ("nmsub", "nmadd")
    neg_add = op in ("msub", "nmadd")
    if op not in ("madd", "msub", "nmsub", "nmadd"):
        raise KeyError(op)

    def ex(g):
        p = FF[r1, g].astype(np.float64) * FF[r2, g]  # exact in float64
        c = FF[r3, g].astype(np.float64)
        r = (-p if neg_prod else p) + (-c if neg_add else c)
        F[rd, g] = canon(r.astype(np.float32))
    return ex


FAMILIES = {"fload": fload, "fstore": fstore, "fpu": fpu, "fsqrt": fsqrt, "fcmp": fcmp, "fcvt": fcvt,
            "fmv": fmv, "fma": fma}
OPS = {"fload": {"w"}, "fstore": {"w"}, "fpu": set(_FPU) | {"min", "max", "sgnj", "sgnjn", "sgnjx"},
       "fcmp": set(_FCMP), "fcvt": {"w.s", "wu.s", "l.s", "lu.s", "s.w", "s.wu", "s.l", "s.lu"},
       "fmv": {"x.w", "w.x"}, "fma": {"madd", "msub", "nmsub", "nmadd"}}
