"""tl.sort, tl.topk, tl.gather, tl.histogram: compiled, run on the simulator, compared with numpy.

Sort and top-k are Triton's bitonic network; with NaN in a row its result is not a permutation of
the row, so NaN cases compare with ``network`` below, a numpy model of the network, itself pinned
to outputs of Triton 3.9's interpreter (``test_the_model_is_tritons``).
"""
import numpy as np
import pytest

from mtiacc.driver import Options, compile_kernel
from tests.language.harness import HEADER, assert_error_at_call, launch

DTYPES = {"fp32": (np.float32, "fp32"), "fp16": (np.float16, "fp16"), "int8": (np.int8, "i8"),
          "int32": (np.int32, "i32"), "uint32": (np.uint32, "u32"), "int64": (np.int64, "i64")}


def values(dtype, shape, seed, dups=False):
    rng = np.random.default_rng(seed)
    t = DTYPES[dtype][0]
    if dups:  # few distinct values: many ties
        return rng.integers(-3 if t != np.uint32 else 0, 4, shape).astype(t)
    if np.issubdtype(t, np.floating):
        return (rng.standard_normal(shape) * 100).astype(t)
    info = np.iinfo(t)
    return rng.integers(info.min, info.max, shape, dtype=np.int64 if t != np.uint32 else np.uint64,
                        endpoint=True).astype(t)


def network(x, k=None, descending=False):
    """Triton's bitonic sort / top-k along the last axis of ``x``, as numpy."""
    n = x.shape[-1]
    k = n if k is None else k
    log_n, log_k = n.bit_length() - 1, k.bit_length() - 1
    a = x.reshape(-1).copy()

    def merge(a, stage, alternating):
        p = np.arange(a.size)
        direction = (p >> stage) & 1 if alternating else np.full(a.size, int(descending))
        for j in reversed(range(stage)):
            y = a[p ^ (1 << j)]
            with np.errstate(invalid="ignore"):
                a = np.where((a > y) != (direction ^ ((p >> j) & 1)).astype(bool), y, a)
        return a

    for s in range(1, log_k + 1):
        a = merge(a, s, s < log_n)
    for i in range(log_k + 1, log_n + 1):
        h = a.reshape(-1, 2, k)
        a = (np.fmax if descending else np.fmin)(h[:, 0], h[:, 1]).reshape(-1)
        a = merge(a, log_k, i < log_n)
    return a.reshape(x.shape[:-1] + (k,))


def test_the_model_is_tritons():
    nan = np.nan
    x = np.array([3, nan, 1, 2, -0.0, 0, 5, nan], np.float32)
    np.testing.assert_array_equal(network(x), [1, 2, 3, 3, 1, 2, 3, 3])          # interpreter output
    assert np.isnan(network(x, descending=True)).all()
    np.testing.assert_array_equal(network(x, k=4, descending=True), [3, 3, 2, 1])
    y = np.random.default_rng(1).standard_normal((4, 16)).astype(np.float32)
    np.testing.assert_array_equal(network(y), np.sort(y, -1))
    np.testing.assert_array_equal(network(y, 4, True), -np.sort(-y, -1)[:, :4])


SORT = """
@triton.jit
def k(X, Y, R: tl.constexpr, N: tl.constexpr, DESC: tl.constexpr):
    offs = tl.arange(0, R)[:, None] * N + tl.arange(0, N)[None, :]
    tl.store(Y + offs, tl.sort(tl.load(X + offs), descending=DESC))
"""

SORT_CASES = [  # (R, N, dtype, descending, duplicates)
    (1, 8, "fp32", False, False), (4, 16, "fp32", True, False), (2, 64, "fp32", False, True),
    (1, 256, "fp32", True, False), (8, 2, "fp32", False, False), (2, 1, "fp32", False, False),
    (1, 32, "fp16", False, False), (2, 16, "fp16", True, True), (4, 8, "int8", False, True),
    (1, 128, "int8", True, False), (2, 32, "int32", False, False), (1, 64, "int32", True, True),
    (2, 32, "uint32", False, False), (1, 16, "uint32", True, False), (2, 16, "int64", False, False),
    (1, 32, "int64", True, True),
]


