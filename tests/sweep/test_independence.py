"""``mtiacc/sweep/independence.py``: which uses of a value loaded from memory make a kernel's cycles depend on its
buffers' values, from the IR the frontend builds and the one the passes leave."""
import textwrap

import pytest

from mtiacc.driver import Options, compile_kernel, run_frontend
from mtiacc.sweep.independence import value_dependence

SOURCE = textwrap.dedent('''\
    import triton
    import triton.language as tl


    @triton.jit
    def scaled(x):
        return x * 2.0 + 1.0


    @triton.jit
    def offset_of(i):
        return i * 4


    @triton.jit
    def arithmetic(X, Y, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        x = tl.load(X + offs, mask=offs < n)
        s = tl.sum(scaled(x), axis=0)
        tl.store(Y + offs, tl.where(x > s, x, s), mask=offs < n)


    @triton.jit
    def masked_by_data(X, Y, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        x = tl.load(X + offs)
        tl.store(Y + offs, x, mask=x > 0)


    @triton.jit
    def bounded_by_data(X, Y, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        count = tl.load(X)
        acc = tl.zeros((BLOCK,), dtype=tl.float32)
        for i in range(0, count):
            acc += tl.load(Y + i * BLOCK + offs).to(tl.float32)
        tl.store(Y + offs, acc.to(tl.int32))


    @triton.jit
    def addressed_through_a_call(X, I, Y, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        i = tl.load(I + offs)
        tl.store(Y + offs, tl.load(X + offset_of(i)))
    ''')
CASES = {
    "arithmetic": ("*fp32,*fp32,i32", None),
    "masked_by_data": ("*fp32,*fp32,i32", "tt.store: its mask is computed from values read from memory"),
    "bounded_by_data": ("*i32,*i32", "scf.for: its bounds are computed from values read from memory"),
    "addressed_through_a_call": ("*fp32,*i32,*fp32", "tt.load: its ptr is computed from values read from memory"),
}


@pytest.fixture(scope="module")
def path(tmp_path_factory):
    p = tmp_path_factory.mktemp("independence") / "kernels.py"
    p.write_text(SOURCE)
    return str(p)


@pytest.mark.parametrize("kernel", list(CASES))
def test_the_first_use_that_makes_cycles_follow_values(path, kernel):
    signature, why = CASES[kernel]
    opts = Options(kernel=kernel, signature=signature, defines={"BLOCK": "64"})
    assert value_dependence(run_frontend(path, opts).module) == why
    if why is None:        # and the passes leave none either
        assert value_dependence(compile_kernel(path, opts, stop_after="ir").frontend.module) is None
