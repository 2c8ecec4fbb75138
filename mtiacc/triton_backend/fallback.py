"""Running a kernel on the host instead of the chip: Triton's interpreter, over the kernel's own source.

Triton's interpreter evaluates a ``@triton.jit`` function with numpy, program by program.  It implements
``triton.language`` (and ``tl.math``), but the calls into ``libdevice`` that TorchInductor's kernels and helpers
make are declarations only; while a fallback runs, the kernel's (and its helpers') ``libdevice`` name is bound
to :class:`_HostLibdevice`, which computes each function elementwise with numpy in the operand's precision.
Where the interpreter's numbers differ from the compiled kernel's, the run takes the compiled semantics: bf16
dots and casts to bf16 (:func:`_bf16_values`), float arguments (:func:`_float_scalars`).
"""
from __future__ import annotations

import contextlib
import math
from typing import Callable, Dict, Iterator, List

import numpy as np

_vec = np.vectorize

_UNARY: Dict[str, Callable] = {
    "abs": np.abs, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "rint": np.rint,
    "nearbyint": np.rint, "round": lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5),
    "exp": np.exp, "exp2": np.exp2, "exp10": lambda x: np.power(10.0, x), "expm1": np.expm1,
    "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p,
    "sqrt": np.sqrt, "rsqrt": lambda x: 1.0 / np.sqrt(x), "cbrt": np.cbrt, "rcbrt": lambda x: 1.0 / np.cbrt(x),
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan,
    "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh,
    "atanh": np.arctanh, "sinpi": lambda x: np.sin(np.pi * x), "cospi": lambda x: np.cos(np.pi * x),
    "erf": _vec(math.erf), "erfc": _vec(math.erfc), "lgamma": _vec(math.lgamma),
    "tgamma": _vec(lambda v: math.gamma(v) if v > 0 or v != math.floor(v) else math.nan),
    "normcdf": _vec(lambda v: 0.5 * math.erfc(-v / math.sqrt(2.0))),
    "erfinv": _vec(lambda v: _erfinv(v)),
    "j0": _vec(lambda v: _bessel(0, v)), "j1": _vec(lambda v: _bessel(1, v)),
    "y0": _vec(lambda v: _bessel_y(0, v)), "y1": _vec(lambda v: _bessel_y(1, v)),
    "cyl_bessel_i0": np.i0, "cyl_bessel_i1": _vec(lambda v: _bessel_i1(v)),
    "erfcx": _vec(lambda v: _erfcx(v)), "fast_tanhf": np.tanh,
    "signbit": np.signbit, "isnan": np.isnan, "isinf": np.isinf, "isfinited": np.isfinite,
    "finitef": np.isfinite,
    "ilogb": lambda x: np.frexp(x)[1] - 1, "logb": lambda x: (np.frexp(x)[1] - 1).astype(x.dtype),
    "llrint": np.rint, "llround": lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5),
}
_BINARY: Dict[str, Callable] = {
    "pow": np.power, "atan2": np.arctan2, "fmod": np.fmod, "remainder": lambda a, b: a - b * np.rint(a / b),
    "copysign": np.copysign, "nextafter": np.nextafter, "hypot": np.hypot, "fdim": lambda a, b: np.maximum(a - b, 0),
    "ldexp": lambda a, b: np.ldexp(a, b.astype(np.int32)), "scalbn": lambda a, b: np.ldexp(a, b.astype(np.int32)),
    "div_rn": np.divide, "fast_dividef": np.divide, "mul_rn": np.multiply, "fmin": np.fmin, "fmax": np.fmax,
}
_TERNARY: Dict[str, Callable] = {"fma": lambda a, b, c: a * b + c}
_BOOLEAN = {"signbit", "isnan", "isinf", "isfinited", "finitef"}
_INT_RESULT = {"ilogb", "llrint", "llround"}


