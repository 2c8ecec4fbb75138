"""triton_helpers' searching, packing, random-number and cross-program helpers
(tests/inductor/coop_kernels.py) against numpy: all exact but the normal random numbers (their
log, cos and sin within 2e-6)."""
from pathlib import Path

import numpy as np
import pytest

from mtiacc.diagnostics import CompileError
from mtiacc.frontend import compile_file
from tests.codegen.tensor.blocks.helpers import build, launch
from tests.language.random import reference as ref

K = Path(__file__).resolve().parent / "coop_kernels.py"


def test_bucketize_binary_search(tmp_path):
    n, nb = 50, 8
    rng = np.random.default_rng(3)
    grid = np.arange(-10, 11) * 0.5
    values = rng.choice(grid, (2, n)).astype(np.float32)
    values[0, :3] = [np.nan, -np.inf, np.inf]
    bounds = np.sort(rng.choice(grid, (2, nb)), 1).astype(np.float32)       # ties among them too
    shuffled = rng.permuted(bounds, axis=1)
    sorter = np.argsort(shuffled, 1, kind="stable").astype(np.int32)
    out = launch(tmp_path, build("poi_bucketize", "*fp32,*fp32,*i32,*i64,*i32,*i32,i32", path=K, XBLOCK=64, NB=nb),
                 {"in_ptr0": values.ravel(), "in_ptr1": np.concatenate([bounds.ravel(), shuffled.ravel()]),
                  "in_ptr2": sorter.ravel(), "out_ptr0": np.zeros(2 * n, np.int64),
                  "out_ptr1": np.zeros(2 * n, np.int32), "out_ptr2": np.zeros(2 * n, np.int32),
                  "xnumel": np.array(n, np.int32)}, (-(-2 * n // 64),))
    left = np.concatenate([np.searchsorted(bounds[r], values[r], "left") for r in range(2)])
    right = np.concatenate([np.searchsorted(bounds[r], values[r], "right") for r in range(2)])
    np.testing.assert_array_equal(out["out_ptr0"], left)
    np.testing.assert_array_equal(out["out_ptr1"], right)
    np.testing.assert_array_equal(out["out_ptr2"], left)


@pytest.mark.parametrize("pack", [32, 4])
def test_packing_and_compile_time_helpers(tmp_path, pack):
    x = np.random.default_rng(pack).standard_normal(8).astype(np.float32)
    out = launch(tmp_path, build("per_packing", "*fp32,*fp32,*u32,*fp32", path=K, XBLOCK=8, PACK=pack, RSPLIT=5),
                 {"in_ptr0": x, "out_ptr0": np.zeros(8, np.float32), "out_ptr1": np.zeros(8, np.uint32),
                  "out_ptr2": np.zeros(8, np.float32)}, (1,))
    np.testing.assert_array_equal(out["out_ptr0"], x * 2 + x)
    np.testing.assert_array_equal(out["out_ptr1"], np.arange(8) % 3)
    np.testing.assert_array_equal(out["out_ptr2"], np.where(np.arange(8) < 5, x, -1.0) + x)


def test_random_helpers(tmp_path):
    seed, base, X, progs = 0x1234_5678_9ABC, 2 ** 32 + 7, 64, 2
    n = X * progs
    out = launch(tmp_path, build("poi_random", "*i64,*fp32,*fp32,*i64,*fp32,i32,i64", path=K, XBLOCK=X),
                 {"in_ptr0": np.array([0, seed], np.int64), "out_ptr0": np.zeros(n, np.float32),
                  "out_ptr1": np.zeros(n, np.float32), "out_ptr2": np.zeros(n, np.int64),
                  "out_ptr3": np.zeros(n, np.float32), "load_seed_offset": np.array(1, np.int32),
                  "base": np.array(base, np.int64)}, (progs,))
    idx = np.arange(n)
    # rand4x / randn4x: the Philox call for offset o // 4 (offsets from each block's first, a multiple of 4)
    words = ref.randint4x(seed, (idx[::4] // 4).astype(np.uint32))
    uni = [ref.uint_to_uniform_float(w) for w in words]
    np.testing.assert_array_equal(out["out_ptr0"], np.stack(uni, 1).ravel())
    normal = ref.pair_uniform_to_normal(uni[0], uni[1]) + ref.pair_uniform_to_normal(uni[2], uni[3])
    np.testing.assert_allclose(out["out_ptr1"], np.stack(normal, 1).ravel(), rtol=2e-6, atol=2e-6)
    # randint64 in [-5, 1000003): the first two words of offset o's call as one uint64, modulo the range
    w = ref.randint4x(seed, idx.astype(np.uint32))
    r = (w[0].astype(np.uint64) | (w[1].astype(np.uint64) << np.uint64(32))) % np.uint64(1000008)
    np.testing.assert_array_equal(out["out_ptr2"], r.astype(np.int64) - 5)
    # rand_eager_kernel, VEC = 8: thread tid // 8 of the round, counter block offset + (tid % 8) // 4, lane tid % 4
    tid = idx % 64
    block = (base + (idx // 64) * 2 + (tid % 8) // 4).astype(np.uint64)
    thread = (tid // 8).astype(np.uint64)
    lo32, hi32 = np.uint64(0xFFFFFFFF), np.uint64(32)
    ew = ref.philox4x32((block & lo32, block >> hi32, thread & lo32, thread >> hi32), ref.seed_words(seed))
    word = np.choose(tid % 4, ew)
    scale = np.float32(2.0 ** -32)
    np.testing.assert_array_equal(out["out_ptr3"], np.float32(1) - (word.astype(np.float32) * scale + scale / 2))


@pytest.mark.parametrize("kernel, dtype, words", [("red_split_scan", np.int32, 1),
                                                   ("red_split_scan_64", np.float64, 3)])
def test_exclusive_scan_decoupled_lookback(tmp_path, kernel, dtype, words):
    progs, R = 6, 16
    x = np.random.default_rng(words).integers(-50, 50, progs * R).astype(dtype)
    t = "*i32,*i32" if dtype == np.int32 else "*fp64,*fp64"
    out = launch(tmp_path, build(kernel, t + ",*u64", path=K, RBLOCK=R),
                 {"in_ptr0": x, "out_ptr0": np.zeros_like(x), "ws_ptr": np.zeros(words * progs, np.uint64)},
                 (progs,))
    np.testing.assert_array_equal(out["out_ptr0"], np.cumsum(x).astype(dtype))
    flags = out["ws_ptr"][::3] if words == 3 else out["ws_ptr"] & np.uint64(0xFFFFFFFF)
    assert (flags == 2).all()        # every program published its inclusive prefix


def test_x_grid_barrier(tmp_path):
    progs, R = 5, 16
    x = np.random.default_rng(5).integers(-9, 10, progs * R).astype(np.float32)
    out = launch(tmp_path, build("red_cooperative", "*fp32,*fp32,*fp32,*u32", path=K, RBLOCK=R),
                 {"in_ptr0": x, "out_ptr0": np.zeros(progs, np.float32), "ws_ptr": np.zeros(8, np.float32),
                  "sem_ptr": np.zeros(1, np.uint32)}, (progs,))
    np.testing.assert_array_equal(out["out_ptr0"], np.full(progs, x.sum() * 15))
    assert out["sem_ptr"][0] == 0x80000000       # three uses, each adding 2**31


def test_a_host_side_helper_in_a_kernel_is_an_error_at_the_call(tmp_path):
    p = tmp_path / "k.py"
    p.write_text("import triton\nimport triton.language as tl\nfrom torch._inductor.runtime import triton_helpers\n\n"
                 "@triton.jit\ndef k(X):\n    triton_helpers.get_backend_options()\n    tl.store(X, 1.0)\n")
    with pytest.raises(CompileError) as info:
        compile_file(str(p), kernel="k")
    assert info.value.message == ("'get_backend_options' is a plain Python function; a kernel can only call "
                                  "triton.language functions")
    assert (info.value.loc.line, info.value.loc.col) == (7, 5)
    assert "Traceback" not in info.value.render()
