"""desc.atomic_add / min / max / and / or / xor on device-side tensor descriptors against numpy: several
programs hitting overlapping blocks with ragged edges (elements outside the tensor never touched), a 2-D
histogram, several seeds (program interleavings)."""
import numpy as np
import pytest

from tests.language.atomics.common import run
from tests.language.harness import assert_error_at_call


# program (i, j) applies a BM x BN block of V (its own slice) at a start that overlaps its neighbours'
# (stride SM, SN smaller than the block) and is shifted by (om, on): blocks run off every edge
OVERLAP = """
@triton.jit
def k(Z, V, M, N, om, on, BM: tl.constexpr, BN: tl.constexpr, SM: tl.constexpr, SN: tl.constexpr):
    z = tl.make_tensor_descriptor(Z, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    i = tl.program_id(0)
    j = tl.program_id(1)
    p = i * tl.num_programs(1) + j
    v = tl.load(V + p * BM * BN + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :])
    r = z.OP([i * SM + om, j * SN + on], v)
    tl.static_assert(r is None)
"""

BM, BN, SM, SN, GM, GN = 8, 8, 5, 6, 4, 3


def _reference(z, v, om, on, ufunc):
    """numpy: apply every program's block, clipped to the tensor."""
    M, N = z.shape
    want = z.copy()
    for i in range(GM):
        for j in range(GN):
            blk = v[i * GN + j]
            r0, c0 = i * SM + om, j * SN + on
            rows, cols = np.arange(r0, r0 + BM), np.arange(c0, c0 + BN)
            keep_r, keep_c = (rows >= 0) & (rows < M), (cols >= 0) & (cols < N)
            rr, cc = np.meshgrid(rows[keep_r], cols[keep_c], indexing="ij")
            ufunc.at(want, (rr, cc), blk[np.ix_(keep_r, keep_c)])
    return want


CASES = [  # op, signature type, numpy dtype, ufunc
    ("atomic_add", "fp32", np.float32, np.add),
    ("atomic_add", "i32", np.int32, np.add),
    ("atomic_add", "u64", np.uint64, np.add),
    ("atomic_max", "i32", np.int32, np.maximum),
    ("atomic_max", "fp32", np.float32, np.maximum),
    ("atomic_min", "u32", np.uint32, np.minimum),
    ("atomic_min", "fp64", np.float64, np.minimum),
    ("atomic_and", "i64", np.int64, np.bitwise_and),
    ("atomic_or", "u32", np.uint32, np.bitwise_or),
    ("atomic_xor", "i32", np.int32, np.bitwise_xor),
]


