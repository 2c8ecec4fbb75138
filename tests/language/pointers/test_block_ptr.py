"""Block pointers (tl.make_block_ptr, tl.advance, boundary_check, padding_option) against numpy."""
import numpy as np
import pytest

from tests.language.harness import assert_error_at_call, launch

COPY_2D = """
@triton.jit
def copy(a_ptr, b_ptr, M, N, stride_m, om, on, BM: tl.constexpr, BN: tl.constexpr, PAD: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a = tl.make_block_ptr(a_ptr, shape=(M, N), strides=(stride_m, 1), offsets=(pid_m * BM + om, pid_n * BN + on),
                          block_shape=(BM, BN), order=(1, 0))
    b = tl.make_block_ptr(b_ptr, shape=(M * 2, N * 2), strides=(stride_m * 2, 1), offsets=(pid_m * BM, pid_n * BN),
                          block_shape=(BM, BN), order=(1, 0))
    x = tl.load(a, boundary_check=(0, 1), padding_option=PAD)
    tl.store(b, x, boundary_check=(0, 1))
"""


@pytest.mark.parametrize("om,on,pad", [(0, 0, "zero"), (-5, 3, "zero"), (-3, -7, "nan"), (40, 0, "zero")])
def test_copy_2d_ragged(om, on, pad):
    rng = np.random.default_rng(1)
    M, N, BM, BN = 21, 19, 8, 8
    a = rng.standard_normal((M, N + 5)).astype(np.float32)       # stride N + 5
    b = np.full((2 * M, 2 * (N + 5)), 99.0, np.float32)
    gm, gn = 3, 3
    r = launch(COPY_2D, "*fp32, *fp32, i32, i32, i32, i32, i32", {
        "a_ptr": a, "b_ptr": b, "M": np.int32(M), "N": np.int32(N), "stride_m": np.int32(N + 5),
        "om": np.int32(om), "on": np.int32(on)}, grid=(gm, gn),
        defines=(("BM", str(BM)), ("BN", str(BN)), ("PAD", f'"{pad}"')))
    want = b.copy()
    fill = np.nan if pad == "nan" else 0.0
    for pm in range(gm):
        for pn in range(gn):
            for i in range(BM):
                for j in range(BN):
                    r_, c_ = pm * BM + om + i, pn * BN + on + j
                    v = a[r_, c_] if 0 <= r_ < M and 0 <= c_ < N else fill
                    want[pm * BM + i, pn * BN + j] = v
    got = r.outputs["b_ptr"].reshape(want.shape)
    np.testing.assert_array_equal(got, want)


COPY_1D = """
@triton.jit
def block_copy(a_ptr, b_ptr, N, off, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    a = tl.make_block_ptr(base=a_ptr, shape=(N // 2, ), strides=(1, ), offsets=(pid * BLOCK + off, ),
                          block_shape=(BLOCK, ), order=(0, ))
    b = tl.make_block_ptr(base=b_ptr, shape=(N, ), strides=(1, ), offsets=(pid * BLOCK + off, ),
                          block_shape=(BLOCK, ), order=(0, ))
    tl.store(b, tl.load(a, boundary_check=(0, ), padding_option="zero"), boundary_check=(0, ))
"""


