"""The bottom of the device math library: the width descriptors, the emitter (``VMath``) with its
building blocks, and the exact constants (pi, Taylor coefficients) the function families share.

Every expansion is a straight sequence of vector instructions (no branches but the trigonometric
reduction's strip test) on a strip of ``vl`` elements: range reduction, a polynomial, fix-ups for
the special values.  It runs at ``e32, m2`` (f32; f16 and bf16 compute through f32) or ``e64, m2``
(f64): the operands arrive in ``v8``, ``v16``, ``v24``, the twelve other even register groups are
temporaries (in a fused loop, the loop's free groups).  Constants are hoisted out of the loop into
``f``/``x`` registers: a dry run of the expansion collects them first, in the order it asks for them.

A body is written once for both widths where the algorithm is the same; what differs (the layout,
the clamps, the polynomial tables) comes from ``e.w``, the ``Width`` the registry set on the emitter.
Nothing here imports the function families; they import this module.
"""
from __future__ import annotations

import decimal
import math
import struct
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Dict, List

from mtiacc.codegen.arith.scalar import f32_bits
from mtiacc.codegen.machine.mir import MBuilder, VReg
from mtiacc.diagnostics import CompileError
from mtiacc.ir.folding import round_float
from mtiacc.ir.types import FloatType

TEMPS = ("v2", "v4", "v6", "v10", "v12", "v14", "v18", "v20", "v22", "v26", "v28", "v30")


@dataclass(frozen=True)
class Width:
    """An element width the library computes in: its IEEE layout and how its constants are hoisted."""

    name: str
    sew: int                 # bits per element
    mant: int                # fraction bits
    bias: int                # exponent bias

    @property
    def wide(self) -> bool:
        return self.sew == 64

    def key(self, value: float) -> tuple:
        """The hoisted-constant key of ``value`` rounded to this width (``fmv.w.x`` / ``fmv.d.x`` of the bits)."""
        if self.wide:
            return ("d", struct.unpack("<q", struct.pack("<d", value))[0])
        return ("f", f32_bits(value))

    def bits(self, value: float) -> int:
        """The bit pattern of ``value`` rounded to this width, unsigned."""
        return struct.unpack("<Q", struct.pack("<d", value))[0] if self.wide else f32_bits(value)

    @property
    def mant_mask(self) -> int:
        return (1 << self.mant) - 1

    @property
    def integral(self) -> float:
        """2^mant: every float of this width at or above it in magnitude is an integer."""
        return 2.0 ** self.mant

    @property
    def min_normal(self) -> float:
        return 2.0 ** (1 - self.bias)

    def vtype(self, lmul: int = 2) -> str:
        return f"e{self.sew}, m{lmul}, ta, ma"


F32 = Width("f32", 32, 23, 127)
F64 = Width("f64", 64, 52, 1023)


class VMath:
    """Emits one expansion at width ``w``; in a dry run only records the constants it needs."""

    def __init__(self, b: MBuilder, consts: Dict[tuple, VReg], dry: bool):
        self.b = b
        self.consts = consts
        self.dry = dry
        self.free: List[str] = list(TEMPS)
        self.w = F32                 # the registry sets the width of the expansion it runs

    def __call__(self, *args) -> None:
        if not self.dry:
            self.b(*args)

    def tmp(self) -> str:
        if not self.free:
            raise CompileError("internal: the math library ran out of vector registers")
        return self.free.pop(0)

    def release(self, *regs: str) -> None:
        for r in regs:
            if r in TEMPS and r not in self.free:
                self.free.insert(0, r)

    def k(self, value: float):
        """An f register holding the constant ``value`` at the expansion's width."""
        key = self.w.key(value)
        if key not in self.consts:
            self.consts[key] = None
        return self.consts[key]

    def ki(self, value: int):
        key = ("x", value)
        if key not in self.consts:
            self.consts[key] = None
        return self.consts[key]

    # ---- building blocks
    def shift(self, mnemonic: str, dst: str, src: str, amount: int) -> None:
        """``vsll``/``vsra``/``vsrl`` by a constant: the immediate form below 32, else through an x register."""
        if amount < 32:
            self(f"{mnemonic}.vi", dst, src, amount)
        else:
            self(f"{mnemonic}.vx", dst, src, self.ki(amount))

    def splat(self, value: float) -> str:
        r = self.tmp()
        self("vfmv.v.f", r, self.k(value))
        return r

    def horner(self, coeffs, x: str) -> str:
        """coeffs[0]*x^(n-1) + ... + coeffs[-1] (each step one fused multiply-add)."""
        p = self.splat(coeffs[0])
        for c in coeffs[1:]:
            acc = self.splat(c)
            self("vfmacc.vv", acc, p, x)
            self.release(p)
            p = acc
        return p

    def clenshaw(self, coeffs, u: str) -> str:
        """sum(coeffs[j] T_j(u)) by Clenshaw's recurrence b_j = c_j + 2u b_(j+1) - b_(j+2)."""
        u2 = self.tmp()
        self("vfadd.vv", u2, u, u)
        b1, b2 = self.splat(coeffs[-1]), None
        for c in reversed(coeffs[1:-1]):
            nb = self.splat(c)
            if b2 is not None:
                self("vfsub.vv", nb, nb, b2)
                self.release(b2)
            self("vfmacc.vv", nb, u2, b1)
            b1, b2 = nb, b1
        r = self.splat(coeffs[0])
        self("vfsub.vv", r, r, b2)
        self("vfmacc.vv", r, u, b1)
        self.release(u2, b1, b2)
        return r

    def nan_passthrough(self, res: str, x: str) -> None:
        """res = x where x is NaN (NaN in, NaN out)."""
        self("vmfne.vv", "v0", x, x)
        self("vmerge.vvm", res, res, x, "v0")

    def set_where(self, res: str, cond: Callable[[], None], value: float) -> None:
        """res = value where the mask that ``cond`` writes to v0 is set."""
        cond()
        self("vfmerge.vfm", res, res, self.k(value), "v0")

    def pow2i(self, n: str) -> str:
        """2^n for integer elements n in [1 - bias, bias] (the exponent field built directly)."""
        r = self.tmp()
        self("vadd.vx", r, n, self.ki(self.w.bias))
        self.shift("vsll", r, r, self.w.mant)
        return r

    def scale(self, p: str, n: str) -> None:
        """p *= 2^n for n in [2 - 2 bias, 2 bias] (two steps, so subnormal and infinite results come out right)."""
        half = self.tmp()
        self("vsra.vi", half, n, 1)
        s = self.pow2i(half)
        self("vfmul.vv", p, p, s)
        self("vsub.vv", half, n, half)
        self.release(s)
        s = self.pow2i(half)
        self("vfmul.vv", p, p, s)
        self.release(s, half)


