"""Indexing and shape forms Triton accepts (as its test_core.py uses them): slice bounds written as ``None``
(``None:``, ``:None``, ``::None`` are ``:``) and ``tl.expand_dims`` of a constexpr (a scalar: shape ``[1]``)."""
import numpy as np

from tests.language.harness import assert_error_at_call, launch

KERNEL = '''
@triton.jit
def k(O, N: tl.constexpr):
    d = tl.arange(0, 8)
    a = d[None, None:]
    tl.static_assert(a.shape == [1, 8])
    b = d[None, :None, None]
    tl.static_assert(b.shape == [1, 8, 1])
    c = d[None::None]
    tl.static_assert(c.shape == [8])
    e = tl.expand_dims(N, -1)
    tl.static_assert(e.shape == [1])
    tl.store(O + tl.arange(0, 8)[None, :], a + tl.reshape(b, (1, 8)) + c[None, :] + e[None, :])
'''


def test_none_slice_bounds_and_expand_dims_of_a_constexpr():
    out = launch(KERNEL, "*i32", {"O": np.zeros(8, np.int32)}, defines=(("N", "5"),))
    np.testing.assert_array_equal(out.outputs["O"], 3 * np.arange(8, dtype=np.int32) + 5)


def test_a_slice_with_a_bound_is_still_an_error(tmp_path):
    assert_error_at_call(tmp_path, "y = x[1:, :]", "slices other than `:` are not supported yet", "x[1:, :]")
