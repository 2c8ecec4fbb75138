"""A number assigned to a name is a scalar of its literal's type when a tensor attribute is asked of it,
as Triton lifts it: ``value = 1; value.dtype`` is int32, ``acc = 0; acc = acc.to(tl.int64)`` an i64
accumulator (a loop over 64-bit bounds sums without wrapping).  Run on the simulator against numpy."""
from __future__ import annotations

import numpy as np
import pytest

from tests.language.harness import launch

SRC = """
@triton.jit
def k(Y, Out, lo, hi, n, BLOCK: tl.constexpr, STEP: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    value = 1
    half = 0.5
    y = tl.full([BLOCK], value=value, dtype=value.dtype) + tl.full([BLOCK], 2, half.dtype)
    tl.store(Y + offs, y.to(tl.float32), mask=offs < n)
    acc = 0
    acc = acc.to(tl.int64)
    for i in range(lo, hi, STEP):
        acc += i
    tl.store(Out, acc)
"""


@pytest.mark.parametrize("lo, hi, step", [(2 ** 35, 2 ** 35 + 20, 3), (15, -16, -2)])
def test_number_attributes_match_triton(lo, hi, step):
    res = launch(SRC, "*fp32,*i64,i64,i64,i32", {"Y": np.zeros(16, np.float32), "Out": np.zeros(1, np.int64),
                                                  "lo": np.int64(lo), "hi": np.int64(hi), "n": np.int32(13)},
                 defines=(("BLOCK", "16"), ("STEP", str(step))))
    # value.dtype is int32, half.dtype float32: 1 + 2.0 in f32
    np.testing.assert_array_equal(res.outputs["Y"], np.where(np.arange(16) < 13, 3.0, 0.0).astype(np.float32))
    assert int(res.outputs["Out"][0]) == sum(range(lo, hi, step))


TYPES = """
@triton.jit
def k(Out, N: tl.constexpr, S: tl.constexpr):
    n: tl.constexpr = N
    tl.static_assert(n.type == (7).type)
    tl.static_assert(N.type == tl.constexpr_type(7))
    tl.static_assert(N.type != (8).type)
    tl.static_assert(S.type == (2, 3).type)
    tl.static_assert(S.type != (2, 4).type)
    m = N
    tl.static_assert(m.type == tl.int32)
    x = 0.5
    tl.static_assert(x.type == tl.float32)
    tl.store(Out, m + N)
"""


def test_the_type_of_a_constexpr_and_of_a_lifted_number():
    """``.type`` of a literal, a ``tl.constexpr`` parameter or annotated name is Triton's ``constexpr_type`` of
    its value (a tuple's: its elements'); a number assigned to a plain name is lifted to a scalar, as Triton
    does, so its ``.type`` is int32 / float32."""
    res = launch(TYPES, "*i32", {"Out": np.zeros(1, np.int32)}, defines=(("N", "7"), ("S", "(2, 3)")))
    assert res.outputs["Out"].tolist() == [14]


def test_a_false_static_assert_on_types_is_an_error(tmp_path):
    from mtiacc.diagnostics import CompileError
    from mtiacc.driver import Options, compile_kernel
    from tests.language.harness import HEADER
    src = tmp_path / "k.py"
    src.write_text(HEADER + "@triton.jit\ndef k(Out, N: tl.constexpr):\n    tl.static_assert(N.type == (8).type)\n"
                   "    tl.store(Out, N)\n")
    with pytest.raises(CompileError) as info:
        compile_kernel(str(src), Options(signature="*i32", defines={"N": "7"}))
    assert info.value.render().splitlines()[0].endswith(":8:5: error: static assertion failed")