@pytest.mark.parametrize("dtype,sig", [(np.float32, "fp32"), (np.int16, "i16"), (np.float16, "fp16")])
@pytest.mark.parametrize("off", [0, -64, 128, -9])
def test_copy_1d(dtype, sig, off):
    n = 128
    a = (np.arange(n) % 50 + 1).astype(dtype)
    b = np.zeros(n, dtype)
    r = launch(COPY_1D, f"*{sig}, *{sig}, i32, i32", {"a_ptr": a, "b_ptr": b, "N": np.int32(n),
                                                       "off": np.int32(off)},
               grid=(n // 32,), defines=(("BLOCK", "32"),))
    want = np.zeros(n, dtype)
    for pid in range(n // 32):
        for t in range(32):
            j = pid * 32 + off + t
            if 0 <= j < n:
                want[j] = a[j] if j < n // 2 else 0
    np.testing.assert_array_equal(r.outputs["b_ptr"], want)


MATMUL = """
@triton.jit
def step(acc, a_bp, b_bp, BK: tl.constexpr):
    a = tl.load(a_bp, boundary_check=(0, 1), padding_option="zero")
    b = tl.load(b_bp, boundary_check=(0, 1), padding_option="zero")
    return tl.dot(a, b, acc), tl.advance(a_bp, (0, BK)), tl.advance(b_bp, (BK, 0))

@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a_bp = tl.make_block_ptr(a_ptr, (M, K), (sam, sak), (pid_m * BM, 0), (BM, BK), (1, 0))
    b_bp = tl.make_block_ptr(b_ptr, (K, N), (sbk, sbn), (0, pid_n * BN), (BK, BN), (1, 0))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc, a_bp, b_bp = step(acc, a_bp, b_bp, BK)
    c_bp = tl.make_block_ptr(c_ptr, (M, N), (scm, scn), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    tl.store(c_bp, acc, boundary_check=(0, 1))
"""


def test_matmul_loop_carried_and_helper():
    rng = np.random.default_rng(2)
    M, N, K = 37, 29, 45
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    c = np.zeros((M, N), np.float32)
    r = launch(MATMUL, "*fp32, *fp32, *fp32" + ", i32" * 9, {
        "a_ptr": a, "b_ptr": b, "c_ptr": c, "M": np.int32(M), "N": np.int32(N), "K": np.int32(K),
        "sam": np.int32(K), "sak": np.int32(1), "sbk": np.int32(N), "sbn": np.int32(1),
        "scm": np.int32(N), "scn": np.int32(1)}, grid=(3, 2),
        defines=(("BM", "16"), ("BN", "16"), ("BK", "16")))
    np.testing.assert_allclose(r.outputs["c_ptr"].reshape(M, N), a @ b, rtol=1e-4, atol=1e-4)


COPY_3D = """
@triton.jit
def copy3(src, dst, d0, d1, d2, s0, s1, s2, B0: tl.constexpr, B1: tl.constexpr, B2: tl.constexpr):
    a = tl.make_block_ptr(src, (d0, d1, d2), (s0, s1, s2), (d0 - 1, 0, d2 - 2), (B0, B1, B2), (2, 1, 0))
    b = tl.make_block_ptr(dst, (d0, d1, d2), (s0, s1, s2), (d0 - 1, 0, d2 - 2), (B0, B1, B2), (2, 1, 0))
    tl.store(b, tl.load(a, boundary_check=(0, 2), padding_option="zero"), boundary_check=(0, 2))
"""


def test_rank_3():
    src = np.arange(3 * 4 * 5, dtype=np.float32).reshape(3, 4, 5)
    dst = np.zeros_like(src)
    r = launch(COPY_3D, "*fp32, *fp32" + ", i32" * 6, {
        "src": src, "dst": dst, "d0": np.int32(3), "d1": np.int32(4), "d2": np.int32(5),
        "s0": np.int32(20), "s1": np.int32(5), "s2": np.int32(1)},
        defines=(("B0", "2"), ("B1", "4"), ("B2", "4")))
    want = np.zeros_like(src)
    want[2:3, 0:4, 3:5] = src[2:3, 0:4, 3:5]
    np.testing.assert_array_equal(r.outputs["dst"].reshape(src.shape), want)


WHILE_IF = """
@triton.jit
def k(x_ptr, y_ptr, N, FLAG, BLOCK: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, (N,), (1,), (0,), (BLOCK,), (0,))
    q = tl.make_block_ptr(y_ptr, (N,), (1,), (0,), (BLOCK,), (0,))
    if FLAG > 0:
        p = tl.advance(p, (BLOCK,))
    i = 0
    while i < 2:
        tl.store(q, tl.load(p, boundary_check=(0,)) * 2.0, boundary_check=(0,))
        p = tl.advance(p, (BLOCK,))
        q = tl.advance(q, (BLOCK,))
        i += 1
"""


@pytest.mark.parametrize("flag", [0, 1])
def test_if_and_while_carry_offsets(flag):
    x = np.arange(40, dtype=np.float32)
    y = np.full(40, -1.0, np.float32)
    r = launch(WHILE_IF, "*fp32, *fp32, i32, i32", {"x_ptr": x, "y_ptr": y, "N": np.int32(40),
                                                     "FLAG": np.int32(flag)}, defines=(("BLOCK", "16"),))
    want = y.copy()
    for t in range(32):
        s = t + 16 * flag
        want[t] = (x[s] if s < 40 else 0.0) * 2.0
    np.testing.assert_array_equal(r.outputs["y_ptr"], want)


@pytest.mark.parametrize("stmt,message,underlined", [
    ("tl.load(tl.make_block_ptr(X, (4, 8), (8, 1), (0, 0), (4, 8), (1, 0)), mask=x > 0)",
     "`mask` and `other` cannot be given when loading through a block pointer; use boundary_check and "
     "padding_option", "tl.load("),
    ("tl.advance(tl.make_block_ptr(X, (4, 8), (8, 1), (0, 0), (4, 8), (1, 0)), (1,))",
     "tl.advance: the block pointer has 2 dimensions but 1 offsets were given", "tl.advance("),
    ("tl.make_block_ptr(X, (4, 8), (8, 1), (0, 0), (4, 6), (1, 0))",
     "tl.make_block_ptr's block_shape must be powers of two, got 6", "tl.make_block_ptr("),
    ("tl.make_block_ptr(X, (4, 8), (8, 1), (0, 0), (4, 8), (1, 1))",
     "tl.make_block_ptr's order must be a permutation of (0, ..., 1), got (1, 1)",
     "tl.make_block_ptr("),
    ("tl.load(X, boundary_check=(0,))",
     "boundary_check and padding_option need a block pointer (tl.make_block_ptr): the bounds of a block "
     "of pointers are not known", "tl.load("),
    ("tl.load(tl.make_block_ptr(X, (4, 8), (8, 1), (0, 0), (4, 8), (1, 0)), boundary_check=(2,))",
     "tl.load's boundary_check: each axis must be a constexpr in [0, 2), got the constant 2", "tl.load("),
])
def test_errors(tmp_path, stmt, message, underlined):
    assert_error_at_call(tmp_path, stmt, message, stmt)   # the whole call is underlined
