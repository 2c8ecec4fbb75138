"""Math builtins: ``tl.exp`` ... ``tl.umulhi``, ``tl.math.*``, libdevice, and the hints.

Floating-point math is computed in f32: f16 and bf16 operands are converted to f32, the function
runs, and the result is rounded back to the operand type (round to nearest even).  Integer
operands of float-only functions are an error naming the function, as in Triton.

fp64 operands stay in fp64 where the result can be exact: ``sqrt``/``sqrt_rn`` (the hardware's correctly
rounded ``fsqrt.d``/``vfsqrt.v``; ``rsqrt`` divides 1 by it), ``abs``/``fabs`` (the sign bit), ``floor``/``ceil``/``trunc`` (through int64,
exact below 2**52, where every larger double is an integer already), ``fdiv``/``div_rn``, ``isnan``, ``isinf``,
``signbit``.  The rest (``tl.exp`` ...) would need a double-precision library: "`tl.exp` on float64 is not
supported yet".

The module names Inductor and kernels use for these are recognized without importing anything:
``triton.language.math``, ``triton.language.extra.libdevice`` (also ``...extra.cuda.libdevice``),
and ``from torch._inductor.runtime.triton_helpers import libdevice, math as tl_math``.
"""
from __future__ import annotations

from typing import Dict

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language.core import to
from mtiacc.frontend.language.semantic import FValue, Semantic, describe, is_const, promote_types
from mtiacc.frontend.values import Builtin, ModuleRef
from mtiacc.ir import ops
from mtiacc.ir.atomic_ops import BarrierOp
from mtiacc.ir.core import Value
from mtiacc.ir.fp8 import fmt as fp8_format
from mtiacc.ir.types import f32, f64, i16, i32, i64, is_fp8, u8, u32, u64

MATH_MODULE = "triton.language.math"
LIBDEVICE_MODULE = "triton.language.extra.libdevice"
# module qualname -> {attribute: module qualname} for the packages that hold these modules
SUBMODULES = {
    "triton.language.extra": {"libdevice": LIBDEVICE_MODULE, "cuda": "triton.language.extra.cuda"},
    "triton.language.extra.cuda": {"libdevice": LIBDEVICE_MODULE},
    "torch._inductor.runtime.triton_helpers": {"libdevice": LIBDEVICE_MODULE, "math": MATH_MODULE},
}
ALIASES = {"triton.language.extra.cuda.libdevice": LIBDEVICE_MODULE,
           "torch._inductor.runtime.triton_helpers.libdevice": LIBDEVICE_MODULE,
           "torch._inductor.runtime.triton_helpers.math": MATH_MODULE}


def _operand(sem: Semantic, x: FValue, fname: str) -> Value:
    if is_const(x):
        x = sem.materialize(float(x) if not isinstance(x, bool) else x)
    if not isinstance(x, Value):
        raise CompileError(f"{fname}() needs a number or a block, got {describe(x)}")
    return x


def _float_operand(sem: Semantic, x: FValue, fname: str) -> Value:
    v = _operand(sem, x, fname)
    t = v.type.element_type
    if not t.is_float():
        raise CompileError(f"{fname}() needs floating-point operands (fp16, bf16, fp32, fp64), got {t}")
    return v


# math ops that have a float64 expansion (mtiacc/codegen/mathlib: BOTH_WIDTHS); the others are errors on f64
F64_MATH = frozenset({"exp", "exp2", "log", "log2", "log1p", "expm1", "tanh", "erf", "sin", "cos"})


def _no_f64(fname: str, *vals: Value) -> None:
    if any(v.type.element_type == f64 for v in vals):
        raise CompileError(f"`{fname}` on float64 is not supported yet")


def _in_f32(sem: Semantic, fname: str, build, *xs: FValue) -> Value:
    """``build(*f32 operands)`` with the operands converted to their common float type, then f32."""
    vals = [_float_operand(sem, x, fname) for x in xs]
    _no_f64(fname, *vals)
    ty = vals[0].type.element_type
    for v in vals[1:]:
        if v.type.element_type != ty:
            raise CompileError(f"{fname}() needs operands of one type, got {ty} and {v.type.element_type}")
    vals = list(sem.broadcast(*vals))
    wide = [sem.cast(v, f32) for v in vals]
    return sem.cast(build(*wide), ty)