def two_sum(e: VMath, a: str, b: str):
    """(s, err) with s + err == a + b exactly (Knuth's TwoSum; no magnitude order needed)."""
    s = e.tmp()
    e("vfadd.vv", s, a, b)
    bb = e.tmp()
    e("vfsub.vv", bb, s, a)
    t = e.tmp()
    e("vfsub.vv", t, s, bb)
    e("vfsub.vv", t, a, t)
    e("vfsub.vv", bb, b, bb)
    e("vfadd.vv", t, t, bb)
    e.release(bb)
    return s, t


def odd_poly(e: VMath, coeffs, t: str, z: str) -> str:
    """t + t*z*P(z) (z = t*t given)."""
    p = e.horner(coeffs, z)
    e("vfmul.vv", p, p, z)
    r = e.tmp()
    e("vmv.v.v", r, t)
    e("vfmacc.vv", r, p, t)
    e.release(p)
    return r


def abs_(e: VMath, x: str) -> str:
    a = e.tmp()
    e("vfsgnjx.vv", a, x, x)
    return a


# ------------------------------------------------------------------------------- exact constants

def pi_fixed(bits: int) -> int:
    """floor(pi * 2**bits), from Machin's formula in integers (guard bits then truncation)."""
    g = bits + 16
    one = 1 << g

    def atan_inv(k: int) -> int:
        total, term, n, sign = 0, one // k, 1, 1
        while term:
            total += sign * (term // n)
            term //= k * k
            n += 2
            sign = -sign
        return total
    return (16 * atan_inv(5) - 4 * atan_inv(239)) >> 16


PI_BITS = 320
PI = Fraction(pi_fixed(PI_BITS), 1 << PI_BITS)             # pi to 2**-320


def two_over_sqrtpi() -> decimal.Decimal:
    """2/sqrt(pi) to 80 digits (``PI`` holds 96)."""
    with decimal.localcontext(decimal.Context(prec=80)):
        return 2 / (decimal.Decimal(PI.numerator) / decimal.Decimal(PI.denominator)).sqrt()


def f32(x: float) -> float:
    """``x`` rounded to the nearest f32 (as numpy's ``float32``), as a Python float."""
    return round_float(x, FloatType("f32"))


def f32_parts(value: Fraction, count: int):
    """``count`` f32s, each the rounding of what the previous ones leave of ``value``."""
    out = []
    for _ in range(count):
        f = f32(float(value))
        out.append(f)
        value -= Fraction(f)
    return tuple(out)


def from_bits(b: int) -> float:
    return struct.unpack("<d", struct.pack("<Q", b))[0]


def head(value: float, bits: int) -> float:
    """``value`` (a double) cut to its leading ``bits`` significant bits."""
    return from_bits(F64.bits(value) & ~((1 << (53 - bits)) - 1))


def taylor_exp(top: int):
    """1/k! for k = top .. 2, each rounded once to double."""
    return tuple(float(Fraction(1, math.factorial(k))) for k in range(top, 1, -1))


def taylor_sin(top: int):
    """(-1)^k / (2k + 1)! for k = top .. 1: sin r = r + r^3 P(r^2)."""
    return tuple(float(Fraction((-1) ** k, math.factorial(2 * k + 1))) for k in range(top, 0, -1))


def taylor_cos(top: int):
    """(-1)^k / (2k)! for k = top .. 2: cos r = 1 - r^2/2 + r^4 P(r^2)."""
    return tuple(float(Fraction((-1) ** k, math.factorial(2 * k))) for k in range(top, 1, -1))


def atanh_series(top: int):
    """2 / (2k + 1) for k = top .. 1: log((1 + s)/(1 - s)) = 2s + s^3 P(s^2)."""
    return tuple(float(Fraction(2, 2 * k + 1)) for k in range(top, 0, -1))
