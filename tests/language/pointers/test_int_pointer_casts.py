"""Casts between integers and pointers, as Triton's int_to_ptr / ptr_to_int: `x.to(tl.pi32_t)` takes an int64
block as addresses, a pointer block stored to an int64 buffer gives its addresses back, `p.to(tl.int1)` is
`p != 0`, and an address made from an integer can be loaded from."""
import numpy as np

from tests.language.harness import launch

SELECT = '''
@triton.jit
def k(C, A, B, Out, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(A + offs, mask=mask).to(tl.pi32_t)
    b = tl.load(B + offs, mask=mask).to(tl.pi32_t)
    tl.store(Out + offs, tl.where(tl.load(C + offs, mask=mask), a, b), mask=mask)
'''


def test_int64_values_through_pointers_and_back():
    rng = np.random.default_rng(9)
    a = rng.integers(-(1 << 62), 1 << 62, 100)
    b = rng.integers(-(1 << 62), 1 << 62, 100)
    c = rng.integers(0, 2, 100).astype(bool)
    r = launch(SELECT, "*i1,*i64,*i64,*i64,i32", {"C": c, "A": a, "B": b, "Out": np.zeros(100, np.int64), "n": 100},
               defines=(("BLOCK", "128"),))
    np.testing.assert_array_equal(r.outputs["Out"], np.where(c, a, b))


ADDRESS = '''
@triton.jit
def k(X, Out):
    addr = X.to(tl.int64) + 4 * tl.arange(0, 8)
    p = addr.to(tl.pointer_type(tl.float32))
    tl.store(Out + tl.arange(0, 8), tl.load(p) * 2)
    tl.store(Out + 8, X.to(tl.int1).to(tl.float32))
'''


def test_an_address_computed_as_an_integer_is_loaded_from():
    x = np.arange(8, dtype=np.float32) + 0.5
    r = launch(ADDRESS, "*fp32,*fp32", {"X": x, "Out": np.zeros(9, np.float32)})
    np.testing.assert_array_equal(r.outputs["Out"], np.concatenate([2 * x, [1.0]]))