def _sign_of(sem: Semantic, mag: Value, x: Value) -> Value:
    """f64 ``|mag|`` with the sign of ``x`` (bit operations)."""
    bits = sem.binary("and", sem.cast(mag, u64, bitcast=True), 0x7FFFFFFFFFFFFFFF)
    sign = sem.binary("and", sem.cast(x, u64, bitcast=True), 0x8000000000000000)
    return sem.cast(sem.binary("or", bits, sign), f64, bitcast=True)


def _round_f64(sem: Semantic, x: Value, mode: str) -> Value:
    """floor / ceil / trunc / rint of f64 ``x``: through int64 below 2**52 (exact; rint: ``|x| + 2**52 - 2**52``,
    which rounds to nearest even), the sign of ``x`` kept (``ceil(-0.5) == -0.0``); larger values, infinities
    and NaN are their own result."""
    if mode == "rint":
        t = sem.binary("sub", sem.binary("add", abs_(sem, x), 2.0 ** 52), 2.0 ** 52)
    else:
        t = sem.cast(sem.cast(x, i64), f64)
    if mode == "floor":
        t = sem.where(sem.compare("gt", t, x), sem.binary("sub", t, 1.0), t)
    elif mode == "ceil":
        t = sem.where(sem.compare("lt", t, x), sem.binary("add", t, 1.0), t)
    small = sem.compare("lt", abs_(sem, x), 2.0 ** 52)
    return sem.where(small, _sign_of(sem, t, x), x)


def _unary(op_name: str, fname: str, approx: bool = False):
    """``fname(x)`` as math op ``op_name``; ``approx``: the f32 op may be computed to 2 ULP (``tl.exp``)."""
    cls = ops.MATH_UNARY[op_name]

    def impl(sem: Semantic, x):
        v = _operand(sem, x, fname)
        if v.type.element_type == f64:
            if op_name == "sqrt":        # correctly rounded on the hardware, as IEEE requires
                return sem.emit(cls.get(v))
            if op_name == "rsqrt":       # 1 / sqrt(x): two correctly rounded steps (within 1.5 ULP)
                return sem.binary("truediv", 1.0, sem.emit(ops.MATH_UNARY["sqrt"].get(v)))
            if op_name in ("floor", "ceil", "trunc", "rint"):
                return _round_f64(sem, v, op_name)
            if op_name in F64_MATH:
                return sem.emit(cls.get(v))
        return _in_f32(sem, fname, lambda v: sem.emit(cls.get(v, approx=approx)), x)
    impl.__name__ = fname.split(".")[-1]
    impl.__doc__ = f"``{fname}(x)``, element-wise (computed in fp32)."
    return impl


def abs_(sem: Semantic, x):
    """``|x|``: floats clear the sign bit; signed integers negate negatives (wrapping); unsigned as is."""
    v = _operand(sem, x, "tl.abs")
    t = v.type.element_type
    if t == f64:
        bits = sem.binary("and", sem.cast(v, u64, bitcast=True), 0x7FFFFFFFFFFFFFFF)   # clear the sign bit
        return sem.cast(bits, f64, bitcast=True)
    if is_fp8(t) and fp8_format(t).specials != "fnuz":
        # the sign bit, exactly: every code of fp8e4b15 is finite (0x7F is 1.875, beyond what its encoder
        # produces); an fnuz format's 0x80 is its NaN, through f32 below
        bits = sem.binary("and", sem.cast(v, u8, bitcast=True), 0x7F)
        return sem.cast(bits, t, bitcast=True)
    if t.is_float():
        return _in_f32(sem, "tl.abs", lambda w: sem.emit(ops.MATH_UNARY["absf"].get(w)), v)
    if t.is_bool() or not t.signed:
        return v
    return sem.where(sem.compare("lt", v, 0), sem.unary("neg", v), v)