def _erfinv(v: float) -> float:
    if v <= -1.0:
        return -math.inf if v == -1.0 else math.nan
    if v >= 1.0:
        return math.inf if v == 1.0 else math.nan
    lo, hi = -10.0, 10.0
    for _ in range(200):                  # bisection: erf is monotonic
        mid = 0.5 * (lo + hi)
        if math.erf(mid) < v:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _bessel(n: int, v: float) -> float:
    # J_n(x) = 1/pi * integral_0^pi cos(n t - x sin t) dt, by the trapezoidal rule (exact for periodic integrands)
    k = 256
    return sum(math.cos(n * t - v * math.sin(t)) for t in (math.pi * (i + 0.5) / k for i in range(k))) / k


def _bessel_y(n: int, v: float) -> float:
    """Y_n(x), x > 0: 1/pi integral_0^pi sin(x sin t - n t) dt - 1/pi integral_0^inf (e^(nt) + (-1)^n e^(-nt))
    e^(-x sinh t) dt (Simpson's rule; the second integrand is negligible once x sinh t > 60)."""
    if v < 0 or math.isnan(v):
        return math.nan
    if v == 0:
        return -math.inf
    if math.isinf(v):
        return 0.0

    def simpson(f, a, b, k=2000):
        h = (b - a) / k
        return h / 3 * sum(f(a + i * h) * (1 if i in (0, k) else 4 if i % 2 else 2) for i in range(k + 1))
    first = simpson(lambda t: math.sin(v * math.sin(t) - n * t), 0.0, math.pi)
    end = math.asinh(60.0 / v)
    second = simpson(lambda t: (math.exp(n * t) + (-1) ** n * math.exp(-n * t)) * math.exp(-v * math.sinh(t)),
                     0.0, end)
    return (first - second) / math.pi


def _bessel_i1(v: float) -> float:
    """I_1(x) = sum_k (x/2)^(2k+1) / (k! (k+1)!), summed until the terms stop mattering."""
    if math.isnan(v):
        return math.nan
    if abs(v) > 715:
        return math.copysign(math.inf, v)
    half, term, total, k = v / 2, v / 2, 0.0, 0
    while True:
        total += term
        k += 1
        term *= half * half / (k * (k + 1))
        if abs(term) <= 1e-17 * abs(total) or k > 2000:
            return total


def _erfcx(v: float) -> float:
    """exp(x^2) erfc(x), asymptotic where exp(x^2) would overflow."""
    if math.isnan(v):
        return math.nan
    if v < 26.0:
        return math.exp(v * v) * math.erfc(v) if v > -26.0 else math.inf
    u = 1.0 / (v * v)
    return (1 - 0.5 * u + 0.75 * u * u - 1.875 * u ** 3) / (v * math.sqrt(math.pi))


class _HostLibdevice:
    """``libdevice`` for Triton's interpreter: each function applied to the operands' numpy data."""

    def __getattr__(self, name: str):
        table = _UNARY if name in _UNARY else _BINARY if name in _BINARY else _TERNARY if name in _TERNARY else None
        if table is None:
            raise AttributeError(f"libdevice.{name} has no host implementation for the fallback")
        fn = table[name]

        def call(*args, _semantic=None, **_kw):
            return _apply(name, fn, args)
        call.__name__ = name
        return call


def _apply(name: str, fn: Callable, args):
    import triton.language as tl
    from triton.runtime.interpreter import TensorHandle
    first = next((a for a in args if isinstance(a, tl.tensor)), None)
    datas = [a.handle.data if isinstance(a, tl.tensor) else np.asarray(getattr(a, "value", a)) for a in args]
    with np.errstate(all="ignore"):
        out = np.asarray(fn(*datas))
    dtype = first.dtype if first is not None else tl.float32
    if name in _BOOLEAN:
        out, dtype = out.astype(np.bool_), tl.int1
    elif name in _INT_RESULT:
        out, dtype = out.astype(np.int32 if name == "ilogb" else np.int64), (tl.int32 if name == "ilogb" else tl.int64)
    elif first is not None:
        out = out.astype(first.handle.data.dtype)
    shape = list(out.shape)
    ty = tl.block_type(dtype, shape) if shape else dtype
    return tl.tensor(TensorHandle(out if shape else out.reshape(1) if out.ndim else out, dtype), ty)


