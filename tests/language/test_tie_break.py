"""``tl.argmax``/``tl.argmin(..., tie_break_left=False)`` and ``tl.max``/``tl.min(..., return_indices=True,
return_indices_tie_break_left=False)`` against numpy, on data full of ties.

Triton leaves the index of a tie unspecified with ``tie_break_left=False`` (its interpreter returns the first
one, ``np.nanargmax``); its combine function keeps the right operand of a tie, so a left-to-right fold gives
the LAST index of the extreme value, which is what mtiacc returns.  NaN elements are ignored as with
``tie_break_left=True`` (Triton: "for values that aren't NaN"); a row of only NaN gives its last index
(0 with ``tie_break_left=True``).  ``-0.0`` and ``0.0`` are equal, hence a tie.

Both code paths are covered: the last axis (two-pass vector reduction of each row, rows longer than one
vector chunk) and another axis (column-wise accumulation), plus 1-D blocks (scalar results) and
``axis=None``.
"""
from __future__ import annotations

import numpy as np
import pytest

from tests.language.dtypes import DTYPES, bf16_to_f32, f32_to_bf16
from tests.language.harness import launch

TYPES = ["float32", "float16", "bfloat16", "int8", "int32", "uint32", "int64", "uint64"]
M, N = 8, 16

KERNEL_2D = """
@triton.jit
def k(X, A0, A1, B0, B1, V0, I0, V1, I1, M: tl.constexpr, N: tl.constexpr, TB: tl.constexpr):
    rows = tl.arange(0, M)
    cols = tl.arange(0, N)
    x = tl.load(X + rows[:, None] * N + cols[None, :])
    tl.store(A0 + cols, tl.argmax(x, 0, tie_break_left=TB))
    tl.store(A1 + rows, tl.argmax(x, axis=1, tie_break_left=TB))
    tl.store(B0 + cols, x.argmin(0, tie_break_left=TB))
    tl.store(B1 + rows[:, None], tl.argmin(x, 1, tie_break_left=TB, keep_dims=True))
    v, i = tl.max(x, 0, return_indices=True, return_indices_tie_break_left=TB)
    tl.store(V0 + cols, v)
    tl.store(I0 + cols, i)
    w, j = x.min(1, return_indices=True, return_indices_tie_break_left=TB)
    tl.store(V1 + rows, w)
    tl.store(I1 + rows, j)
"""

KERNEL_1D = """
@triton.jit
def k(X, O, V, L: tl.constexpr, TB: tl.constexpr):
    x = tl.load(X + tl.arange(0, L))
    tl.store(O, tl.argmax(x, 0, tie_break_left=TB))
    tl.store(O + 1, tl.argmin(x, 0, tie_break_left=TB))
    v, i = tl.max(x, None, return_indices=True, return_indices_tie_break_left=TB)
    tl.store(O + 2, i)
    tl.store(V, v)
    w, j = tl.min(x, 0, return_indices=True, return_indices_tie_break_left=TB, keep_dims=True)
    tl.store(O + 3 + tl.arange(0, 1), j)
    tl.store(V + 1 + tl.arange(0, 1), w)
"""


def ref_arg(x: np.ndarray, axis: int, which: str, left: bool) -> np.ndarray:
    """The first (``left``) or last index of the extreme non-NaN value along ``axis``; a slice of only NaN
    gives 0 (last index)."""
    x = np.moveaxis(np.asarray(x), axis, -1)   # integers stay exact (no float64: 2**63 - 1 would round)
    R = x.shape[-1]
    nan = np.isnan(x) if x.dtype.kind == "f" else np.zeros(x.shape, bool)
    filled = np.where(nan, -np.inf if which == "max" else np.inf, x) if nan.any() else x
    ext = filled.max(-1, keepdims=True) if which == "max" else filled.min(-1, keepdims=True)
    hit = (filled == ext) & ~nan
    idx = np.arange(R)
    first = np.where(hit, idx, R).min(-1)
    last = np.where(hit, idx, -1).max(-1)
    all_nan = nan.all(-1)
    return np.where(all_nan, 0 if left else R - 1, first if left else last).astype(np.int32)


def tie_data(t: str, n: int, seed: int) -> np.ndarray:
    """Values from a small set (many ties), with NaN, whole NaN rows, -0.0 and +0.0 for floats."""
    rng = np.random.default_rng(seed)
    st = DTYPES[t][1]
    if t.startswith(("float", "bfloat")):
        x = rng.integers(-2, 3, n).astype(np.float64)
        x = np.where(x == 0, np.where(rng.random(n) < 0.5, -0.0, 0.0), x)
        x = np.where(rng.random(n) < 0.15, np.nan, x)
        x[:N] = np.nan                        # row 0 only NaN (a NaN column in every column too, then)
        x[N:2 * N] = np.where(np.arange(N) % 2, -0.0, 0.0)   # row 1: signed zeros only
        if t == "bfloat16":
            return f32_to_bf16(x.astype(np.float32))
        return x.astype(st)
    info = np.iinfo(st)
    pool = np.array([info.min, info.max, 0, 1, info.max - 1], dtype=object)
    x = np.array([pool[i] for i in rng.integers(0, len(pool), n)], dtype=object).astype(st)
    return x