def sigmoid(sem: Semantic, x):
    """``1 / (1 + exp(-x))``."""
    def build(v):
        e = sem.emit(ops.MATH_UNARY["exp"].get(sem.unary("neg", v), approx=v.type.element_type != f64))
        return sem.binary("truediv", 1.0, sem.binary("add", e, 1.0))
    v = _operand(sem, x, "tl.sigmoid")
    if v.type.element_type == f64:
        return build(v)
    return _in_f32(sem, "tl.sigmoid", build, x)


def fma(sem: Semantic, x, y, z):
    """``x * y + z`` rounded once."""
    a, b, c = (_float_operand(sem, v, "tl.fma") for v in (x, y, z))
    ty = promote_types(promote_types(a.type.element_type, b.type.element_type), c.type.element_type)
    a, b, c = (sem.cast(v, ty) for v in (a, b, c))
    if ty.element_type == f64:                   # fused in double precision (vfmacc at SEW=64, fmadd.d)
        return sem.emit(ops.MathFmaOp.get(*sem.broadcast(a, b, c)))
    return _in_f32(sem, "tl.fma", lambda p, q, r: sem.emit(ops.MathFmaOp.get(p, q, r)), a, b, c)


def pow_(sem: Semantic, x, y):
    """``libdevice.pow(x, y)`` (C's ``powf``, special cases included)."""
    a, b = _float_operand(sem, x, "libdevice.pow"), _float_operand(sem, y, "libdevice.pow")
    ty = sem.common_type(a, b)
    a, b = sem.cast(a, ty), sem.cast(b, ty)
    if ty.element_type == f64:                   # double precision: mtiacc/codegen/mathlib
        return sem.emit(ops.MathPowFOp.get(*sem.broadcast(a, b)))
    return _in_f32(sem, "libdevice.pow", lambda p, q: sem.emit(ops.MathPowFOp.get(p, q)), a, b)


def _binary_math(op_cls, fname: str):
    def impl(sem: Semantic, x, y):
        a, b = _float_operand(sem, x, fname), _float_operand(sem, y, fname)
        ty = sem.common_type(a, b)
        a, b = sem.cast(a, ty), sem.cast(b, ty)
        return _in_f32(sem, fname, lambda p, q: sem.emit(op_cls.get(p, q)), a, b)
    impl.__name__ = fname.split(".")[-1]
    impl.__doc__ = f"``{fname}(x, y)``, element-wise (computed in fp32)."
    return impl


def copysign(sem: Semantic, x, y):
    """``libdevice.copysign(x, y)``: ``|x|`` with the sign bit of ``y`` (bit operations, exact)."""
    a, b = _float_operand(sem, x, "libdevice.copysign"), _float_operand(sem, y, "libdevice.copysign")
    ty = sem.common_type(a, b)
    a, b = sem.cast(a, ty), sem.cast(b, ty)
    if ty == f64:
        return _sign_of(sem, a, b)

    def build(p, q):
        bits = sem.binary("and", sem.cast(p, u32, bitcast=True), 0x7FFFFFFF)
        sign = sem.binary("and", sem.cast(q, u32, bitcast=True), 0x80000000)
        return sem.cast(sem.binary("or", bits, sign), f32, bitcast=True)
    return _in_f32(sem, "libdevice.copysign", build, a, b)


def round_(sem: Semantic, x):
    """``libdevice.round(x)``: to the nearest integer, halfway cases away from zero (exact:
    ``t = trunc(x)``, then ``t +- 1`` where ``|x - t| >= 1/2``)."""
    v = _float_operand(sem, x, "libdevice.round")

    def build(w):
        t = _round_f64(sem, w, "trunc") if w.type.element_type == f64 else \
            sem.emit(ops.MATH_UNARY["trunc"].get(w))
        step = sem.where(sem.compare("lt", w, 0.0), -1.0, 1.0)
        far = sem.compare("ge", abs_(sem, sem.binary("sub", w, t)), 0.5)
        return sem.where(far, sem.binary("add", t, step), t)
    return build(v) if v.type.element_type == f64 else _in_f32(sem, "libdevice.round", build, v)


