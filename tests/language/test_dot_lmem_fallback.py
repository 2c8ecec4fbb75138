"""A dot loop whose software-pipelined form (``pipeline-dots``: the accumulator and the body's blocks twice) does not
fit in a PE's local memory compiles without that pipelining, as the driver retries: fp8 operands widened to f16
next to a 128 x 256 f32 accumulator (test_core.py's test_dot_max_num_imprecise_acc).  Run against numpy."""
from __future__ import annotations

import numpy as np

from mtiacc.ir import fp8
from mtiacc.ir.types import f8e5
from tests.language.harness import launch

SRC = """
@triton.jit
def k(A, B, C, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, STAGES: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in tl.range(0, K, BK, num_stages=STAGES):
        a = tl.load(A + rm[:, None] * K + (k0 + rk)[None, :])
        b = tl.load(B + (k0 + rk)[:, None] * BN + rn[None, :])
        acc = tl.dot(a, b, acc)
    tl.store(C + rm[:, None] * BN + rn[None, :], acc)
"""


def test_pipelined_dot_over_local_memory_compiles_unpipelined():
    bm, bn, bk, kk = 128, 256, 128, 256
    rng = np.random.default_rng(3)
    a = rng.integers(-4, 5, (bm, kk)).astype(np.float32)   # small integers: exact in fp8e5 and in f32 sums
    b = rng.integers(-4, 5, (kk, bn)).astype(np.float32)
    bits = lambda x: np.array([fp8.encode(float(v), f8e5) for v in x.ravel()], np.uint8)  # noqa: E731
    out = launch(SRC, "*fp8e5,*fp8e5,*fp32,i32",
                 {"A": bits(a), "B": bits(b), "C": np.zeros(bm * bn, np.float32), "K": np.int32(kk)},
                 defines=(("BM", str(bm)), ("BN", str(bn)), ("BK", str(bk)), ("STAGES", "3"))).outputs["C"]
    np.testing.assert_array_equal(out.reshape(bm, bn), a @ b)
