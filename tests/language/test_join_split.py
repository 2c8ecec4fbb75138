"""tl.join / split / interleave / cat / flip / swizzle2d / softmax, compiled and run on the simulator
against numpy (Triton 3.9's semantics), over shapes of rank 1..3 and several element types, with
masked loads and stores around them; and their errors, at the user's location."""
from __future__ import annotations

import numpy as np
import pytest

from tests.language.dtypes import DTYPES
from tests.language.harness import assert_error_at_call, launch

TYPES = ["float32", "float16", "int8", "int32", "int64"]


def offs(shape) -> str:
    """The row-major offsets of a block of ``shape`` as a Triton expression."""
    rank = len(shape)
    terms, stride = [], 1
    for k in reversed(range(rank)):
        idx = ["None"] * rank
        idx[k] = ":"
        ar = f"tl.arange(0, {shape[k]})" + (f"[{', '.join(idx)}]" if rank > 1 else "")
        terms.append(f"{ar} * {stride}" if stride != 1 else ar)
        stride *= shape[k]
    return " + ".join(reversed(terms))


def data(t: str, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    np_t = DTYPES[t][1]
    if t.startswith("float"):
        return rng.standard_normal(n).astype(np_t)
    info = np.iinfo(np_t)
    return rng.integers(max(info.min, -1 << 40), min(info.max, 1 << 40), n, dtype=np_t, endpoint=True)


def run_op(t: str, in_shapes, out_shape, expr: str, nvalid: int, nstore: int, seed=1):
    """Load each input (masked: only the first ``nvalid`` elements, others read as 0), compute
    ``expr`` over ``a``, ``b``, store the first ``nstore`` elements of the result; return the
    inputs as loaded and the output (elements not stored stay 99)."""
    names = "ab"[:len(in_shapes)]
    lines = [f"    {v} = tl.load({v.upper()} + ({offs(s)}), mask=({offs(s)}) < N, other=0)"
             for v, s in zip(names, in_shapes)]
    src = (f"@triton.jit\ndef k({', '.join(v.upper() for v in names)}, Y, N, M):\n" + "\n".join(lines)
           + f"\n    y = {expr}\n    o = {offs(out_shape)}\n    tl.store(Y + o, y, mask=o < M)\n")
    sig = ",".join([f"*{DTYPES[t][0]}"] * (len(names) + 1) + ["i32", "i32"])
    np_t = DTYPES[t][1]
    ins = {v.upper(): data(t, int(np.prod(s)), seed + i) for i, (v, s) in enumerate(zip(names, in_shapes))}
    nout = int(np.prod(out_shape))
    args = dict(ins, Y=np.full(nout, 99, np_t), N=np.array(nvalid, np.int32), M=np.array(nstore, np.int32))
    out = launch(src, sig, args).outputs["Y"]
    loaded = [np.where(np.arange(x.size) < nvalid, x, 0).astype(np_t).reshape(s)
              for x, s in zip(ins.values(), in_shapes)]
    return loaded, out


def check(out, want, nstore):
    want = want.reshape(-1)
    exp = np.concatenate([want[:nstore], np.full(want.size - nstore, 99, want.dtype)])
    np.testing.assert_array_equal(out, exp)


@pytest.mark.parametrize("t", TYPES)
@pytest.mark.parametrize("shape", [(8,), (4, 8)])
def test_join(t, shape):
    n = int(np.prod(shape))
    out_shape = shape + (2,)
    (a, b), out = run_op(t, [shape, shape], out_shape, "tl.join(a, b)", n - 3, 2 * n - 5)
    check(out, np.stack([a, b], -1), 2 * n - 5)


@pytest.mark.parametrize("t", ["float32", "int8", "int64"])
def test_join_broadcasts_and_splats(t):
    """(4, 1) with (1, 8) broadcast to (4, 8); a tl.full operand (no buffer of its own) works too."""
    (a, b), out = run_op(t, [(4, 1), (1, 8)], (4, 8, 2), "tl.join(a, b)", 3, 64)
    check(out, np.stack(np.broadcast_arrays(a, b), -1), 64)
    (a,), out = run_op(t, [(4, 8)], (4, 8, 2), f"tl.join(tl.full((4, 8), 5, tl.{t}), a)", 32, 64)
    check(out, np.stack([np.full_like(a, 5), a], -1), 64)


@pytest.mark.parametrize("t", TYPES)
@pytest.mark.parametrize("shape", [(8, 2), (2, 4, 2)])
def test_split(t, shape):
    n = int(np.prod(shape[:-1]))
    for half in (0, 1):
        (a,), out = run_op(t, [shape], shape[:-1], f"tl.split(a)[{half}]", 2 * n - 3, n - 1)
        check(out, a[..., half], n - 1)


@pytest.mark.parametrize("t", ["float32", "float16", "int8", "int64"])
def test_split_of_two_gives_scalars_and_join_of_scalars(t):
    """split of shape (2,) gives two scalars; join of two scalars gives shape (2,)."""
    (a,), out = run_op(t, [(2,)], (2,), "tl.join(tl.split(a)[1], tl.split(a)[0])", 2, 2)
    check(out, a[::-1], 2)
    (a,), out = run_op(t, [(4, 2)], (4, 2), "tl.join(a.split()[0], a.split()[1])", 8, 8)  # the method form
    check(out, a, 8)


@pytest.mark.parametrize("t", TYPES)
@pytest.mark.parametrize("shape", [(8,), (4, 8), (2, 2, 4)])
def test_interleave(t, shape):
    n = int(np.prod(shape))
    out_shape = shape[:-1] + (2 * shape[-1],)
    (a, b), out = run_op(t, [shape, shape], out_shape, "tl.interleave(a, b)", n - 1, 2 * n - 3)
    check(out, np.stack([a, b], -1).reshape(out_shape), 2 * n - 3)


CAT_CASES = [((8,), 0), ((4, 8), 0), ((4, 8), 1), ((4, 8), -1), ((2, 2, 4), 0), ((2, 2, 4), 1), ((2, 2, 4), 2)]


@pytest.mark.parametrize("t", TYPES)
@pytest.mark.parametrize("shape,dim", CAT_CASES)
def test_cat(t, shape, dim):
    out_shape = list(shape)
    out_shape[dim] *= 2
    n = int(np.prod(shape))
    (a, b), out = run_op(t, [shape, shape], tuple(out_shape), f"tl.cat(a, b, dim={dim})", n - 2, 2 * n - 1)
    check(out, np.concatenate([a, b], dim), 2 * n - 1)


def test_cat_can_reorder_keeps_the_order():
    (a, b), out = run_op("int32", [(16,), (16,)], (32,), "tl.cat(a, b, can_reorder=True)", 16, 32)
    check(out, np.concatenate([a, b]), 32)


FLIP_CASES = [((8,), None), ((8,), 0), ((4, 8), None), ((4, 8), 0), ((4, 8), -2), ((2, 4, 8), 0),
              ((2, 4, 8), 1), ((2, 4, 8), 2), ((4, 1, 2), 1)]


@pytest.mark.parametrize("t", TYPES)
@pytest.mark.parametrize("shape,dim", FLIP_CASES)
def test_flip(t, shape, dim):
    n = int(np.prod(shape))
    expr = "tl.flip(a)" if dim is None else f"tl.flip(a, {dim})"
    (a,), out = run_op(t, [shape], shape, expr, n - 3, n - 2)
    check(out, np.flip(a, len(shape) - 1 if dim is None else dim), n - 2)


def test_flip_method_and_flip_twice():
    (a,), out = run_op("int32", [(4, 8)], (4, 8), "a.flip(0).flip()", 32, 32)
    check(out, a[::-1, ::-1], 32)


def swizzle_ref(i, j, size_i, size_j, size_g):
    """Triton's documented swizzle2d formula, on int64 numpy arrays (operands are non-negative)."""
    ij = i * size_j + j
    size_gj = size_g * size_j
    off_i = ij // size_gj * size_g
    rows = np.minimum(size_i - off_i, size_g)
    ij = ij % size_gj
    return off_i + ij % rows, ij // rows


SWIZZLE = '''
@triton.jit
def k(Y, S, SI, SJ, SG):
    r = tl.arange(0, 8)[:, None]
    c = tl.arange(0, 16)[None, :]
    i, j = tl.swizzle2d(r, c, SI, SJ, SG)
    tl.store(Y + r * 16 + c, i * 1000 + j)
    si, sj = tl.swizzle2d(tl.program_id(0), 5, SI, SJ, SG)
    tl.store(S, si)
    tl.store(S + 1, sj)
'''


@pytest.mark.parametrize("t", ["int32", "int64"])
@pytest.mark.parametrize("si,sj,sg", [(8, 16, 3), (8, 16, 2), (6, 16, 4), (5, 16, 4)])
def test_swizzle2d_blocks_and_scalars(t, si, sj, sg):
    sig = f"*{DTYPES[t][0]},*{DTYPES[t][0]},{DTYPES[t][0]},{DTYPES[t][0]},{DTYPES[t][0]}"
    np_t = DTYPES[t][1]
    args = dict(Y=np.zeros(128, np_t), S=np.zeros(2, np_t), SI=np.array(si, np_t), SJ=np.array(sj, np_t),
                SG=np.array(sg, np_t))
    res = launch(SWIZZLE, sig, args, grid=(1,)).outputs
    i, j = swizzle_ref(np.arange(8)[:, None], np.arange(16)[None, :], si, sj, sg)
    np.testing.assert_array_equal(res["Y"].reshape(8, 16), i * 1000 + j)
    np.testing.assert_array_equal(res["S"], swizzle_ref(0, 5, si, sj, sg))


def test_swizzle2d_docstring_example():
    src = '''
@triton.jit
def k(Y):
    r = tl.arange(0, 4)[:, None]
    c = tl.arange(0, 4)[None, :]
    i, j = tl.swizzle2d(r, c, 4, 4, 2)
    tl.store(Y + i * 4 + j, r * 4 + c)  # the picture shows where each index goes
'''
    y = launch(src, "*i32", {"Y": np.zeros(16, np.int32)}).outputs["Y"]
    np.testing.assert_array_equal(y.reshape(4, 4), [[0, 2, 4, 6], [1, 3, 5, 7], [8, 10, 12, 14], [9, 11, 13, 15]])


SOFTMAX_CASES = [((16,), "None"), ((4, 8), "None"), ((4, 8), "1"), ((4, 8), "-1"), ((2, 4, 8), "2"),
                 ((2, 4, 8), "1")]


@pytest.mark.parametrize("t", ["float32", "float16"])
@pytest.mark.parametrize("shape,dim", SOFTMAX_CASES)
def test_softmax(t, shape, dim):
    n = int(np.prod(shape))
    offs_s = offs(shape)
    src = (f"@triton.jit\ndef k(X, Y, N):\n    o = {offs_s}\n"
           f"    x = tl.load(X + o, mask=o < N, other=float('-inf'))\n"
           f"    tl.store(Y + o, tl.softmax(x, {dim}) if {dim == '1'} else x.softmax({dim}), mask=o < N)\n")
    x = data(t, n, 4) * 3
    nvalid = n - 3
    y = launch(src, f"*{DTYPES[t][0]},*fp32,i32",
               {"X": x, "Y": np.full(n, 99, np.float32), "N": np.array(nvalid, np.int32)}).outputs["Y"]
    xs = np.where(np.arange(n) < nvalid, x.astype(np.float64), -np.inf).reshape(shape)
    d = 0 if dim == "None" else int(dim)
    e = np.exp(xs - xs.max(d, keepdims=True))
    want = (e / e.sum(d, keepdims=True)).reshape(-1)
    want = np.where(np.arange(n) < nvalid, want, 99)
    ok = np.isfinite(want)  # a slice that is all -inf is NaN in both
    np.testing.assert_allclose(y[ok], want[ok], rtol=2e-6, atol=1e-7)
    assert np.isnan(y[~ok]).all()


# --------------------------------------------------------------------------- errors

ERRORS = [
    ("a = tl.split(x)", "tl.split needs a block whose last dimension is 2, got shape [4, 8]", "tl.split(x)"),
    ("a = tl.cat(x, tl.reshape(x, (8, 4)))", "tl.cat needs blocks of the same shape, got [4, 8] and [8, 4]",
     "tl.cat(x, tl.reshape(x, (8, 4)))"),
    ("a = tl.cat(x, x, dim=2)", "tl.cat: dim 2 is out of range for a block of rank 2", "tl.cat(x, x, dim=2)"),
    ("a = tl.cat(x, x, can_reorder=True)", "tl.cat(can_reorder=True) needs 1-D blocks, got shapes [4, 8] "
     "and [4, 8]", "tl.cat(x, x, can_reorder=True)"),
    ("a = tl.join(x, x.to(tl.float16))", "tl.join needs operands of one type, got f32 and f16",
     "tl.join(x, x.to(tl.float16))"),
    ("a = tl.join(x, 1.0)", "tl.join needs tensors, got the constant 1.0", "tl.join(x, 1.0)"),
    ("a = tl.join(tl.expand_dims(tl.join(tl.join(x, x), tl.join(x, x)), (0, 1, 2, 3, 4)), tl.expand_dims(tl.join(tl.join(x, x), tl.join(x, x)), (0, 1, 2, 3, 4)))",
     "tl.join: blocks of rank 10 are not supported (at most 9)", "tl.join(tl.expand_dims(tl.join(tl.join(x, x), tl.join(x, x)), (0, 1, 2, 3, 4)), tl.expand_dims(tl.join(tl.join(x, x), tl.join(x, x)), (0, 1, 2, 3, 4)))"),
    ("a = tl.flip(x, 2)", "tl.flip: dim 2 is out of range for a block of rank 2", "tl.flip(x, 2)"),
    ("a = tl.softmax(x.to(tl.int32))", "tl.softmax needs floating-point elements, got i32",
     "tl.softmax(x.to(tl.int32))"),
]


@pytest.mark.parametrize("stmt,message,underlined", ERRORS)
def test_errors_point_at_the_call(tmp_path, stmt, message, underlined):
    assert_error_at_call(tmp_path, stmt, message, underlined)