def fmod_(sem: Semantic, x, y):
    """``libdevice.fmod(x, y)``: C's ``fmod`` (exact), as ``%`` on floats."""
    a, b = _float_operand(sem, x, "libdevice.fmod"), _float_operand(sem, y, "libdevice.fmod")
    ty = sem.common_type(a, b)
    a, b = sem.cast(a, ty), sem.cast(b, ty)
    return sem.fmod(*sem.broadcast(a, b))


def nextafter(sem: Semantic, x, y):
    """``libdevice.nextafter(x, y)``: the neighbour of ``x`` towards ``y`` in ``x``'s own type, on the bits
    (NaN if either is NaN, ``y`` if they are equal, the smallest subnormal of ``y``'s sign from zero)."""
    a, b = _float_operand(sem, x, "libdevice.nextafter"), _float_operand(sem, y, "libdevice.nextafter")
    ty = sem.common_type(a, b)
    if ty.width not in (16, 32, 64):
        raise CompileError(f"libdevice.nextafter() on {ty} is not supported yet")
    a, b = sem.broadcast(sem.cast(a, ty), sem.cast(b, ty))
    ity = {16: i16, 32: i32, 64: i64}[ty.width]
    bits = sem.cast(a, ity, bitcast=True)
    zero = sem.binary("sub", bits, bits)
    up = sem.compare("eq", sem.compare("lt", a, b), sem.compare("gt", a, 0.0))
    step = sem.where(up, sem.binary("add", zero, 1), sem.binary("sub", zero, 1))
    moved = sem.cast(sem.binary("add", bits, step), ty, bitcast=True)
    sign = sem.binary("and", sem.cast(b, ity, bitcast=True), sem.binary("lshift", sem.binary("add", zero, 1),
                                                                         ty.width - 1))
    tiny = sem.cast(sem.binary("or", sign, 1), ty, bitcast=True)
    r = sem.where(sem.compare("eq", a, 0.0), tiny, moved)
    r = sem.where(sem.compare("eq", a, b), b, r)
    nan = sem.binary("or", sem.compare("ne", a, a), sem.compare("ne", b, b))
    return sem.where(nan, float("nan"), r)


def ldexp(sem: Semantic, x, n):
    """``libdevice.ldexp(x, n)``: ``x * 2**n`` rounded once, on the f32 bits: the exponent field moved
    when the result is normal, else ``y * 2**-24 * 2**(k + 24)`` for the significand ``y`` in [1, 2),
    whose second multiply is the only inexact step (subnormal results, underflow to zero)."""
    v = _float_operand(sem, x, "libdevice.ldexp")
    k = _operand(sem, n, "libdevice.ldexp")
    if not k.type.element_type.is_int():
        raise CompileError(f"libdevice.ldexp() needs an integer exponent, got {k.type.element_type}")
    _no_f64("libdevice.ldexp", v)
    ty = v.type.element_type
    v, k = sem.broadcast(sem.cast(v, f32), k)
    k = sem.cast(sem.binary("minimum", sem.binary("maximum", k, -1000), 1000), i32)
    sub = sem.compare("lt", abs_(sem, v), 2.0 ** -126)          # subnormal (or zero): normalize first
    v2 = sem.where(sub, sem.binary("mul", v, 2.0 ** 24), v)
    k = sem.where(sub, sem.binary("sub", k, 24), k)
    bits = sem.cast(v2, i32, bitcast=True)
    e = sem.binary("add", sem.binary("and", sem.binary("rshift", bits, 23), 0xFF), k)
    normal = sem.cast(sem.binary("or", sem.binary("and", bits, -0x7F800001), sem.binary("lshift", e, 23)), f32,
                      bitcast=True)
    y = sem.cast(sem.binary("or", sem.binary("and", bits, -0x7F800001), 127 << 23), f32, bitcast=True)
    kk = sem.binary("maximum", sem.binary("sub", e, 127), -151)
    scale = sem.cast(sem.binary("lshift", sem.binary("add", sem.binary("minimum", kk, 0), 24 + 127), 23), f32,
                     bitcast=True)
    tiny = sem.binary("mul", sem.binary("mul", y, 2.0 ** -24), scale)
    r = sem.where(sem.compare("lt", e, 1), tiny, normal)
    r = sem.where(sem.compare("gt", e, 254), sem.binary("mul", y, float("inf")), r)
    special = sem.binary("or", sem.compare("eq", v, 0.0), sem.compare("ne", v, v))
    special = sem.binary("or", special, sem.compare("eq", abs_(sem, v), float("inf")))
    return sem.cast(sem.where(special, v, r), ty)


