"""``split-dots``: a dot too big for local memory computed in sub-tiles, against numpy, and against the same dot
unsplit where it fits (a smaller local memory forces the split of a dot that fits the real one)."""
from pathlib import Path

import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run
from tests.codegen.matrix.numerics import from_bf16, to_bf16

KERNELS = str(Path(__file__).with_name("split_dots_kernels.py"))


def compile_(kernel, sig, overrides=(), **defines):
    return compile_kernel(KERNELS, Options(kernel=kernel, signature=sig, overrides=tuple(overrides),
                                           defines={k: str(v) for k, v in defines.items()}))


def gemm(comp, a, b, M, N, out=np.float32):
    res = run(comp.binary, {"A": a.ravel(), "B": b.ravel(), "C": np.zeros(M * N, out)}, grid=(1,))
    return res.outputs["C"].reshape(M, N)


def test_a_512x512x512_fp32_dot_is_split_and_computes_what_numpy_does():
    """The GPU-tuned 512^3 fp32 dot splits along M, N and K on the real local memory; the same three-axis split,
    with M and N banded differently, runs on a 128 x 256 @ 256 x 128 dot in a 48 KiB local memory (an eighth of the
    simulated work of the 512^3 one)."""
    assert "split along M into 2 sub-tiles of 256, N into 4 sub-tiles of 128, K into 8" in \
        compile_("gemm", "*fp32,*fp32,*fp32", BM=512, BN=512, BK=512).remarks[0].message
    M, N, K = 128, 128, 256
    comp = compile_("gemm", "*fp32,*fp32,*fp32", ["pe.local_memory_bytes=49152"], BM=M, BN=N, BK=K)
    assert comp.remarks[0].kind == "split-dot"
    assert "split along M into 2 sub-tiles of 64, N into 4 sub-tiles of 32, K into 8" in comp.remarks[0].message
    rng = np.random.default_rng(512)
    a, b = rng.standard_normal((M, K)).astype(np.float32), rng.standard_normal((K, N)).astype(np.float32)
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(gemm(comp, a, b, M, N), want, rtol=1e-3, atol=2e-3)


@pytest.mark.parametrize("lmem", [131072, 98304])
def test_a_bf16_dot_split_gives_the_bits_of_the_unsplit_dot(lmem):
    """Along K the sub-dots sum in the order the engine sums the whole dot; a band is the columns it would be."""
    M = N = K = 128
    rng = np.random.default_rng(lmem)
    a, b = to_bf16(rng.standard_normal((M, K))), to_bf16(rng.standard_normal((K, N)))
    whole = compile_("gemm", "*bf16,*bf16,*fp32", BM=M, BN=N, BK=K)
    split = compile_("gemm", "*bf16,*bf16,*fp32", [f"pe.local_memory_bytes={lmem}"], BM=M, BN=N, BK=K)
    assert not whole.remarks and split.remarks[0].kind == "split-dot"   # (pipeline-dots then takes fewer stages)
    got, want = gemm(split, a, b, M, N), gemm(whole, a, b, M, N)
    np.testing.assert_array_equal(got, want)
    exact = from_bf16(a).astype(np.float64) @ from_bf16(b).astype(np.float64)
    np.testing.assert_allclose(got, exact, rtol=1e-5, atol=1e-4)


def test_elementwise_ops_and_a_masked_store_run_on_each_band():
    """Banded along N and split along K, as the 256 x 512 @ 512 x 256 dot is on the real local memory."""
    assert "split along N into 2 sub-tiles of 128, K into 8" in \
        compile_("gemm_relu", "*fp32,*fp32,*fp16", BM=256, BN=256, BK=512).remarks[0].message
    M, N, K = 64, 128, 256
    comp = compile_("gemm_relu", "*fp32,*fp32,*fp16", ["pe.local_memory_bytes=65536"], BM=M, BN=N, BK=K)
    assert comp.remarks[0].kind == "split-dot"
    assert "split along N into 2 sub-tiles of 64, K into 8" in comp.remarks[0].message
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((M, K)).astype(np.float32), rng.standard_normal((K, N)).astype(np.float32)
    got = gemm(comp, a, b, M, N, np.float16)
    want = np.maximum(a.astype(np.float64) @ b.astype(np.float64) * 0.5, 0.0)
    np.testing.assert_allclose(got[:, :N - 3].astype(np.float64), want[:, :N - 3], rtol=2e-3, atol=2e-2)
    np.testing.assert_array_equal(got[:, N - 3:], 0)


def test_a_loop_whose_tiles_do_not_fit_splits_k_only():
    """As the 128 x 1024 @ 1024 x 128 tiles of a K loop are on the real local memory; the last trip's tail
    (K = BK + 100) ends inside a sub-tile and leaves the sub-tiles after it wholly masked."""
    remark = compile_("loop_k", "*fp32,*fp32,*fp32,i32", BM=128, BN=128, BK=1024).remarks[0]
    assert remark.kind == "split-dot" and remark.message.endswith("split along K into 16 sub-tiles of 64")
    M, N, BK, K = 64, 64, 256, 356
    comp = compile_("loop_k", "*fp32,*fp32,*fp32,i32", ["pe.local_memory_bytes=131072"], BM=M, BN=N, BK=BK)
    assert [r.kind for r in comp.remarks][:1] == ["split-dot"]
    assert comp.remarks[0].message.endswith("split along K into 4 sub-tiles of 64")
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((M, K)).astype(np.float32), rng.standard_normal((K, N)).astype(np.float32)
    res = run(comp.binary, {"A": a.ravel(), "B": b.ravel(), "C": np.zeros(M * N, np.float32),
                            "K": np.array(K, np.int32)}, grid=(1,))
    want = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(res.outputs["C"].reshape(M, N), want, rtol=1e-3, atol=3e-3)


def test_a_store_between_the_tiles_loads_and_the_dot_keeps_the_dot_whole():
    from mtiacc.diagnostics import CompileError
    with pytest.raises(CompileError) as info:
        compile_("store_then_dot", "*fp32,*fp32,*fp32", BM=512, BN=512, BK=512)
    assert "blocks do not fit in the PE's local memory" in info.value.render()
