"""triton_helpers' element-wise helpers and reductions (tests/inductor/helper_kernels.py) against numpy:
integer results exact, fp32 results within the stated relative tolerances (a few ulps of the exp)."""
from pathlib import Path

import numpy as np
import pytest

from tests.codegen.tensor.blocks.helpers import build, launch

K = Path(__file__).resolve().parent / "helper_kernels.py"


def fp8e4m3fn(bits: np.ndarray) -> np.ndarray:
    """float8_e4m3fn bit patterns decoded with numpy (the format's definition)."""
    b = bits.astype(np.int64)
    sign = np.where(b & 0x80, -1.0, 1.0)
    e, m = (b >> 3) & 0xF, b & 0x7
    mag = np.where(e == 0, np.ldexp(m / 8.0, -6), np.ldexp(1.0 + m / 8.0, e - 7))
    return np.where((e == 15) & (m == 7), np.nan, sign * mag).astype(np.float32)


def test_elementwise_helpers(tmp_path):
    n = 300
    rng = np.random.default_rng(1)
    a = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 4, n)).astype(np.float32)
    a[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -3e-39, 2.0 ** 100]
    b = rng.integers(-20, 21, n).astype(np.int32)
    e = rng.integers(0, 10, n).astype(np.int32)
    c = (np.arange(n) % 256).astype(np.uint8)
    sig = "*fp32,*i32,*i32,*u8,*i32,*fp32,*fp32,*i32,*fp32,*fp32,*i32,i32"
    outs = {f"out_ptr{i}": np.zeros(n, t) for i, t in enumerate(
        [np.int32, np.float32, np.float32, np.int32, np.float32, np.float32, np.int32])}
    out = launch(tmp_path, build("poi_elementwise", sig, path=K, XBLOCK=64),
                 {"in_ptr0": a, "in_ptr1": b, "in_ptr2": e, "in_ptr3": c, **outs, "xnumel": np.array(n, np.int32)},
                 (-(-n // 64),))
    np.testing.assert_array_equal(out["out_ptr0"], (b.astype(np.int64) ** e).astype(np.int32))
    f8 = fp8e4m3fn(c)
    np.testing.assert_array_equal(out["out_ptr1"], f8)
    mant, expo = np.frexp(a)
    np.testing.assert_array_equal(out["out_ptr2"], mant)
    np.testing.assert_array_equal(out["out_ptr3"], expo)
    with np.errstate(over="ignore", invalid="ignore"):
        want = 2 * (np.exp(a.astype(np.float64) / 8) + np.exp(a.astype(np.float64) / 16))
        np.testing.assert_allclose(out["out_ptr4"], want.astype(np.float32), rtol=2e-6)
        np.testing.assert_array_equal(out["out_ptr5"], np.maximum(a, f8) - np.minimum(a, f8))
    np.testing.assert_array_equal(out["out_ptr6"], (b // 3) * 10 + b % 3)


@pytest.mark.parametrize("xnumel, r0_numel", [(6, 13), (3, 16)])
def test_reduction_helpers(tmp_path, xnumel, r0_numel):
    rng = np.random.default_rng(xnumel)
    x = (rng.integers(-8, 9, (xnumel, r0_numel)) * 0.25).astype(np.float32)   # ties for the arg-reductions
    x[1] = -np.inf
    k = rng.integers(-3, 4, (xnumel, r0_numel)).astype(np.int32)
    sig = "*fp32,*i32,*fp32,*fp32,*fp32,*i32,*fp32,*fp32,*i32,i32,i32"
    outs = {f"out_ptr{i}": np.zeros(xnumel, t) for i, t in enumerate(
        [np.float32, np.float32, np.float32, np.int32, np.float32, np.float32, np.int32])}
    out = launch(tmp_path, build("per_reductions", sig, path=K, XBLOCK=4),
                 {"in_ptr0": x.ravel(), "in_ptr1": k.ravel(), **outs, "xnumel": np.array(xnumel, np.int32),
                  "r0_numel": np.array(r0_numel, np.int32)}, (-(-xnumel // 4),))
    with np.errstate(invalid="ignore"):
        m = x.max(1, keepdims=True)
        denom = np.exp(np.where(np.isinf(m), 0.0, x.astype(np.float64) - m)).sum(1)
        spread, var = x.max(1) - x.min(1), x.astype(np.float64).var(1)
    finite = np.arange(xnumel) != 1
    np.testing.assert_allclose(out["out_ptr0"], denom, rtol=1e-6)
    np.testing.assert_allclose(out["out_ptr1"][finite], denom[finite], rtol=1e-6)
    np.testing.assert_allclose(out["out_ptr2"][finite], 2 * denom[finite], rtol=1e-6)
    np.testing.assert_array_equal(out["out_ptr3"], k.prod(1) * 2 + (k > 2).any(1))
    np.testing.assert_array_equal(out["out_ptr4"], spread)
    np.testing.assert_allclose(out["out_ptr5"][finite], var[finite], rtol=1e-6)
    if r0_numel == 16:    # no padding lanes: welford_combine takes equal infinite means to differ by 0
        assert out["out_ptr5"][1] == 0.0
    np.testing.assert_array_equal(out["out_ptr6"], x.argmax(1) * 10000 + x.argmin(1) * 101)
