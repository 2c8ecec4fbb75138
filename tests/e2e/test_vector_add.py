"""End-to-end: the vector add compiled from source and run on the simulator, against numpy."""
import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from mtiasim.runner import run
from tests.conftest import EXAMPLES

SIZES = [1, 255, 1024, 4097, 2 ** 20]
BLOCKS = [64, 256, 1024]
DTYPES = {"fp32": (np.float32, "*fp32,*fp32,*fp32,i32"), "i32": (np.int32, "*i32,*i32,*i32,i32")}

_cache = {}


def build(block: int, dtype: str) -> bytes:
    key = (block, dtype)
    if key not in _cache:
        opts = Options(defines={"BLOCK_SIZE": str(block)}, signature=DTYPES[dtype][1],
                       grid="cdiv(N, BLOCK_SIZE)")
        _cache[key] = compile_kernel(str(EXAMPLES / "vector_add.py"), opts).binary
    return _cache[key]


def inputs(n: int, np_type, seed: int):
    rng = np.random.default_rng(seed)
    if np_type == np.float32:
        a = rng.standard_normal(n).astype(np.float32)
        b = rng.standard_normal(n).astype(np.float32)
    else:
        a = rng.integers(-2 ** 31, 2 ** 31, n, dtype=np.int64).astype(np.int32)
        b = rng.integers(-2 ** 31, 2 ** 31, n, dtype=np.int64).astype(np.int32)
    return {"A_ptr": a, "B_ptr": b, "C_ptr": np.zeros(n, np_type), "N": np.array(n, np.int32)}


@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("block", BLOCKS)
@pytest.mark.parametrize("n", SIZES)
def test_vector_add_matches_numpy(tmp_path, n, block, dtype):
    np_type = DTYPES[dtype][0]
    path = tmp_path / "add.bin"
    path.write_bytes(build(block, dtype))
    data = inputs(n, np_type, seed=n * 7 + block)
    result = run(str(path), data, grid=None)   # the grid stored in the binary: cdiv(N, BLOCK_SIZE)
    expected = data["A_ptr"] + data["B_ptr"]   # int32 wraps in numpy as on the machine
    np.testing.assert_array_equal(result.outputs["C_ptr"], expected)
    np.testing.assert_array_equal(result.outputs["A_ptr"], data["A_ptr"])
    assert result.stats.programs == -(-n // block)


def test_issue_example_is_1025_everywhere(tmp_path):
    path = tmp_path / "add.bin"
    path.write_bytes(build(256, "fp32"))
    a = np.arange(1, 1025, dtype=np.float32)
    data = {"A_ptr": a, "B_ptr": a[::-1].copy(), "C_ptr": np.zeros(1024, np.float32), "N": np.array(1024, np.int32)}
    result = run(str(path), data, grid=(4,))
    assert np.all(result.outputs["C_ptr"] == 1025)


def test_masked_tail_is_not_written(tmp_path):
    """Elements past N keep their old value: the store is masked."""
    path = tmp_path / "add.bin"
    path.write_bytes(build(64, "fp32"))
    data = inputs(100, np.float32, seed=1)
    data["C_ptr"] = np.full(128, -7.0, np.float32)
    data["A_ptr"] = np.concatenate([data["A_ptr"], np.zeros(28, np.float32)])
    data["B_ptr"] = np.concatenate([data["B_ptr"], np.zeros(28, np.float32)])
    out = run(str(path), data, grid=None).outputs["C_ptr"]
    np.testing.assert_array_equal(out[:100], data["A_ptr"][:100] + data["B_ptr"][:100])
    assert np.all(out[100:] == -7.0)