def llrint(sem: Semantic, x):
    """``libdevice.llrint(x)``: round to nearest even, as int64."""
    return sem.cast(_unary("rint", "libdevice.llrint")(sem, x), i64)


def clamp(sem: Semantic, x, min, max, propagate_nan=None):
    """``min(max(x, min), max)``, element-wise."""
    if propagate_nan not in (None, 0, False):
        raise CompileError("tl.clamp(propagate_nan=...) is not supported yet")
    return sem.binary("minimum", sem.binary("maximum", x, min), max)


def fdiv(sem: Semantic, x, y, ieee_rounding=False):
    """``x / y`` on floats (always IEEE-rounded here)."""
    _float_operand(sem, x, "tl.fdiv")
    _float_operand(sem, y, "tl.fdiv")
    return sem.binary("truediv", x, y)


def div_rn(sem: Semantic, x, y):
    """``x / y`` rounded to nearest even."""
    _float_operand(sem, x, "tl.div_rn")
    _float_operand(sem, y, "tl.div_rn")
    return sem.binary("truediv", x, y)


def umulhi(sem: Semantic, x, y):
    """The high 32 bits of the 64-bit unsigned product of 32-bit integers."""
    # integer literals take their literal type (3528531795 is uint32), as in Triton
    a, b = (sem.materialize(v) if isinstance(v, int) and not isinstance(v, bool) else _operand(sem, v, "tl.umulhi")
            for v in (x, y))
    ty = sem.common_type(a, b)
    if ty not in (i32, u32):
        raise CompileError(f"tl.umulhi() needs int32 or uint32 operands, got {ty}")
    return sem.binary("mulhi", sem.cast(a, ty), sem.cast(b, ty))


def signbit(sem: Semantic, x):
    """``libdevice.signbit(x)``: 1 (int32) where the sign bit of fp32 ``x`` is set, else 0."""
    v = _float_operand(sem, x, "libdevice.signbit")
    if v.type.element_type == f64:
        return sem.cast(sem.binary("rshift", sem.cast(v, u64, bitcast=True), 63), i32)
    bits = sem.cast(sem.cast(v, f32), u32, bitcast=True)
    return sem.cast(sem.binary("rshift", bits, 31), i32)


def isnan(sem: Semantic, x):
    """``x != x``."""
    v = _float_operand(sem, x, "libdevice.isnan")
    return sem.compare("ne", v, v)


def isinf(sem: Semantic, x):
    """``|x| == inf``."""
    v = _float_operand(sem, x, "libdevice.isinf")
    return sem.compare("eq", abs_(sem, v), float("inf"))


def cast(sem: Semantic, input, dtype, fp_downcast_rounding=None, bitcast=False):
    """``tl.cast(x, dtype, bitcast=False)``: the same as ``x.to(dtype, bitcast=bitcast)``."""
    return to(sem, _operand(sem, input, "tl.cast"), dtype, fp_downcast_rounding, bitcast)


def _identity_hint(name: str):
    def impl(sem: Semantic, input, values):
        return input
    impl.__name__ = name
    impl.__doc__ = f"``tl.{name}``: an optimization hint; accepted and ignored (the value is unchanged)."
    return impl


def assume(sem: Semantic, cond):
    """``tl.assume(cond)``: a hint; accepted and ignored."""
    return None


def debug_barrier(sem: Semantic):
    """``tl.debug_barrier()``: every memory access, DMA transfer and atomic the program issued completes
    before any later one (``tt.barrier``, the machine's ``fence``)."""
    sem.emit(BarrierOp.get())
    return None


# ---------------------------------------------------------------------- special functions
# Bessel functions of the first and second kind (j0, j1, y0, y1) and modified ones of the first kind
# (cyl_bessel_i0, cyl_bessel_i1) from the polynomial approximations of Abramowitz and Stegun, 9.4.1-9.4.6
# and 9.8.1-9.8.4 (absolute error below 1e-6 for J and Y, relative below 1e-6 for I, in f32); erfcx.