@contextlib.contextmanager
def _interpreted(namespaces: List[dict]) -> Iterator[None]:
    """Binds, for the run, ``libdevice`` to the host's and every ``@triton.jit`` helper to Triton's interpreter
    (which runs only functions it wraps itself: ``triton.jit`` wraps them so only under ``TRITON_INTERPRET``)."""
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import JITFunction
    shim = _HostLibdevice()
    saved = []
    for ns in namespaces:
        for key, value in list(ns.items()):
            if key == "libdevice":
                saved.append((ns, key, value))
                ns[key] = shim
            elif isinstance(value, JITFunction) and value.fn is not None:
                saved.append((ns, key, value))
                ns[key] = InterpretedFunction(value.fn)
    try:
        yield
    finally:
        for ns, key, value in saved:
            ns[key] = value


def _namespaces(py_fn) -> List[dict]:
    """The globals of the kernel, of the modules it names (Inductor's ``triton_helpers``) and of
    ``triton.language``'s own modules (its standard library is ``@triton.jit`` functions too)."""
    import sys
    import types
    mods = [m for m in list(py_fn.__globals__.values()) if isinstance(m, types.ModuleType)]
    mods += [m for name, m in list(sys.modules.items())
             if name.startswith("triton.language") and isinstance(m, types.ModuleType)]
    out, seen = [py_fn.__globals__], {id(py_fn.__globals__)}
    for mod in mods:
        if id(vars(mod)) not in seen and not mod.__name__.startswith(("numpy", "builtins")):
            seen.add(id(vars(mod)))
            out.append(vars(mod))
    return out


def run_on_host(py_fn, grid, args) -> None:
    """Run the kernel ``py_fn`` (the Python function under ``@triton.jit``) over ``grid`` on the host, on
    ``args`` (torch tensors, scalars and constexpr values, in parameter order)."""
    from triton.runtime import interpreter
    # Triton imports gluon the first time it types a launch's scalar argument; imported under the interpreter's
    # patched triton.language, gluon's module body fails (an AssertionError, then "Cannot call @triton.jit'd
    # outside of the scope of a kernel" on every later launch): import it here first
    import triton.experimental.gluon  # noqa: F401
    with _interpreted(_namespaces(py_fn)), _patched_once(interpreter), _split_precisions(interpreter), \
            _bf16_values(interpreter), _float_scalars(interpreter):
        interpreter.InterpretedFunction(py_fn)[tuple(grid)](*args)


@contextlib.contextmanager
def _patched_once(interpreter) -> Iterator[None]:
    """The interpreter patches the ``triton.language`` modules a function's globals name (``tl``, and ``core``
    for ``triton.language``'s own helpers: ``tl.zeros`` calls ``core.full``) when it runs the function, and a
    helper's patching is never undone, which would leave this process's ``triton.language`` patched.  For the
    run, both modules are patched once, up front, and undone after; the interpreter's own patchings do nothing
    (so a helper that names ``core``, called from a kernel that names only ``tl``, sees it patched)."""
    import types

    import triton.language as tl
    real = interpreter._patch_lang
    scope = real(types.FunctionType(_names_lang.__code__, {"tl": tl, "core": tl.core}))
    interpreter._patch_lang = lambda fn: interpreter._LangPatchScope()
    try:
        yield
    finally:
        interpreter._patch_lang = real
        scope.restore()


