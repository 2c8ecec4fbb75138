"""tl.map_elementwise: a @triton.jit scalar function applied to every element, with per-element `if`/`elif`
(both branches computed, then selected), several results, `pack`, broadcasting and nested helpers; against
numpy on seeded inputs.  Branches with effects, and an `if` on a block outside it, are errors."""
import numpy as np
import pytest

from tests.language.harness import launch

COMPARE = '''
@triton.jit
def compare(x, y):
    if x < y:
        return -1
    elif x == y:
        return 0
    else:
        return 1

@triton.jit
def k(X, Y, Z, BLOCK: tl.constexpr):
    x = tl.load(X + tl.arange(0, BLOCK))
    y = tl.load(Y + tl.arange(0, BLOCK))
    z = tl.map_elementwise(compare, x, y)
    tl.store(Z + tl.arange(0, BLOCK), z)
'''


def test_branches_per_element():
    rng = np.random.default_rng(5)
    x = rng.integers(-4, 4, 128).astype(np.int32)
    y = rng.integers(-4, 4, 128).astype(np.int32)
    r = launch(COMPARE, "*i32,*i32,*i32", {"X": x, "Y": y, "Z": np.zeros(128, np.int32)}, defines=(("BLOCK", "128"),))
    np.testing.assert_array_equal(r.outputs["Z"], (x > y).astype(np.int32) - (y > x).astype(np.int32))


SELU = '''
@triton.jit
def shrink(x, t):
    r = x
    if x > t:
        r = x - t
    elif x < -t:
        r = x + t
    else:
        r = 0.0
    return r

@triton.jit
def selu_like(x, alpha):
    if x > 0:
        return shrink(x, 0.5)
    return alpha * (tl.exp(x) - 1)

@triton.jit
def k(X, Z, alpha):
    offs = tl.arange(0, 8)[:, None] * 16 + tl.arange(0, 16)[None, :]
    x = tl.load(X + offs)
    tl.store(Z + offs, tl.map_elementwise(selu_like, x, alpha))
'''


def test_a_two_dimensional_block_a_scalar_argument_and_nested_helpers():
    rng = np.random.default_rng(6)
    x = (rng.standard_normal(128) * 2).astype(np.float32)
    r = launch(SELU, "*fp32,*fp32,fp32", {"X": x, "Z": np.zeros(128, np.float32), "alpha": 1.5})
    pos = np.where(x > 0.5, x - 0.5, np.where(x < -0.5, x + 0.5, 0.0))
    want = np.where(x > 0, pos, 1.5 * (np.exp(x.astype(np.float64)) - 1))
    np.testing.assert_allclose(r.outputs["Z"], want, rtol=2e-6, atol=1e-6)


DIVMOD = '''
@triton.jit
def divmod1(a, b):
    return a // b, a % b

@triton.jit
def divmod2(a0, a1, b0, b1):
    return a0 // b0, a1 // b1, a0 % b0, a1 % b1

@triton.jit
def rotate4(a0, a1, a2, a3):
    return a1, a2, a3, a0

@triton.jit
def k(A, B, C, D, E, BLOCK: tl.constexpr, PACK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    a = tl.load(A + offs)
    b = tl.load(B + offs)
    if PACK == 1:
        c, d = tl.map_elementwise(divmod1, a, b)
    else:
        c, d = tl.map_elementwise(divmod2, a, b, pack=2)
    e, = tl.map_elementwise(rotate4, a, pack=4)
    tl.store(C + offs, c)
    tl.store(D + offs, d)
    tl.store(E + offs, e)
'''


@pytest.mark.parametrize("pack", [1, 2])
def test_several_results_and_pack(pack):
    rng = np.random.default_rng(7)
    a = rng.integers(0, 1 << 31, 64).astype(np.uint32)
    b = rng.integers(1, 1 << 16, 64).astype(np.uint32)
    z = np.zeros(64, np.uint32)
    r = launch(DIVMOD, "*u32,*u32,*u32,*u32,*u32", {"A": a, "B": b, "C": z, "D": z.copy(), "E": z.copy()},
               defines=(("BLOCK", "64"), ("PACK", str(pack))))
    np.testing.assert_array_equal(r.outputs["C"], a // b)
    np.testing.assert_array_equal(r.outputs["D"], a % b)
    # pack=4 passes the flattened elements 4i .. 4i+3 to one call
    np.testing.assert_array_equal(r.outputs["E"], a.reshape(16, 4)[:, [1, 2, 3, 0]].reshape(-1))


def test_a_branch_with_a_store_is_an_error(tmp_path):
    src = tmp_path / "k.py"
    from tests.language.harness import HEADER
    from mtiacc.diagnostics import CompileError
    from mtiacc.driver import Options, compile_kernel
    src.write_text(HEADER + '''
@triton.jit
def f(x, p):
    if x > 0:
        tl.store(p, x)
    return x

@triton.jit
def k(X, Y):
    x = tl.load(X + tl.arange(0, 4))
    tl.store(Y + tl.arange(0, 4), tl.map_elementwise(f, x, Y))
''')
    with pytest.raises(CompileError) as info:
        compile_kernel(str(src), Options(signature="*fp32,*fp32"))
    assert "may not load, store or have other effects; this one has `tt.store`" in info.value.render()
    assert "Traceback" not in info.value.render()


def test_an_if_on_a_block_outside_map_elementwise_is_still_an_error(tmp_path):
    src = tmp_path / "k.py"
    from tests.language.harness import HEADER
    from mtiacc.diagnostics import CompileError
    from mtiacc.driver import Options, compile_kernel
    src.write_text(HEADER + """
@triton.jit
def k(X):
    x = tl.load(X + tl.arange(0, 4))
    if x > 0:
        x = x + 1
    tl.store(X + tl.arange(0, 4), x)
""")
    with pytest.raises(CompileError) as info:
        compile_kernel(str(src), Options(signature="*fp32"))
    first = info.value.render().splitlines()[0]
    assert first.endswith(":10:5: error: the condition of `if` must be a scalar, got a block (tensor<4xi1>); "
                          "use tl.where for blocks")
