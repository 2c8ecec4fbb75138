"""The Python API: kernel[grid](...) on numpy arrays (and torch CPU tensors), views, shared memory, the disk
cache across processes, the simulated time, and errors."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mtiacc
import mtiasim
from mtiacc.diagnostics import UserError
from mtiacc.runtime.signature import classify

ADD = textwrap.dedent('''\
    import triton
    import triton.language as tl


    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr):
        pid = tl.program_id(0)
        offs = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
        m = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


    @triton.jit
    def scale_kernel(x_ptr, n, alpha, stride, BLOCK: tl.constexpr, BIAS: tl.constexpr = None):
        offs = tl.arange(0, BLOCK)
        m = offs < n
        x = tl.load(x_ptr + offs * stride, mask=m)
        if BIAS is not None:
            x = x + BIAS
        tl.store(x_ptr + offs * stride, x * alpha, mask=m)
    ''')


@pytest.fixture
def src(tmp_path, monkeypatch):
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "kernels.py"
    path.write_text(ADD)
    return path


def test_a_launch_on_numpy_arrays_writes_the_results_back(src):
    k = mtiacc.load(str(src), "add_kernel")
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(1000).astype(np.float32), rng.standard_normal(1000).astype(np.float32)
    out = np.zeros(1000, np.float32)
    launch = k[lambda meta: (triton_cdiv(meta["n"], meta["BLOCK_SIZE"]),)](x, y, out, 1000, BLOCK_SIZE=256)
    np.testing.assert_array_equal(out, x + y)
    assert launch.grid == (4, 1, 1) and launch.signature == "*fp32,*fp32,*fp32,i32"
    assert launch.cycles == launch.stats.cycles > 0
    assert launch.time_s == pytest.approx(launch.cycles / launch.stats.clock_hz)
    assert k.last_launch is launch


def triton_cdiv(a, b):
    return (a + b - 1) // b


def test_views_with_offsets_and_strides_are_what_the_kernel_sees(src):
    k = mtiacc.load(str(src), "scale_kernel")
    big = np.arange(60, dtype=np.float32).reshape(6, 10)
    want = big.copy()
    col = big[1:, 3]                      # a view: storage offset 13 elements, stride 10
    k[(1,)](col, 5, 2.0, 10, BLOCK=8)
    want[1:, 3] *= 2
    np.testing.assert_array_equal(big, want)     # the column doubled, nothing else touched
    k[(1,)](big[0], 4, 0.5, 1, BLOCK=8, BIAS=1)  # a constexpr with a default, given
    want[0, :4] = (want[0, :4] + 1) * 0.5
    np.testing.assert_array_equal(big, want)


def test_arguments_sharing_memory_see_each_other(src):
    k = mtiacc.load(str(src), "add_kernel")
    a = np.arange(10, dtype=np.float32)
    k[(1,)](a, a, a, 10, BLOCK_SIZE=16)          # in place
    np.testing.assert_array_equal(a, 2 * np.arange(10, dtype=np.float32))
    b = np.arange(10, dtype=np.float32)
    k[(1,)](b[1:], b[:-1], b[:-1], 9, BLOCK_SIZE=16)   # overlapping views of one array
    np.testing.assert_array_equal(b, np.append(np.arange(9) * 2 + 1, 9).astype(np.float32))


def test_signatures_follow_the_arguments(src):
    k = mtiacc.load(str(src), "add_kernel")
    for dt in (np.float16, np.int32, np.int64, np.float64):
        x = np.arange(20).astype(dt)
        out = np.zeros_like(x)
        launch = k[(1,)](x, x, out, 20, BLOCK_SIZE=32)
        np.testing.assert_array_equal(out, x + x)
        ty = {np.float16: "fp16", np.int32: "i32", np.int64: "i64", np.float64: "fp64"}[dt]
        assert launch.signature == f"*{ty},*{ty},*{ty},i32"
    assert [classify("n", v)[0] for v in (7, -2**31, 2**31, 2**63, True, 0.5)] == \
        ["i32", "i32", "i64", "u64", "i1", "fp32"]


CACHE_CHECK = """
import sys, numpy as np, mtiacc
k = mtiacc.load(sys.argv[1], "add_kernel")
x = np.ones(64, np.float32); out = np.zeros(64, np.float32)
launch = k[(1,)](x, x, out, 64, BLOCK_SIZE=64)
assert (out == 2).all()
print("cached" if launch.cached else "compiled")
"""


def test_the_disk_cache_serves_a_fresh_process_and_a_changed_source_misses_it(src, tmp_path):
    def launch():
        r = subprocess.run([sys.executable, "-c", CACHE_CHECK, str(src)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        return r.stdout.strip()
    assert launch() == "compiled"
    assert launch() == "cached"
    assert any((tmp_path / "cache").rglob("*.bin"))
    src.write_text(ADD.replace("+ tl.load(y_ptr + offs, mask=m)", "+ tl.load(y_ptr + offs, mask=m) * 1"))
    assert launch() == "compiled"


def test_compile_and_run_as_functions(src):
    c = mtiacc.compile(str(src), "add_kernel", signature=["*fp32", "*fp32", "*fp32", "i32"],
                       constexprs={"BLOCK_SIZE": 128})
    assert c.binary[:4] == b"\x7fELF" and "amo" not in c.asm_text
    x = np.arange(128, dtype=np.float32)
    r = mtiasim.run(c.binary, {"x_ptr": x, "y_ptr": x, "out_ptr": np.zeros_like(x), "n": np.array(128)}, grid=(1,))
    np.testing.assert_array_equal(r.outputs["out_ptr"], 2 * x)


@pytest.mark.parametrize("call, message", [
    (lambda k: k[(1,)](np.zeros(4, np.float32)), "add_kernel() is missing the argument 'y_ptr'"),
    (lambda k: k[(1,)](1, 2, 3, 4, 5, 6), "add_kernel() takes 5 arguments, got 6"),
    (lambda k: k[(1,)](np.zeros(4, np.float32), np.zeros(4, np.float32), np.zeros(4, np.float32), 4, BLOCK=4),
     "add_kernel() has no parameter 'BLOCK'"),
    (lambda k: k[(1,)](np.zeros(4, np.complex64), np.zeros(4), np.zeros(4), 4, BLOCK_SIZE=4),
     "argument 'x_ptr' has dtype complex64"),
    (lambda k: k[(1,)]("x", np.zeros(4), np.zeros(4), 4, BLOCK_SIZE=4), "argument 'x_ptr' is a str"),
])
def test_errors_name_the_argument(src, call, message):
    with pytest.raises(UserError) as e:
        call(mtiacc.load(str(src), "add_kernel"))
    assert message in str(e.value)


def test_torch_cpu_tensors_with_storage_offsets(src):
    torch = pytest.importorskip("torch")
    k = mtiacc.load(str(src), "add_kernel")
    base = torch.arange(40, dtype=torch.float32)
    x = base[5:25]
    out = torch.zeros(30, dtype=torch.bfloat16)[3:23]
    y = torch.ones(20, dtype=torch.float32)
    k[(1,)](x, y, out, 20, BLOCK_SIZE=32)
    assert torch.equal(out, (x + y).to(torch.bfloat16))


DESC = textwrap.dedent('''\
    import triton
    import triton.language as tl


    @triton.jit
    def desc_kernel(x, y, z, alpha, BM: tl.constexpr, BN: tl.constexpr):
        pm = tl.program_id(0)
        pn = tl.program_id(1)
        v = x.load([pm * BM, pn * BN])
        y.store([pm * BM, pn * BN], v * alpha + x.shape[0])
        z.atomic_add([pm * 5 + 3, pn * 3], v)
    ''')


def test_tensor_descriptor_arguments(tmp_path, monkeypatch):
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "desc.py"
    path.write_text(DESC)
    k = mtiacc.load(str(path))
    rng = np.random.default_rng(4)
    base = rng.integers(-9, 10, (11, 13)).astype(np.float32)
    x = base.T                                 # a view: the descriptor is of the 13 x 11 tensor it shows
    y = np.zeros((20, 12), np.float32)[::2]    # a strided view: written back through it
    keep = y.base.copy()
    z = np.ones((12, 12), np.int64).astype(np.float32)
    grid = (2, 3)
    launch = k[grid](mtiacc.TensorDescriptor(x, [8, 4]), mtiacc.TensorDescriptor.from_tensor(y, (8, 4)),
                     mtiacc.TensorDescriptor(z, [8, 4]), 2.0, BM=8, BN=4)
    assert launch.signature == "tensordesc<fp32[8, 4]>,tensordesc<fp32[8, 4]>,tensordesc<fp32[8, 4]>,fp32"
    want = np.zeros((10, 12))
    want_z = np.ones((12, 12))
    pad = np.zeros((40, 40))
    pad[:13, :11] = x
    for pm in range(grid[0]):
        for pn in range(grid[1]):
            v = pad[pm * 8:pm * 8 + 8, pn * 4:pn * 4 + 4]
            blk = want[pm * 8:pm * 8 + 8, pn * 4:pn * 4 + 4]
            blk[...] = (v * 2 + 13)[:blk.shape[0], :blk.shape[1]]
            blk = want_z[pm * 5 + 3:pm * 5 + 11, pn * 3:pn * 3 + 4]   # overlapping programs' boxes
            blk += v[:blk.shape[0], :blk.shape[1]]
    np.testing.assert_array_equal(y, want)
    np.testing.assert_array_equal(z, want_z)
    np.testing.assert_array_equal(y.base[1::2], keep[1::2])   # the rows between the view's untouched
    np.testing.assert_array_equal(x, base.T)


def test_tensor_descriptor_rank_mismatch(tmp_path, monkeypatch):
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "desc.py"
    path.write_text(DESC)
    k = mtiacc.load(str(path))
    with pytest.raises(UserError, match=r"argument 'x': the TensorDescriptor's block_shape \[8\] has 1 dimensions "
                                        r"but its array has 2"):
        k[(1, 1)](mtiacc.TensorDescriptor(np.zeros((4, 4), np.float32), [8]),
                  mtiacc.TensorDescriptor(np.zeros((4, 4), np.float32), [8, 4]),
                  mtiacc.TensorDescriptor(np.zeros((4, 4), np.float32), [8, 4]), 1.0, BM=8, BN=4)