_J0 = (1.0, -2.2499997, 1.2656208, -0.3163866, 0.0444479, -0.0039444, 0.0002100)              # J0(x), (x/3)**2
_Y0 = (0.36746691, 0.60559366, -0.74350384, 0.25300117, -0.04261214, 0.00427916, -0.00024846)
_J1 = (0.5, -0.56249985, 0.21093573, -0.03954289, 0.00443319, -0.00031761, 0.00001109)        # J1(x) / x
_Y1 = (-0.6366198, 0.2212091, 2.1682709, -1.3164827, 0.3123951, -0.0400976, 0.0027873)
# x >= 3: J = f cos(theta) / sqrt(x), Y = f sin(theta) / sqrt(x), f and theta - x polynomials in 3 / x
_F0 = (0.79788456, -0.00000077, -0.00552740, -0.00009512, 0.00137237, -0.00072805, 0.00014476)
_T0 = (-0.78539816, -0.04166397, -0.00003954, 0.00262573, -0.00054125, -0.00029333, 0.00013558)
_F1 = (0.79788456, 0.00000156, 0.01659667, 0.00017105, -0.00249511, 0.00113653, -0.00020033)
_T1 = (-2.35619449, 0.12499612, 0.00005650, -0.00637879, 0.00074348, 0.00079824, -0.00029166)
_I0 = (1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.0360768, 0.0045813)                # (x/3.75)**2
_I1 = (0.5, 0.87890594, 0.51498869, 0.15084934, 0.02658733, 0.00301532, 0.00032411)
# x >= 3.75: sqrt(x) exp(-x) I, polynomials in 3.75 / x
_I0_BIG = (0.39894228, 0.01328592, 0.00225319, -0.00157565, 0.00916281, -0.02057706, 0.02635537,
           -0.01647633, 0.00392377)
_I1_BIG = (0.39894228, -0.03988024, -0.00362018, 0.00163801, -0.01031555, 0.02282967, -0.02895312,
           0.01787654, -0.00420059)
_TWO_OVER_PI = 0.6366197723675814


def _poly(sem: Semantic, z: Value, coeffs) -> Value:
    """``sum(c[k] * z**k)`` by Horner's rule."""
    r = sem.binary("add", sem.binary("mul", z, coeffs[-1]), coeffs[-2])
    for c in reversed(coeffs[:-2]):
        r = sem.binary("add", sem.binary("mul", r, z), c)
    return r


def _m(sem: Semantic, name: str, v: Value) -> Value:
    return sem.emit(ops.MATH_UNARY[name].get(v))


def _bessel_big(sem: Semantic, ax: Value, f, theta, trig: str) -> Value:
    """``f(3/x) * trig(x + theta(3/x)) / sqrt(x)`` for ``x = max(ax, 3)``."""
    x = sem.binary("maximum", ax, 3.0)
    z = sem.binary("truediv", 3.0, x)
    phase = sem.binary("add", x, _poly(sem, z, theta))
    return sem.binary("truediv", sem.binary("mul", _poly(sem, z, f), _m(sem, trig, phase)), _m(sem, "sqrt", x))


def _bessel_j(order: int):
    def build(sem: Semantic, x: Value) -> Value:
        ax = abs_(sem, x)
        s = sem.binary("mul", sem.binary("mul", ax, ax), 1.0 / 9.0)
        if order == 0:
            small = _poly(sem, s, _J0)
            big = _bessel_big(sem, ax, _F0, _T0, "cos")
        else:
            small = sem.binary("mul", x, _poly(sem, s, _J1))
            big = _bessel_big(sem, ax, _F1, _T1, "cos")
            big = sem.where(sem.compare("lt", x, 0.0), sem.unary("neg", big), big)
        r = sem.where(sem.compare("lt", ax, 3.0), small, big)
        return sem.where(sem.compare("eq", ax, float("inf")), 0.0, r)
    return build