@contextlib.contextmanager
def _split_precisions(interpreter) -> Iterator[None]:
    """``tl.dot``'s ``input_precision`` ``bf16x3`` and ``bf16x6`` (mtiacc's, which backend="mtia"'s fp32 GEMM
    templates name: mtiacc/torch_backend/precision.py) accepted by the interpreter, which rejects them; its dot is
    a numpy product of the fp32 operands whatever the precision, at least as exact as either split."""
    import dataclasses
    builder = interpreter.interpreter_builder
    saved = builder.options
    extra = tuple(p for p in ("bf16x3", "bf16x6") if p not in saved.allowed_dot_input_precisions)
    builder.options = dataclasses.replace(saved, allowed_dot_input_precisions=saved.allowed_dot_input_precisions
                                          + extra)
    try:
        yield
    finally:
        builder.options = saved


@contextlib.contextmanager
def _bf16_values(interpreter) -> Iterator[None]:
    """bf16 as the chip (and torch) computes it.  The interpreter keeps a bf16 block as its bit patterns (numpy has
    no bf16), and for the run two of its operations on them are replaced:

    - ``tl.dot`` multiplied the bit patterns as integers (a bf16 GEMM falling back to the host wrote values of
      order 1e11): bf16 operands are widened to fp32 (exact) before the product (the accumulator is fp32: Triton
      rejects a bf16 ``out_dtype``);
    - a cast to bf16 (``.to(tl.bfloat16)``, a store of fp32 values to a bf16 tensor) truncated the mantissa where
      Triton's default (and the chip's, and torch's) is round-to-nearest-even, and from fp64 converted the value
      to an integer: fp32 and fp64 round to nearest even (fp64 through fp32).  A cast with an explicit
      ``fp_downcast_rounding`` takes the interpreter's own path, as before."""
    import triton.language as tl
    builder = interpreter.interpreter_builder
    saved = {name: vars(builder).get(name) for name in ("create_dot", "cast_impl")}
    dot, cast = builder.create_dot, builder.cast_impl

    def widened(h):
        if h.dtype.scalar != tl.bfloat16:
            return h
        return interpreter.TensorHandle((h.data.astype(np.uint32) << 16).view(np.float32), tl.float32)

    def create_dot(a, b, d, input_precision, max_num_imprecise_acc):
        return dot(widened(a), widened(b), d, input_precision, max_num_imprecise_acc)

    def cast_impl(src, dst_type):
        if dst_type.scalar == tl.bfloat16 and src.dtype.scalar in (tl.float32, tl.float64):
            return interpreter.TensorHandle(_bf16_bits(src.data), tl.bfloat16)
        return cast(src, dst_type)

    builder.create_dot, builder.cast_impl = create_dot, cast_impl
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                delattr(builder, name)
            else:
                setattr(builder, name, value)


@contextlib.contextmanager
def _float_scalars(interpreter) -> Iterator[None]:
    """A Python float argument as the fp32 scalar Triton compiles it to.  The interpreter wraps int and bool
    arguments in tensors but passed a float on as a Python float, so a kernel calling a method on it
    (``sm_scale.to(tl.float32)``, as the flash-attention kernels do) failed on the host, and in arithmetic it
    took the other operand's type where the compiled kernel promotes to fp32."""
    import triton.language as tl
    real = interpreter._implicit_cvt

    def implicit_cvt(arg):
        if isinstance(arg, float):
            return tl.tensor(interpreter.TensorHandle(np.array([arg], dtype=np.float32), tl.float32), tl.float32)
        return real(arg)

    interpreter._implicit_cvt = implicit_cvt
    try:
        yield
    finally:
        interpreter._implicit_cvt = real


def _bf16_bits(x: np.ndarray) -> np.ndarray:
    """The bf16 bit patterns of ``x`` rounded to nearest even (a NaN stays a quiet NaN of its sign)."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    nan = ((bits >> 16) | 0x0040).astype(np.uint16)
    return np.where(np.isnan(np.asarray(x, dtype=np.float32)), nan, rounded)


def _names_lang() -> None:
    """The code of a function whose globals name ``triton.language`` as ``tl`` and ``core`` (see above)."""