def run_sort(x, desc):
    r, n = x.shape
    t = {np.dtype(v[0]): v[1] for v in DTYPES.values()}[x.dtype]
    defines = (("R", str(r)), ("N", str(n)), ("DESC", str(int(desc))))
    out = launch(SORT, f"*{t},*{t}", {"X": x.reshape(-1), "Y": np.zeros(x.size, x.dtype)}, defines=defines)
    return out.outputs["Y"].reshape(r, n), out


@pytest.mark.parametrize("r,n,dtype,desc,dups", SORT_CASES)
def test_sort_matches_numpy(r, n, dtype, desc, dups):
    x = values(dtype, (r, n), seed=r * 1000 + n, dups=dups)
    y, _ = run_sort(x, desc)
    want = np.sort(x, axis=-1)
    np.testing.assert_array_equal(y, want[:, ::-1] if desc else want)


@pytest.mark.parametrize("desc", [False, True])
def test_sort_with_nan_and_signed_zeros_is_tritons_network(desc):
    x = values("fp32", (2, 32), seed=5)
    x[0, [3, 17]] = np.nan
    x[1, [0, 9]] = [-0.0, 0.0]
    x[1, 20] = np.nan
    y, _ = run_sort(x, desc)
    want = network(x, descending=desc)
    np.testing.assert_array_equal(y.view(np.uint32), want.view(np.uint32))


def test_sort_1024_cycles():
    x = values("fp32", (1, 1024), seed=9)
    y, out = run_sort(x, False)
    np.testing.assert_array_equal(y, np.sort(x, -1))
    assert out.stats.cycles < 120_000  # the vectorized network (a scalar one takes ~10x more)


MASKED = """
@triton.jit
def k(X, Y, n, N: tl.constexpr, DESC: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs, mask=offs < n, other=float("-inf") if DESC else float("inf"))
    tl.store(Y + offs, tl.sort(x, descending=DESC), mask=offs < n)
"""


@pytest.mark.parametrize("desc", [False, True])
def test_sort_of_a_masked_load_keeps_the_padding_at_the_end(desc):
    x = values("fp32", 64, seed=3)
    out = launch(MASKED, "*fp32,*fp32,i32", {"X": x, "Y": np.full(64, 7, np.float32), "n": np.array(45, np.int32)},
                 defines=(("N", "64"), ("DESC", str(int(desc)))))
    want = np.sort(x[:45])
    np.testing.assert_array_equal(out.outputs["Y"][:45], want[::-1] if desc else want)
    assert (out.outputs["Y"][45:] == 7).all()


TOPK = """
@triton.jit
def k(X, Y, R: tl.constexpr, N: tl.constexpr, K: tl.constexpr, DESC: tl.constexpr):
    rows = tl.arange(0, R)[:, None]
    x = tl.load(X + rows * N + tl.arange(0, N)[None, :])
    tl.store(Y + rows * K + tl.arange(0, K)[None, :], tl.topk(x, K, descending=DESC))
"""

TOPK_CASES = [(1, 16, 4, "fp32", True), (4, 32, 8, "fp32", False), (2, 8, 2, "int32", True),
              (1, 64, 1, "fp32", True), (2, 16, 1, "uint32", False), (1, 128, 16, "fp16", True),
              (2, 32, 4, "int8", False), (1, 16, 8, "int64", True), (4, 4, 4, "uint32", True)]


@pytest.mark.parametrize("r,n,k,dtype,desc", TOPK_CASES)
def test_topk_matches_numpy(r, n, k, dtype, desc):
    x = values(dtype, (r, n), seed=n + k, dups=dtype == "int32")
    t = DTYPES[dtype][1]
    out = launch(TOPK, f"*{t},*{t}", {"X": x.reshape(-1), "Y": np.zeros(r * k, x.dtype)},
                 defines=(("R", str(r)), ("N", str(n)), ("K", str(k)), ("DESC", str(int(desc)))))
    s = np.sort(x, axis=-1)
    want = s[:, ::-1][:, :k] if desc else s[:, :k]
    np.testing.assert_array_equal(out.outputs["Y"].reshape(r, k), want)