def _bessel_y(order: int):
    def build(sem: Semantic, x: Value) -> Value:
        s = sem.binary("mul", sem.binary("mul", x, x), 1.0 / 9.0)
        log_term = sem.binary("mul", _m(sem, "log", sem.binary("mul", x, 0.5)), _TWO_OVER_PI)
        if order == 0:
            small = sem.binary("add", sem.binary("mul", log_term, _bessel_j(0)(sem, x)), _poly(sem, s, _Y0))
            big = _bessel_big(sem, x, _F0, _T0, "sin")
        else:
            xj = sem.binary("mul", x, _bessel_j(1)(sem, x))
            small = sem.binary("truediv", sem.binary("add", sem.binary("mul", log_term, xj), _poly(sem, s, _Y1)), x)
            small = sem.where(sem.compare("eq", x, 0.0), float("-inf"), small)
            big = _bessel_big(sem, x, _F1, _T1, "sin")
        r = sem.where(sem.compare("lt", x, 3.0), small, big)
        r = sem.where(sem.compare("eq", x, float("inf")), 0.0, r)
        return sem.where(sem.compare("lt", x, 0.0), float("nan"), r)
    return build


def _bessel_i(order: int):
    def build(sem: Semantic, x: Value) -> Value:
        ax = abs_(sem, x)
        t = sem.binary("mul", sem.binary("mul", ax, ax), 1.0 / 14.0625)
        xb = sem.binary("maximum", ax, 3.75)
        half = _m(sem, "exp", sem.binary("mul", xb, 0.5))      # exp(x) as two halves: finite up to I's overflow
        scaled = _poly(sem, sem.binary("truediv", 3.75, xb), _I0_BIG if order == 0 else _I1_BIG)
        big = sem.binary("mul", sem.binary("mul", sem.binary("truediv", scaled, _m(sem, "sqrt", xb)), half), half)
        big = sem.where(sem.compare("eq", ax, float("inf")), float("inf"), big)
        if order == 0:
            return sem.where(sem.compare("lt", ax, 3.75), _poly(sem, t, _I0), big)
        big = sem.where(sem.compare("lt", x, 0.0), sem.unary("neg", big), big)
        return sem.where(sem.compare("lt", ax, 3.75), sem.binary("mul", x, _poly(sem, t, _I1)), big)
    return build


def _erfcx(sem: Semantic, x: Value) -> Value:
    """``exp(x**2) * erfc(x)``: below 2 that product with ``x**2`` carried exactly as ``hi + lo`` (an fma),
    from 2 on the continued fraction ``1 / sqrt(pi) / (x + (1/2) / (x + 1 / (x + (3/2) / (x + ...))))``,
    16 terms (relative error below 1e-7 there)."""
    hi = sem.binary("mul", x, x)
    lo = sem.emit(ops.MathFmaOp.get(x, x, sem.unary("neg", hi)))
    direct = sem.binary("mul", sem.binary("mul", _m(sem, "exp", hi), sem.binary("add", lo, 1.0)), _m(sem, "erfc", x))
    xc = sem.binary("maximum", x, 2.0)
    t = xc
    for k in range(16, 0, -1):
        t = sem.binary("add", xc, sem.binary("truediv", k / 2, t))
    cf = sem.binary("truediv", 0.5641895835477563, t)
    return sem.where(sem.compare("lt", x, 2.0), direct, cf)


def _special(build, fname: str):
    def impl(sem: Semantic, x):
        return _in_f32(sem, fname, lambda v: build(sem, v), x)
    impl.__name__ = fname.split(".")[-1]
    impl.__doc__ = f"``{fname}(x)``, element-wise (computed in fp32)."
    return impl


def mul_rn(sem: Semantic, x, y):
    """``libdevice.mul_rn(x, y)``: ``x * y`` rounded to nearest even (as ``*`` is)."""
    _float_operand(sem, x, "libdevice.mul_rn")
    _float_operand(sem, y, "libdevice.mul_rn")
    return sem.binary("mul", x, y)


# --------------------------------------------------------------------------------------- tables

