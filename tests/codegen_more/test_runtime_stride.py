"""2-D tiles whose column stride is a run-time argument: one DMA per row when it is 1 at run time,
element by element otherwise (a branch on the stride's value), against numpy."""
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run

KERNELS = str(Path(__file__).with_name("kernels.py"))
SIG = "*fp32,*fp32,*fp32,i32,i32,i32,i32,i32,i32,i32,i32,i32"
_cache = {}


def build(opt):
    if opt not in _cache:
        opts = Options(kernel="matmul_no_dot", defines={"BM": "16", "BN": "16", "BK": "8"},
                       signature=SIG, opt_level=opt)
        _cache[opt] = compile_kernel(KERNELS, opts)
    return _cache[opt]


def matmul(tmp_path, opt, m, n, k, a_t, b_t, c_t, seed):
    """C = A @ B with every stride an argument; ``x_t`` stores that matrix transposed in memory."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    mem_a = a.T if a_t else a
    mem_b = b.T if b_t else b
    sa = (1, m) if a_t else (k, 1)
    sb = (1, k) if b_t else (n, 1)
    sc = (1, m) if c_t else (n, 1)
    data = {"A": np.ascontiguousarray(mem_a).ravel(), "B": np.ascontiguousarray(mem_b).ravel(),
            "C": np.zeros(m * n, np.float32)}
    for name, v in zip(["M", "N", "K", "sam", "sak", "sbk", "sbn", "scm", "scn"],
                       [m, n, k, *sa, *sb, *sc]):
        data[name] = np.array(v, np.int32)
    path = tmp_path / "k.bin"
    path.write_bytes(build(opt).binary)
    res = run(str(path), data, grid=[-(-m // 16), -(-n // 16)])
    c = res.outputs["C"].reshape((n, m)).T if c_t else res.outputs["C"].reshape(m, n)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
    return res


@pytest.mark.parametrize("opt", [0, 2])
@pytest.mark.parametrize("m,n,k", [(16, 16, 16), (20, 13, 29)])
@pytest.mark.parametrize("a_t,b_t,c_t", [(False, False, False), (True, True, True),
                                         (False, True, False), (True, False, True)])
def test_runtime_strides_against_numpy(tmp_path, opt, m, n, k, a_t, b_t, c_t):
    matmul(tmp_path, opt, m, n, k, a_t, b_t, c_t, seed=m * n * k + 4 * a_t + 2 * b_t + c_t)


def test_unit_runtime_stride_moves_one_row_per_transfer(tmp_path):
    # per program: 2 iterations x (16 rows of A + 8 rows of B) + 16 rows of C = 64 transfers,
    # as many as with the unit strides specialized at compile time
    assert matmul(tmp_path, 2, 16, 16, 16, False, False, False, seed=1).stats.dma_transfers == 64


def test_non_unit_runtime_stride_moves_element_by_element(tmp_path):
    # all three matrices transposed in memory: 2 x (16*8 + 8*16) + 16*16 = 768 transfers
    assert matmul(tmp_path, 2, 16, 16, 16, True, True, True, seed=2).stats.dma_transfers == 768


def test_mixed_strides_pick_a_path_per_access(tmp_path):
    # A by rows (2 x 16), B transposed (2 x 8*16 elements), C by rows (16)
    assert matmul(tmp_path, 2, 16, 16, 16, False, True, False, seed=3).stats.dma_transfers == 304
