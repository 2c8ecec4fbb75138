"""The device math library (``math.*`` ops as RVV instruction sequences)."""
from mtiacc.codegen.mathlib.core import is_math, lower_math, lower_math_scalar

__all__ = ["is_math", "lower_math", "lower_math_scalar"]
