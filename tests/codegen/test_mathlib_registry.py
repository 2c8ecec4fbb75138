"""The frontend's list of math functions computed in float64 (language/math.py: F64_MATH; it cannot import
codegen) is the math library's list of functions with a float64 body (mathlib.BOTH_WIDTHS), less pow,
which reaches it as libdevice.pow, and fma, which reaches it as tl.fma."""
from mtiacc.codegen import mathlib
from mtiacc.frontend.language.math import F64_MATH


def test_the_frontend_and_the_library_agree_on_float64():
    library = {name.removeprefix("math.") for name in mathlib.BOTH_WIDTHS}
    assert library - {"powf", "fma"} == set(F64_MATH)
