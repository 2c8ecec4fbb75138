"""``band-accumulators``: a K loop whose 256x256 fp32 accumulator neither the engine (2,048 of its 1,024 rows) nor
local memory (beside 64 KiB tiles of A and B) holds runs once per band of 128 columns, and gives the bits of the
same loop unbanded on a machine with 4x the local memory."""
import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run
from tests.codegen.matrix.numerics import KERNELS, from_bf16, to_bf16

BIG = ("pe.local_memory_bytes=1572864",)


def matmul(overrides, level):
    return compile_kernel(str(KERNELS), Options(kernel="matmul_plain", signature="*bf16,*bf16,*fp32,i32,i32,i32",
                                                defines={"BLOCK_M": "256", "BLOCK_N": "256", "BLOCK_K": "128",
                                                         "STAGES": "2"}, overrides=overrides, opt_level=level))


@pytest.mark.parametrize("level", [2, 3])   # (-O0 keeps `acc += tl.dot(a, b)` an add: no accumulator chain)
def test_banded_loop_gives_the_bits_of_the_whole_loop(level):
    M = N = 256
    K = 384
    rng = np.random.default_rng(level)
    a, b = to_bf16(rng.standard_normal((M, K))), to_bf16(rng.standard_normal((K, N)))
    i32 = lambda v: np.array(v, np.int32)  # noqa: E731
    out = {}
    for label, overrides in (("banded", ()), ("whole", BIG)):
        comp = matmul(overrides, level)
        kinds = [r.kind for r in comp.remarks]
        assert ("band-accumulators" in kinds) == (label == "banded")
        res = run(comp.binary, {"a_ptr": a.ravel(), "b_ptr": b.ravel(), "c_ptr": np.zeros(M * N, np.float32),
                                "M": i32(M), "N": i32(N), "K": i32(K)}, grid=(1, 1), overrides=overrides)
        out[label] = res.outputs["c_ptr"].reshape(M, N)
    np.testing.assert_array_equal(out["banded"], out["whole"])
    exact = from_bf16(a).astype(np.float64) @ from_bf16(b).astype(np.float64)
    np.testing.assert_allclose(out["banded"], exact, rtol=1e-5, atol=1e-4)


def test_the_band_loop_and_the_remark():
    comp = compile_kernel(str(KERNELS), Options(kernel="matmul_plain", signature="*bf16,*bf16,*fp32,i32,i32,i32",
                                                defines={"BLOCK_M": "256", "BLOCK_N": "256", "BLOCK_K": "128",
                                                         "STAGES": "2"}), stop_after="ir")
    r = next(r for r in comp.remarks if r.kind == "band-accumulators")
    assert r.message.startswith("band-accumulators: the loop's `tt.dot` accumulator 256x256 f32 in local memory (it "
                                "needs 2048 of the engine's 1024 accumulator rows)")
    assert "once per band of 256 rows and 128 columns" in r.message and r.loc.line > 0
    assert 'split = "N 256 by 128"' in comp.ir_text
    assert '"tt.dot"' in comp.ir_text and "accumulator = \"engine\"" in comp.ir_text
