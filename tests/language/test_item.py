"""x.item(): the one element of a single-element block as a scalar (Triton's tests build their lock values so),
and `if` on a one-element block, which Triton unsplats the same way."""
import numpy as np
import pytest

from tests.language.harness import assert_error_at_call, launch

KERNEL = '''
@triton.jit
def item_kernel(Lock, out_ptr, DT: tl.constexpr):
    num0 = tl.full((1, ), 0, dtype=DT).item()
    num1 = tl.full((1, 1), 1, dtype=DT).item()
    old = tl.atomic_cas(Lock, num0, num1)
    tl.store(out_ptr, old + num1 * 2)
'''


@pytest.mark.parametrize("dt, npdt", [("int32", np.int32), ("int64", np.int64), ("float32", np.float32)])
def test_item_gives_scalars_an_atomic_takes(dt, npdt):
    sig = f"*{'fp32' if dt == 'float32' else dt.replace('int', 'i')}," * 2
    r = launch(KERNEL, sig.rstrip(","), {"Lock": np.zeros(1, npdt), "out_ptr": np.zeros(1, npdt)},
               defines=(("DT", dt),))
    assert r.outputs["Lock"].tolist() == [1]
    assert r.outputs["out_ptr"].tolist() == [2]


def test_item_of_a_bigger_block_is_an_error(tmp_path):
    assert_error_at_call(tmp_path, "a = x.item()",
                         "item(): the block has 32 elements (shape [4, 8]); it must have exactly one", "x.item()")


UNSPLAT = '''
@triton.jit
def k(X):
    condition = tl.load(X + tl.arange(0, 1)) > 42
    if condition:
        tl.store(X, 42)
    c2 = tl.load(X + 1 + tl.arange(0, 1)[:, None]) > 42
    if c2:
        tl.store(X + 1, 42)
'''


@pytest.mark.parametrize("v", [41, 43])
def test_if_on_a_one_element_block_takes_its_element(v):
    """Triton's `if` unsplats a one-element block condition (test_unsplat)."""
    x = np.array([v, v + 1], np.int32)
    out = launch(UNSPLAT, "*i32", {"X": x}).outputs["X"]
    np.testing.assert_array_equal(out, np.minimum(x, 42) if v > 42 else [41, 42])
