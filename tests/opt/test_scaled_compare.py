"""canonicalize's scaled compares (`float(x) * c > p` -> `x > t`) and folded compares (`(x ^ (x >> 31)) > t` ->
`x + (t + 1) >u 2t + 1`; tests/filecheck/canonicalize_scaled_compare.py):
the compiled decisions against numpy's fp32 arithmetic, for every predicate, on seeded i32 values spread over the
whole range and crowded around each threshold (benchmarks/bench_roofline.py checks dropout's keep decisions on tl.rand
bit for bit)."""
import numpy as np
import pytest

from mtiacc.opt.canonicalize import _threshold
from tests.language.harness import launch

SRC = '''
import triton
import triton.language as tl


@triton.jit
def k(X, Y, C: tl.constexpr, P: tl.constexpr):
    offs = tl.arange(0, 1024)
    f = tl.load(X + offs).to(tl.float32) * C
    tl.store(Y + offs, (f > P).to(tl.int32) + 2 * (f >= P).to(tl.int32) + 4 * (f < P).to(tl.int32)
             + 8 * (f <= P).to(tl.int32))
'''


@pytest.mark.parametrize("c,p", [(4.6566127342e-10, 0.1), (4.6566127342e-10, 0.5), (0.37, -12.5),
                                 (3.0e-5, 7.0), (1.0, 1000.5)])
def test_scaled_compares_match_numpy(c, p):
    rng = np.random.default_rng(int(p * 1000) & 0xFFFF)
    edges = [t for t in (_threshold(c, p, True), _threshold(c, p, False)) if t is not None]
    near = [np.arange(t - 200, t + 200) for t in edges]
    x = np.concatenate([rng.integers(-2**31, 2**31, 1024 - 400 * len(near))] + near).astype(np.int32)
    out = launch(SRC, "*i32,*i32", {"X": x, "Y": np.zeros(1024, np.int32)},
                 defines=(("C", repr(c)), ("P", repr(p)))).outputs["Y"]
    f, q = x.astype(np.float32) * np.float32(c), np.float32(p)
    want = (f > q) + 2 * (f >= q) + 4 * (f < q) + 8 * (f <= q)
    np.testing.assert_array_equal(out, want.astype(np.int32))


FOLDED = '''
import triton
import triton.language as tl


@triton.jit
def k(X, Y, T: tl.constexpr):
    offs = tl.arange(0, 1024)
    x = tl.load(X + offs)
    f = x ^ (x >> 31)
    tl.store(Y + offs, (f > T).to(tl.int32) + 2 * (f >= T).to(tl.int32) + 4 * (f < T).to(tl.int32)
             + 8 * (f <= T).to(tl.int32))
'''


@pytest.mark.parametrize("t", [0, 1, 5, 214748392, (1 << 30) - 2])
def test_folded_compares_match_numpy(t):
    rng = np.random.default_rng(t & 0xFFFF)
    edges = [-(1 << 31), (1 << 31) - 201, -t - 100, t - 100]
    near = [np.arange(e, e + 200) for e in edges]
    x = np.concatenate([rng.integers(-2**31, 2**31, 1024 - 200 * len(near))] + near).astype(np.int32)
    out = launch(FOLDED, "*i32,*i32", {"X": x, "Y": np.zeros(1024, np.int32)}, defines=(("T", str(t)),)).outputs["Y"]
    f = x ^ (x >> 31)
    want = (f > t) + 2 * (f >= t) + 4 * (f < t) + 8 * (f <= t)
    np.testing.assert_array_equal(out, want.astype(np.int32))
