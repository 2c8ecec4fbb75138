"""Device-side tensor descriptors (tl.make_tensor_descriptor, desc.load / desc.store) against numpy."""
import numpy as np
import pytest

from tests.language.harness import assert_error_at_call, launch

COPY = """
@triton.jit
def copy(a_ptr, b_ptr, M, N, om, on, BM: tl.constexpr, BN: tl.constexpr):
    a = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[BM, BN])
    b = tl.make_tensor_descriptor(b_ptr, [M, N], [N, 1], [BM, BN])
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    x = a.load([pm * BM + om, pn * BN + on])
    b.store([pm * BM, pn * BN], x * 2.0)
"""


@pytest.mark.parametrize("om,on", [(0, 0), (-3, 5), (9, -12)])
def test_load_store_out_of_bounds(om, on):
    rng = np.random.default_rng(3)
    M, N, BM, BN = 19, 22, 8, 8
    a = rng.standard_normal((M, N)).astype(np.float32)
    b = np.full((M, N), 5.0, np.float32)
    r = launch(COPY, "*fp32, *fp32, i32, i32, i32, i32", {"a_ptr": a, "b_ptr": b, "M": np.int32(M),
               "N": np.int32(N), "om": np.int32(om), "on": np.int32(on)}, grid=(3, 3),
               defines=(("BM", str(BM)), ("BN", str(BN))))
    pad = np.zeros((M + 64, N + 64), np.float32)
    pad[32:32 + M, 32:32 + N] = a
    want = b.copy()
    for pm in range(3):
        for pn in range(3):
            blk = pad[32 + pm * BM + om:32 + pm * BM + om + BM, 32 + pn * BN + on:32 + pn * BN + on + BN] * 2
            r0, c0 = pm * BM, pn * BN
            h, w = min(BM, M - r0), min(BN, N - c0)
            want[r0:r0 + h, c0:c0 + w] = blk[:h, :w]
    np.testing.assert_array_equal(r.outputs["b_ptr"].reshape(M, N), want)


ATTRS = """
@triton.jit
def maybe(desc_or_ptr, shape, strides, block_shape):
    if isinstance(desc_or_ptr, tl.tensor_descriptor):
        return desc_or_ptr
    else:
        return tl.make_tensor_descriptor(desc_or_ptr, shape, strides, block_shape)

@triton.jit
def k(x_ptr, y_ptr, D0, D1, D2, B: tl.constexpr):
    x = maybe(x_ptr, [D0, D1, D2], [D1 * D2, D2, 1], [2, 4, B])
    y = maybe(maybe(y_ptr, [D0, D1, D2], [D1 * D2, D2, 1], [2, 4, B]), [0], [1], [B])
    tl.static_assert(x.block_shape == (2, 4, B))
    tl.static_assert(x.dtype == tl.float16)
    tl.static_assert(isinstance(x, tl.tensor_descriptor))
    tl.static_assert(not isinstance(x_ptr, tl.tensor_descriptor))
    v = tl.load_tensor_descriptor(x, [1, x.shape[1] - 4, 0])
    for i in range(2):
        y.store([i * 2, 0, 0], v + i)
"""


def test_rank_3_helpers_and_attributes():
    x = np.arange(4 * 6 * 8, dtype=np.float16).reshape(4, 6, 8)
    y = np.zeros_like(x)
    r = launch(ATTRS, "*fp16, *fp16, i32, i32, i32", {"x_ptr": x, "y_ptr": y, "D0": np.int32(4),
               "D1": np.int32(6), "D2": np.int32(8)}, defines=(("B", "8"),))
    v = x[1:3, 2:6, :]
    want = np.zeros_like(x)
    want[0:2, 0:4] = v
    want[2:4, 0:4] = v + 1
    np.testing.assert_array_equal(r.outputs["y_ptr"].reshape(x.shape), want)


@pytest.mark.parametrize("stmt,message", [
    ("tl.make_tensor_descriptor(X, [4, 8], [8, 2], [4, 8])",
     "tl.make_tensor_descriptor: the last stride must be the constexpr 1, got the constant 2"),
    ("tl.make_tensor_descriptor(X, [4, 8], [8, 1], [4, 2])",
     "tl.make_tensor_descriptor: the last block dimension must hold at least 16 bytes, got 2 x 4 = 8"),
    ("tl.make_tensor_descriptor(X, [1, 1, 1, 1, 1, 8], [1, 1, 1, 1, 8, 1], [1, 1, 1, 1, 1, 8])",
     "tl.make_tensor_descriptor: a descriptor has 1 to 5 dimensions, got 6"),
    ("tl.make_tensor_descriptor(X, [4, 8], [8, 1], [4, 12])",
     "tl.make_tensor_descriptor's block_shape must be powers of two, got 12"),
    ("tl.make_tensor_descriptor(X, [4, 8], [8, 1], [4, 8]).load([0])",
     "desc.load: the descriptor has 2 dimensions but 1 offsets were given"),
    ("tl.make_tensor_descriptor(X, [4, 8], [8, 1], [4, 8]).gather([0, 0], x)",
     "`desc.gather` is not supported yet"),
    ("tl.make_tensor_descriptor(X, [4, 8], [8, 1], [2, 8]).store([0, 0], x)",
     "the stored value has shape [4, 8] but the block is [2, 8]"),
])
def test_errors(tmp_path, stmt, message):
    # the call is underlined; an unsupported method, where it is named
    underlined = stmt[:stmt.index("(", stmt.index("gather"))] if "gather" in stmt else stmt
    assert_error_at_call(tmp_path, stmt, message, underlined)
