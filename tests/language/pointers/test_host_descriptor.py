"""Tensor descriptors made by the host: `tensordesc<fp32[8, 16]>` in --signature, the parameter a
tl.tensor_descriptor in the kernel, an array in mtiasim's inputs (its shape and strides the descriptor's),
against numpy; 2-D and 3-D with ragged edges, through both command lines; the errors."""
import numpy as np
import pytest

from mtiacc.diagnostics import CompileError, UserError
from mtiacc.driver import Options, compile_kernel
from mtiasim.loader import load_program
from mtiasim.runner import run
from tests.cli.test_compile_cli import assert_clean_error
from tests.conftest import run_tool
from tests.language.harness import HEADER

KERNEL_2D = HEADER + """
@triton.jit
def k(a, b, c, BM: tl.constexpr, BN: tl.constexpr):
    tl.static_assert(isinstance(a, tl.tensor_descriptor))
    tl.static_assert(a.block_shape == (BM, BN))
    tl.static_assert(a.dtype == tl.float32)
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    x = a.load([pm * BM, pn * BN])
    b.store([pm * BM, pn * BN], x * 2.0 + a.shape[1])
    c.atomic_add([0, 0], x)   # c is smaller than a block: what lies outside is never touched
"""

KERNEL_3D = HEADER + """
@triton.jit
def k(x, y):
    i = tl.program_id(0)
    j = tl.program_id(1)
    v = x.load([i * 2 - 1, j * 4, 3])
    y.store([i * 2, j * 4, 0], v + 1.0)
"""

SIG_2D = "tensordesc<fp32[8, 16]>, tensordesc<fp32[8,16]>,tensordesc<fp32[ 8, 16 ]>"
SIG_3D = "tensordesc<fp16[2, 4, 8]>, tensordesc<fp16[2, 4, 8]>"


def _padded(a, pad):
    p = np.zeros(tuple(n + 2 * pad for n in a.shape), a.dtype)
    p[tuple(slice(pad, pad + n) for n in a.shape)] = a
    return p


def _want_2d(a, c0, grid, BM=8, BN=16):
    pa = _padded(a, 32)
    b = np.zeros_like(a)
    c = c0.astype(np.float64)
    M, N = a.shape
    for pm in range(grid[0]):
        for pn in range(grid[1]):
            blk = pa[32 + pm * BM:32 + pm * BM + BM, 32 + pn * BN:32 + pn * BN + BN]
            r, s = pm * BM, pn * BN
            b[r:r + BM, s:s + BN] = (blk * 2 + N)[:min(BM, M - r), :min(BN, N - s)]
            c += blk[:c.shape[0], :c.shape[1]]
    return b, c.astype(np.float32)


def test_2d_through_the_command_lines(tmp_path):
    src = tmp_path / "k.py"
    src.write_text(KERNEL_2D)
    binary = tmp_path / "k.bin"
    proc = run_tool("mtiacc", src, "-o", binary, "--signature", SIG_2D, "-D", "BM=8", "-D", "BN=16",
                    "--grid", "3, 2")
    assert proc.returncode == 0, proc.stderr
    params = load_program(str(binary)).meta["params"]
    assert params == [{"name": n, "type": "tensordesc<fp32[8, 16]>"} for n in "abc"]
    rng = np.random.default_rng(0)
    a = rng.integers(-9, 10, (21, 29)).astype(np.float32)   # ragged: 3 x 2 blocks of 8 x 16 overhang it
    c0 = rng.integers(-9, 10, (5, 7)).astype(np.float32)
    np.savez(tmp_path / "in.npz", a=a, b=np.zeros_like(a), c=c0)
    proc = run_tool("mtiasim", "run", binary, "--inputs", tmp_path / "in.npz", "-o", tmp_path / "out.npz")
    assert proc.returncode == 0, proc.stderr
    out = np.load(tmp_path / "out.npz")
    want_b, want_c = _want_2d(a, c0, (3, 2))
    np.testing.assert_array_equal(out["a"], a)
    np.testing.assert_array_equal(out["b"], want_b)
    np.testing.assert_array_equal(out["c"], want_c)


def test_3d_through_the_command_lines(tmp_path):
    src = tmp_path / "k.py"
    src.write_text(KERNEL_3D)
    binary = tmp_path / "k.bin"
    proc = run_tool("mtiacc", src, "-o", binary, "--signature", SIG_3D)
    assert proc.returncode == 0, proc.stderr
    assert load_program(str(binary)).meta["params"][0]["type"] == "tensordesc<fp16[2, 4, 8]>"
    x = np.random.default_rng(1).integers(-50, 50, (5, 7, 11)).astype(np.float16)
    y = np.full((6, 6, 5), 7, np.float16)
    np.savez(tmp_path / "in.npz", x=x, y=y)
    proc = run_tool("mtiasim", "run", binary, "--inputs", tmp_path / "in.npz", "--grid", "3,2",
                    "-o", tmp_path / "out.npz")
    assert proc.returncode == 0, proc.stderr
    px = _padded(x, 8)
    want = y.copy()
    for i in range(3):
        for j in range(2):
            v = px[8 + i * 2 - 1:8 + i * 2 + 1, 8 + j * 4:8 + j * 4 + 4, 8 + 3:8 + 3 + 8] + np.float16(1)
            blk = want[i * 2:i * 2 + 2, j * 4:j * 4 + 4, 0:8]
            blk[...] = v[:blk.shape[0], :blk.shape[1], :blk.shape[2]]
    np.testing.assert_array_equal(np.load(tmp_path / "out.npz")["y"], want)