def test_topk_with_nan_is_tritons_network():
    x = values("fp32", (2, 32), seed=11)
    x[0, [1, 30]] = np.nan
    out = launch(TOPK, "*fp32,*fp32", {"X": x.reshape(-1), "Y": np.zeros(16, np.float32)},
                 defines=(("R", "2"), ("N", "32"), ("K", "8"), ("DESC", "1")))
    want = network(x, 8, True)
    np.testing.assert_array_equal(out.outputs["Y"].reshape(2, 8).view(np.uint32), want.view(np.uint32))


SPELLINGS = """
@triton.jit
def k(X, Y, Z):
    offs = tl.arange(0, 4)[:, None] * 16 + tl.arange(0, 16)[None, :]
    x = tl.load(X + offs)
    tl.store(Y + offs, x.sort(dim=-1, descending=True))
    tl.store(Z + tl.arange(0, 4)[:, None] * 2 + tl.arange(0, 2)[None, :], tl.topk(x, 2, dim=1, descending=False))
"""


def test_method_and_explicit_last_dim():
    x = values("int32", (4, 16), seed=17, dups=True)
    out = launch(SPELLINGS, "*i32,*i32,*i32", {"X": x.reshape(-1), "Y": np.zeros(64, np.int32), "Z": np.zeros(8, np.int32)})
    np.testing.assert_array_equal(out.outputs["Y"].reshape(4, 16), np.sort(x, -1)[:, ::-1])
    np.testing.assert_array_equal(out.outputs["Z"].reshape(4, 2), np.sort(x, -1)[:, :2])


GATHER = """
@triton.jit
def k(S, I, Y, R: tl.constexpr, C: tl.constexpr, RI: tl.constexpr, CI: tl.constexpr, AXIS: tl.constexpr):
    src = tl.load(S + tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :])
    io = tl.arange(0, RI)[:, None] * CI + tl.arange(0, CI)[None, :]
    tl.store(Y + io, tl.gather(src, tl.load(I + io), AXIS))
"""

GATHER_CASES = [  # (src shape, index shape, axis, dtype, index dtype)
    ((4, 8), (4, 8), 0, "fp32", "int32"), ((4, 8), (16, 8), 0, "fp32", "int32"),
    ((8, 4), (8, 2), 1, "fp16", "int32"), ((2, 16), (2, 16), 1, "int8", "int64"),
    ((1, 32), (1, 8), 1, "int64", "int32"), ((16, 1), (2, 1), 0, "uint32", "int64"),
    ((2, 256), (2, 256), 1, "int8", "int32"), ((8, 256), (4, 256), 0, "fp32", "int32"),  # 2 vector chunks
]


@pytest.mark.parametrize("sshape,ishape,axis,dtype,itype", GATHER_CASES)
def test_gather_along_an_axis(sshape, ishape, axis, dtype, itype):
    rng = np.random.default_rng(sum(sshape) + axis)
    src = values(dtype, sshape, seed=len(dtype))
    index = rng.integers(0, sshape[axis], ishape).astype(DTYPES[itype][0])
    t, it = DTYPES[dtype][1], DTYPES[itype][1]
    out = launch(GATHER, f"*{t},*{it},*{t}", {"S": src.reshape(-1), "I": index.reshape(-1),
                                              "Y": np.zeros(index.size, src.dtype)},
                 defines=(("R", str(sshape[0])), ("C", str(sshape[1])), ("RI", str(ishape[0])),
                          ("CI", str(ishape[1])), ("AXIS", str(axis))))
    np.testing.assert_array_equal(out.outputs["Y"].reshape(ishape), np.take_along_axis(src, index, axis))


GATHER_1D = """
@triton.jit
def k(S, I, Y, N: tl.constexpr):
    offs = tl.arange(0, N)
    src = tl.load(S + offs)
    tl.store(Y + offs, src.gather(tl.load(I + offs), 0))
"""


def test_gather_1d_method_reverses():
    src = np.arange(64, dtype=np.float32) * 1.5
    index = (63 - np.arange(64)).astype(np.int32)
    out = launch(GATHER_1D, "*fp32,*i32,*fp32", {"S": src, "I": index, "Y": np.zeros(64, np.float32)},
                 defines=(("N", "64"),))
    np.testing.assert_array_equal(out.outputs["Y"], src[::-1])