@pytest.mark.parametrize("op,ty,dtype,ufunc", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
@pytest.mark.parametrize("om,on,seed", [(-3, -2, 0), (2, 1, 1)])
def test_overlapping_blocks_ragged_edges(op, ty, dtype, ufunc, om, on, seed):
    rng = np.random.default_rng(seed)
    M, N = 19, 17        # smaller than the grid's reach: the last blocks run off the bottom and the right
    if np.issubdtype(dtype, np.floating):
        # small integers (and some negatives and -0.0): every order of the float adds is exact
        z = rng.integers(-8, 9, (M, N)).astype(dtype)
        v = rng.integers(-8, 9, (GM * GN, BM, BN)).astype(dtype)
        v[0, 0, :3] = -0.0
    elif op in ("atomic_and", "atomic_or", "atomic_xor"):
        info = np.iinfo(dtype)
        z = rng.integers(info.min, info.max, (M, N), dtype=dtype, endpoint=True)
        v = rng.integers(info.min, info.max, (GM * GN, BM, BN), dtype=dtype, endpoint=True)
        if op == "atomic_and":   # mostly ones, so that several programs' ands leave bits to see
            v |= rng.integers(info.min, info.max, v.shape, dtype=dtype, endpoint=True)
    else:
        lo = 0 if dtype in (np.uint32, np.uint64) else -1000
        z = rng.integers(lo, 1000, (M, N)).astype(dtype)
        v = rng.integers(lo, 1000, (GM * GN, BM, BN)).astype(dtype)
    out = run(OVERLAP.replace("OP", op), f"*{ty},*{ty},i32,i32,i32,i32",
              {"Z": z.copy(), "V": v, "M": np.int32(M), "N": np.int32(N), "om": np.int32(om), "on": np.int32(on)},
              grid=(GM, GN), defines=(("BM", str(BM)), ("BN", str(BN)), ("SM", str(SM)), ("SN", str(SN))),
              seed=seed)
    want = _reference(z, v, om, on, ufunc)
    got = out["Z"].reshape(M, N)
    np.testing.assert_array_equal(got, want)
    if np.issubdtype(dtype, np.floating):   # -0.0 against +0.0 as IEEE orders them
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


# a 2-D histogram: each program counts its points into a (BINS_X, BINS_Y) tile of ones at the point's
# bin; the histogram is smaller than the tile on one axis (the out-of-range part never written)
HIST2D = """
@triton.jit
def hist(X, Y, H, NX, NY, P: tl.constexpr, B: tl.constexpr):
    h = tl.make_tensor_descriptor(H, shape=[NX, NY], strides=[NY, 1], block_shape=[B, B])
    pid = tl.program_id(0)
    for k in range(P):
        x = tl.load(X + pid * P + k)
        y = tl.load(Y + pid * P + k)
        ones = tl.full([B, B], 1, tl.int32)
        # the tile of B x B bins whose corner is (x, y): the point counts once into each
        h.atomic_add([x, y], ones)
"""


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_histogram_2d(seed):
    rng = np.random.default_rng(seed)
    NX, NY, P, B, G = 13, 9, 6, 4, 8
    x = rng.integers(-2, NX, G * P).astype(np.int32)
    y = rng.integers(-3, NY, G * P).astype(np.int32)
    out = run(HIST2D, "*i32,*i32,*i32,i32,i32", {"X": x, "Y": y, "H": np.zeros((NX, NY), np.int32),
              "NX": np.int32(NX), "NY": np.int32(NY)}, grid=(G,), defines=(("P", str(P)), ("B", str(B))),
              seed=seed)
    want = np.zeros((NX + 2 * B, NY + 2 * B), np.int64)
    for a, b in zip(x, y):
        want[B + a:B + a + B, B + b:B + b + B] += 1
    np.testing.assert_array_equal(out["H"].reshape(NX, NY), want[B:B + NX, B:B + NY])


# rank 3, an f32 scatter-add of blocks with a strided (non-contiguous) middle axis
SCATTER3D = """
@triton.jit
def k(Z, V, D0, D1, D2, S0, S1, B2: tl.constexpr):
    z = tl.make_tensor_descriptor(Z, shape=[D0, D1, D2], strides=[S0, S1, 1], block_shape=[2, 4, B2])
    p = tl.program_id(0)
    v = tl.load(V + tl.arange(0, 2)[:, None, None] * 4 * B2 + tl.arange(0, 4)[None, :, None] * B2
                + tl.arange(0, B2)[None, None, :])
    tl.atomic_add(Z, 0.0)  # a pointer atomic on the same memory: both kinds mix
    z.atomic_add([p - 1, p, 3 - p], v * (p + 1))
"""


def test_rank_3_strided_scatter_add():
    rng = np.random.default_rng(5)
    D0, D1, D2, B2, G = 3, 5, 6, 8, 4
    full = rng.integers(-5, 6, (D0, 2 * D1, D2)).astype(np.float32)   # the descriptor sees every other row
    v = rng.integers(-5, 6, (2, 4, B2)).astype(np.float32)
    out = run(SCATTER3D, "*fp32,*fp32,i32,i32,i32,i32,i32",
              {"Z": full.copy(), "V": v, "D0": np.int32(D0), "D1": np.int32(D1), "D2": np.int32(D2),
               "S0": np.int32(2 * D1 * D2), "S1": np.int32(2 * D2)}, grid=(G,), defines=(("B2", str(B2)),))
    want = full.astype(np.float64)
    view = want[:, ::2, :]
    for p in range(G):
        for a in range(2):
            for b in range(4):
                for c in range(B2):
                    i, j, k = p - 1 + a, p + b, 3 - p + c
                    if 0 <= i < D0 and 0 <= j < D1 and 0 <= k < D2:
                        view[i, j, k] += v[a, b, c] * (p + 1)
    np.testing.assert_array_equal(out["Z"].reshape(full.shape), want.astype(np.float32))


@pytest.mark.parametrize("stmt,message", [
    ("tl.make_tensor_descriptor(X, [4, 8], [8, 1], [4, 8]).atomic_add([0], x)",
     "desc.atomic_add: the descriptor has 2 dimensions but 1 offsets were given"),
    ("tl.make_tensor_descriptor(X, [4, 8], [8, 1], [2, 8]).atomic_max([0, 0], x)",
     "desc.atomic_max: the value has shape [4, 8] but the block is [2, 8]"),
    ("tl.make_tensor_descriptor(X, [4, 8], [8, 1], [4, 8]).atomic_or([0, 0], x)",
     "atomic_or does not support fp32: it applies to integers"),
    ("tl.make_tensor_descriptor(X, [4, 8], [8, 1], [4, 8]).atomic_min([0, 0], 1.0)",
     "desc.atomic_min needs a block of shape [4, 8], got the constant 1.0"),
])
def test_errors(tmp_path, stmt, message):
    assert_error_at_call(tmp_path, stmt, message, stmt)