_UNARY_NAMES = {  # function name -> math op
    "exp": "exp", "exp2": "exp2", "log": "log", "log2": "log2", "sqrt": "sqrt", "sqrt_rn": "sqrt",
    "rsqrt": "rsqrt", "sin": "sin", "cos": "cos", "floor": "floor", "ceil": "ceil", "erf": "erf",
}


# The fp32 functions whose spelling promises 2 ULP rather than the library's 1 (their ops carry ``approx``;
# docs/language.md, "Math"): ``tl.exp``, ``tl.exp2`` (Triton's GPU backends compute them approximately: ex2.approx
# after a multiply by log2(e) on NVIDIA, llvm.exp2 on AMD), libdevice's ``exp``, ``exp2`` / ``exp2f`` (CUDA's
# ``__nv_expf`` and ``__nv_exp2f`` state a maximum error of 2 ULP) and its ``fast_expf``.
_APPROX = {"tl": {"exp", "exp2"}, "tl.math": {"exp", "exp2"}, "libdevice": {"exp", "exp2", "exp2f", "fast_expf"}}


def _table(prefix: str, unary: Dict[str, str], extra: Dict[str, object]) -> Dict[str, Builtin]:
    out = {name: Builtin(f"{prefix}.{name}", _unary(op, f"{prefix}.{name}", name in _APPROX[prefix]))
           for name, op in unary.items()}
    out.update({name: Builtin(f"{prefix}.{name}", fn) for name, fn in extra.items()})
    return out


_COMMON = {"abs": abs_, "fma": fma, "div_rn": div_rn, "fdiv": fdiv, "umulhi": umulhi}

TL_MATH: Dict[str, Builtin] = _table("tl", _UNARY_NAMES, {
    **_COMMON, "sigmoid": sigmoid, "clamp": clamp, "cast": cast,
    "multiple_of": _identity_hint("multiple_of"), "max_contiguous": _identity_hint("max_contiguous"),
    "max_constancy": _identity_hint("max_constancy"), "assume": assume, "debug_barrier": debug_barrier})

MATH: Dict[str, Builtin] = _table("tl.math", _UNARY_NAMES, _COMMON)

LIBDEVICE: Dict[str, Builtin] = _table("libdevice", {
    **_UNARY_NAMES, "tanh": "tanh", "log1p": "log1p", "expm1": "expm1", "trunc": "trunc",
    "rint": "rint", "nearbyint": "rint", "fast_expf": "exp", "fast_logf": "log", "exp2f": "exp2",
    "fast_tanhf": "tanh", **{n: n for n in ("tan", "atan", "asin", "acos", "sinh", "cosh", "asinh", "acosh",
                                             "atanh", "log10", "cbrt", "erfc", "erfinv", "lgamma")},
}, {**_COMMON, "fabs": abs_, "pow": pow_, "signbit": signbit, "isnan": isnan, "isinf": isinf,
    "atan2": _binary_math(ops.MathAtan2Op, "libdevice.atan2"),
    "hypot": _binary_math(ops.MathHypotOp, "libdevice.hypot"), "copysign": copysign, "round": round_,
    "fmod": fmod_, "llrint": llrint, "nextafter": nextafter, "ldexp": ldexp, "mul_rn": mul_rn,
    **{name: _special(build, f"libdevice.{name}") for name, build in (
        ("j0", _bessel_j(0)), ("j1", _bessel_j(1)), ("y0", _bessel_y(0)), ("y1", _bessel_y(1)),
        ("cyl_bessel_i0", _bessel_i(0)), ("cyl_bessel_i1", _bessel_i(1)), ("erfcx", _erfcx))}})


def lookup(qualname: str, attr: str):
    """The object ``module.attr`` names for the math modules, or None when ``qualname`` is not one."""
    qualname = ALIASES.get(qualname, qualname)
    if qualname == MATH_MODULE:
        return MATH.get(attr)
    if qualname == LIBDEVICE_MODULE:
        return LIBDEVICE.get(attr)
    sub = SUBMODULES.get(qualname, {}).get(attr)
    return ModuleRef(sub) if sub else None


def is_math_module(qualname: str) -> bool:
    return ALIASES.get(qualname, qualname) in (MATH_MODULE, LIBDEVICE_MODULE) or qualname in SUBMODULES