HIST = """
@triton.jit
def k(X, Y, n, N: tl.constexpr, B: tl.constexpr, MASKED: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(X + offs)
    if MASKED:
        h = tl.histogram(x, B, mask=offs < n)
    else:
        h = tl.histogram(x, B)
    tl.store(Y + tl.arange(0, B), h)
"""


@pytest.mark.parametrize("n,bins,masked,t", [(16, 8, True, "i32"), (256, 64, False, "i32"),
                                             (128, 16, True, "u32"), (8, 2, False, "i32")])
def test_histogram_counts_values_in_range(n, bins, masked, t):
    rng = np.random.default_rng(n + bins)
    x = rng.integers(-4, bins + 4, n).astype(np.int32)  # some values out of range, negative ones too
    if t == "u32":
        x = x.astype(np.uint32)
    valid = n - 5 if masked else n
    out = launch(HIST, f"*{t},*i32,i32", {"X": x, "Y": np.full(bins, 99, np.int32), "n": np.array(valid, np.int32)},
                 defines=(("N", str(n)), ("B", str(bins)), ("MASKED", str(int(masked)))))
    v = x[:valid].astype(np.int64)
    want = np.bincount(v[(v >= 0) & (v < bins)], minlength=bins)
    np.testing.assert_array_equal(out.outputs["Y"], want)


def test_sort_same_at_O0(tmp_path):
    x = values("int32", (2, 32), seed=21, dups=True)
    path = tmp_path / "k.py"
    path.write_text(HEADER + SORT)
    binary = compile_kernel(str(path), Options(signature="*i32,*i32", opt_level=0,
                                                defines={"R": "2", "N": "32", "DESC": "1"})).binary
    from mtiasim.runner import run
    (tmp_path / "k.bin").write_bytes(binary)
    out = run(str(tmp_path / "k.bin"), {"X": x.reshape(-1), "Y": np.zeros(64, np.int32)}, grid=(1,))
    np.testing.assert_array_equal(out.outputs["Y"].reshape(2, 32), np.sort(x, -1)[:, ::-1])


# --------------------------------------------------------------------------- errors

ERRORS = [
    ("a = tl.gather(x, tl.zeros((4, 4), tl.int32), 0)",
     "tl.gather: index dimension 1 is 4 but the source's is 8 (only the axis 0 may differ)",
     "tl.gather(x, tl.zeros((4, 4), tl.int32), 0)"),
    ("a = tl.gather(x, tl.zeros((8,), tl.int32), 0)",
     "tl.gather: the index (shape [8]) must have the source's rank (shape [4, 8])",
     "tl.gather(x, tl.zeros((8,), tl.int32), 0)"),
    ("a = tl.gather(x, x, 1)", "tl.gather's index must be a block of integers, got a value of type tensor<4x8xf32>",
     "tl.gather(x, x, 1)"),
    ("a = tl.sort(x, dim=0)", "tl.sort: only the last dimension (1) can be sorted, got dim=0", "tl.sort(x, dim=0)"),
    ("a = tl.topk(x, 3)", "tl.topk: k must be a power of two at most the dimension's size 8, got 3",
     "tl.topk(x, 3)"),
    ("a = tl.topk(x, 16)", "tl.topk: k must be a power of two at most the dimension's size 8, got 16",
     "tl.topk(x, 16)"),
    ("a = tl.histogram(x, 8)", "tl.histogram needs a 1-D block, got shape [4, 8]", "tl.histogram(x, 8)"),
    ("a = tl.histogram(tl.reshape(x, (32,)), 8)", "tl.histogram needs 32-bit integers, got f32",
     "tl.histogram(tl.reshape(x, (32,)), 8)"),
    ("a = tl.sort(x.to(tl.int1))", "tl.sort of i1 elements is not supported yet", "tl.sort(x.to(tl.int1))"),
]


@pytest.mark.parametrize("stmt,message,underlined", ERRORS)
def test_errors_point_at_the_call(tmp_path, stmt, message, underlined):
    assert_error_at_call(tmp_path, stmt, message, underlined)
