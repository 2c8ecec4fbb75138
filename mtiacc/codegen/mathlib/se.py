"""Which math functions run on the SIMD engine (SE), and their one-instruction bodies.

The SE computes ``exp``, ``log``, ``tanh`` ... by table lookup in one instruction, ``mtia.se.<function>.v``, at
the accuracy the target's ``se.functions`` states.  A function goes to the SE when the compile allows it:

* by default, where the SE's bound is within the vector library's guarantee for that function
  (:data:`LIBRARY_ULPS`, the table of docs/language.md "Math"), so the default keeps the guarantees the library
  states (with the machine YAML's 22-bit tables: ``tanh``, 2 ULP against 3; ``erf`` and ``log2``, 2 against 2).
  An equal bound changes the typical error, not the guarantee: the library's errors mostly stay well below its
  bound, the table's reach it anywhere (GELU, ``0.5 x (1 + erf(x / sqrt 2))``, has a largest relative error of
  about 1e-5 with the table's erf where erf is near -1, about 1e-6 with the library's; docs/language.md);
* ops marked ``approx`` where the SE's bound is within :data:`APPROX_ULPS`, the accuracy their spelling promises:
  ``tl.exp``, ``tl.exp2``, ``tl.sigmoid``'s exp (what Triton's GPU backends compute with an approximate hardware
  exp2) and ``libdevice.exp``, ``libdevice.exp2`` (CUDA states 2 ULP for ``expf`` and ``exp2f``; the SE's 22-bit
  table measures 2 ULP over all of fp32, subnormal results included: docs/language.md "Math");
* with ``fast_math`` (``mtiacc --fast-math``, ``mtiacc.compile(..., fast_math=True)``), every function the SE
  has, at the SE's accuracy (sin and cos then have an absolute error bound only).

fp32 only: f16 / bf16 compute through fp32 (the frontend), f64 stays on the vector library.  The choice shows in
the assembly as ``mtia.se.*`` in place of the library's expansion.

The SE's floating-point ALUs (``mtia.se.f<op>.vv`` / ``.vf``: add, sub, mul, min, max at fp32 and fp16, the same
IEEE results as the vector unit's) take the element-wise arithmetic of fused loops whenever the target has an SE
(:data:`ALU` in :func:`se_ops`; ``codegen/vector/fused_loop.py`` says where): the vector unit then only loads,
stores, converts and reduces, at a quarter of the SE's elements a cycle for fp32.
"""
from __future__ import annotations

from typing import Callable, FrozenSet, Optional

from mtiacc.codegen.mathlib.base import VMath

# math op -> the SE function computing it
SE_OPS = {"math.exp": "exp", "math.exp2": "exp2", "math.log": "log", "math.log2": "log2", "math.tanh": "tanh",
          "math.erf": "erf", "math.sqrt": "sqrt", "math.rsqrt": "rsqrt", "math.sin": "sin", "math.cos": "cos"}
# the vector library's fp32 accuracy in ULPs (docs/language.md, "Math"): what the default compile guarantees
LIBRARY_ULPS = {"math.exp": 1, "math.exp2": 1, "math.log": 1, "math.log2": 2, "math.tanh": 3, "math.erf": 2,
                "math.sqrt": 0, "math.rsqrt": 1, "math.sin": 1, "math.cos": 1}

# the fp32 accuracy, in ULPs, an op marked ``approx`` promises (docs/language.md, "Math"): an approximate exp2 to
# 2 ULP, as the hardware exp2 of Triton's GPU backends (the multiply by log2(e) of exp adds its own rounding there;
# the SE's exp has none), and libdevice's expf and exp2f as CUDA states them (2 ULP)
APPROX_ULPS = {"math.exp": 2, "math.exp2": 2}
# the entry of ``se_ops`` saying that the ops of function ``name`` marked ``approx`` run on the SE
APPROX_PREFIX = "approx:"
# the entry of ``se_ops`` saying that fused loops' float arithmetic runs on the SE's ALUs
ALU = "alu"


def se_ulps(accuracy) -> Optional[float]:
    """The SE's fp32 ULP bound for a table of ``("bits", n)`` (half a unit in the n-th significant bit, and the
    fp32 rounding when n >= 24), None for an absolute bound (``("abs_bits", n)``: no ULP bound near zeros)."""
    kind, n = accuracy
    if kind != "bits":
        return None
    return max(2.0 ** (23 - n), 1.0) if n < 24 else 1.0


def se_ops(target, fast_math: bool = False) -> FrozenSet[str]:
    """The math ops this compile computes on the SE (fp32)."""
    have = dict(target.se_functions)
    out = {ALU} if have else set()
    for op, fn in SE_OPS.items():
        if fn not in have:
            continue
        bound = se_ulps(have[fn])
        if fast_math or (bound is not None and bound <= LIBRARY_ULPS[op]):
            out.add(op)
        elif bound is not None and bound <= APPROX_ULPS.get(op, 0):
            out.add(APPROX_PREFIX + op)
    return frozenset(out)


def on_se(op, se: FrozenSet[str]) -> bool:
    """Whether this compile (``se``, from :func:`se_ops`) computes f32 math op ``op`` on the SE."""
    return op.name in se or (bool(op.attrs.get("approx")) and APPROX_PREFIX + op.name in se)


def body(op_name: str) -> Callable:
    """The SE body of math op ``op_name``: one instruction into a fresh register group."""
    fn = SE_OPS[op_name]

    def run(e: VMath, x: str) -> str:
        d = e.tmp()
        e(f"mtia.se.{fn}.v", d, x)
        return d
    run.__name__ = f"se_{fn}"
    return run
