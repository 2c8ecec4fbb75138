"""Every element type through the Triton backend: torch tensors of every torch type, views of another element
type (``x.view(torch.bfloat16)`` of float32 data, ``.view(torch.int16)`` of float16, fp8 views of bytes,
uint16/32/64 views of floats, bool views of bytes), ``triton.reinterpret`` to fp8e4b15 (a type torch has not),
and non-contiguous views.  The element types are Triton's signature's: a view is read by its bits, never
converted.  Results are compared bit for bit with numpy (tests/dtype_table.py)."""
import numpy as np
import pytest

triton = pytest.importorskip("triton")
torch = pytest.importorskip("torch")

import triton.language as tl  # noqa: E402

from mtiacc.triton_backend.driver import MtiaDriver  # noqa: E402
from tests.dtype_table import BY_TYPE, DTYPES, N, expected, expected_scalar, inputs, mismatches  # noqa: E402
from tests.kernels import dtype_ops  # noqa: E402

pytestmark = pytest.mark.skipif(not MtiaDriver.is_active(), reason="another Triton backend is active here")


def _bits(t, storage):
    return t.view(torch.uint8).numpy().view(storage)


def _launch(d, tx, ty, kernel=None, **strides):
    tdt = tx.dtype
    z = torch.zeros(N, dtype=torch.float32 if d.fp8 else tdt)
    m = torch.ones(N, dtype=torch.bool)          # ones: a False the kernel did not write shows
    w = torch.zeros(N, dtype=tdt)
    if strides:
        compiled = dtype_ops.ops_strided[(1,)](tx, strides["sx"], ty, strides["sy"], z, m, w, N)
    else:
        compiled = (kernel or getattr(dtype_ops, d.kernel))[(1,)](tx, ty, z, m, w, N)
    return compiled, {"Z": _bits(z, d.z_storage), "M": m.numpy(), "W": _bits(w, d.storage)}


@pytest.mark.parametrize("d", [d for d in DTYPES if d.torch], ids=lambda d: d.ty)
def test_tensors_of_every_torch_type(d):
    x, y = inputs(d)
    tdt = getattr(torch, d.torch)
    compiled, got = _launch(d, torch.from_numpy(x).view(tdt), torch.from_numpy(y).view(tdt))
    assert compiled.src.signature["X"] == f"*{'u1' if d.ty == 'i1' else d.ty}"
    assert not mismatches(d, got, expected(d, x, y))


# (element type read, the data's own torch type): x.view(torch.<type>) of another tensor
VIEWS = [("bf16", "float32"), ("bf16", "float16"), ("i16", "float16"), ("u16", "float16"), ("u16", "bfloat16"),
         ("i32", "float32"), ("u32", "float32"), ("u64", "float64"), ("i64", "float64"), ("fp16", "int16"),
         ("fp32", "int32"), ("fp8e4nv", "uint8"), ("fp8e4nv", "float16"), ("fp8e5", "int8"),
         ("fp8e4b8", "uint8"), ("fp8e5b16", "uint8"), ("u8", "float8_e4m3fn"), ("i8", "bool"), ("u8", "bool")]


@pytest.mark.parametrize("ty, base", VIEWS, ids=[f"{b}.view({BY_TYPE[t].torch})" for t, b in VIEWS])
def test_views_of_another_element_type_are_read_by_their_bits(ty, base):
    d = BY_TYPE[ty]
    x, y = inputs(d)
    if base == "bool":          # bool data holds 0 and 1
        x, y = x & 1, y & 1
    tdt, bdt = getattr(torch, d.torch), getattr(torch, base)
    data = [torch.from_numpy(a).view(tdt).view(bdt).clone() for a in (x, y)]     # tensors of `base`
    tx, ty_ = (t.view(tdt) for t in data)
    assert tx.data_ptr() == data[0].data_ptr() and tx.dtype == tdt
    _, got = _launch(d, tx, ty_)
    assert not mismatches(d, got, expected(d, x, y))


def test_a_bool_view_of_bytes_reads_nonzero_as_true():
    """Triton loads an i1 as its byte and compares it with zero (semantic.py's load): bytes 2..255 are True."""
    d = BY_TYPE["i1"]
    g = torch.Generator().manual_seed(3)
    bx, by = (torch.randint(0, 256, (N,), dtype=torch.uint8, generator=g) for _ in range(2))
    bx[:64] = 0
    by[32:96] = 0
    _, got = _launch(d, bx.view(torch.bool), by.view(torch.bool))
    assert not mismatches(d, got, expected(d, bx.numpy() != 0, by.numpy() != 0))


def test_reinterpret_to_a_type_torch_has_not():
    d = BY_TYPE["fp8e4b15"]
    x, y = inputs(d)
    z = torch.zeros(N, dtype=torch.float32)
    m = torch.ones(N, dtype=torch.bool)
    w = torch.zeros(N, dtype=torch.uint8)
    tx, ty = torch.from_numpy(x), torch.from_numpy(y)
    r = lambda t: triton.reinterpret(t, tl.float8e4b15)  # noqa: E731
    dtype_ops.ops_wide[(1,)](r(tx), r(ty), z, m, r(w), N)
    got = {"Z": z.numpy(), "M": m.numpy(), "W": w.numpy()}
    assert not mismatches(d, got, expected(d, x, y))


@pytest.mark.parametrize("d", [d for d in DTYPES if d.torch and not d.fp8], ids=lambda d: d.ty)
def test_non_contiguous_views_of_every_type(d):
    x, y = inputs(d)
    tdt = getattr(torch, d.torch)
    bx = torch.zeros(3 * N, dtype=tdt)
    bx[::3] = torch.from_numpy(x).view(tdt)
    by = torch.zeros(N, 2, dtype=tdt)
    by[:, 1] = torch.from_numpy(y).view(tdt)
    tx, ty = bx[::3], by[:, 1]                 # strides 3 and 2, the second at a storage offset
    assert not tx.is_contiguous() and ty.storage_offset() == 1
    _, got = _launch(d, tx, ty, sx=tx.stride(0), sy=ty.stride(0))
    assert not mismatches(d, got, expected(d, x, y))


# Python scalars as Triton types them (int: i32, i64 or u64 by value; float: fp32; bool: u1)
PY_SCALARS = [("i32", -2000000000), ("i64", -9000000000000000000), ("u64", 18000000000000000000),
              ("fp32", 3.0e38), ("i1", True)]


@pytest.mark.parametrize("ty, s", PY_SCALARS, ids=[p[0] for p in PY_SCALARS])
def test_python_scalars_take_tritons_types(ty, s):
    d = BY_TYPE[ty]
    x, _ = inputs(d)
    tdt = getattr(torch, d.torch)
    z, m = torch.zeros(N, dtype=tdt), torch.ones(N, dtype=torch.bool)
    compiled = dtype_ops.add_scalar[(1,)](torch.from_numpy(x), s, z, m, N)
    assert compiled.src.signature["s"] == ("u1" if ty == "i1" else ty)
    got = {"Z": _bits(z, d.storage), "M": m.numpy()}
    assert not mismatches(d, got, expected_scalar(d, x, s))
