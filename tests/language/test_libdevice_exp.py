"""``libdevice.exp`` and ``libdevice.exp2`` at their stated accuracy (2 ULP of fp32, as CUDA states for ``expf``
and ``exp2f``; docs/language.md "Math"), now computed on the SIMD engine: against numpy's float64 over every binade
of fp32 (tiny and subnormal inputs, the subnormal results, the overflow threshold), and a softmax written with
``libdevice.exp`` as Triton users write it, against numpy."""
import numpy as np
import pytest

from tests.language.harness import launch, ulps

KERNEL = '''
@triton.jit
def k(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    tl.store(Y + offs, FN(tl.load(X + offs, mask=m)), mask=m)
'''
F32 = np.float32
# fn -> (numpy reference, the inputs' range (below it the result is 0, above it inf), where results turn subnormal)
FUNCS = {"libdevice.exp": (np.exp, (-104.0, 89.0), -87.34), "libdevice.exp2": (np.exp2, (-150.0, 128.5), -126.0)}


def _inputs(lo: float, hi: float, sub: float, seed: int) -> np.ndarray:
    """Uniform over the finite range, its subnormal-result end densely, random bit patterns of every binade
    (subnormal inputs included) within it, and the edges."""
    rng = np.random.default_rng(seed)
    bits = rng.integers(0, 0x7F800000, 40000, dtype=np.uint32) | (rng.integers(0, 2, 40000, dtype=np.uint32) << 31)
    pat = bits.view(F32)
    pat = pat[(pat >= lo) & (pat <= hi)][:3000]
    edges = [0.0, -0.0, 1e-45, -1e-45, 1e-40, -1e-38, 1.1754944e-38, lo, hi, -87.33, -87.34, 88.72, 88.73,
             -126.0, -149.0, -149.5, 127.99, 128.0, np.inf, -np.inf, np.nan]
    return np.concatenate([rng.uniform(lo, hi, 3000), rng.uniform(lo, sub, 2000), pat,
                           np.array(edges)]).astype(F32)


@pytest.mark.parametrize("fn", sorted(FUNCS))
def test_libdevice_exp_within_two_ulp_everywhere(fn):
    ref, (lo, hi), sub = FUNCS[fn]
    x = _inputs(lo, hi, sub, seed=len(fn))
    n = len(x)
    out = launch(KERNEL.replace("FN", fn), "*fp32,*fp32,i32", {"X": x, "Y": np.zeros(n, F32), "N": np.array(n, np.int32)},
                 grid=(-(-n // 512),), defines=(("BLOCK", "512"),))
    assert out.stats.se_elements >= n          # on the SIMD engine
    got = out.outputs["Y"]
    with np.errstate(all="ignore"):
        want = ref(x.astype(np.float64))
        want32 = want.astype(F32)
        u = ulps(got, want)
    worst = int(np.argmax(u))
    assert u.max() <= 2, f"{u.max()} ULP at x={x[worst]!r}: got {got[worst]!r}, want {want[worst]!r}"
    # the special values exactly: inf -> inf, -inf -> 0, NaN -> NaN, underflow to 0 and overflow to inf
    special = ~np.isfinite(want32) | (want32 == 0)
    np.testing.assert_array_equal(got[special], want32[special])
    assert (got[(want > 0) & (want < 2.0 ** -126)] > 0).any()     # subnormal results, not flushed


SOFTMAX = '''
@triton.jit
def softmax_kernel(output_ptr, input_ptr, input_row_stride, output_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row_idx = tl.program_id(0)
    col_offsets = tl.arange(0, BLOCK_SIZE)
    mask = col_offsets < n_cols
    row = tl.load(input_ptr + row_idx * input_row_stride + col_offsets, mask=mask, other=-float('inf'))
    row_minus_max = row - tl.max(row, axis=0)
    numerator = libdevice.exp(row_minus_max)
    denominator = tl.sum(numerator, axis=0)
    tl.store(output_ptr + row_idx * output_row_stride + col_offsets, numerator / denominator, mask=mask)
'''


@pytest.mark.parametrize("scale", [1.0, 40.0])
def test_softmax_with_libdevice_exp_against_numpy(scale):
    # tutorial 02's kernel with libdevice.exp; scale 40: most of a row's exps are subnormal or zero
    m, n = 6, 700
    x = (np.random.default_rng(7).standard_normal((m, n)) * scale).astype(F32)
    data = {"output_ptr": np.zeros(m * n, F32), "input_ptr": x.ravel(), "input_row_stride": np.array(n, np.int32),
            "output_row_stride": np.array(n, np.int32), "n_cols": np.array(n, np.int32)}
    out = launch(SOFTMAX, "*fp32,*fp32,i32,i32,i32", data, grid=(m,), defines=(("BLOCK_SIZE", "1024"),))
    z = np.exp((x - x.max(axis=1, keepdims=True)).astype(np.float64))     # the kernel's fp32 difference
    want = z / z.sum(axis=1, keepdims=True)
    got = out.outputs["output_ptr"].reshape(m, n)
    # each element: the exp's 2 ULP, the sum's rounding and the division's
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-44)
    assert out.stats.se_elements >= m * n