def real(a: np.ndarray, t: str) -> np.ndarray:
    """Float elements as float64 (bf16 decoded); integers unchanged."""
    if t == "bfloat16":
        return bf16_to_f32(a).astype(np.float64)
    return a.astype(np.float64) if t.startswith("float") else a


@pytest.mark.parametrize("left", [False, True])
@pytest.mark.parametrize("t", TYPES)
def test_tie_break_2d(t, left):
    x = tie_data(t, M * N, seed=TYPES.index(t))
    if t.startswith(("float", "bfloat")):   # a column of only NaN too
        x.reshape(M, N)[:, 3] = f32_to_bf16(np.float32(np.nan)) if t == "bfloat16" else np.nan
    sig = f"*{DTYPES[t][0]}," + ",".join(["*i32"] * 4 + [f"*{DTYPES[t][0]}", "*i32"] * 2)
    st = DTYPES[t][1]
    args = {"X": x, "A0": np.zeros(N, np.int32), "A1": np.zeros(M, np.int32), "B0": np.zeros(N, np.int32),
            "B1": np.zeros(M, np.int32), "V0": np.zeros(N, st), "I0": np.zeros(N, np.int32),
            "V1": np.zeros(M, st), "I1": np.zeros(M, np.int32)}
    out = launch(KERNEL_2D, sig, args, defines=(("M", str(M)), ("N", str(N)), ("TB", str(left)))).outputs
    xr = real(x, t).reshape(M, N)
    want = {"A0": ref_arg(xr, 0, "max", left), "A1": ref_arg(xr, 1, "max", left),
            "B0": ref_arg(xr, 0, "min", left), "B1": ref_arg(xr, 1, "min", left),
            "I0": ref_arg(xr, 0, "max", left), "I1": ref_arg(xr, 1, "min", left)}
    for name, w in want.items():
        np.testing.assert_array_equal(out[name], w, err_msg=f"{name} ({t}, tie_break_left={left})")
    for axis in (0, 1):   # the data has ties, so the two tie breaks differ
        assert (ref_arg(xr, axis, "max", True) != ref_arg(xr, axis, "max", False)).any()
    # The values: the element at the returned index (NaN for a slice of only NaN; -0.0 == 0.0).
    v0 = np.take_along_axis(xr, want["I0"][None, :].astype(np.int64), 0)[0]
    v1 = np.take_along_axis(xr, want["I1"][:, None].astype(np.int64), 1)[:, 0]
    np.testing.assert_array_equal(real(out["V0"], t), v0)
    np.testing.assert_array_equal(real(out["V1"], t), v1)


@pytest.mark.parametrize("left", [False, True])
@pytest.mark.parametrize("t", ["float32", "int32", "uint64", "float16"])
def test_tie_break_1d_long(t, left):
    """Rows longer than one vector chunk (VLMAX = 128 f32), the extremes repeated across chunks."""
    L = 512
    x = tie_data(t, L, seed=7 + TYPES.index(t))
    if t.startswith("float"):
        x[:N] = 1                           # no NaN row here: a NaN prefix only
        x[:5] = np.nan
        x[L - 3:] = np.nan                  # ... and suffix
    sig = f"*{DTYPES[t][0]},*i32,*{DTYPES[t][0]}"
    args = {"X": x, "O": np.zeros(4, np.int32), "V": np.zeros(2, DTYPES[t][1])}
    out = launch(KERNEL_1D, sig, args, defines=(("L", str(L)), ("TB", str(left)))).outputs
    xr = real(x, t)
    want = [ref_arg(xr, 0, "max", left), ref_arg(xr, 0, "min", left), ref_arg(xr, 0, "max", left),
            ref_arg(xr, 0, "min", left)]
    np.testing.assert_array_equal(out["O"], np.array(want, np.int32))
    np.testing.assert_array_equal(real(out["V"], t), xr[[int(want[2]), int(want[3])]])
    # The data must have ties at both extremes, or first == last and the test proves nothing.
    assert ref_arg(xr, 0, "max", True) != ref_arg(xr, 0, "max", False)
    assert ref_arg(xr, 0, "min", True) != ref_arg(xr, 0, "min", False)


def test_all_nan_row_1d():
    """A 1-D block of only NaN: index 0 (tie_break_left) or the last index."""
    x = np.full(64, np.nan, np.float32)
    for left, want in ((True, 0), (False, 63)):
        out = launch(KERNEL_1D, "*fp32,*i32,*fp32", {"X": x, "O": np.zeros(4, np.int32), "V": np.zeros(2, np.float32)},
                     defines=(("L", "64"), ("TB", str(left)))).outputs
        np.testing.assert_array_equal(out["O"], [want] * 4)
        assert np.isnan(out["V"]).all()