@pytest.fixture(scope="module")
def binary_2d(tmp_path_factory):
    src = tmp_path_factory.mktemp("desc") / "k.py"
    src.write_text(KERNEL_2D)
    return compile_kernel(str(src), Options(signature=SIG_2D, defines={"BM": "8", "BN": "16"})).binary


@pytest.mark.parametrize("seed,shape", [(2, (8, 16)), (3, (30, 17)), (4, (3, 40))])
def test_2d_shapes(binary_2d, seed, shape):
    rng = np.random.default_rng(seed)
    a = rng.integers(-9, 10, shape).astype(np.float32)
    c0 = rng.integers(-9, 10, (6, 3)).astype(np.float32)
    grid = (-(-shape[0] // 8), -(-shape[1] // 16))
    r = run(binary_2d, {"a": a, "b": np.zeros_like(a), "c": c0}, grid=grid, seed=seed)
    want_b, want_c = _want_2d(a, c0, grid)
    np.testing.assert_array_equal(r.outputs["b"], want_b)
    np.testing.assert_array_equal(r.outputs["c"], want_c)


@pytest.mark.parametrize("entry,message", [
    ("tensordesc<fp32[8 16]>", "the block shape [8 16] must be integers separated by commas"),
    ("tensordesc<fp32>", "malformed tensor descriptor type: expected tensordesc<DTYPE[B0, B1, ...]>"),
    ("tensordesc<float[8, 16]>", "unknown type 'float'"),
    ("tensordesc<fp32[8, 12]>", "the block shape [8, 12] must be powers of two"),
    ("tensordesc<fp32[8, 2]>", "the last block dimension must hold at least 16 bytes, got 2 x 4 = 8"),
    ("tensordesc<*fp32[8, 16]>", "malformed tensor descriptor type"),
])
def test_malformed_spelling(tmp_path, entry, message):
    src = tmp_path / "k.py"
    src.write_text(KERNEL_2D)
    sig = f"{entry}, tensordesc<fp32[8, 16]>, tensordesc<fp32[8, 16]>"
    with pytest.raises(CompileError) as info:
        compile_kernel(str(src), Options(signature=sig, defines={"BM": "8", "BN": "16"}))
    text = info.value.message
    assert text.startswith(f"signature entry 1 ('{entry}') for parameter 'a': ") and message in text, text


def test_unbalanced_brackets_on_the_command_line(tmp_path):
    src = tmp_path / "k.py"
    src.write_text(KERNEL_2D)
    proc = run_tool("mtiacc", src, "--signature", "tensordesc<fp32[8, 16>, tensordesc<fp32[8, 16]>, *fp32",
                    "-D", "BM=8", "-D", "BN=16")
    assert_clean_error(proc, "is malformed: '>' at column 22 closes no bracket")


@pytest.mark.parametrize("array,message", [
    (np.zeros((4, 4), np.float16), "parameter 'a' is tensordesc<fp32[8, 16]>: expected an array of dtype "
                                   "float32, got float16"),
    (np.zeros(40, np.float32), "parameter 'a' is tensordesc<fp32[8, 16]>: its block has 2 dimensions, so the "
                               "array must have as many; got shape (40,)"),
    (np.zeros((2, 3, 4), np.float32), "got shape (2, 3, 4)"),
])
def test_run_time_mismatch(binary_2d, array, message):
    ok = np.zeros((8, 16), np.float32)
    with pytest.raises(UserError) as info:
        run(binary_2d, {"a": array, "b": ok, "c": ok}, grid=(1, 1))
    assert message in str(info.value)


def test_run_time_mismatch_on_the_command_line(binary_2d, tmp_path):
    (tmp_path / "k.bin").write_bytes(binary_2d)
    ok = np.zeros((8, 16), np.float32)
    np.savez(tmp_path / "in.npz", a=ok, b=ok, c=np.zeros((8, 16), np.int32))
    proc = run_tool("mtiasim", "run", tmp_path / "k.bin", "--inputs", tmp_path / "in.npz", "--grid", "1,1")
    assert_clean_error(proc, "parameter 'c' is tensordesc<fp32[8, 16]>: expected an array of dtype float32, "
                             "got int32")
