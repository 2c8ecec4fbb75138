"""A kernel run on the host (mtiacc/triton_backend/fallback.py) that calls triton.language's own @triton.jit
functions, as Inductor's GEMM templates do (``tl.zeros`` for the accumulator): ``tl.zeros`` calls
``core.full`` through ``triton.language.core``, which the interpreter patches only when a function that names
that module runs; the fallback let only the kernel's own patching happen, so the helper reached the unpatched
``core.full`` ("Did you forget to add @triton.jit ?").  Differential against numpy, with seeded inputs; and
triton.language is left as it was."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
triton = pytest.importorskip("triton")
import triton.language as tl  # noqa: E402

from torch._inductor.runtime import triton_helpers  # noqa: E402

from mtiacc.triton_backend import fallback  # noqa: E402


@triton.jit
def _blocked_matmul(A, B, C, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(A + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(B + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    acc = tl.maximum(acc, tl.full((BM, BN), 0.0, tl.float32))     # a helper of tl named as tl, too
    tl.store(C + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@triton.jit
def _dot_bf16x6(A, B, C, N: tl.constexpr):
    r = tl.arange(0, N)
    a = tl.load(A + r[:, None] * N + r[None, :])
    b = tl.load(B + r[:, None] * N + r[None, :])
    tl.store(C + r[:, None] * N + r[None, :], tl.dot(a, b, input_precision="bf16x6"))


@triton.jit
def _clamp_with_inductors_helpers(X, Out, n, lo, hi, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + offs, mask=offs < n, other=0)
    y = triton_helpers.maximum(tl.full([1], lo, tl.int64), triton_helpers.minimum(tl.full([1], hi, tl.int64), x))
    tl.store(Out + offs, y, mask=offs < n)


@triton.jit
def _row_sums(X, Out, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(X + tl.program_id(0) * n + offs, mask=offs < n, other=0.0)
    tl.store(Out + tl.program_id(0), tl.sum(x, 0) + tl.max(tl.zeros((BLOCK,), tl.float32), 0))


def test_helpers_of_triton_language_run_on_the_host():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((20, 24)).astype(np.float32)
    b = rng.standard_normal((24, 12)).astype(np.float32)
    c = torch.full((20, 12), np.nan)
    fallback.run_on_host(_blocked_matmul.fn, (2, 1, 1),
                         [torch.from_numpy(a), torch.from_numpy(b), c, 20, 12, 24, 16, 16, 16])
    np.testing.assert_allclose(c.numpy(), np.maximum(a @ b, 0), rtol=1e-5, atol=1e-5)

    # again, after the first run (triton.language restored in between), and another kernel
    x = rng.standard_normal((3, 10)).astype(np.float32)
    out = torch.full((3,), np.nan)
    fallback.run_on_host(_row_sums.fn, (3, 1, 1), [torch.from_numpy(x), out, 10, 16])
    np.testing.assert_allclose(out.numpy(), x.sum(1), rtol=1e-5)


def test_dot_of_mtiaccs_split_precision_runs_on_the_host():
    # backend="mtia" names input_precision="bf16x6" for fp32 GEMMs (torch.set_float32_matmul_precision's
    # "highest"); the interpreter accepted only tf32, tf32x3 and ieee
    from triton.runtime import interpreter
    rng = np.random.default_rng(1)
    a, b = (rng.standard_normal((16, 16)).astype(np.float32) for _ in range(2))
    c = torch.full((16, 16), np.nan)
    fallback.run_on_host(_dot_bf16x6.fn, (1, 1, 1), [torch.from_numpy(a), torch.from_numpy(b), c, 16])
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-5, atol=1e-5)
    assert "bf16x6" not in interpreter.interpreter_builder.options.allowed_dot_input_precisions


def test_inductors_triton_helpers_run_on_the_host():
    # Inductor's kernels call triton_helpers.minimum/maximum (torch._inductor.runtime.triton_helpers, @triton.jit
    # functions): the fallback left torch's modules out of those it binds to the interpreter, so they failed
    # with "Cannot call @triton.jit'd outside of the scope of a kernel" (an embedding's backward in DistilBERT)
    from triton.runtime.jit import JITFunction
    x = np.random.default_rng(2).integers(-100, 100, 20)
    out = torch.zeros(20, dtype=torch.int64)
    fallback.run_on_host(_clamp_with_inductors_helpers.fn, (1, 1, 1), [torch.from_numpy(x), out, 20, -64, 63, 32])
    np.testing.assert_array_equal(out.numpy(), np.clip(x, -64, 63))
    assert isinstance(triton_helpers.minimum, JITFunction)        # bound back after the run


def test_triton_language_is_left_unpatched():
    before = {m: dict(vars(m)) for m in (tl, tl.core, tl.math, tl.standard)}
    before_tensor = dict(vars(tl.tensor))
    x = torch.ones(2, 10)
    out = torch.zeros(2)
    fallback.run_on_host(_row_sums.fn, (2, 1, 1), [x, out, 10, 16])
    assert out.tolist() == [10.0, 10.0]
    for m, names in before.items():
        assert {k: v for k, v in vars(m).items() if k in names} == names and set(vars(m)) == set(names), m
    assert dict(vars(tl.tensor)) == before_tensor
