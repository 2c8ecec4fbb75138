"""Every element type through ``mtiacc.load``: numpy arrays of every numpy type, every type through a pointer
annotation (bf16 and the fp8 formats as their bits), torch tensors of every torch type, views of another
element type (``a.view(np.uint16)`` of float16 data, ``t.view(torch.bfloat16)`` of float32 data, fp8 views)
and non-contiguous views.  The element types are the signature's: a view is read by its bits, never converted.
Results are compared bit for bit with numpy (tests/dtype_table.py)."""
from pathlib import Path

import numpy as np
import pytest

from mtiacc.runtime import load
from tests.dtype_table import BY_TYPE, DTYPES, N, SCALARS, expected, expected_scalar, inputs, mismatches

KERNELS = Path(__file__).resolve().parents[1] / "kernels" / "dtype_ops.py"
NUMPY_TYPED = [d for d in DTYPES if d.ty not in ("bf16",) and not d.fp8]


@pytest.fixture(autouse=True)
def _cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("MTIACC_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "dtype-cache"))


def _run(kernel, x, y, d, grid=(1,), **extra):
    z = np.zeros(N, d.z_storage)
    m = np.ones(N, np.bool_)         # ones: a False the kernel did not write shows
    w = np.zeros(N, d.storage)
    if "sx" in extra:
        kernel[grid](x, extra["sx"], y, extra["sy"], z, m, w, N)
    else:
        kernel[grid](x, y, z, m, w, N)
    return {"Z": z, "M": m, "W": w}


@pytest.mark.parametrize("d", NUMPY_TYPED, ids=lambda d: d.ty)
def test_numpy_arrays_of_every_numpy_type(d):
    x, y = inputs(d)
    got = _run(load(KERNELS, d.kernel), x, y, d)
    assert not mismatches(d, got, expected(d, x, y))


ANNOTATED = '''import triton
import triton.language as tl


@triton.jit
def typed(X: "*{t}", Y: "*{t}", Z: "*{z}", M: "*i1", W: "*{t}", N: tl.constexpr):
    off = tl.arange(0, N)
    x = tl.load(X + off)
    y = tl.load(Y + off)
    {body}
    tl.store(M + off, m)
    tl.store(W + off, tl.where(m, x, y))
'''
WIDE = "xf = x.to(tl.float32)\n    yf = y.to(tl.float32)\n    tl.store(Z + off, xf + yf)\n    m = xf < yf"
PLAIN = "tl.store(Z + off, x + y)\n    m = x < y"


@pytest.mark.parametrize("d", DTYPES, ids=lambda d: d.ty)
def test_every_type_through_an_annotation_on_its_bits(d, tmp_path):
    """A parameter annotated ``"*bf16"`` (or an fp8 format) takes the elements' bits in an array of the width:
    uint16 for bf16, uint8 for fp8 (numpy has neither type)."""
    src = tmp_path / f"typed_{d.ty}.py"
    src.write_text(ANNOTATED.format(t=d.ty, z=d.z_ty, body=WIDE if d.fp8 else PLAIN))
    x, y = inputs(d)
    kernel = load(src, "typed")
    got = _run(kernel, x, y, d)
    assert kernel.last_launch.signature == f"*{d.ty},*{d.ty},*{d.z_ty},*i1,*{d.ty}"
    assert not mismatches(d, got, expected(d, x, y))


TORCH_TYPED = [d for d in DTYPES if d.torch]


@pytest.mark.parametrize("d", TORCH_TYPED, ids=lambda d: d.ty)
def test_torch_tensors_of_every_torch_type(d):
    torch = pytest.importorskip("torch")
    tdt = getattr(torch, d.torch)
    x, y = inputs(d)
    tx, ty = (torch.from_numpy(a).view(tdt) for a in (x, y))
    z = torch.zeros(N, dtype=torch.float32 if d.fp8 else tdt)
    m = torch.ones(N, dtype=torch.bool)
    w = torch.zeros(N, dtype=tdt)
    kernel = load(KERNELS, d.kernel)
    kernel[(1,)](tx, ty, z, m, w, N)
    assert kernel.last_launch.signature.split(",")[0] == f"*{d.ty}"
    got = {"Z": z.view(torch.uint8).numpy().view(d.z_storage), "M": m.numpy(),
           "W": w.view(torch.uint8).numpy().view(d.storage)}
    assert not mismatches(d, got, expected(d, x, y))


# (name, element type the kernel reads, the data's own numpy type): a view of other data as that type
NUMPY_VIEWS = [("fp16 data .view(np.uint16)", "u16", np.float16), ("fp16 data .view(np.int16)", "i16", np.float16),
               ("fp32 data .view(np.uint32)", "u32", np.float32), ("fp32 data .view(np.int32)", "i32", np.float32),
               ("fp64 data .view(np.uint64)", "u64", np.float64), ("int16 data .view(np.float16)", "fp16", np.int16),
               ("uint32 data .view(np.float32)", "fp32", np.uint32), ("uint8 data .view(np.int8)", "i8", np.uint8)]


@pytest.mark.parametrize("name, ty, base", NUMPY_VIEWS, ids=[v[0] for v in NUMPY_VIEWS])
def test_numpy_views_of_another_type_are_read_by_their_bits(name, ty, base):
    d = BY_TYPE[ty]
    x, y = inputs(d)
    xv, yv = x.view(base).view(d.storage), y.view(base).view(d.storage)      # views of arrays of `base`
    assert xv.base is not None
    kernel = load(KERNELS, "ops")
    got = _run(kernel, xv, yv, d)
    assert kernel.last_launch.signature.startswith(f"*{ty},*{ty},")
    assert not mismatches(d, got, expected(d, x, y))


def test_a_bool_view_of_bytes_reads_nonzero_as_true():
    """Triton loads an i1 as its byte and compares it with zero: bytes 2..255 viewed as bool are True."""
    d = BY_TYPE["i1"]
    rng = np.random.default_rng(7)
    bx, by = rng.integers(0, 256, N, dtype=np.uint8), rng.integers(0, 256, N, dtype=np.uint8)
    bx[:64] = by[:64] = 0
    got = _run(load(KERNELS, "ops"), bx.view(np.bool_), by.view(np.bool_), d)
    assert not mismatches(d, got, expected(d, bx != 0, by != 0))


@pytest.mark.parametrize("d", NUMPY_TYPED, ids=lambda d: d.ty)
def test_non_contiguous_views_of_every_numpy_type(d):
    x, y = inputs(d)
    bx = np.zeros(3 * N, d.storage)
    bx[::3] = x
    by = np.zeros((N, 2), d.storage)
    by[:, 1] = y
    xv, yv = bx[::3], by[:, 1]                 # strides 3 and 2 elements, the second at an offset
    assert not xv.flags.c_contiguous and not yv.flags.c_contiguous
    got = _run(load(KERNELS, "ops_strided"), xv, yv, d, sx=3, sy=2)
    assert not mismatches(d, got, expected(d, x, y))


SCALAR_ANNOTATED = '''import triton
import triton.language as tl


@triton.jit
def add_scalar(X: "*{t}", s: "{t}", Z: "*{t}", M: "*i1", N: tl.constexpr):
    off = tl.arange(0, N)
    x = tl.load(X + off)
    tl.store(Z + off, x + s)
    tl.store(M + off, x < s)
'''


@pytest.mark.parametrize("ty", list(SCALARS), ids=list(SCALARS))
def test_a_scalar_of_every_type_through_an_annotation(ty, tmp_path):
    """A Python number for a scalar parameter annotated with each type is that type's value (u64 beyond i64,
    bf16 rounded from the float)."""
    d, s = BY_TYPE[ty], SCALARS[ty]
    src = tmp_path / f"scalar_{ty}.py"
    src.write_text(SCALAR_ANNOTATED.format(t=ty))
    x, _ = inputs(d)
    z, m = np.zeros(N, d.storage), np.ones(N, np.bool_)
    kernel = load(src, "add_scalar")
    kernel[(1,)](x, s, z, m, N)
    assert kernel.last_launch.signature == f"*{ty},{ty},*{ty},*i1"
    assert not mismatches(d, {"Z": z, "M": m}, expected_scalar(d, x, s))
