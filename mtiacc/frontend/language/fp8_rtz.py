"""``x.to(dtype, fp_downcast_rounding=...)``: Triton's explicit rounding of float narrowing.

``"rtne"`` is the default rounding, so it is an ordinary conversion.  ``"rtz"`` (round toward zero) is,
among the conversions mtiacc supports, what Triton's NVIDIA backend does from float32 to float8e5 (its
only fp8 conversion accepting it): float32 -> float16 toward zero (``cvt.rz.f16.f32``: finite values
beyond f16 become 65504, NaN the canonical 0x7FFF), then the f16 pattern's top byte.  On the f32 bits
that is a truncation to the e5 grid: finite values at or beyond 57344 give 0x7B (57344), infinities stay
infinite (0x7C/0xFC), NaN is 0x7F, and values below the smallest subnormal are signed zeros.  It is built
here from integer operations on the bits (no new IR op).  Other ``"rtz"`` conversions are errors.
"""
from __future__ import annotations

from mtiacc.diagnostics import CompileError
from mtiacc.frontend.language.semantic import Semantic
from mtiacc.ir.types import Type, f32, f8e5, is_fp8, u8, u32


def rounding_cast(sem: Semantic, v, dst: Type, mode) -> object:
    """``v.to(dst, fp_downcast_rounding=mode)`` (``v`` a run-time value)."""
    if mode not in ("rtne", "rtz"):
        raise CompileError(f"fp_downcast_rounding must be 'rtne' or 'rtz', got {mode!r}")
    src = v.type.element_type
    if not (src.is_float() and dst.is_float() and dst.width < src.width):
        raise CompileError(f"fp_downcast_rounding applies only to narrowing float conversions, "
                           f"not {src} to {dst} (as in Triton)")
    if mode == "rtne":
        return sem.cast(v, dst)
    if dst == f8e5 and src == f32:
        return _f32_to_e5_rtz(sem, v)
    if is_fp8(dst):
        raise CompileError(f"fp_downcast_rounding='rtz' from {src} to {dst} is not supported: Triton's backends "
                           "accept it for fp8 only from float32 to float8e5")
    raise CompileError(f"fp_downcast_rounding='rtz' from {src} to {dst} is not supported yet")


def _f32_to_e5_rtz(sem: Semantic, v):
    bits = sem.cast(v, u32, bitcast=True)
    a = sem.binary("and", bits, 0x7FFFFFFF)
    normal = sem.binary("sub", sem.binary("rshift", a, 21), (127 - 15) << 2)      # rebias, drop 21 bits
    scaled = sem.binary("mul", sem.cast(a, f32, bitcast=True), 65536.0)           # subnormals: |x| / 2**-16
    code = sem.where(sem.compare("lt", a, 0x38800000), sem.cast(scaled, u32), normal)
    code = sem.binary("minimum", code, 0x7B)                                       # finite overflow: 57344
    code = sem.where(sem.compare("eq", a, 0x7F800000), 0x7C, code)                 # infinities stay
    code = sem.binary("or", code, sem.binary("and", sem.binary("rshift", bits, 24), 0x80))
    code = sem.where(sem.compare("gt", a, 0x7F800000), 0x7F, code)                 # NaN (no sign)
    return sem.cast(sem.cast(code, u8), f8e5, bitcast=True)
